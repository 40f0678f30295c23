//! Which way a question or sentence points in time, read from its
//! closed-class words: "what did we do on Friday?" looks back, "what will
//! we do on Friday?" ahead, "what do I have on Friday?" is in the present.
//!
//! The date readers use it where the words of a period leave open which
//! occurrence is meant: a month or holiday without a year ([`super::spoken`])
//! and a weekday without "last" or "next" ([`super::relative`]). Only
//! auxiliaries and a few words of planning are read, never a content verb,
//! so the reading holds for any verb ("have got", what one has now, counts
//! as the present); a text with none of them is read as
//! the past ("in June", "what happened in June?"), the commonest question a
//! memory answers.

use std::cell::OnceCell;

use crate::words::has_any;

/// Words and phrases that make a text look ahead.
const LOOKING_AHEAD: &[&str] = &[
    "will",
    "shall",
    "ll",
    "gonna",
    "going to",
    "coming up",
    "upcoming",
    "planned",
    "scheduled",
    "due",
    "plan",
    "plans",
    "planning",
];

/// Auxiliaries of the present tense.
const PRESENT_AUXILIARIES: &[&str] = &["do", "does", "is", "are", "am", "s", "re", "m"];

/// "Have got" is what one has now, the present ("what have I got on in
/// June?", "what've we got on Friday"): "got" with one of these anywhere
/// before it, as a question puts the subject between them.
const HAVE: &[&str] = &["have", "has", "ve"];

/// Auxiliaries of the past tense.
const PAST_AUXILIARIES: &[&str] = &["did", "didn", "was", "wasn", "were", "weren", "had", "hadn"];

/// Which way a text points in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tense {
    /// A past auxiliary ("did", "was", "had"), or nothing to tell.
    Past,
    /// Looking ahead ("will", "'ll", "going to", "planned", "coming up").
    Ahead,
    /// A present auxiliary ("do", "is", "'s", "'re").
    Present,
}

/// The tense of `text`. A past auxiliary wins over the others ("what did I
/// plan for June?"), then looking ahead over the present ("what's coming
/// up in June?").
pub(super) fn tense_of(text: &str) -> Tense {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect();
    if has_any(&words, PAST_AUXILIARIES) {
        Tense::Past
    } else if has_any(&words, LOOKING_AHEAD) {
        Tense::Ahead
    } else if has_any(&words, PRESENT_AUXILIARIES) || has_got(&words) {
        Tense::Present
    } else {
        Tense::Past
    }
}

/// The tense of a text, read the first time a reader asks for it, then
/// kept: most texts name no period whose occurrence the tense decides, and
/// a memory's text, read for the periods it names at every write, can be
/// long.
pub(super) struct TextTense<'a> {
    text: &'a str,
    tense: OnceCell<Tense>,
}

impl<'a> TextTense<'a> {
    /// `text`'s tense, not read yet.
    pub(super) fn new(text: &'a str) -> Self {
        TextTense {
            text,
            tense: OnceCell::new(),
        }
    }

    /// The tense ([`tense_of`]), read on the first call.
    pub(super) fn get(&self) -> Tense {
        *self.tense.get_or_init(|| tense_of(self.text))
    }
}

/// Whether `words` say "have got": a form of "have" and, after it, "got".
fn has_got(words: &[String]) -> bool {
    let have = words.iter().position(|word| HAVE.contains(&word.as_str()));
    have.is_some_and(|at| words.iter().skip(at).any(|word| word == "got"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auxiliaries_tell_the_tense() {
        for (text, tense) in [
            ("what did we do in June?", Tense::Past),
            ("what happened in June?", Tense::Past),
            ("in June", Tense::Past),
            ("what did I plan for June?", Tense::Past),
            ("what will I do in March?", Tense::Ahead),
            ("what's coming up in June?", Tense::Ahead),
            ("we're going to Rome on Friday", Tense::Ahead),
            ("what do I have in June?", Tense::Present),
            ("what's happening on Monday", Tense::Present),
            ("what have I got on in June?", Tense::Present),
            ("what've we got on Friday", Tense::Present),
            ("what have I done since March?", Tense::Past),
        ] {
            assert_eq!(tense_of(text), tense, "{text}");
            let read_once = TextTense::new(text);
            assert_eq!((read_once.get(), read_once.get()), (tense, tense), "{text}");
        }
    }
}
