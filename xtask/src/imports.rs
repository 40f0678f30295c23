//! No import circles: inside a crate, the modules' `use crate::…` and
//! `use super::…` lines point one way.
//!
//! A circle (`a` uses `b`, `b` uses `a`, possibly through others) means
//! neither module can be read, tested or moved without the other: the two are
//! one module that pretends to be two. Issue 22 found three (cognify's
//! extractor and its word lists, recall's ranking and its formatting, the v2
//! migration and the graph); this check keeps new ones out.
//!
//! The reading is deliberately simple, and so are its rules:
//!
//! - A module is a source file under the crate's `src/` (`a/b.rs` and
//!   `a/b/mod.rs` are `a::b`; `lib.rs`/`main.rs` the root). Test files
//!   (`tests.rs`, anything under a `tests/` folder) and everything after a
//!   file's first `#[cfg(test)]` are left out: tests may reach anywhere.
//! - Only `use` lines count (`pub use` and `pub(crate) use` too). A path is
//!   resolved to the longest module it names (`crate::recall::rank::Foo` is
//!   `recall::rank`); each item of a brace group is resolved on its own.
//! - An edge between a module and one of its ancestors does not count: a
//!   parent re-exports its children and a child names its parent's shared
//!   types; that is a tree, not a circle.
//!
//! Every remaining strongly connected component of two or more modules is a
//! circle, reported with its members.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};

/// The circles among the modules under `src`: each a sorted list of module
/// paths (`recall::format`), the list sorted.
pub fn import_circles(src: &Path) -> Result<Vec<Vec<String>>> {
    let mut files = Vec::new();
    collect_sources(src, src, &mut files)?;
    let modules: BTreeMap<String, String> = files.into_iter().collect();
    let names: BTreeSet<&str> = modules.keys().map(String::as_str).collect();
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (module, text) in &modules {
        let targets = graph.entry(module.as_str()).or_default();
        for target in used_modules(module, text, &names) {
            if !related(module, target) {
                targets.insert(target);
            }
        }
    }
    Ok(strongly_connected(&graph))
}

/// `(module path, text before the first #[cfg(test)])` for every non-test
/// source file under `dir`.
fn collect_sources(src: &Path, dir: &Path, out: &mut Vec<(String, String)>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name != "tests" {
                collect_sources(src, &path, out)?;
            }
            continue;
        }
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        if stem == "tests" {
            continue;
        }
        let relative = path
            .parent()
            .and_then(|parent| parent.strip_prefix(src).ok())
            .context("a source file outside src")?;
        let mut segments: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if !matches!(stem, "mod" | "lib" | "main") {
            segments.push(stem.to_string());
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("could not read {}", path.display()))?;
        let before_tests = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
        out.push((segments.join("::"), before_tests));
    }
    Ok(())
}

/// The modules of `names` that `module`'s `use` lines name.
fn used_modules<'a>(module: &str, text: &str, names: &BTreeSet<&'a str>) -> BTreeSet<&'a str> {
    // `self::` starts here, `super::` one level up (a file's module path
    // already says whether it is `a/b.rs` or `a/b/mod.rs`).
    let here: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    let mut found = BTreeSet::new();
    for statement in use_statements(text) {
        for path in expand_braces(&statement) {
            let mut segments: Vec<&str> = path.split("::").map(str::trim).collect();
            let mut base: Vec<&str> = match segments.first().copied() {
                Some("crate") => Vec::new(),
                Some("self") => here.clone(),
                Some("super") => here
                    .split_last()
                    .map(|(_, p)| p.to_vec())
                    .unwrap_or_default(),
                _ => continue,
            };
            segments.remove(0);
            while segments.first() == Some(&"super") {
                segments.remove(0);
                base.pop();
            }
            base.extend(segments);
            while !base.is_empty() {
                let candidate = base.join("::");
                if let Some(name) = names.get(candidate.as_str()) {
                    found.insert(*name);
                    break;
                }
                base.pop();
            }
        }
    }
    found
}

/// The bodies of the `use` statements of `text` (`crate::a::{b, c}`),
/// whitespace collapsed.
fn use_statements(text: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut rest = text;
    while let Some(start) = find_use(rest) {
        let body = &rest[start..];
        let end = body.find(';').unwrap_or(body.len());
        statements.push(body[..end].split_whitespace().collect::<Vec<_>>().join(" "));
        rest = &body[end..];
    }
    statements
}

/// Where the path of the next `use` item starts in `text`: after `use ` at
/// the start of a line (after an optional visibility).
fn find_use(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let after_visibility = ["pub(crate) ", "pub(super) ", "pub "]
            .iter()
            .find_map(|v| trimmed.strip_prefix(v))
            .unwrap_or(trimmed);
        if let Some(path) = after_visibility.strip_prefix("use ") {
            return Some(offset + indent + (trimmed.len() - path.len()));
        }
        offset += line.len();
    }
    None
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand_braces(path: &str) -> Vec<String> {
    let Some(open) = path.find('{') else {
        let plain = path.split(" as ").next().unwrap_or(path).trim();
        return vec![plain.trim_end_matches("::*").to_string()];
    };
    let prefix = &path[..open];
    let inner = path[open + 1..]
        .strip_suffix('}')
        .unwrap_or(&path[open + 1..]);
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (index, character) in inner.char_indices() {
        match character {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(&inner[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .map(str::trim)
        .filter(|item| !item.is_empty() && *item != "self")
        .flat_map(|item| expand_braces(&format!("{prefix}{item}")))
        .collect()
}

/// Whether one module is the other's ancestor (or they are the same).
fn related(a: &str, b: &str) -> bool {
    let within = |outer: &str, inner: &str| {
        outer.is_empty() || inner == outer || inner.starts_with(&format!("{outer}::"))
    };
    within(a, b) || within(b, a)
}

/// Tarjan's strongly connected components of two or more members.
fn strongly_connected(graph: &BTreeMap<&str, BTreeSet<&str>>) -> Vec<Vec<String>> {
    struct State<'g, 'a> {
        graph: &'g BTreeMap<&'a str, BTreeSet<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        components: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'_, 'a>, node: &'a str) {
        let number = state.index.len();
        state.index.insert(node, number);
        state.low.insert(node, number);
        state.stack.push(node);
        state.on_stack.insert(node);
        let targets: Vec<&'a str> = state
            .graph
            .get(node)
            .map(|t| t.iter().copied().collect())
            .unwrap_or_default();
        for target in targets {
            if !state.index.contains_key(target) {
                visit(state, target);
                let lowest = state.low[node].min(state.low[target]);
                state.low.insert(node, lowest);
            } else if state.on_stack.contains(target) {
                let lowest = state.low[node].min(state.index[target]);
                state.low.insert(node, lowest);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack.remove(member);
                component.push(member.to_string());
                if member == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                state.components.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.components.sort();
    state.components
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-imports-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        dir
    }

    #[test]
    fn a_circle_between_siblings_is_found_and_a_tree_is_not() {
        let src = tree(
            "siblings",
            &[
                ("lib.rs", "mod recall;\npub use recall::rank::Ranked;\n"),
                (
                    "recall/mod.rs",
                    "mod format;\nmod rank;\npub use format::show;\n",
                ),
                (
                    "recall/format.rs",
                    "use super::rank::Ranked;\nuse crate::recall::{Lane, rank::Ranked as R};\n",
                ),
                (
                    "recall/rank.rs",
                    "use super::format::show;\npub(crate) use super::Lane;\n#[cfg(test)]\nuse crate::x;\n",
                ),
            ],
        );
        assert_eq!(
            import_circles(&src).unwrap(),
            vec![vec![
                "recall::format".to_string(),
                "recall::rank".to_string()
            ]]
        );
        std::fs::write(src.join("recall/rank.rs"), "use super::Lane;\n").unwrap();
        assert!(import_circles(&src).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&src);
    }

    #[test]
    fn a_longer_circle_and_nested_braces_are_found() {
        let src = tree(
            "longer",
            &[
                ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
                ("a.rs", "use crate::{b::{self, One}, c};\n"),
                ("b.rs", "pub use crate::c::Two;\n"),
                ("c.rs", "use crate::a::Three;\n"),
            ],
        );
        assert_eq!(
            import_circles(&src).unwrap(),
            vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]
        );
        let _ = std::fs::remove_dir_all(&src);
    }
}
