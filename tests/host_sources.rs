//! The hosts know the engine only through the WIT: no source under `host/`
//! or `hosts/` spells a content marking (`[mind-…`) or runs SQL on one of
//! the engine's tables.
//!
//! The tables are not listed here (a list would go stale): the test creates
//! a mind through the engine and reads the names of its tables from the
//! fresh file's `sqlite_master` (SQLite's own `sqlite_…` tables aside).
//!
//! The rule, chosen so that ordinary words and the engine's export names do
//! not count (a mind has tables named `meta`, `identity`, `sessions`, and
//! `harvest_sources` is also the host's name for the `harvest.sources`
//! export): a table name counts where SQL would name a table — as a whole
//! word right after `FROM`, `JOIN`, `INTO`, `UPDATE`, `TABLE` or `EXISTS`
//! (any case), with nothing but white space, quotes, backticks or an opening
//! bracket between. A marking counts anywhere, comments included.
//!
//! The sources are the `.rs`, `.py`, `.js` and `.ts` files under `host/`
//! and `hosts/`, except build outputs and environments (`target`, `.venv`,
//! `venv`, `__pycache__`, `node_modules`, hidden folders) and test folders
//! (`tests`, `test`): tests may inspect what the engine wrote, as the
//! workspace's `tests/` does.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hive_mind_models::embedder::MockEmbedder;
use hive_mind_runtime::engine::wit_memory::MemoryInput;
use hive_mind_runtime::engine::wit_types::Mind;

use crate::support::workspace;

/// The words after which SQL names a table.
const TABLE_KEYWORDS: [&str; 6] = ["from", "join", "into", "update", "table", "exists"];

/// Folders that hold no host source.
const SKIPPED_FOLDERS: [&str; 7] = [
    "target",
    ".venv",
    "venv",
    "__pycache__",
    "node_modules",
    "tests",
    "test",
];

/// The endings of host sources.
const SOURCE_ENDINGS: [&str; 4] = [".rs", ".py", ".js", ".ts"];

/// The tables of a mind the engine has just created and written to.
fn engine_tables() -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = crate::support::engine(dir.path(), Ok(Arc::new(MockEmbedder::new(8))));
    engine
        .save_memory(&MemoryInput {
            content: "a memory, so that the personal mind exists".into(),
            importance: None,
            source: None,
            mind: Mind::Personal,
            created_at: None,
            kind: None,
        })
        .unwrap();
    drop(engine);
    let conn = rusqlite::Connection::open(dir.path().join("personal.sqlite")).unwrap();
    let mut statement = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
        .unwrap();
    statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Every host source file under `dir` (see the module docs).
fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && !SKIPPED_FOLDERS.contains(&name.as_str()) {
                sources(&path, found);
            }
        } else if SOURCE_ENDINGS.iter().any(|ending| name.ends_with(ending)) {
            found.push(path);
        }
    }
}

/// The identifier-like words of `text` (letters, digits, `_`), each with
/// the text between it and the word before.
fn words(text: &str) -> Vec<(&str, &str)> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut gap_start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if !is_word(c) {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(next, c)) = chars.peek() {
            if !is_word(c) {
                break;
            }
            end = next + c.len_utf8();
            chars.next();
        }
        out.push((&text[gap_start..start], &text[start..end]));
        gap_start = end;
    }
    out
}

/// Where `text` names one of `tables` as SQL would (see the module docs):
/// the table names found.
fn tables_named<'t>(text: &str, tables: &'t [String]) -> Vec<&'t str> {
    let words = words(text);
    let mut named = Vec::new();
    for pair in words.windows(2) {
        let [(_, keyword), (gap, word)] = pair else {
            continue;
        };
        let keyword = keyword.to_ascii_lowercase();
        let plain_gap = gap
            .chars()
            .all(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '['));
        if TABLE_KEYWORDS.contains(&keyword.as_str())
            && plain_gap
            && let Some(table) = tables.iter().find(|table| table.as_str() == *word)
        {
            named.push(table.as_str());
        }
    }
    named
}

#[test]
fn the_rule_finds_sql_on_a_table_and_passes_the_same_word_elsewhere() {
    let tables = vec!["memory_frames".to_string(), "meta".to_string()];
    assert_eq!(
        tables_named("SELECT id FROM memory_frames WHERE 1", &tables),
        ["memory_frames"]
    );
    assert_eq!(
        tables_named("insert into \"meta\" (key) values (?1)", &tables),
        ["meta"]
    );
    assert_eq!(
        tables_named("CREATE TABLE IF NOT EXISTS meta (k)", &tables),
        ["meta"]
    );
    assert!(tables_named("fn memory_frames() -> meta { from.meta }", &tables).is_empty());
    assert!(tables_named("read from the meta table; memory_frames_vec", &tables).is_empty());
}

#[test]
fn no_host_source_knows_an_engine_tag_or_table() {
    let tables = engine_tables();
    for table in ["memory_frames", "memory_frames_vec", "meta"] {
        assert!(
            tables.iter().any(|t| t == table),
            "a fresh mind has {table}: {tables:?}"
        );
    }
    let root = workspace();
    let mut files = Vec::new();
    sources(&root.join("host"), &mut files);
    sources(&root.join("hosts"), &mut files);
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("host/lab/src/bench/recall.rs"))
            && files
                .iter()
                .any(|f| f.ends_with("hosts/python/src/hive_mind/mind.py"))
            && files.iter().any(|f| f.ends_with("hosts/js/src/mind.js")),
        "the walk reaches both hosts: {files:?}"
    );
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(&root).unwrap_or(file).display();
        for (number, line) in text.lines().enumerate() {
            if line.contains("[mind-") {
                problems.push(format!("{shown}:{}: a content marking: {line}", number + 1));
            }
        }
        for table in tables_named(&text, &tables) {
            problems.push(format!("{shown}: SQL on the engine's table {table}"));
        }
    }
    assert!(
        problems.is_empty(),
        "the hosts must know the engine only through the WIT:\n{}",
        problems.join("\n")
    );
}
