//! `cargo xtask architecture`: ARCHITECTURE.md is a codemap, and a codemap
//! that drifts from the code misleads the newcomer it was written for. This
//! task holds the document to the code; `cargo xtask test` (and so CI) runs
//! it first, before anything is built.
//!
//! Four checks:
//!
//! 1. **Every path it names exists.** A code span (`` `…` ``) that names a
//!    repository path — its first component is one of the repository's
//!    top-level folders ([`TOP_LEVEL`]), or it ends in a source extension
//!    ([`SOURCE_EXTENSIONS`]) — must exist relative to the repository root.
//!    A span may point into a file (`path.rs::item`): the part before `::`
//!    is checked. Spans with placeholders (`<id>`, `*`) or spaces are prose.
//! 2. **The crate graph it draws is the crate graph.** The fenced block
//!    after the marker line [`GRAPH_MARKER`] lists every workspace crate
//!    and, after `->`, the workspace crates it depends on (normal and build
//!    dependencies; dev-dependencies are the tests' business; an optional
//!    one, which only a feature links, is written `name?`). The lists must
//!    equal `cargo metadata`'s, crate for crate.
//! 3. **The boundary holds.** No crate under `host/` depends, directly or
//!    through other workspace crates, on a crate under `guest/` (optional
//!    dependencies aside: a feature only tests turn on): the host knows the
//!    engine only through the WIT. This one is an invariant of the code,
//!    checked whatever the document says.
//! 4. **No import circles** inside any workspace crate
//!    ([`crate::imports`]): also an invariant of the code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The repository's top-level folders a path in the document may start with.
pub const TOP_LEVEL: [&str; 12] = [
    ".cargo", ".ci", "crates", "fuzz", "guest", "host", "hosts", "models", "scripts", "tests",
    "wit", "xtask",
];

/// Extensions that make a code span a repository path wherever it points.
pub const SOURCE_EXTENSIONS: [&str; 6] = ["rs", "wit", "py", "sql", "sh", "toml"];

/// The line that introduces the crate graph's fenced block.
pub const GRAPH_MARKER: &str = "<!-- crate-graph: checked by `cargo xtask architecture` -->";

/// Run the four checks on `root`'s ARCHITECTURE.md; the error lists every
/// problem found, not only the first.
pub fn check(root: &Path) -> Result<()> {
    let path = root.join("ARCHITECTURE.md");
    let document = std::fs::read_to_string(&path)
        .with_context(|| format!("could not read {}", path.display()))?;
    let mut problems: Vec<String> = missing_paths(&document, root)
        .into_iter()
        .map(|missing| format!("ARCHITECTURE.md names `{missing}`, which does not exist"))
        .collect();
    let declared = declared_graph(&document)?;
    let actual = workspace_graph(root)?;
    problems.extend(graph_differences(&declared, &actual));
    problems.extend(boundary_violations(&actual));
    for (name, krate) in &actual {
        let src = root.join(&krate.folder).join("src");
        if !src.is_dir() {
            continue;
        }
        for circle in crate::imports::import_circles(&src)? {
            problems.push(format!(
                "{name}: its modules import each other in a circle: {}",
                circle.join(" <-> ")
            ));
        }
    }
    if problems.is_empty() {
        eprintln!(
            "xtask: ARCHITECTURE.md matches the code ({} crates)",
            actual.len()
        );
        return Ok(());
    }
    bail!(
        "ARCHITECTURE.md does not match the code:\n  - {}",
        problems.join("\n  - ")
    )
}

/// The code spans of `document` that name repository paths which do not
/// exist under `root`, in order of appearance, each once.
pub fn missing_paths(document: &str, root: &Path) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut missing = Vec::new();
    for span in code_spans(document) {
        let Some(path) = repository_path(span) else {
            continue;
        };
        if seen.insert(path.to_owned()) && !root.join(path).exists() {
            missing.push(path.to_owned());
        }
    }
    missing
}

/// The contents of the single-backtick code spans of `document`, outside
/// fenced blocks.
fn code_spans(document: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for line in document.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some((_, after_open)) = rest.split_once('`') {
            let Some((span, after_close)) = after_open.split_once('`') else {
                break;
            };
            spans.push(span);
            rest = after_close;
        }
    }
    spans
}

/// The repository path a code span names, if it names one.
fn repository_path(span: &str) -> Option<&str> {
    let path = span.split_once("::").map_or(span, |(path, _)| path);
    let path = path.trim_end_matches('/');
    if path.is_empty() || path.contains(|c: char| c.is_whitespace() || "<>*{}|$~".contains(c)) {
        return None;
    }
    let first = path.split('/').next().unwrap_or(path);
    let names_a_folder = TOP_LEVEL.contains(&first) && path.contains('/');
    let names_a_source = Path::new(path)
        .extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| SOURCE_EXTENSIONS.contains(&extension));
    (names_a_folder || names_a_source || TOP_LEVEL.contains(&path)).then_some(path)
}

/// Crate name → the workspace crates it depends on.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// The crate graph the document declares after [`GRAPH_MARKER`]: one line
/// per crate, `name -> dep, dep` (or `name ->` for none).
pub fn declared_graph(document: &str) -> Result<Graph> {
    let Some((_, after)) = document.split_once(GRAPH_MARKER) else {
        bail!("ARCHITECTURE.md has no crate graph (a fenced block after the line {GRAPH_MARKER})");
    };
    let mut lines = after.lines().skip_while(|line| line.trim().is_empty());
    if !lines.next().is_some_and(|line| line.starts_with("```")) {
        bail!("the crate graph's marker must be followed by a fenced block");
    }
    let mut graph = Graph::new();
    for line in lines.take_while(|line| !line.starts_with("```")) {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some((name, deps)) = line.split_once("->") else {
            bail!("crate graph line `{line}` is not `crate -> dep, dep`");
        };
        let deps = deps
            .split(',')
            .map(str::trim)
            .filter(|dep| !dep.is_empty())
            .map(str::to_owned)
            .collect();
        if graph.insert(name.trim().to_owned(), deps).is_some() {
            bail!("crate graph lists `{}` twice", name.trim());
        }
    }
    Ok(graph)
}

/// A workspace crate as `cargo metadata` sees it.
#[derive(Debug, Clone)]
pub struct Crate {
    /// Its folder, relative to the repository root.
    pub folder: PathBuf,
    /// The workspace crates it depends on (normal and build); an optional
    /// dependency's name ends in `?`.
    pub deps: BTreeSet<String>,
}

/// The workspace's crates and their dependencies on each other, from
/// `cargo metadata --no-deps` (offline: no index is read).
pub fn workspace_graph(root: &Path) -> Result<BTreeMap<String, Crate>> {
    let output = crate::cargo_command()
        .current_dir(root)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .output()
        .context("could not run cargo metadata")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).context("cargo metadata printed no JSON")?;
    parse_metadata(&metadata, root)
}

/// [`workspace_graph`]'s reading of the metadata JSON.
pub fn parse_metadata(
    metadata: &serde_json::Value,
    root: &Path,
) -> Result<BTreeMap<String, Crate>> {
    let packages = metadata["packages"]
        .as_array()
        .context("cargo metadata has no packages")?;
    let names: BTreeSet<&str> = packages
        .iter()
        .filter_map(|package| package["name"].as_str())
        .collect();
    let mut crates = BTreeMap::new();
    for package in packages {
        let name = package["name"].as_str().context("a package has no name")?;
        let manifest = package["manifest_path"]
            .as_str()
            .with_context(|| format!("{name} has no manifest path"))?;
        let folder = Path::new(manifest)
            .parent()
            .and_then(|folder| folder.strip_prefix(root).ok())
            .with_context(|| format!("{name}'s manifest {manifest} is outside the workspace"))?
            .to_path_buf();
        let deps = package["dependencies"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter(|dep| dep["kind"].as_str() != Some("dev"))
            .filter(|dep| dep["path"].is_string())
            .filter_map(|dep| {
                let name = dep["name"].as_str().filter(|name| names.contains(name))?;
                let optional = dep["optional"].as_bool().unwrap_or(false);
                Some(if optional {
                    format!("{name}?")
                } else {
                    name.to_owned()
                })
            })
            .collect();
        crates.insert(name.to_owned(), Crate { folder, deps });
    }
    Ok(crates)
}

/// Where the declared graph and the real one differ, one line each.
pub fn graph_differences(declared: &Graph, actual: &BTreeMap<String, Crate>) -> Vec<String> {
    let mut problems = Vec::new();
    for name in actual.keys().filter(|name| !declared.contains_key(*name)) {
        problems.push(format!("the crate graph leaves out the crate `{name}`"));
    }
    for (name, deps) in declared {
        let Some(krate) = actual.get(name) else {
            problems.push(format!(
                "the crate graph lists `{name}`, which is not a workspace crate"
            ));
            continue;
        };
        for dep in krate.deps.difference(deps) {
            problems.push(format!(
                "`{name}` depends on `{dep}`, which the crate graph does not say"
            ));
        }
        for dep in deps.difference(&krate.deps) {
            problems.push(format!(
                "the crate graph says `{name}` depends on `{dep}`, which it does not"
            ));
        }
    }
    problems
}

/// Crates under `host/` that reach a crate under `guest/` through normal
/// or build dependencies.
pub fn boundary_violations(crates: &BTreeMap<String, Crate>) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, krate) in crates {
        if !krate.folder.starts_with("host") {
            continue;
        }
        let mut stack: Vec<(&str, Vec<&str>)> = vec![(name.as_str(), vec![name.as_str()])];
        let mut visited = BTreeSet::new();
        while let Some((current, path)) = stack.pop() {
            if !visited.insert(current) {
                continue;
            }
            let Some(node) = crates.get(current) else {
                continue;
            };
            if node.folder.starts_with("guest") {
                problems.push(format!(
                    "the host crate `{name}` links the guest crate `{current}` ({}): the host \
                     may know the engine only through the WIT",
                    path.join(" -> ")
                ));
                continue;
            }
            for dep in node.deps.iter().filter(|dep| !dep.ends_with('?')) {
                let mut next = path.clone();
                next.push(dep);
                stack.push((dep, next));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn krate(folder: &str, deps: &[&str]) -> Crate {
        Crate {
            folder: PathBuf::from(folder),
            deps: deps.iter().map(|dep| dep.to_string()).collect(),
        }
    }

    #[test]
    fn code_spans_that_name_paths_are_checked() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("host/src")).unwrap();
        std::fs::write(root.path().join("host/src/main.rs"), "").unwrap();
        let document = "The binary is `host/src/main.rs`, its item `host/src/main.rs::main`,\n\
                        the folder `host/`, a gone `host/src/gone.rs`, a bare `schema.rs`,\n\
                        prose `workspace/<id>`, a type `EngineRuntime`, a call `cargo xtask test`.\n\
                        ```\nhost/src/fenced.rs is inside a block\n```\n";
        assert_eq!(
            missing_paths(document, root.path()),
            ["host/src/gone.rs", "schema.rs"]
        );
    }

    #[test]
    fn the_declared_graph_is_read_and_compared() {
        let document = format!(
            "text\n{GRAPH_MARKER}\n```text\nhive-mind-core ->\nhive-mind-store -> hive-mind-core\n\
             hive-mind-host -> hive-mind-sqlite\n```\n"
        );
        let declared = declared_graph(&document).unwrap();
        assert_eq!(declared.len(), 3);
        let actual = BTreeMap::from([
            ("hive-mind-core".to_owned(), krate("guest/core", &[])),
            (
                "hive-mind-store".to_owned(),
                krate("guest/store", &["hive-mind-core"]),
            ),
            (
                "hive-mind-host".to_owned(),
                krate("host", &["hive-mind-outbound"]),
            ),
            ("hive-mind-outbound".to_owned(), krate("host/outbound", &[])),
        ]);
        let problems = graph_differences(&declared, &actual);
        assert_eq!(
            problems,
            [
                "the crate graph leaves out the crate `hive-mind-outbound`",
                "`hive-mind-host` depends on `hive-mind-outbound`, which the crate graph does not say",
                "the crate graph says `hive-mind-host` depends on `hive-mind-sqlite`, which it does not",
            ]
        );
    }

    #[test]
    fn a_document_without_a_graph_is_refused() {
        assert!(declared_graph("no graph here").is_err());
        let unfenced = format!("{GRAPH_MARKER}\nhive-mind-core ->\n");
        assert!(declared_graph(&unfenced).is_err());
        let twice = format!("{GRAPH_MARKER}\n```\na ->\na -> b\n```\n");
        assert!(declared_graph(&twice).is_err());
    }

    #[test]
    fn a_host_crate_reaching_the_guest_is_a_violation() {
        let crates = BTreeMap::from([
            ("cli".to_owned(), krate("host/cli", &["runtime"])),
            ("runtime".to_owned(), krate("host/runtime", &["store"])),
            ("lab".to_owned(), krate("host/lab", &["core?"])),
            ("store".to_owned(), krate("guest/store", &["core"])),
            ("core".to_owned(), krate("guest/core", &[])),
            ("sqlite".to_owned(), krate("host/sqlite", &[])),
        ]);
        let problems = boundary_violations(&crates);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].contains("cli -> runtime -> store"),
            "{problems:?}"
        );
        assert!(problems[1].contains("runtime -> store"), "{problems:?}");
        let clean = BTreeMap::from([
            ("cli".to_owned(), krate("host/cli", &["sqlite"])),
            ("sqlite".to_owned(), krate("host/sqlite", &[])),
        ]);
        assert!(boundary_violations(&clean).is_empty());
    }

    #[test]
    fn metadata_dev_dependencies_are_not_part_of_the_graph() {
        let root = Path::new("/repo");
        let metadata = serde_json::json!({"packages": [
            {"name": "hive-mind-host", "manifest_path": "/repo/host/Cargo.toml", "dependencies": [
                {"name": "hive-mind-sqlite", "kind": null, "path": "/repo/host/sqlite"},
                {"name": "hive-mind-store", "kind": null, "optional": true, "path": "/repo/guest/store"},
                {"name": "hive-mind-core", "kind": "dev", "path": "/repo/guest/core"},
                {"name": "serde", "kind": null},
            ]},
            {"name": "hive-mind-sqlite", "manifest_path": "/repo/host/sqlite/Cargo.toml", "dependencies": []},
            {"name": "hive-mind-core", "manifest_path": "/repo/guest/core/Cargo.toml", "dependencies": []},
            {"name": "hive-mind-store", "manifest_path": "/repo/guest/store/Cargo.toml", "dependencies": []},
        ]});
        let crates = parse_metadata(&metadata, root).unwrap();
        assert_eq!(
            crates["hive-mind-host"].deps,
            BTreeSet::from(["hive-mind-sqlite".to_owned(), "hive-mind-store?".to_owned()])
        );
        assert_eq!(crates["hive-mind-host"].folder, PathBuf::from("host"));
    }
}
