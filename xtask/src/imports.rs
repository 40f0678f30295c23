//! No import circles: inside a crate, the modules' references to each other
//! (`use crate::…` lines and `crate::a::f(…)`, `super::b::T` paths in code)
//! point one way.
//!
//! A circle (`a` uses `b`, `b` uses `a`, possibly through others) means
//! neither module can be read, tested or moved without the other: the two are
//! one module that pretends to be two. Issue 22 found three (cognify's
//! extractor and its word lists, recall's ranking and its formatting, the v2
//! migration and the graph); this check keeps new ones out. Issue 35 found
//! two more that only paths in code bodies made (`frames` calling
//! `super::validity::chain_slot_in(…)`, the regex scanner naming
//! `crate::detector::FALLBACK_DETECTOR`), which is why a `use` line is not
//! the only thing read.
//!
//! The reading is deliberately simple, and so are its rules:
//!
//! - A module is a source file under the crate's `src/` (`a/b.rs` and
//!   `a/b/mod.rs` are `a::b`; `lib.rs`/`main.rs` the root), and an inline
//!   `mod name { … }` inside one is a module of its own for resolving
//!   `self::` and `super::`, though its references count as its file's.
//! - Comments (doc comments and their links included) and string and
//!   character literals are blanked first: a path mentioned in prose is not
//!   a dependency.
//! - Test code is left out: test files (`tests.rs`, anything under a
//!   `tests/` folder), a file marked `#![cfg(test)]`, and the item
//!   after each `#[cfg(test)]` (a `mod tests { … }`, a test-only helper or
//!   `use`): tests may reach anywhere.
//! - Every path that starts with `crate::`, `$crate::`, `self::` or
//!   `super::` counts, wherever it is written: a `use` line (`pub use` too),
//!   an expression (`crate::a::f()`), a type (`super::b::T`), a pattern. A
//!   path is resolved to the longest module it names (`crate::recall::rank::Foo`
//!   is `recall::rank`); each item of a brace group is resolved on its own.
//!   Paths without such a start (`recall::rank::Foo` in the crate root) name
//!   a child module or another crate, neither of which can close a circle.
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
    for (module, code) in &modules {
        let targets = graph.entry(module.as_str()).or_default();
        for target in used_modules(module, code, &names) {
            if !related(module, target) {
                targets.insert(target);
            }
        }
    }
    Ok(strongly_connected(&graph))
}

/// `(module path, code)` for every non-test source file under `dir`, the
/// code with its comments, literals and test items blanked
/// ([`without_tests`] of [`blank_prose`]).
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
        out.push((segments.join("::"), without_tests(&blank_prose(&text))));
    }
    Ok(())
}

/// Whether `byte` can be part of an identifier (any non-ASCII byte is taken
/// to be: identifiers may be Unicode, and literals are blanked already).
fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80
}

/// `text` with every comment and every string, byte-string, raw-string and
/// character literal replaced by spaces (line breaks kept), so that what is
/// left is code. Lifetimes and labels (`'a`) are code and stay.
fn blank_prose(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for byte in out.iter_mut().take(to.min(bytes.len())).skip(from) {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
    };
    let at = |index: usize| bytes.get(index).copied().unwrap_or(0);
    let mut i = 0;
    while i < bytes.len() {
        let byte = at(i);
        if byte == b'/' && at(i + 1) == b'/' {
            let end = bytes
                .get(i..)
                .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
                .map_or(bytes.len(), |offset| i + offset);
            blank(&mut out, i, end);
            i = end;
        } else if byte == b'/' && at(i + 1) == b'*' {
            let mut depth = 0usize;
            let mut end = i;
            while end < bytes.len() {
                if at(end) == b'/' && at(end + 1) == b'*' {
                    depth += 1;
                    end += 2;
                } else if at(end) == b'*' && at(end + 1) == b'/' {
                    depth = depth.saturating_sub(1);
                    end += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    end += 1;
                }
            }
            blank(&mut out, i, end);
            i = end;
        } else if byte == b'"' {
            let end = string_end(bytes, i + 1);
            blank(&mut out, i, end);
            i = end;
        } else if byte == b'\'' {
            i = match char_literal_end(bytes, i) {
                Some(end) => {
                    blank(&mut out, i, end);
                    end
                }
                None => i + 1,
            };
        } else if is_ident(byte) {
            let start = i;
            i = word_end(bytes, start);
            if matches!(bytes.get(start..i), Some(b"r" | b"br" | b"cr"))
                && let Some(end) = raw_string_end(bytes, i)
            {
                blank(&mut out, i, end);
                i = end;
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Where a (non-raw) string literal whose text starts at `from` ends: one
/// past its closing quote.
fn string_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Where a raw string whose hashes (or quote) start at `from` ends, if a raw
/// string starts there (`r"…"`, `r#"…"#`; not the raw identifier `r#type`).
fn raw_string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let hashes = bytes
        .get(from..)?
        .iter()
        .take_while(|&&b| b == b'#')
        .count();
    if bytes.get(from + hashes) != Some(&b'"') {
        return None;
    }
    let mut i = from + hashes + 1;
    while let Some(&byte) = bytes.get(i) {
        if byte == b'"'
            && bytes
                .get(i + 1..i + 1 + hashes)
                .is_some_and(|tail| tail.iter().all(|&b| b == b'#'))
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(bytes.len())
}

/// Where the character literal opening at `quote` ends (one past its
/// closing quote), or `None` when the quote starts a lifetime or a label.
fn char_literal_end(bytes: &[u8], quote: usize) -> Option<usize> {
    let first = *bytes.get(quote + 1)?;
    if first == b'\\' {
        // `'\n'`, `'\''`, `'\u{…}'`: the escaped character, then up to the quote.
        let close = bytes
            .get(quote + 3..)?
            .iter()
            .position(|&b| b == b'\'' || b == b'\n')?;
        let close = quote + 3 + close;
        return (bytes.get(close) == Some(&b'\'')).then_some(close + 1);
    }
    let width = match first {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    };
    (bytes.get(quote + 1 + width) == Some(&b'\'')).then_some(quote + 2 + width)
}

/// `code` with its test-only parts blanked: all of it when its inner
/// attributes (before its first item's `;` or `{`) include `#![cfg(test)]`,
/// else each item (or field, arm, statement) that follows a
/// `#[cfg(test)]`, up to its `;`, `,` or closing brace.
fn without_tests(code: &str) -> String {
    const OUTER: &str = "#[cfg(test)]";
    let head = code
        .find([';', '{'])
        .and_then(|end| code.get(..end))
        .unwrap_or(code);
    if head.contains("#![cfg(test)]") {
        return code
            .chars()
            .map(|c| if c == '\n' { c } else { ' ' })
            .collect();
    }
    let mut out = code.as_bytes().to_vec();
    let mut from = 0;
    while let Some(offset) = code.get(from..).and_then(|rest| rest.find(OUTER)) {
        let start = from + offset;
        let end = item_end(code.as_bytes(), start + OUTER.len());
        for byte in out.iter_mut().take(end).skip(start) {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
        from = end.max(start + OUTER.len());
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One past the end of the item that starts at `from`: its `;` or `,` at
/// nesting depth 0, or the brace that closes its body; or just before a
/// closer that belongs to the enclosing item (a field's or an arm's end).
/// Angle brackets count as nesting outside bodies only (`fn f<A, B>()`),
/// where a `<` is never a comparison.
fn item_end(bytes: &[u8], from: usize) -> usize {
    let mut depth = 0usize;
    let mut angles = 0usize;
    for (offset, &byte) in bytes.iter().enumerate().skip(from) {
        match byte {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                if depth == 0 {
                    return offset;
                }
                depth -= 1;
                if depth == 0 && byte == b'}' {
                    return offset + 1;
                }
            }
            b'<' if depth == 0 => angles += 1,
            b'>' if depth == 0 && angles > 0 => {
                let arrow = offset
                    .checked_sub(1)
                    .and_then(|before| bytes.get(before))
                    .is_some_and(|&b| b == b'-' || b == b'=');
                if !arrow {
                    angles -= 1;
                }
            }
            b';' if depth == 0 => return offset + 1,
            b',' if depth == 0 && angles == 0 => return offset + 1,
            _ => {}
        }
    }
    bytes.len()
}

/// The modules of `names` that `module`'s code (comments, literals and tests
/// blanked) names by a path.
fn used_modules<'a>(module: &str, code: &str, names: &BTreeSet<&'a str>) -> BTreeSet<&'a str> {
    // `self::` starts here, `super::` one level up (a file's module path
    // already says whether it is `a/b.rs` or `a/b/mod.rs`).
    let file: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    let mut found = BTreeSet::new();
    for (inline, path) in module_paths(code) {
        let mut here = file.clone();
        here.extend(inline.iter().map(String::as_str));
        if let Some(name) = resolve(&here, &path, names) {
            found.insert(name);
        }
    }
    found
}

/// The longest module of `names` that `path` (`super::a::B`), written in
/// module `here`, names; `None` for a path that starts elsewhere.
fn resolve<'a>(here: &[&str], path: &str, names: &BTreeSet<&'a str>) -> Option<&'a str> {
    let mut segments = path.split("::").map(str::trim).peekable();
    let mut base: Vec<&str> = match segments.next()? {
        "crate" => Vec::new(),
        "self" => here.to_vec(),
        "super" => here
            .split_last()
            .map(|(_, parent)| parent.to_vec())
            .unwrap_or_default(),
        _ => return None,
    };
    while segments.next_if_eq(&"super").is_some() {
        base.pop();
    }
    base.extend(segments);
    while !base.is_empty() {
        if let Some(name) = names.get(base.join("::").as_str()) {
            return Some(*name);
        }
        base.pop();
    }
    None
}

/// Every path in `code` that starts with `crate::` (or `$crate::`),
/// `self::` or `super::`, brace groups expanded (`crate::a::{b, c}` is
/// `crate::a::b` and `crate::a::c`), each with the names of the inline
/// modules (`mod name { … }`) it is written in, outermost first.
fn module_paths(code: &str) -> Vec<(Vec<String>, String)> {
    let bytes = code.as_bytes();
    let mut paths = Vec::new();
    // Inline modules open around the cursor: name, brace depth of the body.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        if byte == b'{' {
            depth += 1;
            i += 1;
        } else if byte == b'}' {
            if inline.last().is_some_and(|(_, body)| *body == depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
            i += 1;
        } else if is_ident(byte) {
            let start = i;
            let end = word_end(bytes, start);
            match code.get(start..end).unwrap_or("") {
                "mod" => {
                    let name_start = skip_spaces(bytes, end);
                    let name_end = word_end(bytes, name_start);
                    if name_end > name_start
                        && bytes.get(skip_spaces(bytes, name_end)) == Some(&b'{')
                    {
                        let name = code.get(name_start..name_end).unwrap_or("");
                        inline.push((name.to_string(), depth + 1));
                    }
                    i = end;
                }
                "crate" | "self" | "super" if continues_path(bytes, end) => {
                    let (found, path_end) = read_path(code, start);
                    let open: Vec<String> = inline.iter().map(|(name, _)| name.clone()).collect();
                    paths.extend(found.into_iter().map(|path| (open.clone(), path)));
                    i = path_end;
                }
                _ => i = end,
            }
        } else {
            i += 1;
        }
    }
    paths
}

/// One past the identifier that starts at `start`.
fn word_end(bytes: &[u8], start: usize) -> usize {
    let length = bytes
        .get(start..)
        .map_or(0, |rest| rest.iter().take_while(|&&b| is_ident(b)).count());
    start + length
}

/// The first index at or after `from` that is not whitespace.
fn skip_spaces(bytes: &[u8], from: usize) -> usize {
    let length = bytes.get(from..).map_or(0, |rest| {
        rest.iter().take_while(|b| b.is_ascii_whitespace()).count()
    });
    from + length
}

/// Whether a `::` follows `from` (after whitespace).
fn continues_path(bytes: &[u8], from: usize) -> bool {
    bytes
        .get(skip_spaces(bytes, from)..)
        .is_some_and(|rest| rest.starts_with(b"::"))
}

/// The path(s) that start with the identifier at `start` — several when it
/// ends in a brace group — and one past where it ends. A path ends at its
/// last identifier, or before a `*` or a turbofish's `<`.
fn read_path(code: &str, start: usize) -> (Vec<String>, usize) {
    let bytes = code.as_bytes();
    let mut path = String::new();
    let mut word_start = start;
    loop {
        let end = word_end(bytes, word_start);
        path.push_str(code.get(word_start..end).unwrap_or(""));
        if !continues_path(bytes, end) {
            return (vec![path], end);
        }
        let next = skip_spaces(bytes, skip_spaces(bytes, end) + 2);
        match bytes.get(next) {
            Some(b'{') => {
                let close = group_end(bytes, next);
                let group = code
                    .get(next..close)
                    .unwrap_or("")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                return (expand_braces(&format!("{path}::{group}")), close);
            }
            Some(&b) if is_ident(b) => {
                path.push_str("::");
                word_start = next;
            }
            _ => return (vec![path], next),
        }
    }
}

/// One past the brace that closes the group opening at `open`.
fn group_end(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (offset, &byte) in bytes.iter().enumerate().skip(open) {
        match byte {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return offset + 1;
                }
            }
            _ => {}
        }
    }
    bytes.len()
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e` (and `a::{self}` as
/// `a`).
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
        .filter(|item| !item.is_empty())
        .flat_map(|item| {
            if item == "self" || item.starts_with("self as ") {
                vec![prefix.trim_end_matches("::").to_string()]
            } else {
                expand_braces(&format!("{prefix}{item}"))
            }
        })
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

    #[test]
    fn a_circle_made_only_by_paths_in_code_is_found() {
        // The shape of issue 35's two circles: one side imports with `use`,
        // the other only names the first in an expression or a type.
        let src = tree(
            "expressions",
            &[
                (
                    "lib.rs",
                    "mod frames;\nmod validity;\nmod injection;\nmod detector;\n",
                ),
                (
                    "frames.rs",
                    "pub fn insert(content: &str) {\n    let slot = super::validity::slot_of(content);\n}\n",
                ),
                (
                    "validity.rs",
                    "use super::frames::insert;\npub fn slot_of(content: &str) -> Option<String> { None }\n",
                ),
                (
                    "injection.rs",
                    "pub fn scan() -> Report {\n    Report { detector: crate::detector::FALLBACK.to_string() }\n}\n",
                ),
                (
                    "detector/mod.rs",
                    "mod model;\nuse crate::injection::{Report, scan};\npub const FALLBACK: &str = \"patterns\";\n",
                ),
                (
                    "detector/model.rs",
                    "pub fn weights(report: &crate::injection::Report) {}\n",
                ),
            ],
        );
        assert_eq!(
            import_circles(&src).unwrap(),
            vec![
                vec!["detector".to_string(), "injection".to_string()],
                vec!["frames".to_string(), "validity".to_string()],
            ]
        );
        // A type path closes a circle as well as a call does, and `self::`
        // and `super::super::` resolve from where they are written.
        std::fs::write(src.join("frames.rs"), "pub fn insert() {}\n").unwrap();
        std::fs::write(
            src.join("injection.rs"),
            "pub struct Report;\npub fn scan(model: &self::super::detector::model::Weights) {}\n",
        )
        .unwrap();
        assert_eq!(
            import_circles(&src).unwrap(),
            vec![vec!["detector::model".to_string(), "injection".to_string()]]
        );
        let _ = std::fs::remove_dir_all(&src);
    }

    #[test]
    fn paths_in_prose_literals_and_tests_do_not_count_and_code_after_a_test_item_does() {
        let b = "//! See [`crate::a::A`] and `super::a::f()`.\n\
                 /* crate::a::x() /* nested */ crate::a::y() */\n\
                 const NAME: &str = \"crate::a::A \\\" crate::a::B\";\n\
                 const RAW: &str = r#\"super::a::A \"quoted\" crate::a::C\"#;\n\
                 const QUOTE: char = '\"';\n\
                 const ESCAPED: char = '\\'';\n\
                 fn borrow<'a>(text: &'a str) -> &'a str { text }\n\
                 #[cfg(test)]\n\
                 fn helper<A, B>(a: A, b: B) -> crate::a::A { crate::a::make() }\n\
                 pub struct S {\n    #[cfg(test)]\n    probe: crate::a::A,\n    kept: u8,\n}\n\
                 #[cfg(test)]\n\
                 mod tests {\n    use crate::a::A;\n}\n";
        let src = tree(
            "prose",
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                ("a.rs", "use crate::b::S;\n"),
                ("b.rs", b),
            ],
        );
        assert!(import_circles(&src).unwrap().is_empty());
        let after = format!("{b}pub fn made() -> super::a::A {{ todo!() }}\n");
        std::fs::write(src.join("b.rs"), after).unwrap();
        assert_eq!(
            import_circles(&src).unwrap(),
            vec![vec!["a".to_string(), "b".to_string()]]
        );
        std::fs::write(src.join("b.rs"), "#![cfg(test)]\nuse crate::a::A;\n").unwrap();
        assert!(import_circles(&src).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&src);
    }

    #[test]
    fn paths_inside_an_inline_module_resolve_from_it() {
        // `super::net` inside `store`'s inline `bindings` is `store::net`,
        // the store's own child, not the crate's `net`.
        let src = tree(
            "inline",
            &[
                ("lib.rs", "mod net;\nmod store;\n"),
                ("net.rs", "use crate::store::Conn;\n"),
                (
                    "store/mod.rs",
                    "mod net;\npub struct Conn;\npub mod bindings {\n    use super::net::Wire;\n    pub type W = super::net::Wire;\n}\npub fn after() -> self::net::Wire { todo!() }\n",
                ),
                ("store/net.rs", "pub struct Wire;\n"),
            ],
        );
        assert!(import_circles(&src).unwrap().is_empty());
        // Once the inline module is closed, `super::` is the crate again.
        std::fs::write(
            src.join("store/mod.rs"),
            "mod net;\npub struct Conn;\npub mod bindings {\n}\npub fn after() -> super::net::Wire { todo!() }\n",
        )
        .unwrap();
        assert_eq!(
            import_circles(&src).unwrap(),
            vec![vec!["net".to_string(), "store".to_string()]]
        );
        let _ = std::fs::remove_dir_all(&src);
    }
}
