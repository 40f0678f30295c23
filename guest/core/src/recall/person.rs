//! The owner's first person: a question asked as "I" read as the memories
//! name the one who asks.
//!
//! An agent writes its user's memories in the third person, by name —
//! "Maya is vegetarian.", "Maya's team lead is Pieter de Vries.", "User
//! prefers dark mode." — and the user asks in the first: "What kind of diet
//! do I follow?". Neither model links the two: bge-small puts the question
//! at cosine 0.48 from its answer and the cross-encoder gives it p 0.00,
//! while "What kind of diet does Maya follow?" meets it at 0.75 and p 0.98.
//! So recall also reads the question in the owner's person
//! ([`in_owners_person`]): the reading's vector searches beside the
//! question's (a memory found by either, ranked by the better, but weighed
//! by the floor and the answer test at the asked question's cosine), and
//! the reranker reads each memory against both, the reading counting only
//! where the reranker is sure of it, and only when the question as asked
//! found no answer of its own ([`with_owners_reading`]): the owner's name
//! in the question draws both models to every memory that names them.
//!
//! Who the owner is, the memories say ([`owner_name`]): the name that opens
//! a good share of them as their subject ("Maya is", "Maya's", "User
//! prefers"). A mind written in the first person ("I live in Lisbon") has
//! no such name, and its questions are read as asked.
//!
//! English only, as the rest of the query reader; the rewrite is of closed
//! classes (the first-person pronouns and the auxiliaries that agree with
//! them), not of phrasings.

use super::floor::is_query_word;

/// The least share of the sampled memories a name must open to be taken
/// for the owner's: an agent-written mind names its user in most of its
/// memories, a person in a story in a few.
pub const OWNER_SHARE: f64 = 0.15;

/// The fewest memories a name must open to be taken for the owner's.
pub const OWNER_LEAST: usize = 3;

/// The reranker's probability at which a memory's reading in the owner's
/// person counts. The owner's name in the question is a match of its own
/// to the cross-encoder: on an agent-written mind it gave memories that
/// merely name the owner p 0.10–0.82 for questions they do not answer
/// ("What is Maya's blood type?" → "Maya donates blood every four months"
/// 0.66), and the answers it found p 0.98–1.00. So a reading counts only
/// when the reranker is sure of it.
pub const READING_SURE_PROBABILITY: f64 = 0.9;

/// The reranker's logits for the question as asked (`asked`) and as read in
/// its owner's person (`read`), one per passage, combined: the reading's
/// where it is sure ([`READING_SURE_PROBABILITY`]) and higher, else the
/// asked question's. `asked` alone when the lengths differ, and when the
/// question as asked already reads one passage as an answer (more likely
/// than not): the reading is for a mind that names its owner where the
/// question says "I", and it puts the owner's name in the question, which
/// draws the reranker to any memory naming them. "Which city does my
/// mother live in?" finds "My mum Ineke lives in Groningen." (p 0.92) as
/// asked; read as "Which city does Maya's mother live in?", "Maya lives in
/// the Lombok neighbourhood of Utrecht" reaches p 0.99 and went first.
/// (Measured on the lab's live-loop persona a, 44 → 46 answers first of
/// 60; b and c, checked after, did not move.)
///
/// ```
/// use hive_mind_core::recall::with_owners_reading;
/// // The reading sure of the first passage (σ(4) ≈ 0.98), unsure of the
/// // second (σ(1) ≈ 0.73): only the first takes it.
/// assert_eq!(with_owners_reading(&[-5.0, -5.0], &[4.0, 1.0]), vec![4.0, -5.0]);
/// // The question as asked found an answer (σ(2.5) ≈ 0.92): no reading.
/// assert_eq!(with_owners_reading(&[2.5, -7.0], &[-6.0, 5.0]), vec![2.5, -7.0]);
/// ```
pub fn with_owners_reading(asked: &[f32], read: &[f32]) -> Vec<f32> {
    if asked.len() != read.len() {
        return asked.to_vec();
    }
    let sure = (READING_SURE_PROBABILITY / (1.0 - READING_SURE_PROBABILITY)).ln();
    // Logit 0: probability one half.
    if asked.iter().any(|&logit| logit >= 0.0) {
        return asked.to_vec();
    }
    asked
        .iter()
        .zip(read)
        .map(|(&asked, &read)| {
            if f64::from(read) >= sure {
                asked.max(read)
            } else {
                asked
            }
        })
        .collect()
}

/// The name that opens at least [`OWNER_SHARE`] (and [`OWNER_LEAST`]) of
/// `contents` as their subject — a capitalised word followed by `'s` or by
/// a word in lower case ("Maya is", "Maya's team", "User prefers") — the
/// most frequent such; `None` when no name does.
///
/// ```
/// use hive_mind_core::recall::owner_name;
/// let mind = ["Maya is vegetarian.", "Maya's team lead is Pieter.", "Freightly uses Rust.",
///             "Maya lives in Utrecht."];
/// assert_eq!(owner_name(mind).as_deref(), Some("Maya"));
/// assert_eq!(owner_name(["I live in Lisbon.", "We moved to Porto."]), None);
/// ```
pub fn owner_name<'a>(contents: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut total = 0usize;
    for content in contents {
        total += 1;
        let Some(name) = opening_subject(content) else {
            continue;
        };
        match counts.iter_mut().find(|(known, _)| *known == name) {
            Some((_, count)) => *count += 1,
            None => counts.push((name, 1)),
        }
    }
    let (name, count) = counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))?;
    (count >= OWNER_LEAST && count as f64 >= OWNER_SHARE * total as f64).then_some(name)
}

/// The capitalised word `content` opens with as a subject, if it does.
fn opening_subject(content: &str) -> Option<String> {
    let mut words = content.split_whitespace();
    let first = words.next()?.replace('’', "'");
    let (name, possessive) = match first.strip_suffix("'s") {
        Some(stem) => (stem.to_string(), true),
        None => (first.clone(), false),
    };
    let mut chars = name.chars();
    let capitalised = chars.next().is_some_and(char::is_uppercase)
        && name.chars().count() >= 2
        && chars.all(|c| c.is_alphabetic() && c.is_lowercase());
    if !capitalised || !is_query_word(&name.to_lowercase()) {
        return None;
    }
    let followed_by_lower_word = words
        .next()
        .and_then(|next| next.chars().next())
        .is_some_and(char::is_lowercase);
    (possessive || followed_by_lower_word).then_some(name)
}

/// `query` with its first-person singular read as `owner` ("What kind of
/// diet do I follow?" → "What kind of diet does Maya follow?"); `None` when
/// it has none.
///
/// ```
/// use hive_mind_core::recall::in_owners_person;
/// assert_eq!(
///     in_owners_person("Which town do I live in now?", "Maya").as_deref(),
///     Some("Which town does Maya live in now?")
/// );
/// assert_eq!(
///     in_owners_person("Who's my manager these days?", "Maya").as_deref(),
///     Some("Who's Maya's manager these days?")
/// );
/// assert_eq!(in_owners_person("Who leads the platform team?", "Maya"), None);
/// ```
pub fn in_owners_person(query: &str, owner: &str) -> Option<String> {
    let mut out: Vec<String> = Vec::new();
    let mut changed = false;
    // Whether the word before was the owner standing for an "I" no
    // auxiliary came before (the verb after agrees with a third person:
    // "I am" → "Maya is", but "do I have" → "does Maya have").
    let mut after_i = false;
    for token in query.split_whitespace() {
        let (word, rest) = split_word(token);
        let lower = word.to_lowercase().replace('’', "'");
        let mut subject = false;
        let replaced: Option<String> = match lower.as_str() {
            "i" => {
                subject = true;
                if let Some(before) = out.last_mut() {
                    let (aux, tail) = split_word(before);
                    if let Some(agreed) = third_person_aux(&aux.to_lowercase()) {
                        *before = format!("{}{tail}", same_case(agreed, &aux));
                        subject = false;
                    }
                }
                Some(owner.to_string())
            }
            "i'm" => Some(format!("{owner} is")),
            "i've" => Some(format!("{owner} has")),
            "i'd" => Some(format!("{owner} would")),
            "i'll" => Some(format!("{owner} will")),
            "me" | "myself" => Some(owner.to_string()),
            "my" | "mine" => Some(format!("{owner}'s")),
            _ if after_i => third_person_aux(&lower).map(|agreed| same_case(agreed, &word)),
            _ => None,
        };
        after_i = subject;
        match replaced {
            Some(text) => {
                changed = true;
                out.push(format!("{text}{rest}"));
            }
            None => out.push(token.to_string()),
        }
    }
    changed.then(|| out.join(" "))
}

/// Whether `query` asks in the first person singular: whether
/// [`in_owners_person`] reads anything in it, whoever the owner is. A
/// recall asks this before it looks for the owner's name among the
/// memories.
///
/// ```
/// use hive_mind_core::recall::asks_in_first_person;
/// assert!(asks_in_first_person("What diet do I follow?"));
/// assert!(!asks_in_first_person("Who leads the platform team?"));
/// ```
pub fn asks_in_first_person(query: &str) -> bool {
    in_owners_person(query, "").is_some()
}

/// The third-person form of an auxiliary that agrees with "I".
fn third_person_aux(aux: &str) -> Option<&'static str> {
    Some(match aux {
        "am" => "is",
        "do" => "does",
        "don't" => "doesn't",
        "have" => "has",
        "haven't" => "hasn't",
        "aren't" => "isn't",
        _ => return None,
    })
}

/// `word` in the case of `like` (capitalised when it is).
fn same_case(word: &str, like: &str) -> String {
    if like.chars().next().is_some_and(char::is_uppercase) {
        crate::words::capitalise(word)
    } else {
        word.to_string()
    }
}

/// A token's word and the punctuation after it ("I?" → "I", "?").
fn split_word(token: &str) -> (String, String) {
    let end = token
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_alphanumeric() || *c == '\'' || *c == '’')
        .map_or(0, |(at, c)| at + c.len_utf8());
    let (word, rest) = token.split_at(end);
    (word.to_string(), rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_is_the_name_that_opens_a_share_of_the_memories() {
        let mind = [
            "Maya is vegetarian.",
            "Maya's team lead is Pieter de Vries.",
            "Freightly's event bus runs on RabbitMQ.",
            "Maya lives in Utrecht.",
            "Pieter prefers short stand-ups.",
            "Decision: Let's go with Tailwind",
        ];
        assert_eq!(owner_name(mind).as_deref(), Some("Maya"));
        // "User" is a name as the agent uses it.
        let user = [
            "User prefers dark mode.",
            "User's delivery address is 14 Elm Street.",
            "User works at Acme.",
        ];
        assert_eq!(owner_name(user).as_deref(), Some("User"));
    }

    #[test]
    fn no_owner_where_no_name_opens_enough_memories() {
        // First person throughout.
        assert_eq!(
            owner_name([
                "I live in Lisbon.",
                "My sister moved to Leeds.",
                "We use Rust."
            ]),
            None
        );
        // A name in two of twelve memories: a person the story mentions.
        let mut mind = vec!["Ana visited on Sunday.", "Ana's cat is called Miso."];
        mind.extend(std::iter::repeat_n("The deploy runs at noon.", 10));
        assert_eq!(owner_name(mind), None);
        // Sentence openers that are no names: a stop word, a label, shouting.
        assert_eq!(
            owner_name(["The team ships.", "The build broke.", "The tests pass."]),
            None
        );
        assert_eq!(owner_name(["NOTE: a", "NOTE: b", "NOTE: c"]), None);
        assert_eq!(owner_name(std::iter::empty()), None);
    }

    #[test]
    fn a_question_is_read_in_the_owners_person_with_its_auxiliaries_agreeing() {
        let read = |q: &str| in_owners_person(q, "Maya");
        assert_eq!(
            read("What kind of diet do I follow?").as_deref(),
            Some("What kind of diet does Maya follow?")
        );
        assert_eq!(
            read("What car am I driving now?").as_deref(),
            Some("What car is Maya driving now?")
        );
        assert_eq!(
            read("Whom am I coaching?").as_deref(),
            Some("Whom is Maya coaching?")
        );
        assert_eq!(
            read("Have I ever been to Japan?").as_deref(),
            Some("Has Maya ever been to Japan?")
        );
        assert_eq!(
            read("Should UI mockups for me be light or dark?").as_deref(),
            Some("Should UI mockups for Maya be light or dark?")
        );
        assert_eq!(
            read("I'm allergic to what?").as_deref(),
            Some("Maya is allergic to what?")
        );
        assert_eq!(
            read("What do I have planned?").as_deref(),
            Some("What does Maya have planned?")
        );
        assert_eq!(
            read("Where I am now, do I need a visa?").as_deref(),
            Some("Where Maya is now, does Maya need a visa?")
        );
        assert_eq!(read("Which database do we use?"), None);
        assert_eq!(read("Who is Ian?"), None, "a word that only holds an i");
    }
}
