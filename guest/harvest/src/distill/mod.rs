//! Distillation: what of an item is worth remembering (passes 1–3 of §3b).
//!
//! Two ways to the same [`Distilled`] result:
//! - [`heuristic`]: no language model — the write-back patterns, entity and
//!   relation extraction, relative-date resolution for events, and profile
//!   statements. The default when no LLM is configured.
//! - [`llm`]: prompts for the `llm` import (classify in batches at the fast
//!   tier; extract and synthesize at the capable tier) and the strict
//!   validation of their JSON answers against what was asked.

use hive_mind_core::cognify::{ExtractedEntity, ExtractedRelation};
use hive_mind_core::types::Importance;
use serde::Serialize;

pub mod heuristic;
pub mod llm;
mod text;

/// The longest text of one piece of knowledge, in characters: the same
/// bound as a write-back sentence
/// ([`hive_mind_core::write_back::MAX_SENTENCE_CHARS`], 500). A memory is
/// one statement; a run this long without a sentence end is a log line, a
/// stack trace or pasted code, and a longer frame dilutes both the keyword
/// and the vector match of the statement inside it. The heuristic pass
/// skips longer sentences (cutting one could drop a final "not"); an LLM
/// answer's longer text is cut at a word boundary, marked with `…`, and
/// noted.
pub const MAX_TEXT_CHARS: usize = hive_mind_core::write_back::MAX_SENTENCE_CHARS;

/// Pass 1's verdict on an item's worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Value {
    /// Nothing to learn (greetings, loops, empty chatter): never distilled.
    /// Its raw turns are still written.
    Skip,
    /// Little to learn.
    Low,
    /// Some knowledge.
    Medium,
    /// Decisions, preferences, facts about the user.
    High,
}

impl Value {
    /// Every value, least worth first.
    pub const ALL: [Value; 4] = [Value::Skip, Value::Low, Value::Medium, Value::High];

    /// The name in JSON and in LLM answers (`skip`, `low`, `medium`, `high`).
    pub fn as_str(self) -> &'static str {
        match self {
            Value::Skip => "skip",
            Value::Low => "low",
            Value::Medium => "medium",
            Value::High => "high",
        }
    }

    /// The value of a name (exact, lower-case).
    pub fn from_name(name: &str) -> Option<Value> {
        Value::ALL.into_iter().find(|value| value.as_str() == name)
    }
}

/// Pass 1's classification of one item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Classification {
    /// How much it is worth.
    pub value: Value,
    /// Its domain in a word or two ("work", "health", "travel", "coding", …).
    pub domain: String,
}

/// Which lane a piece of knowledge is written to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// `[mind-fact] TEXT`: accumulates.
    Fact,
    /// `[mind-event] [YYYY-MM-DD] TEXT`: the date resolved against the
    /// conversation's date.
    Event {
        /// `YYYY-MM-DD`.
        date: String,
    },
    /// `[mind-profile NAME] TEXT`: replaces the earlier profile of `name`.
    Profile {
        /// Whose profile ("user" stands for the person whose history it is).
        name: String,
    },
}

/// One piece of distilled knowledge (pass 3's `DistilledKnowledge`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Knowledge {
    /// Where it goes.
    pub target: Target,
    /// The statement, self-contained (no "he said" without the name).
    pub text: String,
    /// How much it matters.
    pub importance: Importance,
    /// How sure the distillation is, 0 to 1.
    pub confidence: f32,
    /// Where in the item it came from ("turn 3", "section Setup").
    pub provenance: String,
}

/// Everything distilled from one item.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Distilled {
    /// Facts, events and profiles.
    pub knowledge: Vec<Knowledge>,
    /// Graph entities (canonical names), each once by name and type, in
    /// order of first mention. Their `span` is `None`: an item's entities
    /// come from many texts (turns, sections), so a byte offset would not
    /// say into which.
    pub entities: Vec<ExtractedEntity>,
    /// Graph relations between them, each `(subject, relation, object)`
    /// once.
    pub relations: Vec<ExtractedRelation>,
    /// What distillation noticed and left out (an entity name rejected as
    /// noise, an unknown relation type, a text cut to [`MAX_TEXT_CHARS`]),
    /// for the import report's notes. Never needed to use the rest.
    pub notes: Vec<String>,
}
