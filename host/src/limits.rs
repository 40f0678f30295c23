//! # Argument size caps, for every surface
//!
//! Whatever an agent (over MCP) or a person (on the command line) passes in
//! is bounded before it reaches the engine: a 16 MiB query or identity would
//! otherwise keep the engine busy (and then sit in every prompt). The caps
//! are by argument name, so every MCP tool is covered the same way,
//! including tools added later: a field not listed gets
//! [`DEFAULT_FIELD_CAP`], which is ample for names, ids and vocabulary
//! words.
//!
//! | argument | cap | why |
//! |---|---|---|
//! | `content` (a memory, an awareness item), `text` (`hive-mind save`) | 100,000 bytes | larger texts belong in an import, which chunks them |
//! | `user`, `assistant` (an exchange) | 100,000 bytes each | one turn of a conversation |
//! | `transcript` (an exchange's transcript) | 2 MiB | the end of a session transcript, read for its last exchange |
//! | `data` (inline import) | 16 MiB | larger exports are passed by path |
//! | `query` (recall, entity search) | 16 KiB | a user's message, not a document |
//! | `personality`, `capabilities`, `system_prompt` (identity) | 16 KiB each | they go into every system prompt |
//! | `path`, `url`, `source` | 4 KiB | a path or a URL |
//! | anything else | 1 KiB | names, ids, workspace, importance, dates, … |
//!
//! The refusal names the argument and the cap, so the caller knows what to
//! shorten.
//!
//! The engine bounds the texts it stores, embeds or searches with itself
//! (a memory, an exchange's turns, a query, an identity, a name, the
//! conversations of one import, the lines of a restore: the WIT docs say
//! how much), so the Python and JavaScript hosts, which cap
//! nothing, answer an oversized argument the same way. The caps here are
//! the same numbers (a test across the boundary checks they agree): this
//! host refuses first, with the argument's name as its caller spelled it.

/// The cap of an argument not listed in [`FIELD_CAPS`], in bytes.
pub const DEFAULT_FIELD_CAP: usize = 1024;

/// The largest memory text, in bytes (`save_memory`'s `content`,
/// `hive-mind save`'s text).
pub const MAX_CONTENT_BYTES: usize = 100_000;

/// The largest inline import (`harvest_import`'s `data`), in bytes.
pub const MAX_INLINE_IMPORT_BYTES: usize = 16 * 1024 * 1024;

/// The largest transcript handed over for its last exchange (the end of a
/// session transcript the hook reads), in bytes: sent as a JSON string
/// it fits a server's default 4 MiB body, as escaping a JSON Lines text
/// (its quotes and backslashes) at most doubles it.
pub const MAX_TRANSCRIPT_TAIL_BYTES: usize = 2 * 1024 * 1024;

/// The largest recall query, in bytes.
pub const MAX_QUERY_BYTES: usize = 16 * 1024;

/// The caps by argument name, in bytes (see the module docs).
pub const FIELD_CAPS: [(&str, usize); 13] = [
    ("content", MAX_CONTENT_BYTES),
    ("text", MAX_CONTENT_BYTES),
    ("user", 100_000),
    ("assistant", 100_000),
    ("transcript", MAX_TRANSCRIPT_TAIL_BYTES),
    ("data", MAX_INLINE_IMPORT_BYTES),
    ("query", MAX_QUERY_BYTES),
    ("personality", 16 * 1024),
    ("capabilities", 16 * 1024),
    ("system_prompt", 16 * 1024),
    ("path", 4096),
    ("url", 4096),
    ("source", 4096),
];

/// The cap of the argument `field`, in bytes.
pub fn field_cap(field: &str) -> usize {
    FIELD_CAPS
        .iter()
        .find(|(name, _)| *name == field)
        .map_or(DEFAULT_FIELD_CAP, |(_, cap)| *cap)
}

/// An argument over its cap.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{field}` is too large ({bytes} bytes; the limit is {cap}){hint}")]
pub struct TooLarge {
    /// The argument's name.
    pub field: String,
    /// Its size, in bytes.
    pub bytes: usize,
    /// Its cap, in bytes.
    pub cap: usize,
    /// What to do instead, when there is something (starts with `: `).
    pub hint: &'static str,
}

/// `value` cut to the cap of the argument `field` (at a character
/// boundary), for text a hook takes from an agent's transcript, where a
/// refusal would lose the whole turn.
pub fn truncate_to(field: &str, value: &str) -> String {
    let cap = field_cap(field);
    if value.len() <= cap {
        return value.to_string();
    }
    let mut end = cap;
    while end > 0 && !value.is_char_boundary(end) {
        end -= 1;
    }
    value.get(..end).unwrap_or_default().to_string()
}

/// Refuse the first of `fields` (each a name and, when given, its value)
/// over its cap.
pub fn check_each(fields: &[(&str, Option<&String>)]) -> Result<(), TooLarge> {
    for (field, value) in fields {
        if let Some(value) = value {
            check(field, value)?;
        }
    }
    Ok(())
}

/// Refuse `value` when it is over the cap of the argument `field`.
pub fn check(field: &str, value: &str) -> Result<(), TooLarge> {
    let cap = field_cap(field);
    if value.len() <= cap {
        return Ok(());
    }
    let hint = match field {
        "content" | "text" => ": split it, or import it with harvest",
        "data" => ": pass a path instead",
        _ => "",
    };
    Err(TooLarge {
        field: field.to_string(),
        bytes: value.len(),
        cap,
        hint,
    })
}

/// Refuse any string in a JSON object's values (nested values included,
/// each checked under the name of the key that holds it) that is over its
/// cap.
pub fn check_json(arguments: &serde_json::Map<String, serde_json::Value>) -> Result<(), TooLarge> {
    fn walk(field: &str, value: &serde_json::Value) -> Result<(), TooLarge> {
        match value {
            serde_json::Value::String(text) => check(field, text),
            serde_json::Value::Array(items) => items.iter().try_for_each(|item| walk(field, item)),
            serde_json::Value::Object(map) => {
                map.iter().try_for_each(|(key, value)| walk(key, value))
            }
            _ => Ok(()),
        }
    }
    arguments
        .iter()
        .try_for_each(|(key, value)| walk(key, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_by_name_with_a_default() {
        assert!(check("query", &"q".repeat(MAX_QUERY_BYTES)).is_ok());
        let error = check("query", &"q".repeat(MAX_QUERY_BYTES + 1)).unwrap_err();
        assert_eq!(error.field, "query");
        assert!(
            error.to_string().contains("`query` is too large"),
            "{error}"
        );
        assert!(error.to_string().contains("16384"), "{error}");
        let error = check("workspace", &"w".repeat(DEFAULT_FIELD_CAP + 1)).unwrap_err();
        assert_eq!(error.cap, DEFAULT_FIELD_CAP);
        let nested = serde_json::json!({"a": {"name": "n".repeat(2000)}});
        let error = check_json(nested.as_object().unwrap()).unwrap_err();
        assert_eq!(error.field, "name");
    }
}
