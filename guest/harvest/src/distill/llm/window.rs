//! What of an item the prompts show: the short excerpt pass 1 reads, and
//! the bounded window of a long item pass 2 reads.
//!
//! # The pass 1 excerpt
//!
//! The first [`CLASSIFY_EXCERPT_CHARS`] characters of the dialogue as
//! `role: text` lines (system messages left out: they are the tool's
//! instructions, not the user's words), each assistant message cut to
//! [`CLASSIFY_ASSISTANT_CHARS`]. Whether an item is worth distilling shows
//! in what the user opens with; a first answer of two pages would otherwise
//! fill the excerpt and hide the user's second message. A document's
//! excerpt is its sections, `heading: text`, in order.
//!
//! # The pass 2 window
//!
//! Parts are numbered `[N]` (N the 1-based position among the item's
//! messages or sections, the same N as the heuristic's "turn N"
//! provenance), so the model can cite them. A conversation's part header
//! carries the role, and the date when the day changes from the previous
//! part shown (the model needs it to tell what "yesterday" meant; repeating
//! it on every part would cost tokens for nothing).
//!
//! When the whole item fits [`EXTRACT_BUDGET_CHARS`] it is sent whole.
//! Otherwise every part is cut — user messages and sections to
//! [`EXTRACT_PART_CHARS`], assistant messages to
//! [`EXTRACT_ASSISTANT_CHARS`] — and parts are taken, while they fit, in
//! this order:
//!
//! 1. the first user message (or first section): what the item is about;
//! 2. the parts where the heuristic found something (a write-back hit, a
//!    profile statement, a dated event): the most likely knowledge;
//! 3. the last user message: decisions and corrections land late;
//! 4. the other user messages, most recent first (a later statement
//!    supersedes an earlier one); a document's other sections in order;
//! 5. assistant messages, most recent first: context for the user's
//!    replies, least likely to hold knowledge about the user.
//!
//! The chosen parts are shown in their original order, with `[… turns
//! 4–9 omitted …]` (or sections) where parts were left out, so the model
//! knows the conversation continued. (The markers are not counted in the
//! budget: a few dozen characters each.)

use crate::distill::heuristic;
use crate::distill::text::{bounded, neutralise_delimiters, section_label};
use crate::item::{Item, ItemKind, Role};

/// The pass 1 excerpt's length, in characters (about 400 tokens per item,
/// 8 000 for a batch of 20).
pub const CLASSIFY_EXCERPT_CHARS: usize = 1500;

/// An assistant message's share of the pass 1 excerpt at most.
pub const CLASSIFY_ASSISTANT_CHARS: usize = 300;

/// The longest title shown, in characters.
pub const TITLE_CHARS: usize = 120;

/// The pass 2 dialogue budget, in characters (about 6 000 tokens). Most
/// conversations of a chat export fit whole; past this, extraction from one
/// call loses the middle of the text anyway and the cost per item keeps
/// growing, so a long item is windowed instead.
pub const EXTRACT_BUDGET_CHARS: usize = 24_000;

/// A user message's or section's length at most when windowing: a page of
/// the user's own writing; beyond that it is usually pasted material (logs,
/// code, documents) rather than statements about the user.
pub const EXTRACT_PART_CHARS: usize = 2_000;

/// An assistant message's length at most when windowing: its opening,
/// which usually states the answer the user then reacts to.
pub const EXTRACT_ASSISTANT_CHARS: usize = 600;

/// The pass 1 excerpt of an item (see the module docs).
pub(super) fn excerpt(item: &Item) -> String {
    let mut lines: Vec<String> = Vec::new();
    match item.kind {
        ItemKind::Conversation => {
            for message in item.messages.iter().filter(|m| m.role != Role::System) {
                let body = if message.role == Role::Assistant {
                    bounded(message.text.trim(), CLASSIFY_ASSISTANT_CHARS)
                } else {
                    message.text.trim().to_string()
                };
                lines.push(format!("{}: {body}", message.role.name()));
            }
        }
        ItemKind::Document => {
            for (index, section) in item.sections.iter().enumerate() {
                let label = section_label(section, index);
                lines.push(format!("{label}: {}", section.text.trim()));
            }
        }
    }
    neutralise_delimiters(&bounded(&lines.join("\n"), CLASSIFY_EXCERPT_CHARS))
}

/// One part of an item as pass 2 may show it.
struct Part {
    index: usize,
    header: String,
    text: String,
    cap: usize,
    rank: (u8, usize),
}

impl Part {
    fn full(&self) -> String {
        format!("{}\n{}", self.header, self.text.trim())
    }

    fn capped(&self) -> String {
        format!("{}\n{}", self.header, bounded(self.text.trim(), self.cap))
    }
}

/// The item's parts, with their headers, caps and selection ranks.
fn parts(item: &Item) -> Vec<Part> {
    let signals = heuristic::signal_parts(item);
    let mut out = Vec::new();
    match item.kind {
        ItemKind::Conversation => {
            let users: Vec<usize> = item
                .messages
                .iter()
                .enumerate()
                .filter(|(_, message)| message.role == Role::User)
                .map(|(index, _)| index)
                .collect();
            let first_user = users.first().copied();
            let last_user = users.last().copied();
            let count = item.messages.len();
            let mut last_day: Option<String> = None;
            for (index, message) in item.messages.iter().enumerate() {
                if message.role == Role::System {
                    continue;
                }
                let day = message
                    .timestamp
                    .as_deref()
                    .and_then(|t| t.get(..10))
                    .map(str::to_string);
                let header = match &day {
                    Some(day) if last_day.as_ref() != Some(day) => {
                        format!("[{}] {}, {day}:", index + 1, message.role.name())
                    }
                    _ => format!("[{}] {}:", index + 1, message.role.name()),
                };
                if day.is_some() {
                    last_day = day;
                }
                let recency = count - index;
                let rank = if message.role == Role::Assistant {
                    (4, recency)
                } else if Some(index) == first_user {
                    (0, 0)
                } else if signals.contains(&index) {
                    (1, recency)
                } else if Some(index) == last_user {
                    (2, 0)
                } else {
                    (3, recency)
                };
                let cap = if message.role == Role::Assistant {
                    EXTRACT_ASSISTANT_CHARS
                } else {
                    EXTRACT_PART_CHARS
                };
                out.push(Part {
                    index,
                    header,
                    text: message.text.clone(),
                    cap,
                    rank,
                });
            }
        }
        ItemKind::Document => {
            for (index, section) in item.sections.iter().enumerate() {
                let rank = if index == 0 {
                    (0, 0)
                } else if signals.contains(&index) {
                    (1, index)
                } else {
                    (3, index)
                };
                out.push(Part {
                    index,
                    header: format!("[{}] {}", index + 1, section_label(section, index)),
                    text: section.text.clone(),
                    cap: EXTRACT_PART_CHARS,
                    rank,
                });
            }
        }
    }
    out
}

/// The pass 2 window of an item (see the module docs), delimiters in its
/// text neutralised.
pub(super) fn window(item: &Item) -> String {
    window_with_budget(item, EXTRACT_BUDGET_CHARS)
}

fn window_with_budget(item: &Item, budget: usize) -> String {
    let parts = parts(item);
    let whole: Vec<String> = parts.iter().map(Part::full).collect();
    let total: usize = whole.iter().map(|p| p.chars().count() + 1).sum();
    let chosen: Vec<(usize, String)> = if total <= budget {
        parts.iter().map(|p| p.index).zip(whole).collect()
    } else {
        let mut order: Vec<&Part> = parts.iter().collect();
        order.sort_by_key(|p| (p.rank, p.index));
        let mut left = budget;
        let mut chosen: Vec<(usize, String)> = Vec::new();
        for part in order {
            let shown = part.capped();
            let cost = shown.chars().count() + 1;
            if cost <= left {
                left -= cost;
                chosen.push((part.index, shown));
            }
        }
        chosen.sort_by_key(|(index, _)| *index);
        chosen
    };
    let noun = match item.kind {
        ItemKind::Conversation => "turns",
        ItemKind::Document => "sections",
    };
    let positions: Vec<usize> = parts.iter().map(|p| p.index).collect();
    let mut out: Vec<String> = Vec::new();
    let mut next = 0usize; // position in `positions` expected next
    for (index, shown) in chosen {
        let at = positions.iter().position(|&p| p == index).unwrap_or(next);
        if let Some(marker) = positions.get(next..at).and_then(|gap| omitted(noun, gap)) {
            out.push(marker);
        }
        out.push(shown);
        next = at + 1;
    }
    if let Some(marker) = positions.get(next..).and_then(|gap| omitted(noun, gap)) {
        out.push(marker);
    }
    neutralise_delimiters(&out.join("\n"))
}

/// The marker for parts left out, `indexes` their 0-based indexes in the
/// item, in order; `None` when none were.
fn omitted(noun: &str, indexes: &[usize]) -> Option<String> {
    let (from, to) = (indexes.first()? + 1, indexes.last()? + 1);
    Some(if from == to {
        format!("[… {noun} {from} omitted …]")
    } else {
        format!("[… {noun} {from}–{to} omitted …]")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::{Message, SourceFormat};

    fn conversation(texts: &[(Role, &str)]) -> Item {
        Item {
            id: "c1".into(),
            source: SourceFormat::Universal,
            kind: ItemKind::Conversation,
            title: None,
            created_at: Some("2024-05-01T09:00:00Z".into()),
            messages: texts
                .iter()
                .map(|(role, text)| Message {
                    role: *role,
                    text: (*text).to_string(),
                    timestamp: None,
                })
                .collect(),
            sections: Vec::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn small_items_are_shown_whole() {
        let item = conversation(&[(Role::User, "Hello"), (Role::Assistant, "Hi!")]);
        assert_eq!(window(&item), "[1] user:\nHello\n[2] assistant:\nHi!");
    }

    #[test]
    fn long_items_keep_first_signal_and_last_turns() {
        let filler = "words ".repeat(300);
        let mut texts: Vec<(Role, &str)> = vec![(Role::User, "I need a plan for my garden.")];
        for _ in 0..6 {
            texts.push((Role::Assistant, &filler));
            texts.push((Role::User, &filler));
        }
        texts.push((Role::User, "We decided to plant tomatoes."));
        texts.push((Role::User, "Thanks, bye."));
        let item = conversation(&texts);
        let shown = window_with_budget(&item, 1200);
        assert!(shown.starts_with("[1] user:\nI need a plan"), "{shown}");
        assert!(
            shown.contains("[14] user:\nWe decided to plant tomatoes."),
            "{shown}"
        );
        assert!(shown.contains("[15] user:\nThanks, bye."), "{shown}");
        assert!(shown.contains("omitted …]"), "{shown}");
        assert!(
            shown.chars().count() <= 1200 + 200,
            "{}",
            shown.chars().count()
        );
    }
}
