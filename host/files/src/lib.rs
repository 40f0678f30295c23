//! # Which files an agent may have read, and how they are read
//!
//! A person at the command line names files freely (`hive-mind import`).
//! An agent over MCP does not: whatever it imports is stored, sent to the
//! configured language model and recalled into later prompts, so a path it
//! passes (`harvest_import`'s `path`, `ingest_source`'s `source`) is read
//! only when [`AllowedRoots::resolve`] allows it:
//!
//! 1. the path is canonicalized first (symlinks resolved, `..` gone), so
//!    every check below sees where the bytes really are;
//! 2. it lies under one of the allowed roots: the folders the MCP client
//!    declared (`roots/list`, the folders its user opened) and those listed
//!    in `[mcp] import_roots` in `config.toml`. With no root at all, no
//!    file is read (inline `data` and URLs still work);
//! 3. never under [`DENIED_TREES`] (`/proc`, `/sys`, `/dev`, `/run`: process
//!    memory and environments, devices, sockets and mounted secrets), even
//!    when a root contains them;
//! 4. no component below the root is hidden: a name starting with `.`
//!    (`.ssh`, `.env`, `.git`), and on Windows a file or folder with the
//!    hidden or system attribute;
//! 5. only regular files: a FIFO, a device or a socket is refused. The file
//!    is opened with `O_NONBLOCK` (so opening a FIFO cannot block) and
//!    `O_NOFOLLOW`, and the check is made on the opened file's metadata.
//!
//! Every refusal has one message ([`FileAccessError::NotAllowed`]): it never
//! says whether the file exists or what it holds.
//!
//! Reads are capped by the bytes actually read ([`read_capped`]: a file's
//! reported length is 0 for `/dev/zero` and most of `/proc`), and folders
//! are walked without following symbolic links, skipping hidden entries and
//! [`DENIED_TREES`]. These functions block; async callers run them on a
//! blocking thread.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Trees never read over MCP, even under an allowed root.
pub const DENIED_TREES: [&str; 4] = ["/proc", "/sys", "/dev", "/run"];

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum FileAccessError {
    /// The path is outside the allowed roots, missing, hidden, under a
    /// denied tree, or not a regular file; which of these is not said.
    #[error("{path}: not allowed ({rule})")]
    NotAllowed {
        /// The path as given.
        path: String,
        /// The rule, the same for every refusal.
        rule: String,
    },
    /// No root is allowed at all.
    #[error(
        "reading files over MCP is not allowed: no folder is allowed. Pass the content as `data` or an http(s) `url`, or allow a folder: open it in your MCP client (its roots), or list it in `[mcp] import_roots` in {config}"
    )]
    NoRoots {
        /// The `config.toml` to edit.
        config: String,
    },
    /// The file is larger than the cap.
    #[error("{path}: more than the {limit} bytes an import reads; split it")]
    TooLarge {
        /// The file.
        path: String,
        /// The cap, in bytes.
        limit: u64,
    },
    /// An allowed file could not be read.
    #[error("{path}: could not be read: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A folder holds more files than an import reads.
    #[error("{path}: more than {limit} files; import its subfolders one by one")]
    TooManyFiles {
        /// The folder.
        path: String,
        /// The cap.
        limit: usize,
    },
}

/// The roots an agent's paths must lie under, canonicalized.
#[derive(Debug, Clone, Default)]
pub struct AllowedRoots {
    roots: Vec<PathBuf>,
    /// The `config.toml` named in refusals.
    config: PathBuf,
}

impl AllowedRoots {
    /// The roots among `candidates` that exist (each canonicalized; a
    /// missing one is left out). `config` is the file refusals point to.
    pub fn new(candidates: impl IntoIterator<Item = PathBuf>, config: &Path) -> AllowedRoots {
        let mut roots: Vec<PathBuf> = candidates
            .into_iter()
            .filter_map(|root| std::fs::canonicalize(root).ok())
            .collect();
        roots.sort();
        roots.dedup();
        AllowedRoots {
            roots,
            config: config.to_path_buf(),
        }
    }

    /// The canonical roots.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn not_allowed(&self, path: &str) -> FileAccessError {
        let roots: Vec<String> = self
            .roots
            .iter()
            .map(|root| root.display().to_string())
            .collect();
        FileAccessError::NotAllowed {
            path: path.to_string(),
            rule: format!(
                "an agent imports only regular, non-hidden files under the allowed roots: {}; never under {}. Allow another folder by opening it in your MCP client or listing it in `[mcp] import_roots` in {}",
                roots.join(", "),
                DENIED_TREES.join(", "),
                self.config.display()
            ),
        }
    }

    /// The root `canonical` lies under, with no hidden component below it
    /// and outside the denied trees.
    fn admits(&self, canonical: &Path) -> bool {
        if DENIED_TREES
            .iter()
            .any(|tree| canonical.starts_with(Path::new(tree)))
        {
            return false;
        }
        self.roots.iter().any(|root| {
            canonical.strip_prefix(root).is_ok_and(|below| {
                !below
                    .components()
                    .any(|component| component.as_os_str().to_string_lossy().starts_with('.'))
                    && !hidden_by_attribute(root, below)
            })
        })
    }

    /// The files an agent's `path` names: the file, or a folder's files
    /// (recursively, sorted, at most `max_files`), each canonical and
    /// admitted. Nothing is read yet.
    pub fn resolve(&self, path: &str, max_files: usize) -> Result<Vec<PathBuf>, FileAccessError> {
        if self.roots.is_empty() {
            return Err(FileAccessError::NoRoots {
                config: self.config.display().to_string(),
            });
        }
        let path = path.trim();
        let canonical = std::fs::canonicalize(path).map_err(|_| self.not_allowed(path))?;
        if !self.admits(&canonical) {
            return Err(self.not_allowed(path));
        }
        let metadata = std::fs::metadata(&canonical).map_err(|_| self.not_allowed(path))?;
        if metadata.is_dir() {
            let files = walk(&canonical, max_files, &|entry| self.admits(entry))?;
            if files.is_empty() {
                return Err(self.not_allowed(path));
            }
            return Ok(files);
        }
        if !metadata.is_file() {
            return Err(self.not_allowed(path));
        }
        Ok(vec![canonical])
    }

    /// Read one file [`AllowedRoots::resolve`] returned: opened without
    /// blocking or following a link, refused unless it is (still) a regular
    /// file, at most `limit` bytes.
    pub fn read(&self, file: &Path, limit: u64) -> Result<Vec<u8>, FileAccessError> {
        let shown = file.display().to_string();
        let opened = open_no_block(file).map_err(|_| self.not_allowed(&shown))?;
        let metadata = opened.metadata().map_err(|_| self.not_allowed(&shown))?;
        if !metadata.is_file() {
            return Err(self.not_allowed(&shown));
        }
        read_capped(opened, file, limit)
    }
}

/// Open for reading; on unix with `O_NONBLOCK` (a FIFO opens at once
/// instead of waiting for a writer) and `O_NOFOLLOW` (a file swapped for a
/// link after the checks is refused).
fn open_no_block(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// Read at most `limit` bytes from `reader` (counting what is read, never
/// trusting a reported length); more is [`FileAccessError::TooLarge`].
pub fn read_capped(reader: impl Read, path: &Path, limit: u64) -> Result<Vec<u8>, FileAccessError> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| FileAccessError::Read {
            path: path.display().to_string(),
            source,
        })?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > limit {
        return Err(FileAccessError::TooLarge {
            path: path.display().to_string(),
            limit,
        });
    }
    Ok(bytes)
}

/// The regular files under `dir`, sorted: links are not followed, hidden
/// entries (a leading `.`) and entries `keep` refuses are skipped; more
/// than `max_files` is an error.
pub fn walk(
    dir: &Path,
    max_files: usize,
    keep: &dyn Fn(&Path) -> bool,
) -> Result<Vec<PathBuf>, FileAccessError> {
    let read_error = |path: &Path| {
        let path = path.display().to_string();
        move |source| FileAccessError::Read { path, source }
    };
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).map_err(read_error(&next))? {
            let entry = entry.map_err(read_error(&next))?;
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') || !keep(&path) {
                continue;
            }
            let kind = entry.file_type().map_err(read_error(&path))?;
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                files.push(path);
                if files.len() > max_files {
                    return Err(FileAccessError::TooManyFiles {
                        path: dir.display().to_string(),
                        limit: max_files,
                    });
                }
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Whether a component of `below` (a path under `root`) has Windows'
/// hidden or system attribute.
#[cfg(windows)]
fn hidden_by_attribute(root: &Path, below: &Path) -> bool {
    use std::os::windows::fs::MetadataExt;
    const FILE_ATTRIBUTE_HIDDEN: u32 = 0x2;
    const FILE_ATTRIBUTE_SYSTEM: u32 = 0x4;
    let mut path = root.to_path_buf();
    below.components().any(|component| {
        path.push(component);
        // Unreadable attributes count as hidden: refuse rather than guess.
        match std::fs::symlink_metadata(&path) {
            Ok(metadata) => {
                metadata.file_attributes() & (FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_SYSTEM) != 0
            }
            Err(_) => true,
        }
    })
}

/// Whether a component of `below` is hidden by an attribute: only Windows
/// has one (elsewhere a leading `.` is the convention, checked apart).
#[cfg(not(windows))]
fn hidden_by_attribute(_root: &Path, _below: &Path) -> bool {
    false
}

/// A `file://` URI (an MCP root) as a path; `None` for another scheme or a
/// remote host.
pub fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let decoded = percent_decode(rest)?;
    // `file:///C:/Users/…` names `C:/Users/…` on Windows.
    #[cfg(windows)]
    let decoded = {
        let bytes = decoded.as_bytes();
        let drive = bytes.first() == Some(&b'/')
            && bytes.get(1).is_some_and(u8::is_ascii_alphabetic)
            && bytes.get(2) == Some(&b':');
        if drive {
            decoded.get(1..).unwrap_or_default().to_string()
        } else {
            decoded
        }
    };
    Some(PathBuf::from(decoded))
}

/// `%XX` escapes decoded; `None` when malformed or not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.bytes();
    while let Some(byte) = rest.next() {
        if byte == b'%' {
            let high = char::from(rest.next()?).to_digit(16)?;
            let low = char::from(rest.next()?).to_digit(16)?;
            bytes.push(u8::try_from(high * 16 + low).ok()?);
        } else {
            bytes.push(byte);
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/ana/My%20Notes"),
            Some(PathBuf::from("/home/ana/My Notes"))
        );
        assert_eq!(
            file_uri_path("file://localhost/srv/x"),
            Some(PathBuf::from("/srv/x"))
        );
        assert_eq!(file_uri_path("https://example.com/x"), None);
        assert_eq!(file_uri_path("file://otherhost/x"), None);
        assert_eq!(file_uri_path("file:///bad%zz"), None);
    }

    #[test]
    fn reads_are_capped_by_what_is_read() {
        let five: &[u8] = b"12345";
        assert_eq!(read_capped(five, Path::new("x"), 5).unwrap(), b"12345");
        let error = read_capped(five, Path::new("x"), 4).unwrap_err();
        assert!(matches!(error, FileAccessError::TooLarge { limit: 4, .. }));
        // An endless reader (what /dev/zero is) stops at the cap.
        let error = read_capped(std::io::repeat(0), Path::new("zero"), 1000).unwrap_err();
        assert!(matches!(error, FileAccessError::TooLarge { .. }));
    }

    #[test]
    fn hidden_components_below_a_root_are_refused() {
        let dir = tempfile::Builder::new().prefix("roots").tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".secret")).unwrap();
        std::fs::write(dir.path().join(".secret/key.txt"), "k").unwrap();
        std::fs::write(dir.path().join("notes.md"), "# notes").unwrap();
        let roots = AllowedRoots::new([dir.path().to_path_buf()], Path::new("config.toml"));
        let notes = dir.path().join("notes.md");
        assert_eq!(
            roots
                .resolve(&notes.display().to_string(), 10)
                .unwrap()
                .len(),
            1
        );
        let key = dir.path().join(".secret/key.txt").display().to_string();
        assert!(matches!(
            roots.resolve(&key, 10),
            Err(FileAccessError::NotAllowed { .. })
        ));
        // The folder's walk skips the hidden folder.
        let all = roots
            .resolve(&dir.path().display().to_string(), 10)
            .unwrap();
        assert_eq!(all.len(), 1);
    }
}
