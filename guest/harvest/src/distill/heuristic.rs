//! Heuristic distillation: harvest without a language model (the default).
//!
//! The same two questions the LLM passes answer — *is this item worth
//! distilling?* ([`classify`]) and *what in it is worth remembering?*
//! ([`distill`]) — answered with the calibrated pure logic of
//! `hive-mind-core` and a few first-person rules of its own. Everything is
//! deterministic: the same item always gives the same [`Distilled`], in the
//! same order (by part, then by sentence).
//!
//! # What a conversation yields
//!
//! Only the **user's** words are read for knowledge about the user. Each
//! user message is split into sentences (lines, then sentence ends; fenced
//! code and `>` quotes skipped) and each sentence can become:
//!
//! 1. a **profile statement** (`[mind-profile NAME]`): the user describing
//!    themselves — name, job, workplace, home, allergies and diet, health,
//!    family and pets, age, studies (the rules and their importance and
//!    confidence are in [`profile`]'s table). NAME is the name the
//!    conversation gives the user ("my name is Sam" anywhere in it → every
//!    profile statement of the item goes to `Sam`), else [`PROFILE_SUBJECT`]
//!    (`user`).
//! 2. an **event** (`[mind-event] [YYYY-MM-DD]`): a statement with a date
//!    cue. An absolute day ("on 3 March 2024", "March 3, 2024",
//!    "2024-03-03", read by core's `parse_date_window`) wins over a relative
//!    cue ("yesterday", "last Friday", "in two weeks", resolved by core's
//!    `resolve_relative_date` against the message's own timestamp, else the
//!    item's `created_at`; with neither, the cue is left unresolved and the
//!    item's notes say so). A cue naming the present ("today", "tonight",
//!    "this week", "this year") dates an event only when the sentence tells
//!    of something that happened or is planned (a past-tense verb, "will",
//!    "going to", "appointment", "meeting", …): "Today I submitted my
//!    thesis" is an event, "Today is a good day to learn Rust" is not, and
//!    a past or coming cue ("yesterday", "next Monday") needs no such
//!    verb. Statements that ask the assistant for something
//!    ("I need help today with …") are not events. The text is the sentence
//!    as said: the frame's date tag makes its "yesterday" readable.
//! 3. a **fact** (`[mind-fact]`): a hit of core's write-back patterns
//!    (`pattern_write_back`: preferences, corrections, style, decisions,
//!    findings; chatter, questions and hedges yield nothing), written the
//!    way live cognify writes it, behind its kind's label ("User
//!    preference: I prefer …", "Decision: …"), so a harvested memory reads
//!    like a live one and says whose it is.
//!
//! One sentence goes to one lane, profile and event excepted: a profile
//! statement with a date ("I moved to Berlin last month") is both, because
//! the profile is a separate per-person summary the engine merges, while a
//! fact and an event of the same sentence would be two near-identical
//! frames in the same search. A dated write-back hit is an event carrying
//! the hit's importance; a profile statement that is also a write-back hit
//! ("my name is …" is a preference pattern too) is only a profile.
//!
//! The **assistant's** reply to each user message is paired with it for the
//! write-back patterns (so an echo of the user's decision is one memory),
//! and only its **root-cause findings** are kept ("The root cause was a
//! stale DNS cache"): the one assistant statement that is both specific to
//! the user's situation and worth recalling. Its proposals ("let's use a
//! HashMap") are not decisions the user took, its work output is the
//! conversation itself (already stored as raw turns), and the rest of a
//! long generic answer is exactly what makes a memory store noisy.
//!
//! # What a document yields
//!
//! A document (Markdown, text, PDF, web page) may not be the user's own
//! words, so nothing in it becomes a preference, a correction, a style note
//! or a profile statement. Per section: **events** (absolute days, or
//! relative cues against the document's date), **decisions and findings**
//! from the write-back patterns, and **definitions** — a sentence whose
//! subject is a name (capitalised words, optionally with one lower-case
//! noun after them as in "the Ledger service", or a code identifier; not a
//! pronoun) followed by "is a/an/the …", "refers to", "means", "stands
//! for", "is defined as", "is short for", "is used to/for" ("Kafka is a
//! distributed log"), kept as `normal` facts.
//!
//! # Entities and relations
//!
//! Core's extractors (`extract_entities`, `extract_relations`: precision
//! first, noise names dropped by `accept_entity_name`) run sentence by
//! sentence — the granularity of live cognify's snippets, so co-occurrence
//! means "named in one statement", not "named somewhere in a long paste" —
//! over every user sentence (questions included: "How do I tune Kafka?"
//! says the user works with Kafka), over the text of the kept assistant
//! findings, and over every sentence of a document. The rest of the
//! assistant's text is not read: a generic answer names dozens of
//! libraries, steps and headings ("Best Practices", "Step One") the user
//! never used. Entities are reported once per canonical name and type, in
//! order of first mention.
//!
//! # Confidence, importance, length
//!
//! | rule | importance | confidence | why |
//! |---|---|---:|---|
//! | user write-back hit | the pattern's (preference, correction, style, decision: important; finding: normal, root cause important) | [`USER_PATTERN_CONFIDENCE`] 0.8 | calibrated patterns on the user's own words; not higher because a regex cannot see irony or a hypothetical it misses |
//! | assistant root cause | important | [`ASSISTANT_FINDING_CONFIDENCE`] 0.5 | the assistant's diagnosis, not confirmed by the user |
//! | document decision / finding | the pattern's | [`DOCUMENT_PATTERN_CONFIDENCE`] 0.7 | the statement is in the document, but "we" may not include the user |
//! | definition | normal | [`DEFINITION_CONFIDENCE`] 0.6 | a syntactic reading; "X is a Y" is sometimes an opinion |
//! | profile statement | important (allergy, diet: critical) | 0.7–0.9 | see [`profile`] |
//! | event, absolute day | the pattern's, else normal | [`ABSOLUTE_EVENT_CONFIDENCE`] 0.85 | the date is written out |
//! | event, exact relative cue | 〃 | [`EXACT_CUE_CONFIDENCE`] 0.75 | "yesterday", "last Friday", "3 days ago" name one day |
//! | event, vague relative cue | 〃 | [`VAGUE_CUE_CONFIDENCE`] 0.5 | "the other day", "a few weeks ago", "last month" name a day only approximately |
//!
//! A relative cue resolved against the item's start rather than the
//! message's own time has its confidence multiplied by
//! [`ITEM_ANCHOR_FACTOR`] (0.8): a conversation can run over days.
//! Texts longer than [`MAX_TEXT_CHARS`] (the sentence with its label) are
//! skipped rather than cut (a cut can drop the "not" at the end), and
//! statements need at least
//! [`MIN_STATEMENT_WORDS`] words ("Meeting tomorrow." says too little to
//! stand alone).
//!
//! # Classification
//!
//! [`classify`] reads the same analysis. **Skip** — never distilled, only
//! the raw turns are stored — when a conversation has no user text; when
//! every user message is chatter (at most [`CHATTER_MAX_WORDS`] words, all
//! of them greetings, thanks, acknowledgements: "hi", "thanks a lot!",
//! "ok cool"); when it is a loop (two or more user messages, all the same
//! text of at most [`LOOP_MAX_CHARS`] characters: a retry storm or a test)
//! that says nothing; or when the user wrote fewer than [`MIN_USER_WORDS`]
//! words and nothing was found. Otherwise: **high** when something
//! important or critical was found (a preference, correction, style note,
//! decision, root cause or profile statement); **medium** when anything
//! else was found (a finding, an event, a definition), or the item names
//! at least [`MEDIUM_ENTITIES`] entities, or the user made at least
//! [`MEDIUM_FIRST_PERSON`] first-person statements ("I …", "my …", "we
//! …"), or wrote at least [`MEDIUM_TEXT_CHARS`] characters (a document:
//! has that much text); **low** otherwise. The domain is the keyword family
//! the title and the user's words use most (see [`domain`]).

pub mod domain;
pub mod profile;

use std::sync::LazyLock;

use chrono::Days;
use hive_mind_core::calendar::{format_date, parse_local_date};
use hive_mind_core::cognify::{
    ExtractedEntity, ExtractedRelation, extract_entities, extract_relations, frame_content,
};
use hive_mind_core::types::Importance;
use hive_mind_core::write_back::{WriteBackCandidate, WriteBackKind};
use hive_mind_core::{parse_date_window, pattern_write_back, resolve_relative_date};
use regex::Regex;

use super::text::{self, Anchor, fold, is_question, sentences, word_count};
use super::{Classification, Distilled, Knowledge, MAX_TEXT_CHARS, Target, Value};
use crate::item::{Item, ItemKind, Message, Role};

/// Whose profile a statement goes to when the conversation never says the
/// user's name.
pub const PROFILE_SUBJECT: &str = "user";

/// Confidence of a write-back pattern hit in the user's words.
pub const USER_PATTERN_CONFIDENCE: f32 = 0.8;

/// Confidence of a root-cause finding in the assistant's reply.
pub const ASSISTANT_FINDING_CONFIDENCE: f32 = 0.5;

/// Confidence of a decision or finding read in a document.
pub const DOCUMENT_PATTERN_CONFIDENCE: f32 = 0.7;

/// Confidence of a definitional sentence in a document.
pub const DEFINITION_CONFIDENCE: f32 = 0.6;

/// Confidence of an event dated by an absolute day.
pub const ABSOLUTE_EVENT_CONFIDENCE: f32 = 0.85;

/// Confidence of an event dated by a relative cue naming one day.
pub const EXACT_CUE_CONFIDENCE: f32 = 0.75;

/// Confidence of an event dated by a vague relative cue.
pub const VAGUE_CUE_CONFIDENCE: f32 = 0.5;

/// Factor on a relative event's confidence when its cue was read against
/// the item's start, not the message's own time.
pub const ITEM_ANCHOR_FACTOR: f32 = 0.8;

/// The fewest words a profile statement, event or definition has.
pub const MIN_STATEMENT_WORDS: usize = 3;

/// The most words a chatter message has.
pub const CHATTER_MAX_WORDS: usize = 12;

/// The longest message a loop repeats.
pub const LOOP_MAX_CHARS: usize = 80;

/// Fewer user words than this, with nothing found, is nothing to learn.
pub const MIN_USER_WORDS: usize = 3;

/// An item naming at least this many entities is worth `medium`.
pub const MEDIUM_ENTITIES: usize = 3;

/// At least this many first-person statements is worth `medium`.
pub const MEDIUM_FIRST_PERSON: usize = 2;

/// At least this many characters of the user's own text (about a page) is
/// worth `medium`, even when no rule fired.
pub const MEDIUM_TEXT_CHARS: usize = 1500;

/// Words a chatter message is made of (lower-case; see [`CHATTER_MAX_WORDS`]).
const CHATTER_WORDS: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "heya",
    "hiya",
    "yo",
    "hola",
    "ciao",
    "bonjour",
    "hallo",
    "thanks",
    "thank",
    "thx",
    "ty",
    "tysm",
    "cheers",
    "danke",
    "merci",
    "gracias",
    "ok",
    "okay",
    "k",
    "kk",
    "cool",
    "great",
    "nice",
    "awesome",
    "perfect",
    "amazing",
    "good",
    "morning",
    "afternoon",
    "evening",
    "night",
    "bye",
    "goodbye",
    "see",
    "ya",
    "you",
    "later",
    "lol",
    "haha",
    "hahaha",
    "yes",
    "yeah",
    "yep",
    "yup",
    "no",
    "nope",
    "sure",
    "alright",
    "right",
    "got",
    "it",
    "np",
    "welcome",
    "much",
    "so",
    "very",
    "a",
    "lot",
    "appreciate",
    "appreciated",
    "wow",
    "oh",
    "ah",
    "hmm",
    "please",
    "how",
    "are",
    "what's",
    "whats",
    "up",
    "sup",
    "doing",
    "fine",
    "well",
    "too",
    "again",
    "test",
    "testing",
    "there",
    "all",
    "the",
    "best",
    "have",
    "day",
    "done",
    "understood",
    "noted",
    "sounds",
    "makes",
    "sense",
    "that",
    "this",
    "is",
    "was",
    "helpful",
    "bro",
    "man",
    "dude",
    "mate",
    "sir",
    "friend",
    "buddy",
];

/// The start of a first-person statement (on folded text).
static FIRST_PERSON: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?:and|but|so|also|well|actually|honestly|btw|ok|okay|oh|now)[,\s]+)?(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|we'll|we'd|our)\b",
    )
    .ok()
});

/// A statement that asks for help rather than tells what happened (on
/// folded text): not an event.
static ASKS_FOR_HELP: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:i\s+(?:need|want|would\s+like|'d\s+like)\s+(?:you|your|help|some|advice|ideas|suggestions|a\s+list|to\s+know)|help\s+me|(?:can|could|would)\s+you)\b",
    )
    .ok()
});

/// A definitional sentence: a named subject, then "is a …", "refers to", …
static DEFINITION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?i:the|an?)\s+)?(`[^`]{1,60}`|\p{Lu}[\p{L}\p{N}.+#\-]*(?:\s+\p{Lu}[\p{L}\p{N}.+#\-]*){0,3}(?:\s+\p{Ll}+)?|[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+)\s+(?i:(?:is|are|was)\s+(?:a|an|the)\s+\S|refers\s+to\s+\S|means\s+\S|stands\s+for\s+\S|is\s+defined\s+as\s+\S|is\s+short\s+for\s+\S|is\s+used\s+(?:to|for)\s+\S)",
    )
    .ok()
});

/// Subjects that make "X is a …" a remark rather than a definition.
const DEFINITION_PRONOUNS: &[&str] = &["it", "he", "she", "we", "they", "you", "i", "one", "mine"];

/// Which pass of the heuristic a skip verdict comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SkipReason {
    NoUserText,
    Chatter,
    Loop,
}

/// Everything the heuristic learns from an item, for both [`classify`] and
/// [`distill`].
#[derive(Debug, Default)]
struct Analysis {
    distilled: Distilled,
    /// Per knowledge, the 0-based part (message or section) it came from.
    parts: Vec<usize>,
    first_person: usize,
    own_chars: usize,
    own_words: usize,
    skip: Option<SkipReason>,
    unanchored_cue: bool,
}

impl Analysis {
    fn add(&mut self, part: usize, knowledge: Knowledge) {
        // A fact's label can push a sentence just under the cap over it.
        if knowledge.text.chars().count() > MAX_TEXT_CHARS {
            return;
        }
        let known = self
            .distilled
            .knowledge
            .iter()
            .any(|k| k.target == knowledge.target && k.text == knowledge.text);
        if !known {
            self.distilled.knowledge.push(knowledge);
            self.parts.push(part);
        }
    }

    /// Entities and relations of each sentence, merged into the item's.
    fn graph<'a>(&mut self, sentences: impl IntoIterator<Item = &'a String>) {
        for sentence in sentences {
            let entities = extract_entities(sentence);
            if entities.is_empty() {
                continue;
            }
            for relation in extract_relations(sentence, &entities) {
                self.relation(relation);
            }
            for entity in entities {
                self.entity(entity);
            }
        }
    }

    fn entity(&mut self, entity: ExtractedEntity) {
        let known = self
            .distilled
            .entities
            .iter()
            .any(|e| e.name == entity.name && e.entity_type == entity.entity_type);
        if !known {
            self.distilled.entities.push(ExtractedEntity {
                span: None,
                ..entity
            });
        }
    }

    fn relation(&mut self, relation: ExtractedRelation) {
        let known = self.distilled.relations.iter().any(|r| {
            r.subject == relation.subject
                && r.relation == relation.relation
                && r.object == relation.object
        });
        if !known {
            self.distilled.relations.push(relation);
        }
    }
}

/// Pass 1 without a model: how much an item is worth, and its domain. See
/// the module documentation for the rules.
pub fn classify(item: &Item) -> Classification {
    let analysis = analyse(item);
    Classification {
        value: value_of(&analysis),
        domain: domain::domain_of(&own_text(item)),
    }
}

/// Passes 2–3 without a model: the facts, events, profile statements,
/// entities and relations of an item. See the module documentation for the
/// rules.
pub fn distill(item: &Item) -> Distilled {
    analyse(item).distilled
}

/// The 0-based parts (messages or sections) in which the heuristic found
/// knowledge, ascending: what the LLM prompt keeps when it has to window a
/// long item.
pub(crate) fn signal_parts(item: &Item) -> Vec<usize> {
    let mut parts = analyse(item).parts;
    parts.sort_unstable();
    parts.dedup();
    parts
}

fn value_of(analysis: &Analysis) -> Value {
    let knowledge = &analysis.distilled.knowledge;
    let found_nothing = knowledge.is_empty();
    match analysis.skip {
        Some(SkipReason::NoUserText | SkipReason::Chatter) => return Value::Skip,
        Some(SkipReason::Loop) if found_nothing => return Value::Skip,
        _ => {}
    }
    if found_nothing
        && analysis.distilled.entities.is_empty()
        && analysis.own_words < MIN_USER_WORDS
    {
        return Value::Skip;
    }
    if knowledge
        .iter()
        .any(|k| matches!(k.importance, Importance::Critical | Importance::Important))
    {
        Value::High
    } else if !found_nothing
        || analysis.distilled.entities.len() >= MEDIUM_ENTITIES
        || analysis.first_person >= MEDIUM_FIRST_PERSON
        || analysis.own_chars >= MEDIUM_TEXT_CHARS
    {
        Value::Medium
    } else {
        Value::Low
    }
}

/// The text the domain is read from: the title and the user's words (a
/// document's headings and text).
fn own_text(item: &Item) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if let Some(title) = &item.title {
        parts.push(title);
    }
    match item.kind {
        ItemKind::Conversation => parts.extend(
            item.messages
                .iter()
                .filter(|m| m.role == Role::User)
                .map(|m| m.text.as_str()),
        ),
        ItemKind::Document => {
            for section in &item.sections {
                parts.extend(section.headings.iter().map(String::as_str));
                parts.push(&section.text);
            }
        }
    }
    parts.join("\n")
}

fn analyse(item: &Item) -> Analysis {
    let mut analysis = match item.kind {
        ItemKind::Conversation => analyse_conversation(item),
        ItemKind::Document => analyse_document(item),
    };
    if analysis.unanchored_cue {
        analysis.distilled.notes.push(
            "relative dates (\"yesterday\", \"last week\") left undated: the item has no timestamps"
                .to_string(),
        );
    }
    analysis
}

fn analyse_conversation(item: &Item) -> Analysis {
    let mut analysis = Analysis::default();
    let users: Vec<&Message> = item
        .messages
        .iter()
        .filter(|m| m.role == Role::User && m.text.chars().any(char::is_alphanumeric))
        .collect();
    analysis.own_words = users.iter().map(|m| word_count(&m.text)).sum();
    analysis.own_chars = users.iter().map(|m| m.text.chars().count()).sum();
    analysis.skip = conversation_skip(item, &users);
    let subject = users
        .iter()
        .flat_map(|m| sentences(&m.text))
        .filter(|s| text::is_statement(s))
        .find_map(|s| profile::stated_name(&s))
        .unwrap_or_else(|| PROFILE_SUBJECT.to_string());
    for (index, message) in item.messages.iter().enumerate() {
        if message.role != Role::User {
            continue;
        }
        let reply = item
            .messages
            .get(index + 1)
            .filter(|next| next.role == Role::Assistant);
        user_message(&mut analysis, item, index, message, &subject);
        if let Some(reply) = reply {
            assistant_reply(&mut analysis, item, index + 1, &message.text, &reply.text);
        }
    }
    analysis
}

/// Why a conversation has nothing to learn, by its shape alone.
fn conversation_skip(item: &Item, users: &[&Message]) -> Option<SkipReason> {
    if users.is_empty() {
        return Some(SkipReason::NoUserText);
    }
    if users.iter().all(|m| is_chatter(&m.text)) {
        return Some(SkipReason::Chatter);
    }
    let user_messages = item
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .count();
    let first = fold(users.first().map_or("", |m| m.text.as_str()));
    if user_messages >= 2
        && first.chars().count() <= LOOP_MAX_CHARS
        && users.iter().all(|m| fold(&m.text) == first)
    {
        return Some(SkipReason::Loop);
    }
    None
}

/// Greetings, thanks and acknowledgements only (see [`CHATTER_WORDS`]).
fn is_chatter(text: &str) -> bool {
    let folded = fold(text);
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    words.len() <= CHATTER_MAX_WORDS && words.iter().all(|w| CHATTER_WORDS.contains(w))
}

/// Whether two sentences are the same statement, as the write-back
/// splitter and this module's may cut it slightly differently.
fn same_sentence(a: &str, b: &str) -> bool {
    let (a, b) = (fold(a), fold(b));
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    word_count(&short) >= MIN_STATEMENT_WORDS && long.contains(&short)
}

/// What one sentence of the user is, before it is written.
struct Reading {
    profile: Option<profile::ProfileKind>,
    event: Option<(String, f32)>,
}

fn user_message(
    analysis: &mut Analysis,
    item: &Item,
    index: usize,
    message: &Message,
    subject: &str,
) {
    let anchor = text::anchor(item, index);
    let provenance = text::provenance(item, index);
    let candidates = pattern_write_back(&message.text, "");
    let mut used = vec![false; candidates.len()];
    let said = sentences(&message.text);
    for sentence in &said {
        if sentence.chars().count() > MAX_TEXT_CHARS {
            continue;
        }
        let candidate = match_candidate(&candidates, &mut used, sentence);
        let statement = text::is_statement(sentence) && word_count(sentence) >= MIN_STATEMENT_WORDS;
        if !statement {
            if let Some(candidate) = candidate {
                analysis.add(index, user_fact(candidate, &provenance));
            }
            continue;
        }
        let folded = fold(sentence);
        if FIRST_PERSON.as_ref().is_some_and(|re| re.is_match(&folded)) {
            analysis.first_person += 1;
        }
        let reading = Reading {
            profile: profile::profile_kind(sentence),
            event: if ASKS_FOR_HELP
                .as_ref()
                .is_some_and(|re| re.is_match(&folded))
            {
                None
            } else {
                event_date(analysis, sentence, anchor.as_ref())
            },
        };
        if let Some(kind) = reading.profile {
            analysis.add(
                index,
                Knowledge {
                    target: Target::Profile {
                        name: subject.to_string(),
                    },
                    text: sentence.clone(),
                    importance: kind.importance(),
                    confidence: kind.confidence(),
                    provenance: provenance.clone(),
                },
            );
        }
        if let Some((date, confidence)) = reading.event {
            analysis.add(
                index,
                Knowledge {
                    target: Target::Event { date },
                    text: sentence.clone(),
                    importance: candidate.map_or(Importance::Normal, |c| c.importance),
                    confidence,
                    provenance: provenance.clone(),
                },
            );
        } else if let (Some(candidate), None) = (candidate, reading.profile) {
            analysis.add(index, user_fact(candidate, &provenance));
        }
    }
    for (candidate, _) in candidates.iter().zip(&used).filter(|(_, used)| !**used) {
        analysis.add(index, user_fact(candidate, &provenance));
    }
    analysis.graph(&said);
}

/// A write-back hit of the user's as a fact.
fn user_fact(candidate: &WriteBackCandidate, provenance: &str) -> Knowledge {
    Knowledge {
        target: Target::Fact,
        text: frame_content(candidate.kind, &candidate.content),
        importance: candidate.importance,
        confidence: USER_PATTERN_CONFIDENCE,
        provenance: provenance.to_string(),
    }
}

/// The first unused write-back candidate that is this sentence.
fn match_candidate<'a>(
    candidates: &'a [WriteBackCandidate],
    used: &mut [bool],
    sentence: &str,
) -> Option<&'a WriteBackCandidate> {
    let position = candidates
        .iter()
        .zip(used.iter())
        .position(|(c, used)| !used && same_sentence(&c.content, sentence))?;
    if let Some(flag) = used.get_mut(position) {
        *flag = true;
    }
    candidates.get(position)
}

fn assistant_reply(analysis: &mut Analysis, item: &Item, index: usize, user: &str, reply: &str) {
    let said_by_user = pattern_write_back(user, "");
    let kept: Vec<String> = pattern_write_back(user, reply)
        .into_iter()
        .filter(|c| !said_by_user.iter().any(|u| u.content == c.content))
        .filter(|c| c.kind == WriteBackKind::Finding && c.pattern == "finding.root-cause")
        .filter(|c| c.content.chars().count() <= MAX_TEXT_CHARS)
        .map(|c| {
            analysis.add(
                index,
                Knowledge {
                    target: Target::Fact,
                    text: frame_content(c.kind, &c.content),
                    importance: c.importance,
                    confidence: ASSISTANT_FINDING_CONFIDENCE,
                    provenance: text::provenance(item, index),
                },
            );
            c.content
        })
        .collect();
    analysis.graph(&kept);
}

fn analyse_document(item: &Item) -> Analysis {
    let mut analysis = Analysis::default();
    for (index, section) in item.sections.iter().enumerate() {
        analysis.own_words += word_count(&section.text);
        analysis.own_chars += section.text.chars().count();
        let anchor = text::anchor(item, index);
        let provenance = text::provenance(item, index);
        let candidates: Vec<WriteBackCandidate> = pattern_write_back(&section.text, "")
            .into_iter()
            .filter(|c| matches!(c.kind, WriteBackKind::Decision | WriteBackKind::Finding))
            .collect();
        let mut used = vec![false; candidates.len()];
        let said = sentences(&section.text);
        for sentence in &said {
            if sentence.chars().count() > MAX_TEXT_CHARS {
                continue;
            }
            let candidate = match_candidate(&candidates, &mut used, sentence);
            let statement = !is_question(sentence)
                && !text::is_conditional(&fold(sentence))
                && word_count(sentence) >= MIN_STATEMENT_WORDS;
            let event = if statement {
                event_date(&mut analysis, sentence, anchor.as_ref())
            } else {
                None
            };
            let knowledge = if let Some((date, confidence)) = event {
                Some(Knowledge {
                    target: Target::Event { date },
                    text: sentence.clone(),
                    importance: candidate.map_or(Importance::Normal, |c| c.importance),
                    confidence,
                    provenance: provenance.clone(),
                })
            } else if let Some(candidate) = candidate {
                Some(document_fact(candidate, &provenance))
            } else if statement && is_definition(sentence) {
                Some(Knowledge {
                    target: Target::Fact,
                    text: sentence.clone(),
                    importance: Importance::Normal,
                    confidence: DEFINITION_CONFIDENCE,
                    provenance: provenance.clone(),
                })
            } else {
                None
            };
            if let Some(knowledge) = knowledge {
                analysis.add(index, knowledge);
            }
        }
        for (candidate, _) in candidates.iter().zip(&used).filter(|(_, used)| !**used) {
            analysis.add(index, document_fact(candidate, &provenance));
        }
        analysis.graph(&said);
    }
    analysis
}

fn document_fact(candidate: &WriteBackCandidate, provenance: &str) -> Knowledge {
    Knowledge {
        target: Target::Fact,
        text: frame_content(candidate.kind, &candidate.content),
        importance: candidate.importance,
        confidence: DOCUMENT_PATTERN_CONFIDENCE,
        provenance: provenance.to_string(),
    }
}

/// Whether a sentence defines a named thing (see the module docs).
fn is_definition(sentence: &str) -> bool {
    let Some(captures) = DEFINITION.as_ref().and_then(|re| re.captures(sentence)) else {
        return false;
    };
    let subject = captures.get(1).map_or("", |m| m.as_str()).to_lowercase();
    let first = subject.split_whitespace().next().unwrap_or("");
    !DEFINITION_PRONOUNS.contains(&first)
        && !hive_mind_core::entity::COMMON_TITLE_WORDS.contains(&first)
}

/// The day a sentence dates, with the confidence of the reading: an
/// absolute day first, else a relative cue against the anchor.
fn event_date(
    analysis: &mut Analysis,
    sentence: &str,
    anchor: Option<&Anchor>,
) -> Option<(String, f32)> {
    if let Some(day) = absolute_day(sentence) {
        return Some((day, ABSOLUTE_EVENT_CONFIDENCE));
    }
    let Some(anchor) = anchor else {
        // Any readable date works to ask whether the sentence has a cue.
        if matches!(resolve_relative_date(sentence, "2000-01-01"), Ok(Some(_))) {
            analysis.unanchored_cue = true;
        }
        return None;
    };
    let resolved = resolve_relative_date(sentence, &anchor.text).ok()??;
    if is_present_cue(&resolved.cue) && !tells_a_happening(&fold(sentence)) {
        return None;
    }
    let base = if is_vague_cue(&resolved.cue) {
        VAGUE_CUE_CONFIDENCE
    } else {
        EXACT_CUE_CONFIDENCE
    };
    let factor = if anchor.own { 1.0 } else { ITEM_ANCHOR_FACTOR };
    Some((resolved.date, base * factor))
}

/// How many days core's `parse_date_window` puts on either side of a named
/// day (its `DAY_WINDOW_RADIUS_DAYS`, private there): a window exactly
/// twice this long is a day form, and its middle is the day.
const DAY_WINDOW_RADIUS: u64 = 2;

/// The day an absolute date in the text names (`YYYY-MM-DD`), when it names
/// a day (not a month or a year).
pub(crate) fn absolute_day(sentence: &str) -> Option<String> {
    let window = parse_date_window(sentence)?;
    let since = parse_local_date(&window.since).ok()?;
    let until = parse_local_date(&window.until).ok()?;
    let radius = i64::try_from(DAY_WINDOW_RADIUS).ok()?;
    if (until - since).num_days() != 2 * radius {
        return None;
    }
    since
        .checked_add_days(Days::new(DAY_WINDOW_RADIUS))
        .map(format_date)
}

/// Cues that name the present ("today", "tonight", "this morning", "this
/// week", "this Friday"), as opposed to a past or a coming day.
fn is_present_cue(cue: &str) -> bool {
    let cue = fold(cue);
    cue.starts_with("today")
        || cue.starts_with("tonight")
        || (cue.starts_with("this ")
            && !cue.starts_with("this past")
            && !cue.starts_with("this coming"))
}

/// A verb in the past, or a plan or appointment (on folded text): what
/// makes "today" an event ("Today I finally submitted my thesis", "I have a
/// dentist appointment this afternoon") rather than a remark about now
/// ("Today is a good day to learn Rust").
static HAPPENING: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:was|were|had|did|went|met|got|saw|made|took|came|left|began|bought|sold|gave|found|lost|won|wrote|ran|felt|heard|told|said|sent|spent|paid|flew|drove|ate|slept|woke|broke|fell|\p{L}{2,}ed|will|'ll|going\s+to|gonna|plan(?:ning)?\s+to|scheduled|have\s+(?:a|an|my|the)|has\s+(?:a|an|my|the)|appointment|meeting|interview|deadline|due|exam|flight|surgery|party|wedding)\b",
    )
    .ok()
});

/// Adjectives ending in "-ed" that describe a mood, not a past happening.
const MOOD_WORDS: &[&str] = &[
    "tired",
    "excited",
    "bored",
    "interested",
    "worried",
    "scared",
    "confused",
    "stressed",
    "annoyed",
    "frustrated",
    "motivated",
    "overwhelmed",
    "exhausted",
    "relaxed",
    "pleased",
    "surprised",
    "disappointed",
    "concerned",
    "amazed",
    "need",
];

/// Whether a (folded) sentence tells of something that happened or is
/// planned (see [`HAPPENING`]), mood adjectives aside.
fn tells_a_happening(folded: &str) -> bool {
    let Some(re) = HAPPENING.as_ref() else {
        return true;
    };
    re.find_iter(folded)
        .any(|m| !MOOD_WORDS.contains(&m.as_str()))
}

/// Cues that name a day only approximately: "the other day", "a few …",
/// "a couple of …", and anything counted in weeks, months or years.
fn is_vague_cue(cue: &str) -> bool {
    let cue = fold(cue);
    [
        "other day",
        "few",
        "couple",
        "week",
        "month",
        "year",
        "fortnight",
    ]
    .iter()
    .any(|word| cue.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regexes_compile() {
        assert!(FIRST_PERSON.is_some());
        assert!(ASKS_FOR_HELP.is_some());
        assert!(DEFINITION.is_some());
        assert!(HAPPENING.is_some());
    }

    #[test]
    fn present_cues_need_a_happening() {
        let anchor = Anchor {
            text: "2024-05-10T09:00:00Z".into(),
            own: true,
        };
        let mut analysis = Analysis::default();
        let mut date = |s: &str| event_date(&mut analysis, s, Some(&anchor)).map(|(d, _)| d);
        assert_eq!(date("Today is a good day to learn Rust."), None);
        assert_eq!(date("I'm so tired today."), None);
        assert_eq!(date("I want to learn Django this year."), None);
        assert_eq!(
            date("Today I finally submitted my thesis.").as_deref(),
            Some("2024-05-10")
        );
        assert_eq!(
            date("I have a dentist appointment this afternoon.").as_deref(),
            Some("2024-05-10")
        );
        assert_eq!(
            date("I'm flying to Rome tomorrow.").as_deref(),
            Some("2024-05-11")
        );
    }

    #[test]
    fn absolute_days() {
        assert_eq!(
            absolute_day("We moved on 3 March 2024.").as_deref(),
            Some("2024-03-03")
        );
        assert_eq!(
            absolute_day("Shipped on March 3, 2024.").as_deref(),
            Some("2024-03-03")
        );
        assert_eq!(absolute_day("Shipped in May 2024."), None);
    }

    #[test]
    fn definitions() {
        assert!(is_definition("Kafka is a distributed commit log."));
        assert!(is_definition(
            "`sqlite-vec` is an extension for vector search."
        ));
        assert!(is_definition("The Ledger service is the source of truth."));
        assert!(!is_definition("It is a good idea."));
        assert!(!is_definition("This is the end."));
        assert!(!is_definition("the cat is a mammal."));
    }

    #[test]
    fn chatter() {
        assert!(is_chatter("Hi!"));
        assert!(is_chatter("thanks a lot, have a good day 🙂"));
        assert!(!is_chatter("thanks, I live in Lisbon"));
    }
}
