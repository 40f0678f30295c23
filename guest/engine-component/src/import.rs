//! `memory.import-conversations`: conversation turns, verbatim, as raw-turn
//! frames.
//!
//! Each turn becomes one frame `[mind-rawturn conv:KEY turn:N speaker:S] text`
//! (design §3, stage 4): `N` is the turn's 1-based position in its
//! conversation, `S` the speaker with white space as `_`, and the event time
//! is the conversation's date, so date windows find what was said when. The
//! turns of one conversation share a session (`conv:KEY`) and are written in
//! one store transaction. Recall's raw-detail lane finds them by the
//! `[mind-rawturn` prefix; harvest reuses this path.
//!
//! Skipped: empty turns and `system` turns (instructions to a model are not
//! something a person said). Rejected: turns the injection scan finds hostile
//! (verbatim dialogue is the most injection-prone surface) — counted, never
//! written. Duplicates (the same turn imported twice) are counted by the
//! store's content-hash dedup.

use hive_mind_core::{ScanContext, bounds, raw_turn_content, reply_context, scan_in_windows};

use crate::boundary;
use crate::exports::hive::mind::memory::{Error, ImportReport, ImportedConversation, ImportedTurn};
use crate::hive::mind::types::{Importance, Mind, Source};
use crate::save::{Draft, embed_drafts, store_error};
use crate::store;

fn check_key(key: &str) -> Result<(), Error> {
    let ok = !key.is_empty()
        && key.len() <= 200
        && !key
            .chars()
            .any(|c| c.is_whitespace() || c == ']' || c == '[');
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "conversation key {key:?}: use 1-200 characters without white space or brackets"
        )))
    }
}

/// Import conversations into `mind`.
pub fn import_conversations(
    mind: Mind,
    conversations: Vec<ImportedConversation>,
) -> Result<ImportReport, Error> {
    // Validate everything before writing anything.
    let invalid = |conversation: &ImportedConversation, why: String| {
        Error::InvalidArgument(format!("conversation {}: {why}", conversation.key))
    };
    let mut bytes = 0usize;
    for conversation in &conversations {
        check_key(&conversation.key)?;
        if let Some(title) = &conversation.title {
            bounds::NAME
                .named("title")
                .check(title)
                .map_err(|why| invalid(conversation, why))?;
        }
        for (index, turn) in conversation.turns.iter().enumerate() {
            bounds::NAME
                .named("speaker")
                .check(&turn.speaker)
                .map_err(|why| invalid(conversation, format!("turn {}: {why}", index + 1)))?;
            bytes = bytes.saturating_add(turn.text.len() + turn.speaker.len());
        }
        bytes = bytes.saturating_add(
            conversation.key.len() + conversation.title.as_ref().map_or(0, String::len),
        );
        boundary::iso(conversation.date).map_err(|why| invalid(conversation, why))?;
    }
    bounds::CONVERSATIONS
        .check_size(bytes)
        .map_err(Error::InvalidArgument)?;
    let mut report = ImportReport {
        written: 0,
        duplicates: 0,
        rejected: 0,
        skipped: 0,
    };
    for conversation in conversations {
        let mut drafts = Vec::new();
        // The turn before, as a reply's search context: the previous turn
        // written (a skipped or hostile one is never quoted).
        let mut previous: Option<&ImportedTurn> = None;
        for (index, turn) in conversation.turns.iter().enumerate() {
            let system = turn.speaker.trim().eq_ignore_ascii_case("system");
            if system || turn.text.trim().is_empty() {
                report.skipped += 1;
                continue;
            }
            if !scan_in_windows(&turn.text, ScanContext::ToolOutput).safe {
                report.rejected += 1;
                continue;
            }
            let number = index + 1;
            let metadata = serde_json::json!({
                "conv": conversation.key,
                "turn": number,
                "speaker": turn.speaker.trim(),
            });
            drafts.push(Draft {
                mind: mind.clone(),
                gop_id: None,
                content: raw_turn_content(&conversation.key, number, &turn.speaker, &turn.text),
                importance: Importance::Normal,
                source: Source::Import,
                created_at: boundary::iso(conversation.date).ok(),
                metadata: Some(metadata.to_string()),
                context: previous
                    .map(|previous| reply_context(&previous.speaker, &previous.text))
                    .unwrap_or_default(),
            });
            previous = Some(turn);
        }
        if drafts.is_empty() {
            continue;
        }
        let session = store::ensure_session(
            &mind,
            &format!("conv:{}", conversation.key),
            None,
            conversation.title.as_deref(),
        )
        .map_err(store_error)?;
        for draft in &mut drafts {
            draft.gop_id = Some(session.gop_id.clone());
        }
        let frames = embed_drafts(drafts)?;
        let vectors: Vec<Option<Vec<f32>>> =
            frames.iter().map(|frame| frame.embedding.clone()).collect();
        let stored = store::save_frames(&mind, frames).map_err(store_error)?;
        crate::save::settle_saved(&mind, &stored, &vectors);
        for saved in stored {
            if saved.duplicate {
                report.duplicates += 1;
            } else {
                report.written += 1;
            }
        }
    }
    Ok(report)
}
