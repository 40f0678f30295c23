//! `cargo xtask dist`: the packages a person installs without this
//! repository or a Rust toolchain, built into `target/dist/`, and the check
//! that each installs into a clean place and runs its quick start.
//!
//! - **The Python host**: the wheel `hive-mind-engine` (`hosts/python`,
//!   with the engine component inside: `hive_mind/components/`) and its
//!   companion `hive-mind-engine-models` (the model folders of `models/`,
//!   each with its provenance, licence and checksums). The name
//!   `hive-mind` is taken on PyPI (it is compared with `hivemind` there);
//!   `hive-mind-engine` was free when checked (`pip index versions
//!   hive-mind-engine`: no such project). Each is built from a staging copy
//!   in `target/dist/stage/`, so the source tree never holds build output.
//! - **The JavaScript host**: the npm tarballs `hive-mind-engine` (`hosts/js`,
//!   with the component inside: `components/`) and `hive-mind-engine-models`
//!   (`hosts/js/models-package`, the same model folders); `npm view
//!   hive-mind-engine` found no such package. Marked private: publishing is
//!   a decision of its own.
//! - **The CLI**: `hive-mind-<version>-<target>.tar.gz`: `bin/hive-mind`
//!   (the engine component is compiled into it), `models/` with the model
//!   folders the CLI finds beside its `bin/`, the licence and the README.
//!
//! `cargo xtask dist` builds the release host first; `--check` installs
//! each package into a clean place: the wheels into a fresh virtual
//! environment (their dependencies from PyPI), the tarballs into an empty
//! npm project (theirs from the npm registry), the archive unpacked into an
//! empty folder, each then saving and recalling a memory in a data
//! directory of its own with none of the repository's environment.
//! `cargo xtask test` builds the same packages from its debug build and
//! checks them the same way.
//!
//! better-sqlite3 installs a prebuilt native addon when it can download one
//! (from GitHub, which these machines cannot reach) and else compiles
//! SQLite from source, a minute of one core. When the JavaScript host's
//! own `npm ci` has compiled it (`hosts/js/node_modules`, the same pinned
//! version and this machine's Node), the check hands that addon to the
//! clean install as a local prebuild ([`better_sqlite3_prebuild`]), the way
//! a user's install gets the published one; without it the install
//! compiles.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

/// The model folders shipped (the injection detector and the change judge
/// are compiled into the engine).
const SHIPPED_MODELS: [&str; 3] = [
    "bge-small-en-v1.5",
    "all-MiniLM-L6-v2",
    "ms-marco-MiniLM-L-12-v2",
];

/// The packages built.
#[derive(Debug)]
pub struct Packages {
    /// The Python host's wheel.
    pub wheel: PathBuf,
    /// The models' wheel.
    pub models_wheel: PathBuf,
    /// The CLI archive.
    pub archive: PathBuf,
    /// The JavaScript host's npm tarball.
    pub npm: PathBuf,
    /// The models' npm tarball.
    pub npm_models: PathBuf,
}

/// Build every package from the build in `target/<profile>` (the host
/// binary and the guest components it embeds must be built already).
pub fn build(root: &Path, target: &Path, profile: &str) -> Result<Packages> {
    let started = Instant::now();
    let out = target.join("dist");
    let stage = out.join("stage");
    if stage.exists() {
        std::fs::remove_dir_all(&stage)
            .with_context(|| format!("could not clear {}", stage.display()))?;
    }
    std::fs::create_dir_all(&stage)?;
    let component = crate::component_path(target);
    if !component.is_file() {
        bail!(
            "{} is missing: build the host first (`cargo build -p hive-mind-host`)",
            component.display()
        );
    }
    let python = root.join("hosts").join("python");

    // The host's wheel: its sources and the component.
    let host_stage = stage.join("hive-mind-engine");
    copy_tree(
        &python.join("src").join("hive_mind"),
        &host_stage.join("src").join("hive_mind"),
    )?;
    for file in ["pyproject.toml", "README.md"] {
        copy(&python.join(file), &host_stage.join(file))?;
    }
    copy(&root.join("LICENSE"), &host_stage.join("LICENSE"))?;
    copy(
        &component,
        &host_stage
            .join("src")
            .join("hive_mind")
            .join("components")
            .join("hive_mind_engine_component.wasm"),
    )?;
    let wheel = build_wheel(root, &host_stage, &out, "hive_mind_engine-")?;

    // The models' wheel.
    let models_stage = stage.join("hive-mind-engine-models");
    copy_tree(&python.join("models-package"), &models_stage)?;
    copy_models(root, &models_stage.join("src").join("hive_mind_models"))?;
    let models_wheel = build_wheel(root, &models_stage, &out, "hive_mind_engine_models-")?;

    // The JavaScript host's tarballs: its sources and the component; the
    // models.
    let js = root.join("hosts").join("js");
    let js_stage = stage.join("hive-mind-engine-js");
    copy_tree(&js.join("src"), &js_stage.join("src"))?;
    for file in ["package.json", "README.md"] {
        copy(&js.join(file), &js_stage.join(file))?;
    }
    copy(&root.join("LICENSE"), &js_stage.join("LICENSE"))?;
    copy(
        &component,
        &js_stage
            .join("components")
            .join("hive_mind_engine_component.wasm"),
    )?;
    let npm = npm_pack(&js_stage, &out, "hive-mind-engine-0")?;
    let js_models_stage = stage.join("hive-mind-engine-models-js");
    copy_tree(&js.join("models-package"), &js_models_stage)?;
    copy_models(root, &js_models_stage)?;
    let npm_models = npm_pack(&js_models_stage, &out, "hive-mind-engine-models-0")?;

    // The CLI archive.
    let name = format!("hive-mind-{}-{}", version(root)?, host_triple()?);
    let archive_stage = stage.join(&name);
    let binary = target.join(profile).join("hive-mind");
    copy(&binary, &archive_stage.join("bin").join("hive-mind"))?;
    copy_models(root, &archive_stage.join("models"))?;
    copy(
        &root.join("models").join("README.md"),
        &archive_stage.join("models").join("README.md"),
    )?;
    copy(&root.join("LICENSE"), &archive_stage.join("LICENSE"))?;
    copy(&root.join("README.md"), &archive_stage.join("README.md"))?;
    let archive = out.join(format!("{name}.tar.gz"));
    // The fastest gzip: the models are incompressible, and the binary
    // shrinks nearly as much as at the default level.
    let status = Command::new("tar")
        .args(["-I", "gzip -1", "-cf"])
        .arg(&archive)
        .arg("-C")
        .arg(&stage)
        .arg(&name)
        .status()
        .context("could not run tar")?;
    if !status.success() {
        bail!("tar could not write {} ({status})", archive.display());
    }
    crate::report_time("the packages", started);
    for package in [&wheel, &models_wheel, &archive, &npm, &npm_models] {
        let size = std::fs::metadata(package)?.len();
        println!("xtask: {} ({:.1} MB)", package.display(), size as f64 / 1e6);
    }
    Ok(Packages {
        wheel,
        models_wheel,
        archive,
        npm,
        npm_models,
    })
}

/// The installs [`start_installs`] set going.
struct Installs {
    place: PathBuf,
    venv: PathBuf,
    project: PathBuf,
    python: std::process::Child,
    npm: std::process::Child,
    started: Instant,
}

/// Install each package into a clean place and run its quick start (see
/// the module docs). `python` makes the virtual environment; `cache` is
/// the compile cache the tests filled (the install is clean, the compiled
/// component is only a cache).
pub fn check(root: &Path, packages: &Packages, python: &Path, cache: &str) -> Result<()> {
    let installs = start_installs(root, packages, python)?;
    finish_check(packages, installs, cache)
}

/// The better-sqlite3 addon the JavaScript host's `npm ci` compiled, packed
/// into `place/prebuilds/` under the name prebuild-install looks for
/// (`better-sqlite3-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`,
/// holding `build/Release/better_sqlite3.node`): the folder, or None when
/// there is no such build.
fn better_sqlite3_prebuild(root: &Path, place: &Path) -> Result<Option<PathBuf>> {
    let package = root
        .join("hosts")
        .join("js")
        .join("node_modules")
        .join("better-sqlite3");
    let addon = Path::new("build")
        .join("Release")
        .join("better_sqlite3.node");
    if !package.join(&addon).is_file() {
        return Ok(None);
    }
    let output = Command::new("node")
        .arg("-p")
        .arg(
            "`better-sqlite3-v${require(process.argv[1]).version}-node-v${process.versions.modules}\
             -${process.platform}-${process.arch}.tar.gz`",
        )
        .arg(package.join("package.json"))
        .output()
        .context("could not run node")?;
    if !output.status.success() {
        bail!(
            "node could not read better-sqlite3's version ({})",
            output.status
        );
    }
    let name = String::from_utf8(output.stdout)?.trim().to_string();
    let folder = place.join("prebuilds");
    std::fs::create_dir_all(&folder)?;
    run(
        Command::new("tar")
            .arg("-czf")
            .arg(folder.join(&name))
            .arg("-C")
            .arg(&package)
            .arg(&addon),
        "tar -c of better-sqlite3's addon",
    )?;
    Ok(Some(folder))
}

/// Start installing the wheels into a fresh virtual environment and the
/// npm tarballs into an empty project, in the background (mostly
/// downloads, and better-sqlite3's compile): [`finish_check`] waits for
/// them and runs the quick starts.
fn start_installs(root: &Path, packages: &Packages, python: &Path) -> Result<Installs> {
    let place = tempdir("hive-mind-dist-check")?;
    let venv = place.join("venv");
    let python_install = Command::new("bash")
        .arg("-c")
        .arg(
            "set -e; \"$1\" -m venv \"$2\"; \"$2/bin/python\" -m pip install --quiet \
             --disable-pip-version-check \"$3\" \"$4\"",
        )
        .arg("install")
        .arg(python)
        .arg(&venv)
        .arg(&packages.wheel)
        .arg(&packages.models_wheel)
        .spawn()
        .context("could not start installing the wheels")?;
    let project = place.join("js");
    std::fs::create_dir_all(&project)?;
    std::fs::write(
        project.join("package.json"),
        "{\"name\": \"quick-start\", \"private\": true, \"type\": \"module\"}\n",
    )?;
    let mut npm = Command::new("npm");
    npm.args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
        .arg(&packages.npm)
        .arg(&packages.npm_models)
        .current_dir(&project)
        // onnxruntime-node's install script would download its CUDA
        // binaries from nuget.org, outside the npm registry; the CPU
        // ones ship in the package (the README's quick start says so).
        .env("ONNXRUNTIME_NODE_INSTALL", "skip");
    match better_sqlite3_prebuild(root, &place)? {
        Some(folder) => {
            npm.env("npm_config_better_sqlite3_local_prebuilds", folder);
        }
        None => eprintln!(
            "xtask: no better-sqlite3 build in hosts/js/node_modules: the npm install compiles it"
        ),
    }
    let npm_install = npm
        .spawn()
        .context("could not start npm install of the built tarballs")?;
    Ok(Installs {
        place,
        venv,
        project,
        python: python_install,
        npm: npm_install,
        started: Instant::now(),
    })
}

/// Wait for the installs, then run each package's quick start.
fn finish_check(packages: &Packages, installs: Installs, cache: &str) -> Result<()> {
    let Installs {
        place,
        venv,
        project,
        mut python,
        mut npm,
        started,
    } = installs;
    // Each install's own time (they run side by side), for the figures.
    let mut pending = vec![
        (&mut python, "pip install of the built wheels"),
        (&mut npm, "npm install of the built tarballs"),
    ];
    while !pending.is_empty() {
        let mut still = Vec::new();
        for (child, what) in pending {
            match child
                .try_wait()
                .with_context(|| format!("could not wait for {what}"))?
            {
                Some(status) if status.success() => crate::report_time(what, started),
                Some(status) => bail!("{what} failed ({status})"),
                None => still.push((child, what)),
            }
        }
        pending = still;
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let quick_start = "import sys\n\
        from importlib.metadata import version\n\
        from hive_mind import HiveMind\n\
        with HiveMind(sys.argv[1]) as mind:\n\
        \x20   mind.save('We keep the invoices in PostgreSQL since March.')\n\
        \x20   mind.save('The office plants are watered on Fridays.')\n\
        \x20   recall = mind.recall('which database holds the invoices?')\n\
        \x20   assert 'PostgreSQL' in recall.memories[0].content, recall.text\n\
        \x20   print('python quick start (wasmtime-py', version('wasmtime') + '):', recall.memories[0].content)\n";
    run(
        clean(
            Command::new(venv.join("bin").join("python"))
                .arg("-c")
                .arg(quick_start)
                .arg(place.join("py-data")),
            &place,
        )
        .env("HIVE_MIND_CACHE_DIR", cache),
        "the Python quick start from the installed wheels",
    )?;

    {
        std::fs::write(
            project.join("quick-start.mjs"),
            "import { HiveMind } from 'hive-mind-engine';\n\
             const mind = await HiveMind.open(process.argv[2]);\n\
             await mind.save('We keep the invoices in PostgreSQL since March.');\n\
             await mind.save('The office plants are watered on Fridays.');\n\
             const recall = await mind.recall('which database holds the invoices?');\n\
             await mind.close();\n\
             if (!recall.memories[0]?.content.includes('PostgreSQL')) throw new Error(recall.text);\n\
             console.log('javascript quick start:', recall.memories[0].content);\n",
        )?;
        run(
            clean(
                Command::new("node")
                    .arg("quick-start.mjs")
                    .arg(place.join("js-data")),
                &project,
            )
            .env("HIVE_MIND_CACHE_DIR", cache),
            "the JavaScript quick start from the installed tarballs",
        )?;
    }

    // The CLI: the archive unpacked, run from there.
    let unpacked = place.join("cli");
    std::fs::create_dir_all(&unpacked)?;
    let unpacking = Instant::now();
    run(
        Command::new("tar")
            .arg("-xzf")
            .arg(&packages.archive)
            .arg("-C")
            .arg(&unpacked),
        "tar -x of the CLI archive",
    )?;
    crate::report_time("unpacking the CLI archive", unpacking);
    let folder = std::fs::read_dir(&unpacked)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.is_dir())
        .context("the CLI archive holds no folder")?;
    let cli = folder.join("bin").join("hive-mind");
    let data = place.join("cli-data");
    for memory in [
        "We keep the invoices in PostgreSQL since March.",
        "The office plants are watered on Fridays.",
    ] {
        run(
            clean(
                Command::new(&cli)
                    .arg("--data-dir")
                    .arg(&data)
                    .args(["save", memory]),
                &place,
            )
            .env("HIVE_MIND_CACHE_DIR", cache),
            "the unpacked CLI's save",
        )?;
    }
    let output = clean(
        Command::new(&cli)
            .arg("--data-dir")
            .arg(&data)
            .args(["recall", "which database holds the invoices?"]),
        &place,
    )
    .env("HIVE_MIND_CACHE_DIR", cache)
    .output()
    .context("could not run the unpacked CLI")?;
    let recalled = String::from_utf8_lossy(&output.stdout);
    let first = recalled.lines().find(|line| line.starts_with("- ["));
    if !output.status.success() || !first.is_some_and(|line| line.contains("PostgreSQL")) {
        bail!(
            "the unpacked CLI's recall failed ({}):\n{recalled}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    println!("cli quick start: {}", first.unwrap_or_default());
    std::fs::remove_dir_all(&place).ok();
    crate::report_time("installing and running the packages", started);
    Ok(())
}

/// `command` with none of this machine's hive-mind settings: a home of its
/// own in `place`, no `HIVE_MIND_*` variable, no toolchain on the path.
fn clean<'a>(command: &'a mut Command, place: &Path) -> &'a mut Command {
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("HIVE_MIND_") {
            command.env_remove(&name);
        }
    }
    command
        .current_dir(place)
        .env("HOME", place.join("home"))
        .env("PATH", "/usr/bin:/bin")
        .env_remove("CARGO")
        .env_remove("RUSTUP_HOME")
        .env_remove("CARGO_HOME")
}

/// Run `command`, failing with `what` when it fails.
fn run(command: &mut Command, what: &str) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("could not start {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// `pip wheel` of the project staged in `project`, into `out`; the wheel
/// whose name starts with `prefix`.
fn build_wheel(root: &Path, project: &Path, out: &Path, prefix: &str) -> Result<PathBuf> {
    let built = Output {
        dir: out,
        prefix,
        ending: ".whl",
    };
    built.clear()?;
    let python = root
        .join("hosts")
        .join("python")
        .join(".venv")
        .join("bin")
        .join("python");
    let python = if python.is_file() {
        python
    } else {
        PathBuf::from("python3")
    };
    run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
            ])
            .arg("--wheel-dir")
            .arg(out)
            .arg(project),
        &format!("building the wheel of {}", project.display()),
    )?;
    built.find()
}

/// `npm pack` of the package staged in `project`, into `out`; the tarball
/// whose name starts with `prefix`.
fn npm_pack(project: &Path, out: &Path, prefix: &str) -> Result<PathBuf> {
    let built = Output {
        dir: out,
        prefix,
        ending: ".tgz",
    };
    built.clear()?;
    run(
        Command::new("npm")
            .args(["pack", "--silent", "--pack-destination"])
            .arg(out)
            .current_dir(project)
            .stdout(std::process::Stdio::null()),
        &format!("npm pack of {}", project.display()),
    )?;
    built.find()
}

/// A package a build writes into `dir`, known by the start and end of its
/// name (the version and tags between are the builder's).
struct Output<'a> {
    dir: &'a Path,
    prefix: &'a str,
    ending: &'a str,
}

impl Output<'_> {
    fn matches(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|name| {
            let name = name.to_string_lossy();
            name.starts_with(self.prefix) && name.ends_with(self.ending)
        })
    }

    /// Remove what an earlier build left, so [`Output::find`] finds this
    /// build's.
    fn clear(&self) -> Result<()> {
        for entry in std::fs::read_dir(self.dir)?.filter_map(Result::ok) {
            if self.matches(&entry.path()) {
                std::fs::remove_file(entry.path())?;
            }
        }
        Ok(())
    }

    /// The package the build wrote.
    fn find(&self) -> Result<PathBuf> {
        std::fs::read_dir(self.dir)?
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .find(|path| self.matches(path))
            .with_context(|| {
                format!(
                    "no {}*{} was written into {}",
                    self.prefix,
                    self.ending,
                    self.dir.display()
                )
            })
    }
}

/// Copy each of [`SHIPPED_MODELS`] into `to` (one folder each).
fn copy_models(root: &Path, to: &Path) -> Result<()> {
    for model in SHIPPED_MODELS {
        copy_model(&root.join("models").join(model), &to.join(model))?;
    }
    Ok(())
}

/// Copy a model folder, checking it is complete first (every file of its
/// `SHA256SUMS` present): a package without its model would fail only on
/// a user's machine.
fn copy_model(from: &Path, to: &Path) -> Result<()> {
    let sums = std::fs::read_to_string(from.join("SHA256SUMS"))
        .with_context(|| format!("{} has no SHA256SUMS", from.display()))?;
    for line in sums.lines().filter(|line| !line.trim().is_empty()) {
        let file = line.split_whitespace().nth(1).unwrap_or_default();
        if !from.join(file).is_file() {
            bail!(
                "{} lacks {file}: run `cargo xtask models` first",
                from.display()
            );
        }
    }
    copy_tree(from, to)
}

/// Copy a folder's files and folders (no links, nothing hidden).
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("could not create {}", to.display()))?;
    for entry in
        std::fs::read_dir(from).with_context(|| format!("could not read {}", from.display()))?
    {
        let entry = entry?;
        let name = entry.file_name();
        let lossy = name.to_string_lossy();
        if lossy.starts_with('.') || lossy == "__pycache__" || lossy.ends_with(".egg-info") {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &to.join(&name))?;
        } else if kind.is_file() {
            copy(&entry.path(), &to.join(&name))?;
        }
    }
    Ok(())
}

/// Copy one file, making its folder.
fn copy(from: &Path, to: &Path) -> Result<()> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::copy(from, to)
        .with_context(|| format!("could not copy {} to {}", from.display(), to.display()))?;
    Ok(())
}

/// The workspace's version (`[workspace.package] version` in `Cargo.toml`).
fn version(root: &Path) -> Result<String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    manifest
        .lines()
        .find_map(|line| {
            let value = line
                .trim()
                .strip_prefix("version")?
                .trim_start()
                .strip_prefix('=')?;
            Some(value.trim().trim_matches('"').to_string())
        })
        .context("Cargo.toml names no version")
}

/// The host's target triple (`rustc -vV`'s `host:`).
fn host_triple() -> Result<String> {
    let output = Command::new("rustc")
        .arg("-vV")
        .output()
        .context("could not run rustc -vV")?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: ").map(str::to_string))
        .context("rustc -vV names no host")
}

/// A new empty folder under the system's temporary folder.
fn tempdir(prefix: &str) -> Result<PathBuf> {
    let path = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
    if path.exists() {
        std::fs::remove_dir_all(&path)?;
    }
    std::fs::create_dir_all(&path)?;
    Ok(path)
}
