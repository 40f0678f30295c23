//! What a model may see: stored text passes the engine's injection scan
//! before it is shown (a flagged field is withheld, with the reason), and
//! the JSON shapes the tools answer with.

use super::*;

/// The names of the regex scanner's categories the report lists.
pub(super) fn flag_names(report: &InjectionReport) -> Vec<&'static str> {
    report.flags.iter().map(|flag| flag.wit_name()).collect()
}

/// A reason that quotes the text that scored (`sentence "…"`): for its
/// owner's eyes, never a model's, since it is the instruction a withheld
/// text holds back.
fn quotes_text(reason: &str) -> bool {
    reason.starts_with("sentence ")
}

/// `value` as a model may see it: every `reasons` list without the reasons
/// that quote the text that scored ([`quotes_text`]), at any depth. Every
/// tool result passes here ([`json_result`]), and each frame a resource
/// shows ([`frame_view`]).
pub(super) fn for_model(value: &mut Json) {
    match value {
        Json::Object(object) => {
            for (key, field) in object.iter_mut() {
                if key == "reasons"
                    && let Json::Array(reasons) = field
                {
                    reasons.retain(|reason| !reason.as_str().is_some_and(quotes_text));
                } else {
                    for_model(field);
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(for_model),
        _ => {}
    }
}

/// The injection detector's verdict as JSON.
pub(super) fn scan_json(report: &InjectionReport) -> Json {
    json!({
        "safe": report.safe,
        "score": report.score,
        "threshold": report.threshold,
        "detector": report.detector,
        "reasons": report.reasons,
        "flags": flag_names(report),
        "matched": report.matched,
    })
}

/// Why `text` is withheld from a model, when the engine's injection scan
/// (the one recall runs, `logic.scan-for-injection`, as tool output) flags
/// it; `None` when it is safe.
pub(super) fn withheld_reason(
    engine: &mut EngineRuntime,
    text: &str,
) -> Result<Option<String>, McpError> {
    let report = engine
        .scan_for_injection(text, ScanContext::ToolOutput)
        .map_err(engine_error)?;
    if report.safe {
        return Ok(None);
    }
    Ok(Some(format!(
        "the injection detector found it hostile (score {:.3} ≥ {:.3}; {}); the text is withheld",
        report.score,
        report.threshold,
        report
            .reasons
            .iter()
            .filter(|reason| !quotes_text(reason))
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// `value` (a JSON object) with `field` set to null and a `withheld`
/// reason when the scan flags `text`; as it is otherwise.
pub(super) fn guarded(
    engine: &mut EngineRuntime,
    mut value: Json,
    field: &str,
    text: &str,
) -> Result<Json, McpError> {
    if let Some(why) = withheld_reason(engine, text)?
        && let Some(object) = value.as_object_mut()
    {
        object.insert(field.to_string(), Json::Null);
        object.insert("withheld".to_string(), json!(why));
    }
    Ok(value)
}

/// An awareness item as a model may see it (scanned).
pub(super) fn awareness_view(
    engine: &mut EngineRuntime,
    item: &AwarenessItem,
) -> Result<Json, McpError> {
    guarded(
        engine,
        crate::admin_cli::awareness_json(item),
        "content",
        &item.content,
    )
}

/// A frame as a model may see it (scanned).
pub(super) fn frame_view(
    engine: &mut EngineRuntime,
    frame: &wit_types::Frame,
) -> Result<Json, McpError> {
    let mut value = guarded(engine, frame_json(frame), "content", &frame.content)?;
    for_model(&mut value);
    // `text` is the same words without the engine's markings: withheld
    // with them.
    if value.get("withheld").is_some()
        && let Some(object) = value.as_object_mut()
    {
        object.insert("text".to_string(), Json::Null);
    }
    Ok(value)
}

/// `{"identity": …}` as a model may see it: the whole identity is withheld
/// (null, with the reason) when the scan flags any of its fields.
pub(super) fn identity_view(
    engine: &mut EngineRuntime,
    identity: Option<&Identity>,
) -> Result<Json, McpError> {
    let Some(identity) = identity else {
        return Ok(json!({ "identity": Json::Null }));
    };
    let text = [
        identity.name.as_str(),
        &identity.role,
        &identity.personality,
        &identity.capabilities,
        &identity.system_prompt,
    ]
    .join("\n");
    Ok(match withheld_reason(engine, &text)? {
        None => json!({ "identity": crate::admin_cli::identity_json(Some(identity)) }),
        Some(why) => json!({ "identity": Json::Null, "withheld": why }),
    })
}

/// An entity as the tools show it.
pub(super) fn entity_json(entity: &wit_memory::KnownEntity) -> Json {
    json!({
        "id": entity.id,
        "name": entity.name,
        "entity_type": entity.entity_type,
        "seen_count": entity.seen_count,
    })
}

pub(super) fn json_result(mut value: Json) -> CallToolResult {
    for_model(&mut value);
    CallToolResult::structured(value)
}

/// A mind's live awareness items as a model may see them.
pub(super) fn awareness_views(
    engine: &mut EngineRuntime,
    items: &[AwarenessItem],
) -> Result<Vec<Json>, McpError> {
    items
        .iter()
        .map(|item| awareness_view(engine, item))
        .collect()
}
