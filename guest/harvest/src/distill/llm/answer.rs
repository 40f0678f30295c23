//! Reading a model's answer: the one JSON object in it, and typed fields
//! with messages that say exactly what is wrong and where.
//!
//! # What is accepted
//!
//! One JSON object, alone, or inside one Markdown code fence (```` ```json
//! … ``` ````), or with prose before and after it ("Here is the result:
//! {…} Let me know …"). Everything else is an [`AnswerError`]:
//!
//! - no `{` at all, or an empty answer → `not JSON: …`;
//! - a top-level array (`[{…}, {…}]`) → `not JSON: a JSON array …` (the
//!   prompts ask for an object, which is also what providers' JSON modes
//!   return);
//! - an object that never closes → [`AnswerError::Truncated`] (the answer
//!   hit its token limit; the retry raises it);
//! - two objects, or two fenced blocks holding JSON → `not JSON: more than
//!   one …` (which one was meant cannot be told);
//! - invalid JSON inside the braces (a trailing comma, single quotes) →
//!   `not JSON: ` and serde_json's message with line and column.
//!
//! The scan for the object's end knows JSON strings and escapes, so a `}`
//! inside a text does not end it.

use serde_json::{Map, Value};

use super::AnswerError;

/// A JSON object.
pub(super) type Object = Map<String, Value>;

/// The one JSON object of an answer (see the module docs).
pub(super) fn json_object(answer: &str) -> Result<Object, AnswerError> {
    let trimmed = answer.trim();
    if trimmed.is_empty() {
        return Err(AnswerError::NotJson("the answer is empty".into()));
    }
    let body = fenced_body(trimmed)?.unwrap_or(trimmed);
    let Some((before, from_brace)) = body
        .find('{')
        .and_then(|start| body.split_at_checked(start))
    else {
        return Err(if body.trim_start().starts_with('[') {
            array_error()
        } else {
            AnswerError::NotJson("no JSON object in the answer".into())
        });
    };
    if before.trim_end().ends_with('[') {
        return Err(array_error());
    }
    let (object, rest) = split_object(from_brace).ok_or(AnswerError::Truncated)?;
    let value: Value =
        serde_json::from_str(object).map_err(|e| AnswerError::NotJson(e.to_string()))?;
    let another = rest
        .find('{')
        .and_then(|next| rest.get(next..))
        .and_then(split_object)
        .and_then(|(next_object, _)| serde_json::from_str::<Value>(next_object).ok());
    if another.is_some() {
        return Err(AnswerError::NotJson(
            "more than one JSON object in the answer".into(),
        ));
    }
    match value {
        Value::Object(object) => Ok(object),
        other => Err(AnswerError::NotJson(format!(
            "expected an object, got {}",
            kind(&other)
        ))),
    }
}

fn array_error() -> AnswerError {
    AnswerError::NotJson("a JSON array; expected one object".into())
}

/// The content of the one fenced code block that holds JSON, if the answer
/// has fences. An unclosed fence (a cut-off answer) runs to the end.
fn fenced_body(text: &str) -> Result<Option<&str>, AnswerError> {
    let mut blocks: Vec<&str> = Vec::new();
    let mut rest = text;
    while let Some((_, after)) = rest.split_once("```") {
        // The info string ("json") runs to the end of the line.
        let content = after.split_once('\n').map_or("", |(_, content)| content);
        match content.split_once("```") {
            Some((block, after_close)) => {
                blocks.push(block);
                rest = after_close;
            }
            None => {
                blocks.push(content);
                break;
            }
        }
    }
    let json: Vec<&str> = blocks
        .into_iter()
        .filter(|b| b.trim_start().starts_with('{'))
        .collect();
    match json.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        _ => Err(AnswerError::NotJson(
            "more than one code block with JSON in the answer".into(),
        )),
    }
}

/// The JSON object `text` starts with (`text` starts with `{`) and the text
/// after it, or `None` when it never closes.
fn split_object(text: &str) -> Option<(&str, &str)> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return text.split_at_checked(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// "a string", "a number", … for messages.
pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value from an answer quoted in a message: at most 40 characters, on
/// one line, so an error never carries a paragraph of model output (or of
/// the item it echoes) into the retry prompt.
pub(super) fn quote(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    if flat.chars().count() > 40 {
        format!("'{}…'", flat.chars().take(39).collect::<String>())
    } else {
        format!("'{flat}'")
    }
}

fn invalid(message: String) -> AnswerError {
    AnswerError::Invalid(message)
}

/// `value` as an object.
pub(super) fn object<'a>(value: &'a Value, path: &str) -> Result<&'a Object, AnswerError> {
    value
        .as_object()
        .ok_or_else(|| invalid(format!("{path}: expected an object, got {}", kind(value))))
}

/// Reject keys other than `allowed` (top level only: a misspelled section
/// must not pass as an empty one).
pub(super) fn known_keys(object: &Object, allowed: &[&str]) -> Result<(), AnswerError> {
    match object.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(invalid(format!(
            "unknown key {} (expected {})",
            quote(key),
            allowed.join(", ")
        ))),
        None => Ok(()),
    }
}

/// A list field: `Ok(&[])` when absent or null when `required` is false.
pub(super) fn list<'a>(
    object: &'a Object,
    key: &str,
    required: bool,
) -> Result<&'a [Value], AnswerError> {
    match object.get(key) {
        Some(Value::Array(items)) => Ok(items),
        None | Some(Value::Null) if !required => Ok(&[]),
        None => Err(invalid(format!("missing key \"{key}\""))),
        Some(other) => Err(invalid(format!(
            "\"{key}\": expected an array, got {}",
            kind(other)
        ))),
    }
}

/// A required string field.
pub(super) fn string<'a>(
    object: &'a Object,
    key: &str,
    path: &str,
) -> Result<&'a str, AnswerError> {
    match object.get(key) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(invalid(format!("{path}: missing \"{key}\""))),
        Some(other) => Err(invalid(format!(
            "{path}.{key}: expected a string, got {}",
            kind(other)
        ))),
    }
}

/// An optional string field (absent or null → `None`).
pub(super) fn optional_string<'a>(
    object: &'a Object,
    key: &str,
    path: &str,
) -> Result<Option<&'a str>, AnswerError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(invalid(format!(
            "{path}.{key}: expected a string or null, got {}",
            kind(other)
        ))),
    }
}

/// A required number field.
pub(super) fn number(object: &Object, key: &str, path: &str) -> Result<f64, AnswerError> {
    match object.get(key) {
        Some(Value::Number(n)) => n
            .as_f64()
            .ok_or_else(|| invalid(format!("{path}.{key}: not a finite number"))),
        None | Some(Value::Null) => Err(invalid(format!("{path}: missing \"{key}\""))),
        Some(other) => Err(invalid(format!(
            "{path}.{key}: expected a number, got {}",
            kind(other)
        ))),
    }
}

/// An optional part number (`turn`): a whole number ≥ 1, absent or null →
/// `None`.
pub(super) fn optional_turn(
    object: &Object,
    key: &str,
    path: &str,
) -> Result<Option<u32>, AnswerError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => whole(n.as_f64())
            .map(Some)
            .ok_or_else(|| invalid(format!("{path}.{key}: {n} is not a part number (1, 2, …)"))),
        Some(other) => Err(invalid(format!(
            "{path}.{key}: expected a number, got {}",
            kind(other)
        ))),
    }
}

/// A whole number ≥ 1 that fits a `u32`.
pub(super) fn whole(value: Option<f64>) -> Option<u32> {
    let value = value?;
    if value.fract() != 0.0 || !(1.0..=f64::from(u32::MAX)).contains(&value) {
        return None;
    }
    // In range and whole: the conversion is exact.
    Some(value as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_object() {
        for answer in [
            r#"{"a": 1}"#,
            "```json\n{\"a\": 1}\n```",
            "Sure! Here it is:\n{\"a\": 1}\nHope this helps.",
            "```\n{\"a\": 1}\n```",
            r#"{"a": 1} trailing }"#,
        ] {
            let object = json_object(answer).unwrap();
            assert_eq!(object.get("a"), Some(&Value::from(1)), "{answer}");
        }
    }

    #[test]
    fn braces_inside_strings_do_not_end_the_object() {
        let object = json_object(r#"{"a": "x } y \" {", "b": 2}"#).unwrap();
        assert_eq!(object.get("b"), Some(&Value::from(2)));
    }

    #[test]
    fn rejects_what_is_not_one_object() {
        let cases = [
            ("", "not JSON: the answer is empty"),
            ("no json here", "not JSON: no JSON object in the answer"),
            (
                "[{\"a\": 1}]",
                "not JSON: a JSON array; expected one object",
            ),
            (
                "{\"a\": 1} and {\"b\": 2}",
                "not JSON: more than one JSON object in the answer",
            ),
            (
                "```json\n{\"a\": 1}\n```\n```json\n{\"b\": 2}\n```",
                "not JSON: more than one code block with JSON in the answer",
            ),
        ];
        for (answer, message) in cases {
            assert_eq!(
                json_object(answer).unwrap_err().to_string(),
                message,
                "{answer}"
            );
        }
        assert_eq!(
            json_object("{\"a\": [1, 2").unwrap_err(),
            AnswerError::Truncated
        );
        assert_eq!(
            json_object("```json\n{\"a\": [1, 2").unwrap_err(),
            AnswerError::Truncated
        );
        assert!(
            json_object("{\"a\": 1,}")
                .unwrap_err()
                .to_string()
                .starts_with("not JSON: ")
        );
    }

    #[test]
    fn whole_numbers() {
        assert_eq!(whole(Some(3.0)), Some(3));
        assert_eq!(whole(Some(0.0)), None);
        assert_eq!(whole(Some(2.5)), None);
    }

    #[test]
    fn quotes_are_short() {
        assert_eq!(quote("maybe"), "'maybe'");
        assert_eq!(quote(&"x".repeat(100)).chars().count(), 42);
    }
}
