//! Debian's Chromium and ChromeDriver, for the memory browser's test
//! (`tests/browser.rs`, driven over WebDriver).
//!
//! `cargo xtask test` installs the two packages with `apt-get` while cargo
//! builds, when they are missing and the task runs as root on a Debian
//! machine, then tells the test to require them
//! (`HIVE_MIND_REQUIRE_BROWSER=1`). Elsewhere the test is skipped with a
//! note; under CI (`CI` set) a browser that cannot be installed is an
//! error, so the page is never left untested there.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result, bail};

/// Where Debian's packages put them (the test looks there).
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

fn installed() -> bool {
    Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A browser install under way, or none needed (or possible).
pub struct Install(Option<Child>);

/// Start installing the packages when they are missing.
pub fn start_install() -> Result<Install> {
    if installed() {
        return Ok(Install(None));
    }
    let apt = Path::new("/usr/bin/apt-get").exists();
    if !apt || !is_root() {
        let why = "Chromium and ChromeDriver are missing and cannot be installed here (apt-get as root): the browser test is skipped";
        if std::env::var_os("CI").is_some() {
            bail!("{why}");
        }
        eprintln!("xtask: {why}");
        return Ok(Install(None));
    }
    eprintln!("xtask: installing Debian's chromium and chromium-driver for the browser test");
    let packages = "apt-get install -y -q --no-install-recommends chromium chromium-driver";
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("{packages} || (apt-get update -q && {packages})"))
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdout(Stdio::null())
        .spawn()
        .context("could not run apt-get")?;
    Ok(Install(Some(child)))
}

impl Install {
    /// Wait for it; whether the browser is there.
    pub fn finish(self) -> Result<bool> {
        if let Some(mut child) = self.0 {
            let status = child.wait().context("could not wait for apt-get")?;
            if !status.success() {
                bail!("installing chromium and chromium-driver failed ({status})");
            }
        }
        Ok(installed())
    }
}
