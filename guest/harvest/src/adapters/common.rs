//! What every adapter shares: notes that count, stable ids, text cleaning,
//! and tolerant serde field readers.
//!
//! **Tolerant fields.** An export's shape drifts between versions: a field
//! that was a string becomes `null`, a list becomes an object. A typed
//! struct whose field fails to deserialize fails the whole conversation, so
//! the scalar fields adapters read go through [`lax_string`], [`lax_bool`]
//! and [`RawTime`]: a value of the expected kind is kept, anything else is
//! read as absent (and consumed without being kept). Nested objects stay
//! typed `Option<Struct>`: a conversation whose structure is wrong is
//! skipped and noted by the adapter.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use sha2::{Digest, Sha256};

use super::{ParseError, time};
use crate::item::{Item, ItemKind, Message, Parsed, Section, SourceFormat};

/// Counted notes: "3 image(s) left out" rather than three notes, in the
/// order each kind was first seen.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    counts: Vec<(String, usize)>,
}

impl Tally {
    /// Count one more of `what` (a phrase such as `"image(s) left out"`).
    pub(crate) fn bump(&mut self, what: impl AsRef<str>) {
        self.add(what, 1);
    }

    /// Count `n` more of `what`.
    pub(crate) fn add(&mut self, what: impl AsRef<str>, n: usize) {
        if n == 0 {
            return;
        }
        let what = what.as_ref();
        match self.counts.iter_mut().find(|(key, _)| key == what) {
            Some((_, count)) => *count += n,
            None => self.counts.push((what.to_string(), n)),
        }
    }

    /// The notes, `"{n} {what}"` each.
    pub(crate) fn into_notes(self) -> Vec<String> {
        self.counts
            .into_iter()
            .map(|(what, n)| format!("{n} {what}"))
            .collect()
    }
}

/// A stable id from content: the first 16 bytes of a SHA-256 over the parts
/// (each followed by a zero byte), as hex, after a prefix naming the format.
pub(crate) fn content_id(prefix: &str, parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
        hasher.update([0]);
    }
    let digest = hasher.finalize();
    let head: Vec<u8> = digest.iter().copied().take(16).collect();
    format!("{prefix}-{}", hex::encode(head))
}

/// Text as an item keeps it: line ends normalised to `\n`, outer whitespace
/// trimmed; `None` when nothing is left.
pub(crate) fn clean_text(text: &str) -> Option<String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    if trimmed.contains('\r') {
        Some(trimmed.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Some(trimmed.to_string())
    }
}

/// A title: the first line, whitespace collapsed, at most `max` characters
/// (cut at a character boundary, with `…`).
pub(crate) fn short_title(text: &str, max: usize) -> Option<String> {
    let line = text.lines().find(|line| !line.trim().is_empty())?;
    let collapsed = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        return None;
    }
    if collapsed.chars().count() <= max {
        return Some(collapsed);
    }
    let cut: String = collapsed.chars().take(max.saturating_sub(1)).collect();
    Some(format!("{}…", cut.trim_end()))
}

/// A title as an export wrote it: all its whitespace (line breaks too)
/// collapsed to single spaces; `None` when empty.
pub(crate) fn collapse(text: &str) -> Option<String> {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        None
    } else {
        Some(collapsed)
    }
}

/// The longest title an adapter makes up from a first prompt or line.
pub(crate) const TITLE_CHARS: usize = 80;

/// A conversation item (the export's own id, messages in order).
pub(crate) fn conversation(
    id: String,
    source: SourceFormat,
    title: Option<String>,
    created_at: Option<String>,
    messages: Vec<Message>,
    notes: Vec<String>,
) -> Item {
    let created_at = created_at.or_else(|| messages.iter().find_map(|m| m.timestamp.clone()));
    Item {
        id,
        source,
        kind: ItemKind::Conversation,
        title,
        created_at,
        messages,
        sections: Vec::new(),
        notes,
    }
}

/// A document item.
pub(crate) fn document(
    id: String,
    source: SourceFormat,
    title: Option<String>,
    created_at: Option<String>,
    sections: Vec<Section>,
    notes: Vec<String>,
) -> Item {
    Item {
        id,
        source,
        kind: ItemKind::Document,
        title,
        created_at,
        messages: Vec::new(),
        sections,
        notes,
    }
}

/// The note for an item left out because it holds no dialogue.
pub(crate) fn no_dialogue_note(what: &str, id: &str, title: Option<&str>) -> String {
    match title {
        Some(title) => format!("{what} {id} (\"{title}\") has no dialogue; left out"),
        None => format!("{what} {id} has no dialogue; left out"),
    }
}

/// The note for a document left out because it holds no text.
pub(crate) fn no_text_note(what: &str, id: &str, title: Option<&str>) -> String {
    match title {
        Some(title) => format!("{what} {id} (\"{title}\") has no text; left out"),
        None => format!("{what} {id} has no text; left out"),
    }
}

/// `Malformed` for `format`.
pub(crate) fn malformed(format: SourceFormat, message: impl Into<String>) -> ParseError {
    ParseError::Malformed {
        format,
        message: message.into(),
    }
}

/// `Malformed` from a JSON error, saying whether the file was cut short.
pub(crate) fn json_error(format: SourceFormat, error: &serde_json::Error) -> ParseError {
    let what = if error.is_eof() {
        "truncated JSON (the file ends in the middle of a value)"
    } else if error.is_syntax() {
        "not valid JSON"
    } else {
        "unexpected JSON shape"
    };
    malformed(format, format!("{what}: {error}"))
}

/// A JSON error inside one element, without serde's position (which counts
/// from the element's start, not the file's, so it would mislead).
pub(crate) fn element_error(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rsplit_once(" at line ") {
        Some((before, _)) => before.to_string(),
        None => text,
    }
}

/// A JSON error on one JSONL line: serde's position without its line
/// number (always 1), the line being named by the caller.
pub(crate) fn line_error(error: &serde_json::Error) -> String {
    format!("{} at column {}", element_error(error), error.column())
}

/// The first byte that is not JSON whitespace.
pub(crate) fn first_json_byte(bytes: &[u8]) -> Option<u8> {
    bytes
        .iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// The elements of a JSON document that is an array, or the document alone
/// when it is an object, each still raw (borrowed, unparsed): adapters parse
/// them one at a time, so one bad element is skipped and noted.
pub(crate) fn raw_elements<'a>(
    bytes: &'a [u8],
    format: SourceFormat,
    what: &str,
) -> Result<Vec<&'a serde_json::value::RawValue>, ParseError> {
    match first_json_byte(bytes) {
        Some(b'[') => serde_json::from_slice(bytes).map_err(|e| json_error(format, &e)),
        Some(b'{') => {
            let one: &serde_json::value::RawValue =
                serde_json::from_slice(bytes).map_err(|e| json_error(format, &e))?;
            Ok(vec![one])
        }
        _ => Err(malformed(
            format,
            format!("expected a JSON array of {what}"),
        )),
    }
}

/// Read an export that is a JSON array of conversations, one element at a
/// time: each element is parsed as `T`, checked by `accept` (which names
/// the field a conversation of this format must have), and turned into an
/// item by `to_item` (or a note saying why it holds nothing). An element
/// that fails is skipped with a note; the export fails only when no element
/// could be read (`what`: "ChatGPT conversations", for messages).
pub(crate) fn parse_conversations<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    format: SourceFormat,
    what: &str,
    accept: impl Fn(&T) -> Result<(), String>,
    to_item: impl Fn(T) -> Result<Item, String>,
) -> Result<Parsed, ParseError> {
    let elements = raw_elements(bytes, format, what)?;
    let mut parsed = Parsed {
        format,
        items: Vec::new(),
        notes: Vec::new(),
    };
    let mut first_error: Option<String> = None;
    let mut read = 0usize;
    for (index, raw) in elements.iter().enumerate() {
        let outcome = serde_json::from_str::<T>(raw.get())
            .map_err(|e| element_error(&e))
            .and_then(|conversation| accept(&conversation).map(|()| conversation));
        match outcome {
            Ok(conversation) => {
                read += 1;
                match to_item(conversation) {
                    Ok(item) => parsed.items.push(item),
                    Err(note) => parsed.notes.push(note),
                }
            }
            Err(why) => {
                parsed
                    .notes
                    .push(format!("conversation #{index} skipped: {why}"));
                first_error.get_or_insert(format!("conversation #{index}: {why}"));
            }
        }
    }
    if read == 0 {
        if let Some(why) = first_error {
            return Err(malformed(
                format,
                format!(
                    "no {} could be read ({why})",
                    what.strip_suffix('s').unwrap_or(what)
                ),
            ));
        }
        parsed
            .notes
            .push("the export holds no conversations".into());
    }
    Ok(parsed)
}

/// A time field in whatever form the export wrote it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum RawTime {
    /// Absent or `null`.
    #[default]
    Absent,
    /// A number (epoch seconds or milliseconds).
    Number(f64),
    /// A string (ISO-8601, or a number as text).
    Text(String),
    /// Something else (a boolean, an object): unreadable.
    Invalid,
}

impl RawTime {
    /// The ISO-8601 UTC form; an unreadable value is `None` and counted in
    /// `tally`.
    pub(crate) fn resolve(&self, tally: &mut Tally) -> Option<String> {
        let resolved = match self {
            RawTime::Absent => return None,
            RawTime::Number(value) => time::from_epoch(*value),
            RawTime::Text(text) if text.trim().is_empty() => return None,
            RawTime::Text(text) => time::from_text(text),
            RawTime::Invalid => None,
        };
        if resolved.is_none() {
            tally.bump("unreadable timestamp(s) left empty");
        }
        resolved
    }
}

impl<'de> Deserialize<'de> for RawTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TimeVisitor;
        impl<'de> Visitor<'de> for TimeVisitor {
            type Value = RawTime;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a timestamp")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawTime, E> {
                Ok(RawTime::Number(v))
            }
            #[allow(clippy::cast_precision_loss)]
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawTime, E> {
                Ok(RawTime::Number(v as f64))
            }
            #[allow(clippy::cast_precision_loss)]
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawTime, E> {
                Ok(RawTime::Number(v as f64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawTime, E> {
                Ok(RawTime::Text(v.to_string()))
            }
            fn visit_none<E: de::Error>(self) -> Result<RawTime, E> {
                Ok(RawTime::Absent)
            }
            fn visit_unit<E: de::Error>(self) -> Result<RawTime, E> {
                Ok(RawTime::Absent)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<RawTime, E> {
                Ok(RawTime::Invalid)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawTime, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(RawTime::Invalid)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawTime, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(RawTime::Invalid)
            }
        }
        deserializer.deserialize_any(TimeVisitor)
    }
}

/// A value that is kept when it is a string and read as absent otherwise.
struct LaxString(Option<String>);

impl<'de> Deserialize<'de> for LaxString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StringVisitor;
        impl<'de> Visitor<'de> for StringVisitor {
            type Value = LaxString;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LaxString, E> {
                Ok(LaxString(Some(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<LaxString, E> {
                Ok(LaxString(Some(v)))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<LaxString, E> {
                Ok(LaxString(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<LaxString, E> {
                Ok(LaxString(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<LaxString, E> {
                Ok(LaxString(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<LaxString, E> {
                Ok(LaxString(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<LaxString, E> {
                Ok(LaxString(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LaxString, E> {
                Ok(LaxString(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LaxString, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LaxString(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LaxString, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LaxString(None))
            }
        }
        deserializer.deserialize_any(StringVisitor)
    }
}

/// `#[serde(deserialize_with)]` for an optional string field that may hold
/// any other kind of value (read as `None`).
pub(crate) fn lax_string<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    Ok(LaxString::deserialize(deserializer)?.0)
}

/// A list element that is kept when it is a string.
#[derive(Deserialize, Default)]
#[serde(transparent)]
pub(crate) struct LaxText(#[serde(deserialize_with = "lax_string")] pub(crate) Option<String>);

/// `#[serde(deserialize_with)]` for a boolean flag that may hold any other
/// kind of value (read as `false`; `"true"` as text is `true`).
pub(crate) fn lax_bool<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    Ok(
        serde_json::Value::deserialize(deserializer).is_ok_and(|value| match value {
            serde_json::Value::Bool(flag) => flag,
            serde_json::Value::String(text) => text.eq_ignore_ascii_case("true"),
            _ => false,
        }),
    )
}

/// `#[serde(deserialize_with)]` for a list that may be `null` or not a list
/// at all (read as empty). Elements that fail to read fail the list's
/// owner, as any typed field does.
pub(crate) fn lax_vec<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct VecVisitor<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for VecVisitor<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::new();
            while let Some(element) = seq.next_element()? {
                out.push(element);
            }
            Ok(out)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<T>, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Vec::new())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_none<E: de::Error>(self) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
    }
    deserializer.deserialize_any(VecVisitor(std::marker::PhantomData))
}

/// A message's role from the many names exports use: `Some(Ok(role))` for
/// dialogue and system text, `Some(Err(name))` for a role that is not
/// dialogue (`tool`, `function`), `None` for an unknown name.
pub(crate) fn normalise_role(name: &str) -> Option<Result<crate::item::Role, String>> {
    use crate::item::Role;
    let lower = name.trim().to_ascii_lowercase();
    match lower.as_str() {
        "user" | "human" | "me" | "person" | "prompt" | "question" | "query" => {
            Some(Ok(Role::User))
        }
        "assistant" | "ai" | "model" | "bot" | "gpt" | "chatgpt" | "claude" | "gemini" | "bard"
        | "perplexity" | "answer" | "response" | "chatbot" | "agent" => Some(Ok(Role::Assistant)),
        "system" | "developer" | "instructions" => Some(Ok(Role::System)),
        "tool" | "function" | "tool_result" | "ipython" => Some(Err(lower)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_counts_in_first_seen_order() {
        let mut tally = Tally::default();
        tally.bump("image(s) left out");
        tally.bump("tool call(s) left out");
        tally.add("image(s) left out", 2);
        tally.add("nothing", 0);
        assert_eq!(
            tally.into_notes(),
            vec!["3 image(s) left out", "1 tool call(s) left out"]
        );
    }

    #[test]
    fn titles_are_short_single_lines() {
        assert_eq!(
            short_title("\n  Hello   world \nmore", 80).as_deref(),
            Some("Hello world")
        );
        assert_eq!(short_title("abcdef", 4).as_deref(), Some("abc…"));
        assert_eq!(short_title("   ", 4), None);
    }

    #[test]
    fn lax_fields_read_wrong_kinds_as_absent() {
        #[derive(Deserialize)]
        struct Probe {
            #[serde(default, deserialize_with = "lax_string")]
            a: Option<String>,
            #[serde(default, deserialize_with = "lax_bool")]
            b: bool,
            #[serde(default, deserialize_with = "lax_vec")]
            c: Vec<u32>,
            #[serde(default)]
            t: RawTime,
        }
        let probe: Probe =
            serde_json::from_str(r#"{"a": {"x": [1]}, "b": "true", "c": null, "t": 17}"#).unwrap();
        assert_eq!(probe.a, None);
        assert!(probe.b);
        assert!(probe.c.is_empty());
        assert_eq!(probe.t, RawTime::Number(17.0));
    }
}
