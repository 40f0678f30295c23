//! A small JSON Schema check for the server's answers against its own
//! OpenAPI 3.1 document: the subset utoipa writes (`$ref` into
//! `components/schemas`, `type` — one or a list with `null` —,
//! `properties`, `required`, `items`, `enum`, `oneOf`/`anyOf`/`allOf`).
//! Enough to catch a handler whose answer drifts from the document.

use serde_json::Value as Json;

/// The schema of the answer to `method path` with `status`: the path
/// template matching `path`, then the status or its class (`4XX`).
pub fn response_schema<'a>(
    document: &'a Json,
    method: &str,
    path: &str,
    status: u16,
    media: &str,
) -> Option<&'a Json> {
    let paths = document.get("paths")?.as_object()?;
    let (_, operations) = paths
        .iter()
        .find(|(template, _)| matches_template(template, path))?;
    let responses = operations.get(method)?.get("responses")?;
    let class = format!("{}XX", status / 100);
    let response = responses
        .get(status.to_string())
        .or_else(|| responses.get(&class))?;
    response.get("content")?.get(media)?.get("schema")
}

/// The path template (`/api/memories/{ref}`) that `path` fills.
pub fn matches_template(template: &str, path: &str) -> bool {
    let template: Vec<&str> = template.split('/').collect();
    let path: Vec<&str> = path.split('/').collect();
    template.len() == path.len()
        && template
            .iter()
            .zip(&path)
            .all(|(t, p)| t == p || (t.starts_with('{') && t.ends_with('}') && !p.is_empty()))
}

fn resolve<'a>(document: &'a Json, schema: &'a Json) -> &'a Json {
    match schema.get("$ref").and_then(Json::as_str) {
        Some(reference) => {
            let name = reference.trim_start_matches("#/components/schemas/");
            &document["components"]["schemas"][name]
        }
        None => schema,
    }
}

fn type_matches(name: &str, value: &Json) -> bool {
    match name {
        "null" => value.is_null(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        _ => false,
    }
}

/// Check `value` against `schema`; each problem with its JSON path.
pub fn validate(
    document: &Json,
    schema: &Json,
    value: &Json,
    at: &str,
    problems: &mut Vec<String>,
) {
    let schema = resolve(document, schema);
    if let Some(all) = schema.get("allOf").and_then(Json::as_array) {
        for part in all {
            validate(document, part, value, at, problems);
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Json::as_array) {
            let fits = options.iter().any(|option| {
                let mut inner = Vec::new();
                validate(document, option, value, at, &mut inner);
                inner.is_empty()
            });
            if !fits {
                problems.push(format!("{at}: fits none of {key}"));
            }
        }
    }
    match schema.get("type") {
        Some(Json::String(name)) if !type_matches(name, value) => {
            problems.push(format!("{at}: expected {name}, got {value}"));
            return;
        }
        Some(Json::Array(names))
            if !names
                .iter()
                .filter_map(Json::as_str)
                .any(|name| type_matches(name, value)) =>
        {
            problems.push(format!("{at}: expected one of {names:?}, got {value}"));
            return;
        }
        _ => {}
    }
    if let Some(allowed) = schema.get("enum").and_then(Json::as_array)
        && !allowed.contains(value)
    {
        problems.push(format!("{at}: {value} is not one of {allowed:?}"));
    }
    if let Some(object) = value.as_object() {
        for name in schema
            .get("required")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
            .filter_map(Json::as_str)
        {
            if !object.contains_key(name) {
                problems.push(format!("{at}: missing required {name}"));
            }
        }
        if let Some(properties) = schema.get("properties").and_then(Json::as_object) {
            for (name, property) in properties {
                if let Some(inner) = object.get(name) {
                    validate(document, property, inner, &format!("{at}.{name}"), problems);
                }
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (index, item) in array.iter().enumerate() {
            validate(document, items, item, &format!("{at}[{index}]"), problems);
        }
    }
}
