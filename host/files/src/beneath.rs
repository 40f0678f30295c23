//! # Opening a path below a directory without following any link
//!
//! Checking a path and opening it afterwards leaves a window: between the
//! two, whoever can write inside an allowed root can swap a folder for a
//! symbolic link to `/etc`, and the open goes wherever the link points. So
//! nothing here is opened by its full path. A [`Beneath`] is a directory
//! opened once; a path below it is opened one component at a time, each
//! relative to the directory opened before it (`openat`), each with
//! `O_NOFOLLOW`: a component that is a link at the moment it is opened
//! fails to open, whatever it was when it was checked. What is opened is
//! then judged by the opened descriptor's own metadata (`fstat`), never by
//! a second lookup of the path. A folder's entries are read from its opened
//! descriptor, and each entry's kind from `fstatat(…, AT_SYMLINK_NOFOLLOW)`
//! relative to it.
//!
//! The per-component walk is used everywhere rather than Linux's `openat2`
//! (`RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH`): it does the same in a few more
//! system calls, works on every Unix (macOS and the BSDs have no `openat2`),
//! and is one code path to get right instead of two, with no fallback to
//! take when a kernel or a seccomp filter refuses the newer call.
//!
//! Elsewhere (Windows) the same interface checks each component's metadata
//! without following links (a link or a hidden or system attribute is
//! refused) and then opens the full path: this narrows the window to the
//! time between those checks and the open, but does not close it.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::Path;

/// What a name below the directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A regular file.
    File,
    /// A directory (never a link to one).
    Dir,
    /// Anything else: a link, a FIFO, a device, a socket, or (on Windows)
    /// a hidden or system entry.
    Other,
}

/// What a path below the directory opened as.
#[derive(Debug)]
pub(crate) enum Opened {
    /// A regular file, open for reading.
    File(File),
    /// A directory.
    Dir,
}

/// The error for a name that cannot be a single component.
fn bad_name(name: &OsStr) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}: not a single name", name.to_string_lossy()),
    )
}

/// Whether `name` is one plain component: not empty, `.` or `..`, and
/// without a separator.
fn plain(name: &OsStr) -> bool {
    let text = name.to_string_lossy();
    !(text.is_empty()
        || text == "."
        || text == ".."
        || text.contains('/')
        || (cfg!(windows) && text.contains('\\')))
}

#[cfg(unix)]
pub(crate) use unix::Beneath;

#[cfg(not(unix))]
pub(crate) use fallback::Beneath;

#[cfg(unix)]
mod unix {
    use super::{Kind, Opened, bad_name, plain};
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use std::ffi::{OsStr, OsString};
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::Arc;

    /// Flags for a folder on the way down: a directory, never a link.
    fn dir_flags() -> OFlags {
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
    }

    /// Flags for the last component: never a link, and never blocking (a
    /// FIFO opens at once instead of waiting for a writer; its kind is
    /// refused right after).
    fn last_flags() -> OFlags {
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
    }

    fn kind_of(mode: rustix::fs::RawMode) -> Kind {
        match FileType::from_raw_mode(mode) {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            _ => Kind::Other,
        }
    }

    /// A directory opened once; paths below it are opened relative to it.
    #[derive(Debug, Clone)]
    pub(crate) struct Beneath {
        dir: Arc<OwnedFd>,
    }

    impl Beneath {
        /// Open the directory `path` (links in `path` itself are followed:
        /// it is the root, named by the user).
        pub(crate) fn root(path: &Path) -> io::Result<Beneath> {
            let dir = rustix::fs::open(
                path,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(Beneath { dir: Arc::new(dir) })
        }

        /// The directory `below` names (every component a directory, none
        /// a link), opened.
        fn open_dir(&self, below: &[OsString]) -> io::Result<OwnedFd> {
            let mut current: Option<OwnedFd> = None;
            for name in below {
                let at: BorrowedFd<'_> = match &current {
                    Some(fd) => fd.as_fd(),
                    None => self.dir.as_fd(),
                };
                if !plain(name) {
                    return Err(bad_name(name));
                }
                current = Some(rustix::fs::openat(
                    at,
                    name.as_os_str(),
                    dir_flags(),
                    Mode::empty(),
                )?);
            }
            match current {
                Some(fd) => Ok(fd),
                // The root itself: a descriptor of its own for reading.
                None => Ok(rustix::fs::openat(
                    self.dir.as_fd(),
                    ".",
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                )?),
            }
        }

        /// Open what `below` names: a regular file (opened for reading) or
        /// a directory; anything else, or a link at any component, is an
        /// error.
        pub(crate) fn open(&self, below: &[OsString]) -> io::Result<Opened> {
            let Some((last, parents)) = below.split_last() else {
                return Ok(Opened::Dir);
            };
            if !plain(last) {
                return Err(bad_name(last));
            }
            let parent = self.open_dir(parents)?;
            let fd = rustix::fs::openat(&parent, last.as_os_str(), last_flags(), Mode::empty())?;
            let stat = rustix::fs::fstat(&fd)?;
            match kind_of(stat.st_mode) {
                Kind::File => Ok(Opened::File(File::from(fd))),
                Kind::Dir => Ok(Opened::Dir),
                Kind::Other => Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "not a regular file or a folder",
                )),
            }
        }

        /// The entries of the directory `below` names (`.` and `..` left
        /// out), each with its kind as it is, links not followed.
        pub(crate) fn entries(&self, below: &[OsString]) -> io::Result<Vec<(OsString, Kind)>> {
            let fd = self.open_dir(below)?;
            let mut entries = Vec::new();
            for entry in rustix::fs::Dir::read_from(&fd)? {
                let entry = entry?;
                let name = OsStr::from_bytes(entry.file_name().to_bytes()).to_os_string();
                if !plain(&name) {
                    continue;
                }
                let kind =
                    match rustix::fs::statat(&fd, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
                        Ok(stat) => kind_of(stat.st_mode),
                        // Gone since it was listed.
                        Err(rustix::io::Errno::NOENT) => continue,
                        Err(error) => return Err(error.into()),
                    };
                entries.push((name, kind));
            }
            Ok(entries)
        }
    }
}

#[cfg(not(unix))]
mod fallback {
    use super::{Kind, Opened, bad_name, plain};
    use std::ffi::OsString;
    use std::fs::{File, Metadata};
    use std::io;
    use std::path::{Path, PathBuf};

    /// Whether an entry's metadata (not followed) is hidden or system on
    /// Windows.
    #[cfg(windows)]
    fn hidden(metadata: &Metadata) -> bool {
        use std::os::windows::fs::MetadataExt;
        const FILE_ATTRIBUTE_HIDDEN: u32 = 0x2;
        const FILE_ATTRIBUTE_SYSTEM: u32 = 0x4;
        metadata.file_attributes() & (FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_SYSTEM) != 0
    }

    #[cfg(not(windows))]
    fn hidden(_metadata: &Metadata) -> bool {
        false
    }

    fn kind_of(metadata: &Metadata) -> Kind {
        let kind = metadata.file_type();
        if kind.is_symlink() || hidden(metadata) {
            Kind::Other
        } else if kind.is_dir() {
            Kind::Dir
        } else if kind.is_file() {
            Kind::File
        } else {
            Kind::Other
        }
    }

    fn refused() -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a link, a hidden entry or not a regular file",
        )
    }

    /// A directory; paths below it are checked component by component
    /// (without following links), then opened.
    #[derive(Debug, Clone)]
    pub(crate) struct Beneath {
        dir: PathBuf,
    }

    impl Beneath {
        /// The directory `path`.
        pub(crate) fn root(path: &Path) -> io::Result<Beneath> {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(refused());
            }
            Ok(Beneath {
                dir: path.to_path_buf(),
            })
        }

        /// The path `below` names, each component checked: the last one's
        /// kind.
        fn checked(&self, below: &[OsString]) -> io::Result<(PathBuf, Kind)> {
            let mut path = self.dir.clone();
            let mut kind = Kind::Dir;
            for name in below {
                if kind != Kind::Dir {
                    return Err(refused());
                }
                if !plain(name) {
                    return Err(bad_name(name));
                }
                path.push(name);
                kind = kind_of(&std::fs::symlink_metadata(&path)?);
            }
            Ok((path, kind))
        }

        /// Open what `below` names: a regular file or a directory.
        pub(crate) fn open(&self, below: &[OsString]) -> io::Result<Opened> {
            match self.checked(below)? {
                (_, Kind::Dir) => Ok(Opened::Dir),
                (path, Kind::File) => {
                    let file = File::open(&path)?;
                    if !file.metadata()?.is_file() {
                        return Err(refused());
                    }
                    Ok(Opened::File(file))
                }
                (_, Kind::Other) => Err(refused()),
            }
        }

        /// The entries of the directory `below` names, each with its kind.
        pub(crate) fn entries(&self, below: &[OsString]) -> io::Result<Vec<(OsString, Kind)>> {
            let (path, kind) = self.checked(below)?;
            if kind != Kind::Dir {
                return Err(refused());
            }
            let mut entries = Vec::new();
            for entry in std::fs::read_dir(&path)? {
                let entry = entry?;
                let kind = match entry.metadata() {
                    Ok(metadata) => kind_of(&metadata),
                    Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
                    Err(error) => return Err(error),
                };
                entries.push((entry.file_name(), kind));
            }
            Ok(entries)
        }
    }
}

/// `below`'s components joined under `root`, for messages and for the
/// paths handed back.
pub(crate) fn joined(root: &Path, below: &[OsString]) -> std::path::PathBuf {
    let mut path = root.to_path_buf();
    path.extend(below);
    path
}
