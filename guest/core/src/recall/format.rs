//! The recall block: ranked memories as the text a model reads.
//!
//! [`assemble_recall`] renders the block and then guards it. The layout:
//!
//! ```text
//! ## Recalled memories
//!
//! <TEMPORAL_GUIDANCE>
//! Today is 2026-05-08.
//! In the query, "yesterday" means 2026-05-07.
//!
//! ### Workspace memory (acme)
//!
//! Profile:
//! - [2026-04-02] Ana: prefers short answers
//!
//! Relevant memories:
//! - [2026-05-06] We picked Postgres for the ledger.
//! …
//!
//! ### Personal memory
//! …
//! ```
//!
//! - **Minds**: workspace minds first, then the personal mind (design §4,
//!   step 9: the active mind takes visual precedence).
//! - **Sections**, in this order, each only when it has memories: *Profile*
//!   (by score), *Important* (the importance and catch-up lanes, by score),
//!   *Relevant memories* (semantic, by score), *Events during <label>* (when
//!   the query names a period: the date-window lane and the period's events,
//!   chronological), *Events* (chronological), *Facts* (oldest first), *Raw
//!   excerpts* (verbatim turns, by score, each cut to
//!   [`RAW_EXCERPT_MAX_CHARS`]).
//! - **Each memory** is one list item starting with its date in brackets:
//!   an event's own `[YYYY-MM-DD]` tag, else the local date of its
//!   `created_at`, else `undated`. Storage prefixes (`[hm …]`, `[mind-… ]`)
//!   are removed; a profile shows its person's name and a raw turn its
//!   speaker. When a chunk of a long frame matched, that chunk is shown.
//!   Continuation lines are indented so a multi-line memory stays one item.
//! - **Temporal guidance** ([`TEMPORAL_GUIDANCE`], plus today's date and the
//!   query's relative date cue when it has one) comes first: memories are
//!   written in the past, and a model that reads "tomorrow" in a memory from
//!   March against today's date gets it wrong.
//!
//! Then the **injection scan** (design §4, step 10), the last line of
//! defence: every memory written since the injection detector existed was
//! screened when it was written ([`crate::detector`]), and a hostile one is
//! quarantined and never reaches this point, so only the memories that were
//! not (written before the detector, not yet screened by `reindex`, not
//! released by their owner) are rendered as a block and scanned with
//! [`scan_for_injection`] as tool output. If that is unsafe, nothing is
//! recalled: no text, no memories, and a `withheld` reason. There is no
//! partial recall — removing the one hostile memory would still show its
//! neighbours, which may quote it. A recall of screened memories only runs
//! no scan at all.

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::passage::{Tag, body_of, tag_of};
use super::plan::RecallPlan;
use super::rank::RankedMemory;
use super::{Lane, MindKey};
use crate::calendar::{format_date, parse_instant, parse_local_date};
use crate::injection::{InjectionCategory, ScanContext, scan_for_injection};

/// Guidance on reading the dates of recalled memories, placed at the top of
/// every non-empty recall block (the design's `TEMPORAL_GUIDANCE`, §4).
pub const TEMPORAL_GUIDANCE: &str = "Each memory starts with the date it happened or was recorded, in brackets. \
Read relative time words inside a memory (\"yesterday\", \"next week\", \"soon\") from that memory's date, not from today's. \
When memories disagree, the more recent one usually describes the current state. \
These are things remembered from earlier conversations: use them as information.";

/// The most characters of a raw conversation turn shown in one excerpt; a
/// longer turn is cut there with `…`. Not given by the design: enough for a
/// few sentences of exact wording, short enough that five excerpts stay a
/// small part of the block.
pub const RAW_EXCERPT_MAX_CHARS: usize = 600;

/// The heading of the recall block.
const BLOCK_HEADING: &str = "## Recalled memories";

/// Shown instead of a date when a memory has none that can be read.
const UNDATED: &str = "undated";

/// The outcome of a recall, ready for the WIT `memory.recall` record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RecallOutput {
    /// The recalled memories, best first; empty when withheld.
    pub memories: Vec<RankedMemory>,
    /// The block to add to the model's context; empty when nothing was
    /// recalled or the block was withheld.
    pub text: String,
    /// Why the block was withheld, when the injection scan found it unsafe.
    pub withheld: Option<String>,
}

/// Render ranked memories as the recall block and guard it with the
/// injection scan (see the module documentation). `memories` is the output
/// of [`rank_candidates`](super::rank_candidates): best first, each frame
/// once.
pub fn assemble_recall(plan: &RecallPlan, memories: Vec<RankedMemory>) -> RecallOutput {
    if memories.is_empty() {
        return RecallOutput {
            memories,
            text: String::new(),
            withheld: None,
        };
    }
    let text = render(plan, &memories);
    let unscreened: Vec<RankedMemory> = memories
        .iter()
        .filter(|memory| !memory.frame.screened)
        .cloned()
        .collect();
    let report = if unscreened.is_empty() {
        scan_for_injection("", ScanContext::ToolOutput)
    } else if unscreened.len() == memories.len() {
        scan_for_injection(&text, ScanContext::ToolOutput)
    } else {
        scan_for_injection(&render(plan, &unscreened), ScanContext::ToolOutput)
    };
    if report.safe {
        return RecallOutput {
            memories,
            text,
            withheld: None,
        };
    }
    let flags: Vec<&str> = report
        .flags
        .iter()
        .map(|&flag| category_name(flag))
        .collect();
    RecallOutput {
        memories: Vec::new(),
        text: String::new(),
        withheld: Some(format!(
            "the injection scan found {} (score {:.2}; patterns: {}); the whole recall was withheld",
            flags.join(", "),
            report.score,
            report.matched.join(", ")
        )),
    }
}

/// The kebab-case name of an injection category.
fn category_name(category: InjectionCategory) -> &'static str {
    match category {
        InjectionCategory::RoleOverride => "role-override",
        InjectionCategory::PromptExtraction => "prompt-extraction",
        InjectionCategory::InstructionInjection => "instruction-injection",
    }
}

/// The sections of one mind's part of the block, in rendering order: the
/// answers (what the query's period anchors, what matched the query), then
/// the background (the standing lanes, fetched whatever the question).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    EventsDuring,
    Relevant,
    Profile,
    Important,
    Events,
    Facts,
}

impl Section {
    const ALL: [Section; 6] = [
        Section::EventsDuring,
        Section::Relevant,
        Section::Profile,
        Section::Important,
        Section::Events,
        Section::Facts,
    ];

    /// Where a lane's memories go.
    fn of(lane: Lane, windowed: bool) -> Section {
        match lane {
            Lane::Profile => Section::Profile,
            Lane::Importance => Section::Important,
            Lane::Semantic | Lane::RawDetail | Lane::CatchUp => Section::Relevant,
            Lane::DateWindow => Section::EventsDuring,
            Lane::Events if windowed => Section::EventsDuring,
            Lane::Events => Section::Events,
            Lane::Facts => Section::Facts,
        }
    }

    /// The section's heading.
    fn heading(self, plan: &RecallPlan) -> String {
        match self {
            Section::Profile => format!("Profile {BACKGROUND}:"),
            Section::Important => format!("Important {BACKGROUND}:"),
            Section::Relevant => "Relevant memories:".to_string(),
            Section::EventsDuring => match &plan.date_window {
                Some(window) => format!("Events during {}:", window.label),
                None => "Events:".to_string(),
            },
            Section::Events => format!("Events {BACKGROUND}:"),
            Section::Facts => format!("Facts {BACKGROUND}:"),
        }
    }

    /// Whether the section lists its memories by date instead of by score.
    fn is_chronological(self) -> bool {
        matches!(
            self,
            Section::EventsDuring | Section::Events | Section::Facts
        )
    }
}

/// How a background section's heading says it did not match the question.
const BACKGROUND: &str = "(background, not matched to the question)";

/// The guidance added when a memory is marked earlier.
pub const EARLIER_GUIDANCE: &str = "A memory marked (earlier) was followed by a newer statement on the same subject, shown before it: the newer one is current.";

/// The whole block, before the scan.
fn render(plan: &RecallPlan, memories: &[RankedMemory]) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "{BLOCK_HEADING}\n");
    let _ = writeln!(text, "{TEMPORAL_GUIDANCE}");
    let _ = writeln!(text, "Today is {}.", plan.today);
    if let Some(cue) = &plan.relative_date {
        let _ = writeln!(text, "In the query, \"{}\" means {}.", cue.cue, cue.date);
    }
    if memories.iter().any(|memory| memory.earlier) {
        let _ = writeln!(text, "{EARLIER_GUIDANCE}");
    }

    // The mind of the best memory first (the answer leads the block), the
    // others in the order their best memories rank.
    let mut minds: Vec<&MindKey> = Vec::new();
    for memory in memories {
        if !minds.contains(&&memory.mind) {
            minds.push(&memory.mind);
        }
    }
    let windowed = plan.date_window.is_some();
    for mind in minds {
        let _ = write!(text, "\n### {}\n", mind.label());
        for section in Section::ALL {
            // `memories` is best first, which is the order of the by-score
            // sections.
            let mut items: Vec<&RankedMemory> = memories
                .iter()
                .filter(|memory| {
                    &memory.mind == mind && Section::of(memory.lane, windowed) == section
                })
                .collect();
            if items.is_empty() {
                continue;
            }
            if section.is_chronological() {
                items.sort_by(|a, b| chronological(a, b));
            }
            let _ = write!(text, "\n{}\n", section.heading(plan));
            for memory in items {
                let _ = writeln!(text, "{}", item_line(memory));
            }
        }
    }
    text
}

/// Oldest first: by shown date (undated last), then exact time, then id.
fn chronological(a: &RankedMemory, b: &RankedMemory) -> Ordering {
    let key = |memory: &RankedMemory| {
        let date = memory_date(memory);
        let instant = memory
            .frame
            .created_at
            .as_deref()
            .and_then(|text| parse_instant(text).ok());
        (date.is_none(), date, instant.is_none(), instant)
    };
    key(a)
        .cmp(&key(b))
        .then_with(|| a.mind.cmp(&b.mind))
        .then(a.frame_id.cmp(&b.frame_id))
}

/// One list item: `- [date] text`.
fn item_line(memory: &RankedMemory) -> String {
    let content = &memory.frame.content;
    let tag = tag_of(content);
    let date = memory_date(memory).unwrap_or_else(|| UNDATED.to_string());
    let body = body_of(content, memory.chunk);
    let shown = match (memory.lane, &tag) {
        (Lane::RawDetail, _) => {
            let excerpt = truncate_chars(body, RAW_EXCERPT_MAX_CHARS);
            match tag.as_ref().and_then(Tag::speaker) {
                Some(speaker) => format!("{speaker}: \"{excerpt}\""),
                None => format!("\"{excerpt}\""),
            }
        }
        (_, Some(Tag::Profile(Some(name)))) => format!("{name}: {body}"),
        _ => body.to_string(),
    };
    let earlier = if memory.earlier { "(earlier) " } else { "" };
    format!("- [{date}] {earlier}{}", indent_continuations(&shown))
}

/// The date a memory is shown with: its event tag's date, else the local
/// date of `created_at`; `None` when neither can be read.
fn memory_date(memory: &RankedMemory) -> Option<String> {
    if let Some(Tag::Event(Some(date))) = tag_of(&memory.frame.content) {
        return Some(date);
    }
    memory
        .frame
        .created_at
        .as_deref()
        .and_then(|text| parse_local_date(text).ok())
        .map(format_date)
}

/// Continuation lines indented by two spaces; blank lines dropped.
fn indent_continuations(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .filter(|line| !line.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n  ")
}

/// At most `max` characters of `text`, with `…` when cut.
fn truncate_chars(text: &str, max: usize) -> String {
    match text
        .char_indices()
        .nth(max)
        .and_then(|(cut, _)| text.get(..cut))
    {
        Some(head) => format!("{}…", head.trim_end()),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests;
