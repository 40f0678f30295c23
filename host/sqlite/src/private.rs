//! # Owner-only permissions for the data directory
//!
//! The minds hold everything an agent remembered, so on Unix the data
//! directory is readable by its owner only: the directory and its folders
//! `0700`, the minds, their `-wal`, `-shm` and `-journal` files and every
//! other file in it `0600`.
//!
//! * **At creation**, whatever the process umask: folders are made with
//!   mode `0700` ([`create_private_dir`]), and a new mind's file is created
//!   empty with mode `0600` before SQLite opens it (an empty file is an
//!   empty database). SQLite gives a database's `-wal` and `-shm` files the
//!   database file's own permission bits, so they follow at `0600`.
//! * **On open**, what an older version or another tool left readable is
//!   tightened: [`secure_data_dir`] (run when an engine opens the data
//!   directory) goes through the directory, its entries and the entries of
//!   its folders (`workspaces/`, `server/`), and every connection
//!   tightens its mind's file and journals ([`tighten_database`]). Only
//!   the group and other bits are removed; links are left alone. What was
//!   changed is returned and said once, in one warning line on stderr
//!   (through `tracing`): after that there is nothing left to tighten.
//!   Tightening is best effort: what cannot be changed (another user's
//!   file, a read-only file system) is warned about and left, so such a
//!   directory still opens as it did.
//!
//! Elsewhere (Windows) files inherit their folder's access list: nothing
//! here changes anything there.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The mode of the data directory and its folders.
pub const DIR_MODE: u32 = 0o700;

/// The mode of the minds and every other file in the data directory.
pub const FILE_MODE: u32 = 0o600;

/// One permission tightened on an existing file or folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tightened {
    /// The file or folder.
    pub path: PathBuf,
    /// Its permission bits before.
    pub from: u32,
    /// Its permission bits now.
    pub to: u32,
}

impl fmt::Display for Tightened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({:04o} -> {:04o})",
            self.path.display(),
            self.from,
            self.to
        )
    }
}

/// Say what was tightened, in one warning line; nothing when nothing was.
pub fn report(tightened: &[Tightened]) {
    if tightened.is_empty() {
        return;
    }
    let list: Vec<String> = tightened.iter().map(Tightened::to_string).collect();
    tracing::warn!(
        "tightened permissions that let other local users read the memories: {}",
        list.join(", ")
    );
}

/// Create `dir` and its missing parents with mode `0700` (the umask can
/// only remove bits, so the new folder itself is set to `0700` after).
/// An existing folder is left as it is.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(DIR_MODE)
            .create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(DIR_MODE))
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

/// Create the empty file `path` with mode `0600` unless something is
/// there already (another connection may have just made it).
pub fn create_private_file(path: &Path) -> io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(FILE_MODE);
    }
    match options.open(path) {
        Ok(file) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE))?;
            }
            drop(file);
            Ok(())
        }
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(error),
    }
}

/// Remove the group and other bits of `path` (a regular file or a folder,
/// never followed if it is a link); what changed, if anything. A path
/// that does not exist is nothing to tighten.
#[cfg(unix)]
fn tighten(path: &Path) -> io::Result<Option<Tightened>> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    let kind = metadata.file_type();
    if !(kind.is_file() || kind.is_dir()) {
        return Ok(None);
    }
    let from = metadata.permissions().mode() & 0o7777;
    let to = from & !0o077;
    if from == to {
        return Ok(None);
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(to))?;
    Ok(Some(Tightened {
        path: path.to_path_buf(),
        from,
        to,
    }))
}

#[cfg(not(unix))]
fn tighten(_path: &Path) -> io::Result<Option<Tightened>> {
    Ok(None)
}

/// Tighten `path`, keeping what changed in `tightened`; a failure (a file
/// of another user, a read-only file system) is warned about and skipped,
/// so a directory that cannot be tightened still opens as before.
fn tighten_into(path: &Path, tightened: &mut Vec<Tightened>) {
    match tighten(path) {
        Ok(changed) => tightened.extend(changed),
        Err(error) => tracing::warn!(
            "{}: could not be made readable by its owner only: {error}",
            path.display()
        ),
    }
}

/// Create the data directory `dir` (mode `0700`) if missing, and tighten
/// the directory, its entries and its folders' entries (see the module
/// docs); what was tightened. Only creating or listing the directory can
/// fail.
pub fn secure_data_dir(dir: &Path) -> io::Result<Vec<Tightened>> {
    create_private_dir(dir)?;
    let mut tightened = Vec::new();
    tighten_into(dir, &mut tightened);
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        tighten_into(&path, &mut tightened);
        if entry.file_type()?.is_dir() {
            for inner in std::fs::read_dir(&path)? {
                tighten_into(&inner?.path(), &mut tightened);
            }
        }
    }
    Ok(tightened)
}

/// Tighten a mind's file and its `-wal`, `-shm` and `-journal` files,
/// those that exist; what was tightened (a failure is warned about and
/// skipped, as in [`secure_data_dir`]).
pub fn tighten_database(path: &Path) -> Vec<Tightened> {
    let mut tightened = Vec::new();
    tighten_into(path, &mut tightened);
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut journal = path.as_os_str().to_owned();
        journal.push(suffix);
        tighten_into(Path::new(&journal), &mut tightened);
    }
    tightened
}
