//! Which statements replace each other: a statement's **slot**.
//!
//! "I live in Lisbon" and, a year later, "I moved to Porto" are about the
//! same thing — where the user lives — and the second makes the first
//! outdated. A memory store that keeps both as equally true memories serves
//! the outdated one as often as the current one. The store gives every
//! memory a slot key when it is written ([`statement_slot`]); the memories
//! of a mind that share a slot form a timeline, the latest by event time is
//! current and each earlier one is closed at the event time of the one after
//! it (`valid_to`), kept for history and for "as of" recall.
//!
//! A slot is a **subject** and an **attribute**: `user|residence`,
//! `user|employer`, `ana|phone number`, `shared|deadline`. The value (what
//! the statement says the attribute is) is not part of the key. The
//! patterns are deliberately narrow, because a wrong slot hides a true
//! memory from recall, while a missed one only leaves the old behaviour
//! (both recalled):
//!
//! | statement | slot |
//! |---|---|
//! | I live in / I'm based in / I moved to / I relocated to X | `user\|residence` |
//! | I work at / for X, I joined X, I started at X | `user\|employer` |
//! | Ana lives in / moved to X | `ana\|residence` |
//! | Ana works at / for X, Ana joined X | `ana\|employer` |
//! | my / our / Ana's *attribute* is X (one to three words: `favorite color`, `phone number`, `manager`) | `user\|…`, `shared\|…`, `ana\|…` |
//! | the *attribute* (of / for *thing*) is / was moved to X | `shared\|attribute` or `thing\|attribute` |
//!
//! What never gets a slot: a question, a sentence that starts with a
//! condition or a hedge (`if`, `when`, `maybe`, `I might`, …), a negation
//! (`not`, `never`, `no longer`: it closes a value without naming the new
//! one), a text longer than [`MAX_SLOT_TEXT_CHARS`] or of more than
//! [`MAX_SLOT_SENTENCES`] sentences (a long text says many things; one
//! changed fact must not hide the rest of it), and an attribute in
//! [`UNSLOTTED_ATTRIBUTES`] (words that name no single-valued property:
//! `my favorite things are…`, `my question is…`).

use std::sync::LazyLock;

use regex::Regex;

/// The longest text a slot is read from, in characters.
pub const MAX_SLOT_TEXT_CHARS: usize = 280;

/// The most sentences a text with a slot may have.
pub const MAX_SLOT_SENTENCES: usize = 3;

/// Attributes that are no single-valued property of their subject.
pub const UNSLOTTED_ATTRIBUTES: [&str; 14] = [
    "question", "point", "problem", "issue", "idea", "guess", "concern", "answer", "goal", "plan",
    "hope", "bad", "fault", "pleasure",
];

/// Openings that make a sentence conditional, hypothetical or a wish.
const HEDGES: [&str; 16] = [
    "if ",
    "when ",
    "unless ",
    "whether ",
    "maybe ",
    "perhaps ",
    "once ",
    "suppose ",
    "imagine ",
    "what if",
    "should ",
    "would ",
    "could ",
    "might ",
    "in case",
    "assuming ",
];

/// Words that make a statement a negation or a mere possibility.
const NEGATIONS: [&str; 11] = [
    " not ",
    "n't ",
    " never ",
    " no longer ",
    " anymore",
    " any more",
    " might ",
    " would ",
    " could ",
    " should ",
    " want to ",
];

/// A statement's slot: what it says something about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// Who or what: `user`, `shared` (our, the), or a lower-cased name.
    pub subject: String,
    /// The property: `residence`, `employer`, or the words of `my X is`.
    pub attribute: String,
}

impl Slot {
    /// The key the store indexes: `subject|attribute`.
    pub fn key(&self) -> String {
        format!("{}|{}", self.subject, self.attribute)
    }
}

struct Pattern {
    regex: Regex,
    /// The attribute, or `None` when the pattern captures it (`a`).
    attribute: Option<&'static str>,
}

impl Pattern {
    /// Whether the pattern also reads a conversation turn: only the
    /// residence and employer patterns, whose statements are rare and
    /// unmistakable in talk; "my kids are …" in a chat is not a property
    /// changing.
    fn reads_turns(&self) -> bool {
        self.attribute.is_some()
    }
}

fn pattern(regex: impl AsRef<str>, attribute: Option<&'static str>) -> Option<Pattern> {
    let regex = regex.as_ref();
    // The patterns are constants, checked by the unit tests; one that did
    // not compile would only never match.
    Regex::new(regex)
        .ok()
        .map(|regex| Pattern { regex, attribute })
}

/// The lead-ins a statement may start with.
const LEAD: &str =
    r"^(?:(?:and|but|so|also|btw|by the way|oh|ok|okay|well|actually|fyi|update),?\s+)?";

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    [
        pattern(
            format!(
                r"(?i){LEAD}(?P<s>i|we)(?:'m|'ve|'re|\s+am|\s+have|\s+are)?(?:\s+(?:now|currently|still|actually|recently|just|finally))?\s+(?:live|reside|living|based|moved|relocated)\s+(?:in|to)\s+\S"
            ),
            Some("residence"),
        ),
        pattern(
            format!(
                r"(?i){LEAD}(?P<s>i)(?:'m|'ve|\s+am|\s+have)?(?:\s+(?:now|currently|still|actually|recently|just|finally))?\s+(?:work|working|started working)\s+(?:at|for)\s+\S"
            ),
            Some("employer"),
        ),
        pattern(
            format!(
                r"(?i){LEAD}(?P<s>i)(?:'ve|\s+have)?(?:\s+(?:now|recently|just|finally))?\s+(?:joined|started at)\s+\S"
            ),
            Some("employer"),
        ),
        pattern(
            r"^(?P<s>[A-Z][a-z]{1,30})(?:\s+(?:now|currently|still|recently|just|finally))?\s+(?:lives|resides|is based|moved|relocated|has moved)\s+(?:in|to)\s+\S",
            Some("residence"),
        ),
        pattern(
            r"^(?P<s>[A-Z][a-z]{1,30})(?:\s+(?:now|currently|still|recently|just|finally))?\s+(?:works|is working|joined)\s+(?:at\s+|for\s+)?\S",
            Some("employer"),
        ),
        pattern(
            format!(
                r"(?i){LEAD}(?P<s>my|our|[a-z]{{2,30}}'s)\s+(?:new\s+|current\s+|latest\s+)?(?P<a>[a-z]{{2,20}}(?:\s+[a-z]{{2,20}}){{0,2}})\s+(?:is|are)(?:\s+now)?\s+\S"
            ),
            None,
        ),
        pattern(
            format!(
                r"(?i){LEAD}(?:the|our)\s+(?:new\s+)?(?P<a>[a-z]{{2,20}}(?:\s+[a-z]{{2,20}})?)(?:\s+(?:for|of)\s+(?:the\s+)?(?P<t>[a-z0-9][a-z0-9 -]{{0,38}}?))?(?:\s+(?:is|was|has been|got))?(?:\s+now)?\s+(?:moved|changed|pushed back|pushed|postponed|brought forward|rescheduled|delayed)\s+(?:to|for|on|until)\s+\S"
            ),
            None,
        ),
        pattern(
            format!(
                r"(?i){LEAD}(?:the|our)\s+(?:new\s+)?(?P<a>deadline|due date|launch date|release date|start date|end date|go-live date|budget|price|address|owner|status|version|location|venue|meeting time)(?:\s+(?:for|of)\s+(?:the\s+)?(?P<t>[a-z0-9][a-z0-9 -]{{0,38}}?))?\s+(?:is|was|has been)\s+(?:now\s+)?(?:set\s+(?:to|for)\s+)?\S"
            ),
            None,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
});

/// Capitalised words that start a sentence without naming anyone.
const NOT_NAMES: [&str; 16] = [
    "the", "then", "later", "she", "he", "they", "it", "we", "everyone", "nobody", "someone",
    "this", "that", "there", "who", "one",
];

/// The sentences of a short text (split after `.`, `!`, `?` and line
/// breaks).
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?' | '\n') {
            let end = at + c.len_utf8();
            if let Some(sentence) = text.get(start..end) {
                let sentence = sentence.trim();
                if !sentence.is_empty() {
                    out.push(sentence);
                }
            }
            start = end;
        }
    }
    if let Some(rest) = text.get(start..) {
        let rest = rest.trim();
        if !rest.is_empty() {
            out.push(rest);
        }
    }
    out
}

fn subject_of(word: &str, first_person: &str) -> String {
    let lower = word.to_lowercase();
    match lower.as_str() {
        "i" | "my" => first_person.to_string(),
        "we" | "our" | "the" => "shared".to_string(),
        other => other.trim_end_matches("'s").to_string(),
    }
}

/// Who is speaking, for the first person of a statement.
#[derive(Debug, Clone, Copy)]
struct Speaker<'a> {
    /// The subject `I` and `my` stand for.
    first_person: &'a str,
    /// A conversation turn (only the patterns that read turns apply).
    turn: bool,
}

/// The slot of one sentence (see the module docs).
fn sentence_slot(sentence: &str, speaker: Speaker<'_>) -> Option<Slot> {
    if sentence.ends_with('?') {
        return None;
    }
    let lower = format!(" {} ", sentence.to_lowercase());
    if HEDGES
        .iter()
        .any(|hedge| lower.trim_start().starts_with(hedge))
        || NEGATIONS.iter().any(|word| lower.contains(word))
    {
        return None;
    }
    for pattern in PATTERNS.iter() {
        if speaker.turn && !pattern.reads_turns() {
            continue;
        }
        let Some(captures) = pattern.regex.captures(sentence) else {
            continue;
        };
        let attribute = match pattern.attribute {
            Some(attribute) => attribute.to_string(),
            None => captures.name("a")?.as_str().to_lowercase(),
        };
        let last_word = attribute.rsplit(' ').next().unwrap_or_default();
        if UNSLOTTED_ATTRIBUTES.contains(&last_word) {
            return None;
        }
        let subject = match (captures.name("s"), captures.name("t")) {
            (_, Some(thing)) => thing.as_str().trim().to_lowercase(),
            (Some(subject), None) => {
                let subject = subject_of(subject.as_str(), speaker.first_person);
                if NOT_NAMES.contains(&subject.as_str()) {
                    return None;
                }
                subject
            }
            (None, None) => "shared".to_string(),
        };
        return Some(Slot { subject, attribute });
    }
    None
}

/// A short statement's slot, or `None` (see the module docs). The first
/// sentence that has one names it; `I` and `my` are the user.
pub fn statement_slot(text: &str) -> Option<Slot> {
    slot_as(
        text,
        Speaker {
            first_person: "user",
            turn: false,
        },
    )
}

/// The slot of a memory as stored: its lane marking (`[mind-fact]`, a
/// provenance block) set aside. A conversation turn is read with the
/// residence and employer patterns only, and its `I` is its speaker
/// (lower-cased; `user` and `human` are the user); an assistant's, a
/// system's or a tool's turn has no slot (its `I` is not a person whose
/// facts change).
pub fn memory_slot(content: &str) -> Option<Slot> {
    if let Some(tag) = crate::RawTurnTag::parse(content) {
        let speaker = tag.speaker_name().to_lowercase();
        let first_person = match speaker.as_str() {
            "user" | "human" => "user".to_string(),
            "assistant" | "ai" | "model" | "system" | "tool" | "bot" | "unknown" => return None,
            _ => speaker,
        };
        let (_, body) = content.split_once(']')?;
        return slot_as(
            body,
            Speaker {
                first_person: &first_person,
                turn: true,
            },
        );
    }
    let mut body = content.trim_start();
    while let Some(rest) = body.strip_prefix('[') {
        let (_, after) = rest.split_once(']')?;
        body = after.trim_start();
    }
    statement_slot(body)
}

fn slot_as(text: &str, speaker: Speaker<'_>) -> Option<Slot> {
    let text = text.trim();
    if text.chars().count() > MAX_SLOT_TEXT_CHARS {
        return None;
    }
    let sentences = sentences(text);
    if sentences.len() > MAX_SLOT_SENTENCES {
        return None;
    }
    sentences
        .into_iter()
        .find_map(|sentence| sentence_slot(sentence, speaker))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Option<String> {
        statement_slot(text).map(|slot| slot.key())
    }

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(PATTERNS.len(), 8);
    }

    #[test]
    fn changes_of_the_same_thing_share_a_slot() {
        let timelines: [(&[&str], &str); 6] = [
            (
                &[
                    "I live in Lisbon.",
                    "I moved to Porto in May.",
                    "I've moved to Porto.",
                    "By the way, I'm based in Berlin now.",
                ],
                "user|residence",
            ),
            (
                &["I work at Acme as a designer.", "I joined Globex in May."],
                "user|employer",
            ),
            (
                &[
                    "My favorite color is blue.",
                    "My favorite color is now green.",
                ],
                "user|favorite color",
            ),
            (
                &[
                    "Ana's phone number is 555-0100.",
                    "Ana's phone number is 555-0199.",
                ],
                "ana|phone number",
            ),
            (
                &[
                    "The deadline for the billing migration is May 3.",
                    "The deadline for the billing migration was moved to June 1.",
                ],
                "billing migration|deadline",
            ),
            (
                &["Ana lives in Madrid.", "Ana moved to Seville."],
                "ana|residence",
            ),
        ];
        for (statements, expected) in timelines {
            for statement in statements {
                assert_eq!(key(statement).as_deref(), Some(expected), "{statement}");
            }
        }
    }

    #[test]
    fn questions_hedges_negations_and_long_texts_have_none() {
        for text in [
            "Do I live in Lisbon?",
            "If I moved to Porto, would the commute be shorter?",
            "Maybe I live in the wrong city.",
            "I might move to Porto next year.",
            "I don't live in Lisbon anymore.",
            "I no longer work at Acme.",
            "My question is whether the cache is warm.",
            "We should move the deadline.",
            "I like Lisbon a lot.",
            "The weather was lovely today",
            "The meeting was great.",
            "She moved to Porto.",
            "Then moved to the next topic.",
        ] {
            assert_eq!(key(text), None, "{text}");
        }
        let long = format!(
            "I live in Lisbon. {}",
            "We talked about many things. ".repeat(12)
        );
        assert_eq!(key(&long), None);
        assert_eq!(
            key("Thanks. Two more things. Three. I live in Lisbon."),
            None,
            "more than three sentences"
        );
    }

    #[test]
    fn stored_memories_are_read_past_their_marking_and_turns_by_their_speaker() {
        let memory = |content: &str| memory_slot(content).map(|slot| slot.key());
        assert_eq!(
            memory("[mind-fact] I live in Lisbon.").as_deref(),
            Some("user|residence")
        );
        let turn =
            |speaker: &str, text: &str| memory(&crate::raw_turn_content("c1", 3, speaker, text));
        assert_eq!(
            turn("Caroline", "I moved to Boston.").as_deref(),
            Some("caroline|residence")
        );
        assert_eq!(
            turn("user", "I live in Lisbon.").as_deref(),
            Some("user|residence")
        );
        assert_eq!(turn("assistant", "I live in the cloud."), None);
        assert_eq!(
            turn("Melanie", "My kids are so excited about the trip."),
            None,
            "a turn is read with the residence and employer patterns only"
        );
    }

    #[test]
    fn different_people_and_things_have_different_slots() {
        assert_ne!(key("Ana lives in Madrid."), key("Ben lives in Madrid."));
        assert_ne!(key("I live in Madrid."), key("Ana lives in Madrid."));
        assert_ne!(key("My manager is Ana."), key("My dentist is Ana."));
    }
}
