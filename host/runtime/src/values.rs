//! JSON ⇄ component values, driven by the component's own types.
//!
//! The mapping is the one the whole project uses when a WIT value is shown as
//! JSON (the core crate's serde derives produce the same shapes):
//!
//! | WIT | JSON |
//! |---|---|
//! | bool, integers, floats | boolean, number |
//! | `char`, `string` | string |
//! | `list<T>`, `tuple<…>` | array |
//! | `record` | object keyed by the WIT field names (kebab-case) |
//! | `enum` | the case name, e.g. `"critical"` |
//! | `variant` | `"case"` without payload, `{"case": payload}` with one |
//! | `option<T>` | `null` or the value |
//! | `result<T, E>` | `{"ok": value}` or `{"err": value}` (`null` payload when absent) |
//! | `flags` | array of the set flag names |
//!
//! Converting JSON into a value needs the expected [`Type`]; converting a
//! value into JSON needs nothing else. Errors name the path to the offending
//! part (`options.max-chars: expected u32, got -1`).

use serde_json::{Map, Number, Value as Json};
use wasmtime::component::{Type, Val};

/// Convert a JSON value into a component value of type `ty`; errors name the
/// offending path, rooted at `path`.
pub fn json_to_val(json: &Json, ty: &Type, path: &str) -> Result<Val, String> {
    let mismatch = || format!("{path}: expected {}, got {}", type_name(ty), describe(json));
    Ok(match ty {
        Type::Bool => Val::Bool(json.as_bool().ok_or_else(mismatch)?),
        Type::S8 => Val::S8(integer(json, path, ty)?),
        Type::U8 => Val::U8(integer(json, path, ty)?),
        Type::S16 => Val::S16(integer(json, path, ty)?),
        Type::U16 => Val::U16(integer(json, path, ty)?),
        Type::S32 => Val::S32(integer(json, path, ty)?),
        Type::U32 => Val::U32(integer(json, path, ty)?),
        Type::S64 => Val::S64(integer(json, path, ty)?),
        Type::U64 => Val::U64(integer(json, path, ty)?),
        // Narrowing to f32 is what a float32 parameter means.
        #[allow(clippy::cast_possible_truncation)]
        Type::Float32 => Val::Float32(json.as_f64().ok_or_else(mismatch)? as f32),
        Type::Float64 => Val::Float64(json.as_f64().ok_or_else(mismatch)?),
        Type::Char => {
            let text = json.as_str().ok_or_else(mismatch)?;
            let mut chars = text.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Val::Char(c),
                _ => return Err(format!("{path}: expected a single character, got {text:?}")),
            }
        }
        Type::String => Val::String(json.as_str().ok_or_else(mismatch)?.to_owned()),
        Type::List(list) => {
            let items = json.as_array().ok_or_else(mismatch)?;
            let element = list.ty();
            Val::List(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| json_to_val(item, &element, &format!("{path}[{i}]")))
                    .collect::<Result<_, _>>()?,
            )
        }
        Type::Tuple(tuple) => {
            let items = json.as_array().ok_or_else(mismatch)?;
            let types: Vec<Type> = tuple.types().collect();
            if items.len() != types.len() {
                return Err(format!(
                    "{path}: expected a tuple of {} values, got {}",
                    types.len(),
                    items.len()
                ));
            }
            Val::Tuple(
                items
                    .iter()
                    .zip(&types)
                    .enumerate()
                    .map(|(i, (item, ty))| json_to_val(item, ty, &format!("{path}[{i}]")))
                    .collect::<Result<_, _>>()?,
            )
        }
        Type::Record(record) => {
            let object = json.as_object().ok_or_else(mismatch)?;
            let fields: Vec<(String, Type)> =
                record.fields().map(|f| (f.name.to_owned(), f.ty)).collect();
            Val::Record(named_values(object, &fields, path)?)
        }
        Type::Enum(enumeration) => {
            let name = json.as_str().ok_or_else(mismatch)?;
            if !enumeration.names().any(|n| n == name) {
                let names: Vec<&str> = enumeration.names().collect();
                return Err(format!(
                    "{path}: {name:?} is not one of {}",
                    names.join(", ")
                ));
            }
            Val::Enum(name.to_owned())
        }
        Type::Variant(variant) => {
            let (name, payload) = match json {
                Json::String(name) => (name.as_str(), None),
                Json::Object(object) if object.len() == 1 => {
                    let (name, payload) = object.iter().next().ok_or_else(mismatch)?;
                    (name.as_str(), Some(payload))
                }
                _ => return Err(mismatch()),
            };
            let case = variant
                .cases()
                .find(|case| case.name == name)
                .ok_or_else(|| {
                    let names: Vec<&str> = variant.cases().map(|c| c.name).collect();
                    format!("{path}: {name:?} is not one of {}", names.join(", "))
                })?;
            let payload = match (case.ty, payload) {
                (Some(ty), Some(payload)) => Some(Box::new(json_to_val(
                    payload,
                    &ty,
                    &format!("{path}.{name}"),
                )?)),
                (None, None) | (None, Some(Json::Null)) => None,
                (Some(ty), None) => {
                    return Err(format!(
                        "{path}: case {name:?} carries a {}: write {{\"{name}\": …}}",
                        type_name(&ty)
                    ));
                }
                (None, Some(_)) => {
                    return Err(format!("{path}: case {name:?} carries no value"));
                }
            };
            Val::Variant(name.to_owned(), payload)
        }
        Type::Option(option) => match json {
            Json::Null => Val::Option(None),
            some => Val::Option(Some(Box::new(json_to_val(some, &option.ty(), path)?))),
        },
        Type::Result(result) => {
            let object = json.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
                format!(
                    "{path}: expected {{\"ok\": …}} or {{\"err\": …}}, got {}",
                    describe(json)
                )
            })?;
            let payload = |ty: Option<Type>, value: &Json, arm: &str| match ty {
                Some(ty) => {
                    json_to_val(value, &ty, &format!("{path}.{arm}")).map(|v| Some(Box::new(v)))
                }
                None => Ok(None),
            };
            if let Some(value) = object.get("ok") {
                Val::Result(Ok(payload(result.ok(), value, "ok")?))
            } else if let Some(value) = object.get("err") {
                Val::Result(Err(payload(result.err(), value, "err")?))
            } else {
                return Err(format!("{path}: expected {{\"ok\": …}} or {{\"err\": …}}"));
            }
        }
        Type::Flags(flags) => {
            let items = json.as_array().ok_or_else(mismatch)?;
            let mut set = Vec::with_capacity(items.len());
            for item in items {
                let name = item.as_str().ok_or_else(mismatch)?;
                if !flags.names().any(|n| n == name) {
                    return Err(format!("{path}: {name:?} is not a flag of this type"));
                }
                set.push(name.to_owned());
            }
            Val::Flags(set)
        }
        _ => {
            return Err(format!(
                "{path}: values of type {} cannot be given as JSON",
                type_name(ty)
            ));
        }
    })
}

/// Convert a JSON object into named values (function parameters or record
/// fields): every name must be present unless its type is an `option`, and
/// unknown names are refused so that typos do not pass silently.
pub fn named_values(
    object: &Map<String, Json>,
    names: &[(String, Type)],
    path: &str,
) -> Result<Vec<(String, Val)>, String> {
    if let Some(unknown) = object
        .keys()
        .find(|key| !names.iter().any(|(name, _)| name == *key))
    {
        let expected: Vec<&str> = names.iter().map(|(name, _)| name.as_str()).collect();
        return Err(format!(
            "{}unknown key {unknown:?}; expected {}",
            prefix(path),
            if expected.is_empty() {
                "no keys".to_owned()
            } else {
                expected.join(", ")
            }
        ));
    }
    names
        .iter()
        .map(|(name, ty)| {
            let field_path = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            match object.get(name) {
                Some(json) => json_to_val(json, ty, &field_path).map(|v| (name.clone(), v)),
                None if matches!(ty, Type::Option(_)) => Ok((name.clone(), Val::Option(None))),
                None => Err(format!("{field_path}: missing (a {})", type_name(ty))),
            }
        })
        .collect()
}

/// Convert a component value into JSON.
pub fn val_to_json(val: &Val) -> Json {
    match val {
        Val::Bool(b) => Json::Bool(*b),
        Val::S8(n) => Json::from(*n),
        Val::U8(n) => Json::from(*n),
        Val::S16(n) => Json::from(*n),
        Val::U16(n) => Json::from(*n),
        Val::S32(n) => Json::from(*n),
        Val::U32(n) => Json::from(*n),
        Val::S64(n) => Json::from(*n),
        Val::U64(n) => Json::from(*n),
        Val::Float32(x) => float(f64::from(*x)),
        Val::Float64(x) => float(*x),
        Val::Char(c) => Json::String(c.to_string()),
        Val::String(s) => Json::String(s.clone()),
        Val::List(items) | Val::Tuple(items) | Val::FixedLengthList(items) => {
            Json::Array(items.iter().map(val_to_json).collect())
        }
        Val::Map(entries) => Json::Array(
            entries
                .iter()
                .map(|(k, v)| Json::Array(vec![val_to_json(k), val_to_json(v)]))
                .collect(),
        ),
        Val::Record(fields) => Json::Object(
            fields
                .iter()
                .map(|(name, value)| (name.clone(), val_to_json(value)))
                .collect(),
        ),
        Val::Variant(name, None) | Val::Enum(name) => Json::String(name.clone()),
        Val::Variant(name, Some(payload)) => {
            Json::Object(Map::from_iter([(name.clone(), val_to_json(payload))]))
        }
        Val::Option(None) => Json::Null,
        Val::Option(Some(value)) => val_to_json(value),
        Val::Result(result) => {
            let (arm, payload) = match result {
                Ok(payload) => ("ok", payload),
                Err(payload) => ("err", payload),
            };
            let payload = payload.as_deref().map_or(Json::Null, val_to_json);
            Json::Object(Map::from_iter([(arm.to_owned(), payload)]))
        }
        Val::Flags(names) => Json::Array(names.iter().cloned().map(Json::String).collect()),
        Val::Resource(_) | Val::Future(_) | Val::Stream(_) | Val::ErrorContext(_) => {
            Json::String(format!("<{}>", val_kind(val)))
        }
    }
}

/// A WIT-style name for a type, for messages.
pub fn type_name(ty: &Type) -> String {
    match ty {
        Type::Bool => "bool".into(),
        Type::S8 => "s8".into(),
        Type::U8 => "u8".into(),
        Type::S16 => "s16".into(),
        Type::U16 => "u16".into(),
        Type::S32 => "s32".into(),
        Type::U32 => "u32".into(),
        Type::S64 => "s64".into(),
        Type::U64 => "u64".into(),
        Type::Float32 => "f32".into(),
        Type::Float64 => "f64".into(),
        Type::Char => "char".into(),
        Type::String => "string".into(),
        Type::List(list) => format!("list<{}>", type_name(&list.ty())),
        Type::Tuple(tuple) => {
            let parts: Vec<String> = tuple.types().map(|t| type_name(&t)).collect();
            format!("tuple<{}>", parts.join(", "))
        }
        Type::Record(record) => {
            let fields: Vec<String> = record
                .fields()
                .map(|f| format!("{}: {}", f.name, type_name(&f.ty)))
                .collect();
            format!("record {{ {} }}", fields.join(", "))
        }
        Type::Enum(enumeration) => {
            let names: Vec<&str> = enumeration.names().collect();
            format!("enum {{ {} }}", names.join(", "))
        }
        Type::Variant(variant) => {
            let cases: Vec<String> = variant
                .cases()
                .map(|c| match c.ty {
                    Some(ty) => format!("{}({})", c.name, type_name(&ty)),
                    None => c.name.to_owned(),
                })
                .collect();
            format!("variant {{ {} }}", cases.join(", "))
        }
        Type::Option(option) => format!("option<{}>", type_name(&option.ty())),
        Type::Result(result) => {
            let arm = |t: Option<Type>| t.map_or_else(|| "_".to_owned(), |t| type_name(&t));
            format!("result<{}, {}>", arm(result.ok()), arm(result.err()))
        }
        Type::Flags(flags) => {
            let names: Vec<&str> = flags.names().collect();
            format!("flags {{ {} }}", names.join(", "))
        }
        other => format!("{other:?}"),
    }
}

fn integer<T: TryFrom<i64> + TryFrom<u64>>(
    json: &Json,
    path: &str,
    ty: &Type,
) -> Result<T, String> {
    let out_of_range = || format!("{path}: {json} does not fit in {}", type_name(ty));
    match json {
        Json::Number(n) => {
            if let Some(u) = n.as_u64() {
                T::try_from(u).map_err(|_| out_of_range())
            } else if let Some(i) = n.as_i64() {
                T::try_from(i).map_err(|_| out_of_range())
            } else {
                Err(format!(
                    "{path}: expected an integer ({}), got {n}",
                    type_name(ty)
                ))
            }
        }
        other => Err(format!(
            "{path}: expected {}, got {}",
            type_name(ty),
            describe(other)
        )),
    }
}

fn float(x: f64) -> Json {
    Number::from_f64(x).map_or_else(|| Json::String(x.to_string()), Json::Number)
}

fn describe(json: &Json) -> String {
    let text = json.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

fn prefix(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

fn val_kind(val: &Val) -> &'static str {
    match val {
        Val::Resource(_) => "resource",
        Val::Future(_) => "future",
        Val::Stream(_) => "stream",
        _ => "error-context",
    }
}
