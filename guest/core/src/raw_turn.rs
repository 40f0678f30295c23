//! Raw conversation turns: how a verbatim turn is tagged, what context it is
//! searched with, and when a query names its speaker.
//!
//! A turn of an imported or harvested conversation is stored verbatim as a
//! frame `[mind-rawturn conv:KEY turn:N speaker:S] text` (design §3b,
//! stage 4). Three things follow from it being one turn *of a conversation*
//! rather than a free-standing note:
//!
//! - **Its tag** ([`raw_turn_content`], [`RawTurnTag::parse`]) names the
//!   conversation, the turn's 1-based position and who spoke, so recall can
//!   show the speaker and an evaluation can map it back to its source.
//! - **Its reply context** ([`reply_context`]). A reply is often
//!   meaningless alone: "5 years already!" answers "How long have you been
//!   married?" one turn earlier, and a question that asks for the answer
//!   shares its words with the question turn, not with the answer. So a turn
//!   is stored with the end of the turn before it as its *search context*:
//!   indexed for full-text search (at a lower weight than the turn's own
//!   words), never shown, never hashed, never embedded (the turn's vector
//!   stays the turn's own meaning). Measured on LoCoMo with the reranker off
//!   (`hive-mind-lab eval locomo`), the context alone raised turn-level R@10 by
//!   about three points, most of it on single-hop questions.
//! - **Its speaker** ([`speaker_named_in`]). A question that names a
//!   participant ("What did Melanie paint?") is almost always answered by
//!   what that participant said: in LoCoMo, 96 % of the evidence turns of
//!   questions naming one speaker are that speaker's own. Recall weighs a
//!   turn whose speaker the query names above an equally matching turn of
//!   someone else ([`crate::recall::rank`]). Role names (`user`,
//!   `assistant`, …) are not names: a query about "users" says nothing about
//!   who spoke.

/// The content prefix every raw turn starts with.
pub const RAW_TURN_TAG: &str = "[mind-rawturn";

/// The most characters of the previous turn kept as a turn's reply
/// context. A reply answers what was said last, so the context is the
/// *end* of the previous turn: a question usually closes a turn, and a long
/// turn (an assistant's page of explanation) would otherwise bury the
/// reply's own words under its length. 400 characters hold a few sentences.
pub const REPLY_CONTEXT_MAX_CHARS: usize = 400;

/// Speakers that are roles, not names: a query containing the word does not
/// name a participant.
const ROLE_SPEAKERS: &[&str] = &[
    "user",
    "assistant",
    "system",
    "human",
    "ai",
    "model",
    "tool",
    "bot",
    "unknown",
];

/// What a raw turn's tag says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawTurnTag {
    /// The conversation key (`conv:KEY`).
    pub conv: String,
    /// The turn's 1-based position in its conversation.
    pub turn: u64,
    /// Who spoke, as tagged (white space written as `_`).
    pub speaker: String,
}

impl RawTurnTag {
    /// Read the tag of a raw-turn content (`[mind-rawturn conv:KEY turn:N
    /// speaker:S] text`); `None` for any other content or a tag without a
    /// conversation or a turn number.
    pub fn parse(content: &str) -> Option<RawTurnTag> {
        let rest = content.strip_prefix(RAW_TURN_TAG)?;
        let (inside, _) = rest.split_once(']')?;
        let mut conv = None;
        let mut turn = None;
        let mut speaker = String::new();
        for word in inside.split_whitespace() {
            if let Some(value) = word.strip_prefix("conv:") {
                conv = Some(value.to_string());
            } else if let Some(value) = word.strip_prefix("turn:") {
                turn = value.parse().ok();
            } else if let Some(value) = word.strip_prefix("speaker:") {
                speaker = value.to_string();
            }
        }
        Some(RawTurnTag {
            conv: conv.filter(|conv| !conv.is_empty())?,
            turn: turn?,
            speaker,
        })
    }

    /// The speaker as a person would write it (`Mary_Ann` → `Mary Ann`).
    pub fn speaker_name(&self) -> String {
        self.speaker.replace('_', " ")
    }
}

/// The content of a raw turn: the tag, then the text, trimmed. The speaker
/// is written with white space and `]` as `_` (so the tag stays one
/// bracket), `unknown` when empty.
pub fn raw_turn_content(key: &str, turn: usize, speaker: &str, text: &str) -> String {
    let speaker: String = speaker
        .trim()
        .chars()
        .map(|c| {
            if c.is_whitespace() || c == ']' {
                '_'
            } else {
                c
            }
        })
        .collect();
    let speaker = if speaker.is_empty() {
        "unknown".to_string()
    } else {
        speaker
    };
    format!(
        "{RAW_TURN_TAG} conv:{key} turn:{turn} speaker:{speaker}] {}",
        text.trim()
    )
}

/// The search context a turn gets from the turn before it: `Speaker: …`
/// with the last [`REPLY_CONTEXT_MAX_CHARS`] characters of what they said,
/// cut at a word boundary. Empty when the previous turn says nothing.
pub fn reply_context(previous_speaker: &str, previous_text: &str) -> String {
    let text = previous_text.trim();
    if text.is_empty() {
        return String::new();
    }
    let count = text.chars().count();
    let tail = if count <= REPLY_CONTEXT_MAX_CHARS {
        text
    } else {
        // The last REPLY_CONTEXT_MAX_CHARS characters.
        let mut tail = text.chars();
        tail.nth(count - REPLY_CONTEXT_MAX_CHARS - 1);
        let tail = tail.as_str();
        // Start at the next word, unless the tail is a single word.
        match tail.split_once(char::is_whitespace) {
            Some((_, after)) if !after.trim().is_empty() => after.trim_start(),
            _ => tail,
        }
    };
    let speaker = previous_speaker.trim().replace('_', " ");
    if speaker.is_empty() {
        tail.to_string()
    } else {
        format!("{speaker}: {tail}")
    }
}

/// The lower-cased words of a text (letters and digits).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `query` names `speaker` (as tagged: `Mary_Ann`): the speaker's
/// full name appears in it as consecutive words, or — people are called by
/// their first name — the first word of a name of several words does. Role
/// speakers ([`ROLE_SPEAKERS`]) and one-letter names are never named.
pub fn speaker_named_in(query: &str, speaker: &str) -> bool {
    let name = words(&speaker.replace('_', " "));
    let Some(first) = name.first() else {
        return false;
    };
    if name.len() == 1 && (first.chars().count() < 2 || ROLE_SPEAKERS.contains(&first.as_str())) {
        return false;
    }
    let query = words(query);
    if query
        .windows(name.len())
        .any(|window| window == name.as_slice())
    {
        return true;
    }
    name.len() > 1 && first.chars().count() >= 2 && query.contains(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_is_written_and_read_back() {
        let content = raw_turn_content("s1", 3, " Mary Ann ", "  I went to the support group. ");
        assert_eq!(
            content,
            "[mind-rawturn conv:s1 turn:3 speaker:Mary_Ann] I went to the support group."
        );
        let tag = RawTurnTag::parse(&content).expect("a raw turn");
        assert_eq!(tag.conv, "s1");
        assert_eq!(tag.turn, 3);
        assert_eq!(tag.speaker, "Mary_Ann");
        assert_eq!(tag.speaker_name(), "Mary Ann");
        assert!(raw_turn_content("k", 1, "", "hi").contains("speaker:unknown]"));
        assert!(raw_turn_content("k", 1, "a]b", "hi").contains("speaker:a_b]"));
    }

    #[test]
    fn other_contents_have_no_tag() {
        assert_eq!(RawTurnTag::parse("[mind-fact] water is wet"), None);
        assert_eq!(RawTurnTag::parse("plain words"), None);
        assert_eq!(
            RawTurnTag::parse("[mind-rawturn speaker:A] no conversation"),
            None
        );
        assert_eq!(
            RawTurnTag::parse("[mind-rawturn conv:k turn:x speaker:A] bad number"),
            None
        );
        assert_eq!(RawTurnTag::parse("[mind-rawturn conv:k turn:2"), None);
    }

    #[test]
    fn the_context_is_the_end_of_the_previous_turn() {
        assert_eq!(
            reply_context("Melanie", " How long have you been married? "),
            "Melanie: How long have you been married?"
        );
        assert_eq!(reply_context("Mary_Ann", "ok"), "Mary Ann: ok");
        assert_eq!(reply_context("A", "   "), "");
        assert_eq!(reply_context("", "just text"), "just text");

        let long = format!("{} Which one do you pick?", "word ".repeat(200));
        let context = reply_context("assistant", &long);
        assert!(context.ends_with("Which one do you pick?"));
        let kept = context.strip_prefix("assistant: ").expect("the speaker");
        assert!(kept.chars().count() <= REPLY_CONTEXT_MAX_CHARS);
        assert!(kept.starts_with("word"), "cut at a word boundary: {kept:?}");

        // A single word longer than the cap is kept as its tail.
        let word = "x".repeat(1000);
        let context = reply_context("A", &word);
        assert_eq!(
            context.chars().count(),
            "A: ".len() + REPLY_CONTEXT_MAX_CHARS
        );

        // Multi-byte text is cut on a character boundary.
        let accented = "é".repeat(1000);
        assert!(reply_context("A", &accented).ends_with('é'));
    }

    #[test]
    fn a_query_names_a_speaker_by_name_not_by_role() {
        assert!(speaker_named_in("What did Melanie paint?", "Melanie"));
        assert!(speaker_named_in("what did MELANIE paint", "Melanie"));
        assert!(!speaker_named_in("What did Mel paint?", "Melanie"));
        assert!(!speaker_named_in("Melanies paintings", "Melanie"));
        assert!(speaker_named_in("Where does Mary Ann live?", "Mary_Ann"));
        assert!(
            speaker_named_in("Where does Mary live?", "Mary_Ann"),
            "a first name"
        );
        assert!(!speaker_named_in("Where does Ann live?", "Mary_Ann"));
        assert!(!speaker_named_in("How many users signed up?", "user"));
        assert!(!speaker_named_in("what did the user say", "user"));
        assert!(!speaker_named_in("what did the assistant say", "assistant"));
        assert!(!speaker_named_in("a b c", "a"));
        assert!(!speaker_named_in("anything", ""));
    }
}
