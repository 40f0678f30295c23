//! Statements: which of the user's sentences tell something about them or
//! their world, read from the sentence's structure rather than from a list
//! of phrasings.
//!
//! The write-back patterns ([`crate::write_back`]) know how preferences,
//! corrections, decisions and findings are usually worded. Most of what a
//! person tells an assistant is worded no particular way: "My sister Yasmin
//! works at Philips in Eindhoven", "We're flying to Lisbon on 3 May", "I'm
//! allergic to penicillin". This module reads one sentence of the user's
//! turn and says whether it is such a statement, and whether the user asked
//! for it to be kept.
//!
//! # Reading a sentence
//!
//! 1. **An explicit request** to keep something ([`read_sentence`] →
//!    [`Reading::Explicit`]): the sentence opens with request words —
//!    "remember (that)", "note that", "make a note", "keep/bear in mind",
//!    "don't forget", "for future reference", "for the record", "FYI",
//!    "just so you know", "I want you to know", optionally after "please",
//!    "can you …" or "I'd like you to …" — or closes with them (", for
//!    future reference"). What follows the request words is kept, split at
//!    "… and that …" into its statements, the request words left out. "Remember
//!    to …" and "remind me to …" keep the whole sentence (an instruction,
//!    not a fact to restate). A sentence that is only the request
//!    ("Remember that.", "Keep it in mind.") asks for the sentence before it
//!    ([`Reading::ExplicitBefore`]). "Do you remember …?" and "remember when
//!    …" ask or reminisce; they are not requests.
//! 2. **Not a statement** ([`Reading::Not`], with the reason):
//!    - a *question*: it ends in `?`, opens with an auxiliary ("Do …",
//!      "Can …", "Is …") or with a question word followed by an auxiliary
//!      ("what's", "how do"); "When I was twenty, I moved …" is not one;
//!    - a *request to the assistant*: it opens with an imperative verb
//!      ("write", "help", "tell", "fix", …; not when that word and the next
//!      are the subject of a verb after them: "Book club meets …", "Deploy
//!      day is …") or "please", "let's", "let me",
//!      holds "can you", "could you", "I need you to", "help me", "I need
//!      help", "I have a question", "I'm looking for", "I wonder", or has a
//!      clause that opens with an imperative and its object ("I'm bored, tell
//!      me a joke");
//!    - *addressed to the assistant*: it names "you" or "your" (the
//!      conversation, not the user's world: "I love your answers");
//!    - a *help context*: an error, a crash, something not working, "I'm
//!      trying to", "I'm stuck", "I'm debugging …" (an error named as a
//!      practice or a rule is none: "no exceptions", "error tracking");
//!    - a *conditional or hedge*: it opens with "if", "unless", "maybe",
//!      "perhaps", "what if", …;
//!    - *chit-chat*: greetings, thanks and fillers are first cut from the
//!      sentence's ends ("Thanks, I live in Oslo now" keeps "I live in
//!      Oslo now"); a pleasantry left inside it ("happy birthday", "good
//!      luck", a word of its own, not inside another or an address) makes it
//!      chit-chat; so does a sentence whose subject is a pointer to the
//!      conversation ("That's great", "It works now").
//!
//!    A request, a remark to the assistant, a question or a sentence about
//!    nothing in particular is still kept when it is a **standing
//!    instruction** ([`Basis::Standing`]): said to the assistant and meant for
//!    every time after — a standing word ("always", "never", "from now on",
//!    "whenever", "by default") that is not a subject's habit ("I always
//!    struggle with these", "You never disappoint"), or the user's stated
//!    preference about what the assistant does ("I prefer that you …",
//!    "I'd rather you …"): "Never use emojis when you write to me.", "I
//!    always want dark mode in any UI mockups you make for me.", "From now
//!    on, answer me in Dutch." ([`standing_instruction`]).
//! 3. **Whose world** ([`Basis`]): a *first-person* subject or possessive
//!    ("I …", "my …", "we …", "our …"); else the first person *left
//!    unsaid*, as notes and diaries leave it: no subject, and a verb in the
//!    past or in "-ing" first ("Joined PureGym on Deansgate.", "Learning
//!    Spanish on Duolingo."), which must then say something specific (a
//!    name, a number) or two things ("Loving it!", "Worried about
//!    tomorrow." say nothing); else a *note of a label and its value*
//!    ("Work email: jo@example.com", "Company VPN: Cisco AnyConnect"),
//!    whose value must say something specific or two things ("Status:
//!    done." says nothing);
//!    else a *name* (an identifier — "stg-01.internal", "BA2490", a dotted
//!    address —, a capitalised word that is not the sentence's first
//!    function word, or an entity the extractor finds: "Karim", "Philips",
//!    "postgres"; the first word, capitalised in every sentence, names only
//!    when nothing after it does: "Luis leads the team", not "Dentist is
//!    Dr. Kowalczyk"); else a *date* (a
//!    month, a weekday, "tomorrow", "next week", "in two weeks", "at 3pm",
//!    "on the 5th", a season, "every Monday"). A sentence with none of the
//!    three is about nothing in particular ("The weather is lovely").
//!    "He", "she" or "they" at the start continues the statement before
//!    ([`Basis::Continued`]; the plan joins the two).
//! 4. **Content**: a statement must say something. Its *content words* are
//!    the words left after function words, fillers ("really", "thing",
//!    "stuff", "lot"), conversation words ("answer", "question", "help"),
//!    generic verbs ("know", "think", "get", "try", "want") and evaluative
//!    adjectives ("great", "nice", "hard", "tired", "bored") are taken out;
//!    numbers and date words count. A first-person statement needs one ("I'm
//!    vegetarian", "I'm 34"; not "I agree", "I'm fine", "I'll try that"); a
//!    statement about a name or a date needs two, one of them not the name
//!    ("Karim lives in Rotterdam"; not "Python is great"). A statement of
//!    the *moment* ("I just got back from the gym", "I had pasta for lunch
//!    today") needs two even so, food, drinks and weather not counted,
//!    unless it names someone or something or a date: small talk about the
//!    day says nothing to remember.
//!
//! Everything here reads the sentence as written (case-insensitively,
//! typographic apostrophes as `'`); the spans it returns index into the
//! sentence.

use std::sync::LazyLock;

use regex::Regex;

use super::entities::extract_entities;
use super::vocab::{CALENDAR_WORDS, STOP_WORDS, listed};
use crate::write_back::STANDING_WANTS;

/// What a user's sentence is, for cognify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// The user asked to keep what follows the request words: the byte
    /// ranges, within the sentence, of the statements to keep.
    Explicit(Vec<(usize, usize)>),
    /// The sentence is only a request to keep the sentence before it
    /// ("Remember that.").
    ExplicitBefore,
    /// A statement about the user or their world, what makes it one, and
    /// the byte range of the sentence to keep: without the interjections and
    /// discourse words it opens with ("Oh, and btw, …") or the pleasantry it
    /// closes with (", thanks!").
    Statement(Basis, (usize, usize)),
    /// Not worth keeping, and why.
    Not(NotStatement),
}

/// What makes a sentence a statement about the user's world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// A first-person subject or possessive.
    FirstPerson,
    /// A named person, place, organisation or thing.
    Named,
    /// A date or a time: a plan or an event.
    Dated,
    /// "He …", "she …", "they …": the statement before it, continued.
    Continued,
    /// No subject, a verb in the past or in "-ing" first: the first person
    /// left unsaid, as in a diary or a note ("Joined PureGym on
    /// Deansgate.", "Learning Spanish on Duolingo.").
    Unsaid,
    /// A note of a label and its value ("Work email: jo@example.com",
    /// "Quote from Smith Roofing: £4,200", "Company VPN: Cisco
    /// AnyConnect"): what the label names, the value says.
    Labelled,
    /// A standing instruction or preference for how the assistant works
    /// with the user, said to the assistant and meant for every time after:
    /// "Never use emojis when you write to me.", "I always want dark mode in
    /// any UI mockups you make for me.", "From now on, answer me in Dutch."
    /// ([`standing_instruction`]).
    Standing,
}

impl Basis {
    /// The name cognify records as the frame's pattern.
    pub fn pattern(self) -> &'static str {
        match self {
            Basis::FirstPerson => "statement.first-person",
            Basis::Named => "statement.named",
            Basis::Dated => "statement.dated",
            Basis::Continued => "statement.continued",
            Basis::Unsaid => "statement.unsaid-first-person",
            Basis::Labelled => "statement.labelled",
            Basis::Standing => "statement.standing-instruction",
        }
    }
}

/// Why a sentence is not a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotStatement {
    /// A question.
    Question,
    /// A request addressed to the assistant.
    Request,
    /// About the assistant or the conversation.
    ToAssistant,
    /// Help with a problem at hand (an error, "I'm trying to …").
    HelpContext,
    /// A conditional or a hedge.
    Conditional,
    /// Greetings, thanks, fillers, small talk.
    ChitChat,
    /// About nothing in particular: no person, name or date.
    NoSubject,
    /// Too few words that carry meaning.
    NoContent,
}

/// The pattern name of an explicitly requested statement.
pub const EXPLICIT_PATTERN: &str = "explicit.remember";

/// Leading request words: optional politeness, then the request. The rest
/// of the sentence is what to keep. (Apostrophes are unified before
/// matching.)
const EXPLICIT_LEAD: &str = r"(?ix)^
    (?:(?:oh|and|also|so|ok|okay|btw|by\s+the\s+way|hey|hi|hello|one\s+more\s+thing|one\s+last\s+thing|another\s+thing|quick\s+note|please|pls|plz|just|but)\b[\s,:\-–—!]*)*
    (?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s*(?:want|need|\s+would\s+like|'d\s+like)\s+you\s+to\s+|please\s+|make\s+sure\s+(?:to\s+|you\s+)?)?
    (?P<marker>
        remember\s+(?:that|this)\b
      | remember\s*[:,\-–—]
      | (?P<bare>remember)\s+
      | (?:make|take)\s+(?:a\s+)?(?:mental\s+)?note\s+(?:of\s+(?:this|that)\s*[:,\-–—]?|that\b)?
      | note\s+(?:down\s+)?that\b
      | (?:please\s+)?note\s*[:,\-–—]
      | jot\s+(?:this\s+|it\s+)?down\s*[:,\-–—]?
      | (?:keep|bear)\s+(?:this\s+|that\s+)?in\s+mind\s*(?:that\b|[:,\-–—])?
      | don't\s+forget\s+(?:that\b)?
      | do\s+not\s+forget\s+(?:that\b)?
      | never\s+forget\s+that\b
      | for\s+(?:future\s+)?reference\s*[:,\-–—]?
      | for\s+the\s+record\s*[:,\-–—]?
      | for\s+your\s+(?:information|records?)\s*[:,\-–—]?
      | fyi\s*[:,\-–—]?
      | (?:just\s+)?so\s+you\s+know\s*[:,\-–—]?
      | (?:a\s+)?heads\s+up\s*[:,\-–—]
      | (?:i\s+want|i'd\s+like|i\s+would\s+like)\s+you\s+to\s+know\s+(?:that\b)?
      | you\s+should\s+know\s+that\b
      | memori[sz]e\s+(?:this|that)\b\s*[:,\-–—]?
      | (?:save|store|log)\s+(?:this|that)\s*(?:for\s+later\s*)?[:,\-–—]
      | add\s+(?:this|that)\s+to\s+(?:your\s+)?memory\s*[:,\-–—]?
      | worth\s+remembering\s*[:,\-–—]
    )\s*";

/// "Remember to …", "don't forget to …", "remind me to/that …": an
/// instruction kept as it was said.
const EXPLICIT_INSTRUCTION: &str = r"(?ix)^
    (?:(?:oh|and|also|so|ok|okay|btw|please|pls|just)\b[\s,]*)*
    (?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|please\s+)?
    (?:remember\s+to|don't\s+forget\s+to|do\s+not\s+forget\s+to|remind\s+me\s+(?:to|that|about)|make\s+sure\s+to\s+remind\s+me)\b";

/// Request words closing a sentence: ", for future reference."
const EXPLICIT_TAIL: &str = r"(?ix)
    [\s,;:\-–—(]+
    (?:for\s+(?:future\s+)?reference|just\s+so\s+you\s+know|so\s+you\s+know|fyi|for\s+the\s+record|for\s+your\s+records?
      |(?:please\s+)?(?:remember|note|memori[sz]e)\s+(?:that|this|it)
      |(?:keep|bear)\s+(?:that|this|it)\s+in\s+mind)
    [\s).!]*$";

/// A sentence that is only a request to keep the one before.
const EXPLICIT_BACK: &str = r"(?ix)^
    (?:(?:oh|and|also|so|ok|okay|please|pls|just)\b[\s,]*)*
    (?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?
    (?:(?:remember|note|memori[sz]e|save|store|log)\s+(?:that|this|it)(?:\s+down)?
      |(?:keep|bear)\s+(?:that|this|it)\s+in\s+mind
      |don't\s+forget\s+(?:that|this|it)
      |make\s+a\s+note\s+of\s+(?:that|this|it))
    (?:\s*,?\s*(?:please|for\s+later|for\s+future\s+reference|thanks|thank\s+you))?
    [\s.!?]*$";

/// "… and that …" inside an explicit request: two statements.
const AND_THAT: &str = r"(?i),?\s+(?:and\s+also|and|also)\s+that\s+";

/// Dates and times: months, weekdays, relative days and periods, clock
/// times, day numbers, seasons, routines.
const DATE_CUE: &str = r"(?ix)
    \b(?:january|february|march|april|june|july|august|september|october|november|december|sept)\b
  | \b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\.?\s+\d{1,2}\b
  | \b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\b
  | \b(?:in|on|of|by|until|till|since|from|early|mid|late|end\s+of|next|last|this)[\s-]+may\b
  | \b(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekends?|weekdays?)\b
  | \b(?:tomorrow|yesterday|overmorrow)\b
  | \b(?:next|last|this|coming|every|each)\s+(?:week|month|year|quarter|term|semester|spring|summer|autumn|fall|winter|morning|evening|night|day)\b
  | \bin\s+the\s+(?:spring|summer|autumn|fall|winter)\b
  | \b(?:spring|summer|autumn|winter)\s+(?:of\s+)?(?:19|20)\d{2}\b
  | \b(?:in|within|for|after)\s+(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+few|a\s+couple\s+of|several)\s+(?:days?|weeks?|months?|years?)\b
  | \b(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of|several)\s+(?:days?|weeks?|months?|years?)\s+ago\b
  | \b(?:in|since|until|till|by|from|before|after|during|of)\s+(?:19|20)\d{2}\b
  | \b(?:19|20)\d{2}-\d{2}-\d{2}\b
  | \b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b
  | \b(?:on|by|until|from|the)\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b
  | \b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)
  | \b(?:at|by|from|until|till)\s+\d{1,2}[:.]\d{2}\b
  | \b(?:at\s+)?(?:noon|midnight)\b
  | \bq[1-4]\b
  | \bthe\s+end\s+of\s+the\s+(?:week|month|year)\b";

/// An auxiliary opening a sentence: a question ("Do you …", "Is it …").
const AUXILIARIES: &[&str] = &[
    "do",
    "does",
    "did",
    "can",
    "could",
    "would",
    "will",
    "is",
    "are",
    "was",
    "were",
    "have",
    "has",
    "had",
    "should",
    "shall",
    "may",
    "might",
    "must",
    "am",
    "isn't",
    "aren't",
    "don't",
    "doesn't",
    "didn't",
    "can't",
    "won't",
    "wouldn't",
    "couldn't",
    "shouldn't",
    "wasn't",
    "weren't",
    "haven't",
    "hasn't",
];

/// Question words; one followed by an auxiliary (or `'s`, `'re`, "to")
/// opens a question.
const QUESTION_WORDS: &[&str] = &[
    "what", "who", "whom", "whose", "which", "why", "how", "where", "when", "what's", "who's",
    "how's", "where's", "when's", "why's", "what're", "how're", "where're",
];

/// Verbs whose bare form opening a sentence makes it an instruction.
const IMPERATIVES: &[&str] = &[
    "write",
    "rewrite",
    "help",
    "tell",
    "show",
    "give",
    "explain",
    "create",
    "make",
    "fix",
    "generate",
    "list",
    "summarize",
    "summarise",
    "translate",
    "draft",
    "compose",
    "describe",
    "find",
    "search",
    "look",
    "check",
    "review",
    "debug",
    "refactor",
    "implement",
    "add",
    "remove",
    "delete",
    "update",
    "change",
    "convert",
    "rephrase",
    "format",
    "calculate",
    "compute",
    "compare",
    "suggest",
    "recommend",
    "design",
    "build",
    "run",
    "test",
    "send",
    "open",
    "go",
    "stop",
    "start",
    "continue",
    "keep",
    "try",
    "use",
    "do",
    "get",
    "put",
    "set",
    "install",
    "clean",
    "edit",
    "improve",
    "optimize",
    "optimise",
    "proofread",
    "correct",
    "answer",
    "define",
    "name",
    "pick",
    "choose",
    "sort",
    "count",
    "print",
    "draw",
    "imagine",
    "pretend",
    "act",
    "play",
    "say",
    "repeat",
    "brainstorm",
    "outline",
    "expand",
    "shorten",
    "simplify",
    "elaborate",
    "clarify",
    "walk",
    "guide",
    "teach",
    "quiz",
    "give",
    "read",
    "see",
    "have",
    "enjoy",
    "let",
    "lets",
    "let's",
    "wait",
    "hold",
    "hang",
    "consider",
    "assume",
    "think",
    "guess",
    "note",
    "plan",
    "schedule",
    "book",
    "order",
    "buy",
    "call",
    "email",
    "text",
    "ask",
    "reply",
    "respond",
    "share",
    "provide",
    "produce",
    "output",
    "return",
    "add",
    "insert",
    "append",
    "replace",
    "merge",
    "split",
    "join",
    "parse",
    "analyze",
    "analyse",
    "evaluate",
    "rate",
    "rank",
    "estimate",
    "predict",
    "identify",
    "extract",
    "classify",
    "detect",
    "solve",
    "prove",
    "derive",
    "sketch",
    "visualize",
    "plot",
    "render",
    "deploy",
    "configure",
    "setup",
    "tweak",
    "adjust",
    "modify",
    "rename",
    "move",
    "copy",
    "paste",
    "paraphrase",
    "critique",
    "grade",
    "mark",
    "cite",
    "quote",
    "search",
    "google",
    "research",
    "investigate",
    "verify",
    "validate",
    "confirm",
    "double-check",
    "remind",
    "stay",
    "be",
    "come",
    "hurry",
];

/// Interjections and discourse words cut from a sentence's start (and a
/// closing pleasantry from its end).
const INTERJECTIONS: &[&str] = &[
    "oh",
    "ah",
    "aha",
    "hmm",
    "hm",
    "um",
    "uh",
    "umm",
    "well",
    "so",
    "and",
    "also",
    "plus",
    "but",
    "anyway",
    "anyways",
    "btw",
    "ok",
    "okay",
    "k",
    "kk",
    "yes",
    "yeah",
    "yep",
    "yup",
    "no",
    "nope",
    "nah",
    "sure",
    "right",
    "alright",
    "great",
    "cool",
    "nice",
    "awesome",
    "perfect",
    "wow",
    "thanks",
    "thx",
    "ty",
    "cheers",
    "hi",
    "hello",
    "hey",
    "yo",
    "lol",
    "haha",
    "hahaha",
    "lmao",
    "oops",
    "sorry",
    "actually",
    "fun",
    "fact",
    "quick",
    "update",
    "fyi",
    "heh",
    "welp",
    "ugh",
    "meh",
    "gotcha",
    "indeed",
    "exactly",
    "true",
    "agreed",
    "interesting",
    "excellent",
    "amazing",
    "brilliant",
    "lovely",
    "good",
    "morning",
    "evening",
    "afternoon",
    "night",
    "thank",
    "you",
    "much",
    "lot",
    "a",
    "again",
    "dear",
    "please",
    "ps",
    "p.s.",
    "now",
];

/// Pleasantries that make a sentence chit-chat wherever they are.
const PLEASANTRY: &str = r"(?ix)\b(?:
    thanks|thank\s+you|thx|cheers|appreciate\s+(?:it|that|this|the|your)|
    hello|good\s+(?:morning|night|evening|afternoon|luck|job|work|point|question|idea|call)|
    great\s+(?:job|work|point|question|idea|answer|call)|nice\s+(?:job|work|one|try)|well\s+done|
    see\s+(?:you|ya)|talk\s+(?:to\s+you\s+)?(?:soon|later|tomorrow)|good\s+night|take\s+care|bye|goodbye|good-bye|
    have\s+a\s+(?:nice|good|great|lovely|wonderful)|happy\s+(?:birthday|new\s+year|holidays|friday|monday|weekend|easter|thanksgiving)|
    merry\s+christmas|congrats|congratulations|how\s+are\s+you|how's\s+it\s+going|what's\s+up|
    nice\s+to\s+meet|you're\s+welcome|(?:a|such\s+a)\s+(?:pleasure|joy|treat|delight)\b|no\s+worries|no\s+problem|never\s+mind|nevermind|
    lol|lmao|haha+|hehe|omg|wtf|brb|ttyl|gn|gm|
    ^i\s+(?:see|agree|disagree|understand|get\s+it|got\s+it|know\s+right)\b[\s.!,]*$|makes\s+sense|
    sounds\s+(?:good|great|fine|perfect|like\s+a\s+plan)|fair\s+enough|just\s+(?:kidding|checking|testing|curious|wondering|browsing|looking|chilling|relaxing|hanging\s+out)|
    not\s+(?:much|really|sure|bad)|me\s+too|same\s+here|you\s+too|
    i'm\s+(?:back|here|bored|fine|good|great|ok|okay|alright|well|tired|exhausted|hungry|sleepy|done|ready|confused|lost|curious|excited)\b[\s.!]*$
)(?:\b|$)";

/// Request words inside a sentence: the sentence asks the assistant for
/// something.
const REQUEST_INSIDE: &str = r"(?ix)\b(?:
    (?:can|could|would|will|won't|wouldn't)\s+(?:you|u)\b|would\s+you\s+mind|
    i\s*(?:need|want|\s+would\s+like|'d\s+like|'d\s+love)\s+you\s+to|
    help\s+me|tell\s+me|show\s+me|give\s+me|teach\s+me|walk\s+me\s+through|let\s+me\s+know|
    (?:i|we)\s*(?:need|want|\s+would\s+like|'d\s+like|'d\s+love|could\s+use)\s+(?:some\s+|a\s+little\s+|your\s+)?(?:help|advice|assistance|guidance|tips|ideas|suggestions|feedback|a\s+hand)|
    (?:i|we)\s+(?:have|'ve\s+got|got)\s+(?:a|another|one\s+more|some)\s+(?:quick\s+)?questions?|quick\s+question|
    (?:i'm|i\s+am|we're|we\s+are)\s+looking\s+for|
    i\s+(?:wonder|was\s+wondering|'m\s+wondering|am\s+wondering)|
    i\s*(?:want|need|\s+would\s+like|'d\s+like|'d\s+love)\s+to\s+(?:know|learn\s+(?:about|how)|understand|find\s+out|ask)|
    (?:i'm|i\s+am)\s+curious|
    any\s+(?:ideas|tips|suggestions|thoughts|advice|recommendations)|
    what\s+do\s+you\s+think|
    (?:i|we)\s*(?:need|want|\s+would\s+like|'d\s+like|'d\s+love)\s+(?:a|an|some|the)\s+(?:[\w-]+\s+)?(?:regex|regexp|function|script|query|program|command|formula|template|snippet|examples?|email|letter|message|reply|response|summary|list|outline|recipe|poem|story|joke|names?|title|slogan|caption|description|draft|explanation|translation|code|class|method|tests?|algorithm|solution|tool|app|website|prompt|essay|speech|toast|cover\s+letter|resume|cv|bio|tagline|workout|itinerary)\b
)";

/// A clause after a comma, a semicolon or "and"/"so"/"but" that opens with
/// an instruction and its object: "I'm bored, tell me a joke".
const IMPERATIVE_CLAUSE: &str = r"(?ix)(?:[,;:\-–—]|\b(?:and|so|but|then))\s*(?:please\s+)?
    (?:tell|show|give|help|write|explain|make|create|fix|generate|suggest|recommend|list|summarize|summarise|translate|draft|find|check|review|rewrite|teach)\s+
    (?:me|us|it|this|that|them|a|an|the|some|my|our|what|how|why)\b";

/// A problem at hand: help with it is a request, not a fact.
const HELP_CONTEXT: &str = r"(?ix)\b(?:
    error|errors|exception|exceptions|traceback|stack\s*trace|stacktrace|segfault|segmentation\s+fault|
    compiler?\s+(?:error|warning)|syntax\s+error|null\s+pointer|undefined\s+(?:is|method|variable|reference)|
    doesn't\s+work|does\s+not\s+work|don't\s+work|isn't\s+working|is\s+not\s+working|aren't\s+working|not\s+working|stopped\s+working|
    won't\s+(?:work|compile|build|run|start|load|open|install)|
    (?:can't|cannot|couldn't)\s+(?:figure|seem|get\s+(?:it|this|the|my)|make\s+(?:it|this)|understand|wrap\s+my\s+head)|
    (?:i'm|i\s+am|we're|we\s+are|i've\s+been|i\s+was)\s+(?:still\s+)?(?:trying|struggling|stuck|attempting)|
    (?:i|we)\s+(?:tried|keep\s+getting|kept\s+getting|get\s+(?:an?|this|the|some)\s+(?:error|warning|exception))|
    (?:i'm|i\s+am|we're|we\s+are)\s+(?:getting|seeing|hitting)\s+(?:an?|this|the|some|weird|strange)\s+(?:[\w-]+\s+)?(?:warning|warnings|issue|issues|problem|problems|crash|crashes|bug|bugs|message|output|result|behaviou?r)\b|
    (?:throws|threw|panics|panicked|segfaults|crashes|crashed)\b|
    (?:i'm|i\s+am|we're|we\s+are)\s+(?:writing|coding|debugging|implementing|refactoring|testing|compiling)\s+(?:a|an|the|some|this|my)\s|
    confus(?:ed|ing)|how\s+to\b|no\s+idea\s+(?:how|why|what)
)";

/// An error's name as code spells it ("KeyError", "NullPointerException"):
/// the problem at hand.
const ERROR_NAME: &str = r"\b\p{Lu}\w*(?:Error|Exception)\b";

/// A conditional or a hedge opening a sentence: it states no fact.
const CONDITIONAL: &str = r"(?ix)^(?:if|unless|whether|suppose|supposing|what\s+if|in\s+case|assuming|maybe|perhaps|hopefully|should\s+i|should\s+we|i\s+wonder|imagine|let's\s+say|say\s+that)\b";

/// A statement of the moment: "just" after its subject, "today",
/// "tonight", "right now".
const MOMENTARY: &str = r"(?ix)\b(?:(?:i|we|i've|we've)\s+just|just\s+(?:got|had|finished|came|woke|ate|made|did|saw|watched|read|went)|today|tonight|this\s+(?:morning|afternoon|evening)|right\s+now|at\s+the\s+moment)\b";

/// Food, drinks and weather: not content in a statement of the moment.
const SMALL_TALK: &[&str] = &[
    "lunch",
    "dinner",
    "breakfast",
    "brunch",
    "coffee",
    "tea",
    "beer",
    "beers",
    "drink",
    "drinks",
    "pizza",
    "sushi",
    "tacos",
    "burger",
    "burgers",
    "snack",
    "snacks",
    "dessert",
    "pasta",
    "sandwich",
    "salad",
    "food",
    "meal",
    "weather",
    "rain",
    "raining",
    "rainy",
    "sunny",
    "snow",
    "snowing",
    "snowy",
    "hot",
    "cold",
    "warm",
    "humid",
    "windy",
    "gym",
    "walk",
    "nap",
    "shower",
    "movie",
    "movies",
    "show",
    "tv",
    "netflix",
    "game",
    "games",
    "traffic",
    "commute",
    "outside",
    "cup",
    "glass",
];

/// First-person subjects and possessives.
const FIRST_PERSON: &[&str] = &[
    "i",
    "i'm",
    "i've",
    "i'd",
    "i'll",
    "im",
    "ive",
    "my",
    "mine",
    "myself",
    "we",
    "we're",
    "we've",
    "we'd",
    "we'll",
    "our",
    "ours",
    "ourselves",
    "me",
];

/// The assistant, named.
const SECOND_PERSON: &[&str] = &[
    "you",
    "your",
    "you're",
    "youre",
    "yours",
    "yourself",
    "you've",
    "you'll",
    "you'd",
    "u",
    "ur",
    "ya",
    "yourselves",
];

/// Pronouns that carry the subject of the sentence before.
const CONTINUING: &[&str] = &[
    "he", "she", "they", "he's", "she's", "they're", "they've", "he'll", "she'll", "they'll",
    "he'd", "she'd", "they'd", "his", "her", "their", "both",
];

/// Words that point into the conversation ("that", "this", "it"): a
/// sentence opening with one is about what was just said.
const POINTERS: &[&str] = &[
    "that",
    "this",
    "it",
    "it's",
    "that's",
    "this's",
    "these",
    "those",
    "there",
    "there's",
    "here",
    "here's",
    "which",
    "everything",
    "nothing",
    "something",
    "anything",
    "all",
    "same",
    "yours",
    "such",
];

/// Words that carry no content: function words, fillers, conversation
/// words, generic verbs and evaluative adjectives.
const EMPTY_WORDS: &[&str] = &[
    // function words
    "a",
    "an",
    "the",
    "and",
    "or",
    "but",
    "nor",
    "so",
    "yet",
    "for",
    "of",
    "in",
    "on",
    "at",
    "to",
    "from",
    "by",
    "with",
    "without",
    "about",
    "as",
    "into",
    "onto",
    "over",
    "under",
    "up",
    "down",
    "out",
    "off",
    "than",
    "then",
    "too",
    "very",
    "also",
    "just",
    "only",
    "even",
    "still",
    "already",
    "again",
    "not",
    "no",
    "never",
    "n't",
    "is",
    "am",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "have",
    "has",
    "had",
    "having",
    "do",
    "does",
    "did",
    "doing",
    "done",
    "will",
    "would",
    "shall",
    "should",
    "can",
    "could",
    "may",
    "might",
    "must",
    "i",
    "i'm",
    "i've",
    "i'd",
    "i'll",
    "im",
    "ive",
    "me",
    "my",
    "mine",
    "myself",
    "we",
    "we're",
    "we've",
    "we'd",
    "we'll",
    "us",
    "our",
    "ours",
    "he",
    "she",
    "they",
    "him",
    "her",
    "them",
    "his",
    "their",
    "theirs",
    "it",
    "its",
    "it's",
    "this",
    "that",
    "that's",
    "these",
    "those",
    "there",
    "there's",
    "here",
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "when",
    "where",
    "why",
    "how",
    "if",
    "because",
    "since",
    "while",
    "though",
    "although",
    "until",
    "all",
    "any",
    "some",
    "each",
    "every",
    "both",
    "either",
    "neither",
    "much",
    "many",
    "more",
    "most",
    "less",
    "least",
    "few",
    "own",
    "same",
    "other",
    "another",
    "such",
    "one",
    "ones",
    "don't",
    "doesn't",
    "didn't",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "won't",
    "wouldn't",
    "can't",
    "cannot",
    "couldn't",
    "shouldn't",
    "haven't",
    "hasn't",
    "hadn't",
    "gonna",
    "wanna",
    "gotta",
    "kinda",
    "sorta",
    "lets",
    "let's",
    // fillers and conversation
    "really",
    "quite",
    "pretty",
    "super",
    "totally",
    "definitely",
    "actually",
    "basically",
    "literally",
    "honestly",
    "seriously",
    "probably",
    "maybe",
    "perhaps",
    "sure",
    "right",
    "ok",
    "okay",
    "yes",
    "yeah",
    "yep",
    "no",
    "nope",
    "well",
    "oh",
    "ah",
    "hmm",
    "um",
    "uh",
    "lol",
    "haha",
    "thing",
    "things",
    "stuff",
    "something",
    "anything",
    "everything",
    "nothing",
    "lot",
    "lots",
    "bit",
    "way",
    "kind",
    "sort",
    "part",
    "sense",
    "point",
    "idea",
    "ideas",
    "answer",
    "answers",
    "question",
    "questions",
    "response",
    "reply",
    "explanation",
    "example",
    "examples",
    "suggestion",
    "suggestions",
    "help",
    "advice",
    "info",
    "information",
    "chat",
    "conversation",
    "message",
    "tip",
    "tips",
    "thought",
    "thoughts",
    "topic",
    "time",
    "times",
    "moment",
    "day",
    "days",
    "today",
    "tonight",
    "morning",
    "evening",
    "afternoon",
    "night",
    "week",
    "weekend",
    "now",
    "later",
    "soon",
    "ago",
    "once",
    "back",
    "here",
    "there",
    "anyway",
    "though",
    "else",
    "etc",
    "work",
    "working",
    "life",
    "everyone",
    "someone",
    "anyone",
    "people",
    "guy",
    "guys",
    "folks",
    // generic verbs
    "agree",
    "see",
    "saw",
    "seen",
    "know",
    "knew",
    "known",
    "understand",
    "understood",
    "think",
    "thought",
    "guess",
    "suppose",
    "mean",
    "meant",
    "hope",
    "wonder",
    "feel",
    "felt",
    "get",
    "got",
    "gotten",
    "getting",
    "go",
    "goes",
    "going",
    "went",
    "gone",
    "want",
    "wanted",
    "need",
    "needed",
    "like",
    "liked",
    "love",
    "loved",
    "try",
    "tried",
    "trying",
    "check",
    "look",
    "looking",
    "let",
    "make",
    "made",
    "take",
    "took",
    "say",
    "said",
    "tell",
    "told",
    "ask",
    "asked",
    "appreciate",
    "thank",
    "thanks",
    "keep",
    "put",
    "seem",
    "seems",
    "sound",
    "sounds",
    "matter",
    "matters",
    "care",
    "bet",
    "wait",
    "come",
    "came",
    "use",
    "used",
    "find",
    "found",
    "give",
    "gave",
    "read",
    "happen",
    "happened",
    "happens",
    // evaluations and passing states
    "fine",
    "good",
    "great",
    "nice",
    "cool",
    "awesome",
    "amazing",
    "perfect",
    "excellent",
    "wonderful",
    "fantastic",
    "brilliant",
    "lovely",
    "terrible",
    "awful",
    "bad",
    "worse",
    "worst",
    "better",
    "best",
    "horrible",
    "interesting",
    "funny",
    "hilarious",
    "weird",
    "strange",
    "crazy",
    "hard",
    "easy",
    "fun",
    "boring",
    "useful",
    "helpful",
    "clear",
    "glad",
    "happy",
    "sad",
    "sorry",
    "tired",
    "exhausted",
    "bored",
    "hungry",
    "sleepy",
    "busy",
    "excited",
    "curious",
    "confused",
    "ready",
    "long",
    "short",
    "big",
    "small",
    "new",
    "old",
    "real",
    "whole",
    "true",
    "wrong",
    "correct",
    "exactly",
    "beautiful",
    "gorgeous",
    "ugly",
    "slow",
    "fast",
    "simple",
    "complicated",
    "difficult",
    "important",
    "stressed",
    "stressful",
    "annoying",
    "annoyed",
    "frustrated",
    "frustrating",
    "okay-ish",
    "alright",
    "so-so",
    "huge",
    "tiny",
    "cute",
    "sweet",
    "neat",
    "wild",
    "insane",
    "rough",
    "lucky",
    "unlucky",
    "jealous",
    "proud",
    "grateful",
    "thankful",
    "relieved",
    "worried",
];

/// The compiled expressions.
struct Patterns {
    lead: Regex,
    instruction: Regex,
    tail: Regex,
    back: Regex,
    and_that: Regex,
    date: Regex,
    pleasantry: Regex,
    request: Regex,
    imperative_clause: Regex,
    help: Regex,
    conditional: Regex,
    momentary: Regex,
    error_name: Regex,
    standing: Regex,
}

static PATTERNS: LazyLock<Option<Patterns>> = LazyLock::new(|| {
    Some(Patterns {
        lead: Regex::new(EXPLICIT_LEAD).ok()?,
        instruction: Regex::new(EXPLICIT_INSTRUCTION).ok()?,
        tail: Regex::new(EXPLICIT_TAIL).ok()?,
        back: Regex::new(EXPLICIT_BACK).ok()?,
        and_that: Regex::new(AND_THAT).ok()?,
        date: Regex::new(DATE_CUE).ok()?,
        pleasantry: Regex::new(PLEASANTRY).ok()?,
        request: Regex::new(REQUEST_INSIDE).ok()?,
        imperative_clause: Regex::new(IMPERATIVE_CLAUSE).ok()?,
        help: Regex::new(HELP_CONTEXT).ok()?,
        conditional: Regex::new(CONDITIONAL).ok()?,
        momentary: Regex::new(MOMENTARY).ok()?,
        error_name: Regex::new(ERROR_NAME).ok()?,
        standing: Regex::new(crate::write_back::STANDING).ok()?,
    })
});

/// The sentence with typographic apostrophes as `'`, byte for byte the same
/// length (each replaced character is padded), so spans found in it index
/// the sentence.
fn probe(sentence: &str) -> String {
    let mut out = String::with_capacity(sentence.len());
    for c in sentence.chars() {
        match c {
            '\u{2018}' | '\u{2019}' | '\u{02BC}' => {
                out.push('\'');
                // Keep byte offsets: pad to the character's width.
                for _ in 1..c.len_utf8() {
                    out.push('\u{0}');
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// A word of a sentence: its text as written and lower-cased, and where it
/// starts.
struct Word<'a> {
    text: &'a str,
    lower: String,
    start: usize,
}

/// The words of a probe: runs of letters, digits, apostrophes, hyphens,
/// dots and a few symbols, trimmed of the punctuation at their ends.
fn words(probe: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (at, c) in probe.char_indices() {
        let part = c.is_alphanumeric() || matches!(c, '\'' | '-' | '.' | '&' | '/' | '+' | '#');
        match (part, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                push_word(probe, from, at, &mut out);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        push_word(probe, from, probe.len(), &mut out);
    }
    out
}

/// Add the word at `from..to` of `probe`, trimmed of the punctuation at its
/// ends, if anything is left.
fn push_word<'a>(probe: &'a str, from: usize, to: usize, out: &mut Vec<Word<'a>>) {
    let raw = probe.get(from..to).unwrap_or_default();
    let trimmed = raw.trim_matches(|c: char| !c.is_alphanumeric());
    if trimmed.is_empty() {
        return;
    }
    let offset = raw.find(trimmed).map_or(from, |at| from + at);
    out.push(Word {
        text: trimmed,
        lower: trimmed.to_lowercase(),
        start: offset,
    });
}

/// A word without a possessive `'s`.
fn stem(word: &str) -> &str {
    word.strip_suffix("'s").unwrap_or(word)
}

/// Whether a word carries content.
fn is_content(word: &str) -> bool {
    let word = stem(word);
    if word
        .chars()
        .all(|c| !c.is_alphanumeric() || c.is_ascii_digit())
    {
        // A number counts: an age, a count, a time.
        return word.chars().any(|c| c.is_ascii_digit()) && !word.ends_with('%');
    }
    word.chars().count() > 1
        && !listed(EMPTY_WORDS, word)
        && !listed(INTERJECTIONS, word)
        && !listed(SECOND_PERSON, word)
}

/// The start of the sentence after interjections and discourse words
/// ("Oh, and btw, my …"), and its end before a closing pleasantry
/// (", thanks!"): the byte range of the part to read.
fn core_range(probe: &str, all: &[Word<'_>]) -> (usize, usize) {
    let mut first = 0;
    while let Some(word) = all.get(first) {
        let lower = word.lower.as_str();
        let next = all.get(first + 1).map(|w| w.lower.as_str());
        let next2 = all.get(first + 2).map(|w| w.lower.as_str());
        if lower == "by" && next == Some("the") && next2 == Some("way") {
            first += 3;
        } else if lower == "as"
            && matches!(next, Some("i" | "you"))
            && matches!(
                next2,
                Some("said" | "mentioned" | "know" | "told" | "wrote" | "say")
            )
        {
            first += 3;
            // "as I told you": its object too.
            if all.get(first).is_some_and(|w| w.lower == "you") {
                first += 1;
            }
        } else if listed(INTERJECTIONS, lower) && (lower != "no" || is_separator_after(probe, word))
        {
            // "Great, …", "thanks! …", "so …", "No, …" (not "No one …").
            first += 1;
        } else {
            break;
        }
    }
    let start = all.get(first).map_or(probe.len(), |w| w.start);
    // A closing pleasantry after the last comma or dash: ", thanks!".
    let mut end = probe.len();
    if let Some(cut) = probe.rfind([',', '—', '–', ';'])
        && cut > start
    {
        let tail = probe.get(cut..).unwrap_or_default();
        let tail_words = words(tail);
        if !tail_words.is_empty()
            && tail_words.len() <= 4
            && tail_words
                .iter()
                .all(|w| listed(INTERJECTIONS, &w.lower) || listed(SECOND_PERSON, &w.lower))
        {
            end = cut;
        }
    }
    (start, end.max(start))
}

/// Whether a word is followed by a separator (a comma, a dash, `!`), which
/// makes a "no" an interjection ("No, …") rather than a determiner ("No
/// one …").
fn is_separator_after(probe: &str, word: &Word<'_>) -> bool {
    let after = probe
        .get(word.start + word.text.len()..)
        .unwrap_or_default()
        .trim_start_matches('\u{0}');
    after.starts_with([',', '!', '.', '-', '—', '–', ':', ';'])
}

/// Read one sentence of the user's turn: see the module documentation.
///
/// ```
/// use hive_mind_core::cognify::{Basis, NotStatement, Reading, read_sentence};
/// assert_eq!(
///     read_sentence("Oh, and my sister Yasmin works at Philips in Eindhoven."),
///     Reading::Statement(Basis::FirstPerson, (8, 55))
/// );
/// let sentence = "Remember that my brother Karim lives in Rotterdam.";
/// let Reading::Explicit(parts) = read_sentence(sentence) else { panic!() };
/// assert_eq!(&sentence[parts[0].0..parts[0].1], "my brother Karim lives in Rotterdam.");
/// assert_eq!(read_sentence("Thanks, that was really helpful!"), Reading::Not(NotStatement::ChitChat));
/// assert_eq!(read_sentence("Can you help me write a cover letter?"), Reading::Not(NotStatement::Question));
/// ```
pub fn read_sentence(sentence: &str) -> Reading {
    let Some(patterns) = PATTERNS.as_ref() else {
        return Reading::Not(NotStatement::NoContent);
    };
    let probe = probe(sentence);
    let trimmed_len = probe.trim_end().len();
    if patterns.back.is_match(&probe) {
        return Reading::ExplicitBefore;
    }
    if patterns.instruction.is_match(&probe) {
        return Reading::Explicit(vec![(leading_space(&probe), trimmed_len)]);
    }
    if let Some(found) = patterns.lead.captures(&probe)
        && let Some(whole) = found.get(0)
        && !is_reminiscing(probe.get(whole.end()..).unwrap_or_default())
        && (found.name("bare").is_none()
            || opens_a_statement(probe.get(whole.end()..).unwrap_or_default()))
    {
        return explicit_parts(patterns, &probe, whole.end(), trimmed_len);
    }
    if let Some(tail) = patterns.tail.find(&probe)
        && tail.start() > 0
    {
        let start = leading_space(&probe);
        return explicit_parts(patterns, &probe, start, tail.start());
    }
    read_statement(patterns, &probe)
}

/// The first non-space byte.
fn leading_space(probe: &str) -> usize {
    probe.len() - probe.trim_start().len()
}

/// "remember when …", "remember how …", "remember the time …":
/// reminiscing, not a request.
fn is_reminiscing(rest: &str) -> bool {
    let mut found = words(rest).into_iter().map(|w| w.lower);
    let first = found.next();
    let second = found.next();
    matches!(
        first.as_deref(),
        Some("when" | "how" | "what" | "who" | "where" | "why")
    ) || (first.as_deref() == Some("the")
        && matches!(second.as_deref(), Some("time" | "times" | "day" | "night")))
}

/// Whether a text opens with a first-person word or a name: what a bare
/// "remember" needs after it to be a request ("Remember my brother Karim
/// lives in Rotterdam", not "Remember the milk").
fn opens_a_statement(rest: &str) -> bool {
    words(rest).first().is_some_and(|w| {
        (listed(FIRST_PERSON, &w.lower) && w.lower != "me")
            || (w.text.chars().next().is_some_and(char::is_uppercase)
                && !listed(STOP_WORDS, &w.lower))
    })
}

/// What follows explicit request words, split at "… and that …", each
/// part trimmed and kept when it holds a content word.
fn explicit_parts(patterns: &Patterns, probe: &str, from: usize, to: usize) -> Reading {
    let body = probe.get(from..to).unwrap_or_default();
    if body.trim().is_empty() {
        return Reading::ExplicitBefore;
    }
    let mut parts = Vec::new();
    let mut at = 0;
    let mut cuts: Vec<(usize, usize)> = patterns
        .and_that
        .find_iter(body)
        .map(|m| (m.start(), m.end()))
        .collect();
    cuts.push((body.len(), body.len()));
    for (cut_start, cut_end) in cuts {
        let piece = body.get(at..cut_start).unwrap_or_default();
        let lead = piece.len() - piece.trim_start().len();
        let mut end = piece.trim_end().len();
        // A request asked as a question keeps no question mark.
        let inner = piece.get(..end).unwrap_or_default();
        let inner = inner.trim_end_matches(['?', '？']);
        end = inner.len();
        if end > lead && words(inner).iter().any(|w| is_content(&w.lower)) {
            parts.push((from + at + lead, from + at + end));
        }
        at = cut_end;
    }
    if parts.is_empty() {
        Reading::Not(NotStatement::NoContent)
    } else {
        Reading::Explicit(parts)
    }
}

/// Whether the sentence ends in a question mark (before closing quotes and
/// brackets).
fn ends_in_a_question_mark(probe: &str) -> bool {
    probe
        .trim_end_matches(|c: char| c.is_whitespace() || c == '\u{0}')
        .trim_end_matches(['"', '\'', ')', ']', '\u{201D}', '»'])
        .ends_with(['?', '？'])
}

/// Where a kept statement ends: at `end`, less the spaces and a trailing
/// comma before it.
fn kept_end(probe: &str, end: usize) -> usize {
    probe.get(..end).map_or(end, |kept| {
        kept.trim_end_matches(|c: char| c.is_whitespace() || c == '\u{0}' || c == ',')
            .len()
    })
}

/// Read a sentence with no request words: as a statement of the user's
/// world ([`read_plain`]), else, where that reads a request, a remark to
/// the assistant, a question or nothing in particular, as a standing
/// instruction ([`standing_instruction`]).
fn read_statement(patterns: &Patterns, probe: &str) -> Reading {
    let reading = read_plain(patterns, probe);
    match reading {
        Reading::Not(
            NotStatement::Request
            | NotStatement::ToAssistant
            | NotStatement::Question
            | NotStatement::NoSubject
            | NotStatement::NoContent,
        ) => standing_instruction(patterns, probe, &reading)
            .or_else(|| how_to_reach_the_user(probe))
            .unwrap_or(reading),
        reading => reading,
    }
}

/// Verbs of reaching someone: "You can reach me on …".
const REACHING: &[&str] = &[
    "reach", "call", "contact", "email", "e-mail", "text", "message", "find", "ring", "phone",
    "mail", "ping", "dm",
];

/// "You can reach me on +44 7700 900456", "You can call me Sam", "You can
/// find me on Mastodon as @jo": said to the assistant, yet a statement of
/// the user's own number, address or name ([`Basis::FirstPerson`]). The
/// shape: "you" and "can", "could" or "may", a verb of reaching
/// ([`REACHING`]) and "me", then something specific (a digit, an
/// identifier, a capitalised name).
fn how_to_reach_the_user(probe: &str) -> Option<Reading> {
    let all = words(probe);
    let you = all
        .iter()
        .position(|w| matches!(w.lower.as_str(), "you" | "u"))?;
    let shape = |offset: usize| all.get(you + offset).map(|w| w.lower.as_str());
    let modal = matches!(shape(1), Some("can" | "could" | "may"));
    let (verb, me) = if shape(2) == Some("always") {
        (shape(3), shape(4))
    } else {
        (shape(2), shape(3))
    };
    if !modal || !verb.is_some_and(|v| listed(REACHING, v)) || me != Some("me") {
        return None;
    }
    let start = all.get(you)?.start;
    let specific = all.iter().skip(you + 3).any(|w| {
        w.text.chars().any(|c| c.is_ascii_digit())
            || is_identifier(w.text)
            || (w.text.chars().next().is_some_and(char::is_uppercase)
                && !listed(STOP_WORDS, &w.lower))
    });
    if !specific {
        return None;
    }
    let end = kept_end(probe, probe.len());
    Some(Reading::Statement(
        Basis::FirstPerson,
        (start, end.max(start)),
    ))
}

/// Subjects that make a standing word ("always", "never") tell what
/// someone does, not what the assistant should: "I always struggle with
/// these", "You always make me laugh", "We never deploy on Fridays". After
/// the user's own "I" or "we" the word still makes a standing preference
/// when a verb of wanting follows it ([`STANDING_WANTS`]).
const STANDING_SUBJECTS: &[&str] = &[
    "i", "i've", "i'd", "i'll", "i'm", "we", "we've", "we'd", "we'll", "we're", "you", "you're",
    "you've", "you'll", "you'd", "he", "she", "it", "they", "people", "everyone",
];

/// Verbs of a one-off moment after "when you": "When you get a chance",
/// "when you finish", "when you're back".
const ONCE_VERBS: &[&str] = &[
    "get",
    "got",
    "finish",
    "finished",
    "arrive",
    "come",
    "go",
    "wake",
    "hear",
    "see",
    "find",
    "return",
    "start",
    "leave",
    "reach",
    "read",
    "said",
    "say",
    "asked",
    "mentioned",
    "told",
];

/// Words after "when you <verb>" that make its object particular, a thing
/// at hand ("when you send the file", "when you write it"), not a kind.
const PARTICULAR: &[&str] = &[
    "the", "this", "that", "these", "those", "it", "its", "a", "an", "my", "our", "his", "her",
    "their", "them", "him", "back", "done", "ready", "up", "around", "home", "here", "there",
    "free", "time", "out", "in",
];

/// Verbs of a preference that holds without a standing word: "I prefer
/// that you reply in bullet points", "I'd rather you didn't use emojis".
const PREFERRING: &[&str] = &["prefer", "rather"];

/// Whether `probe`, which [`read_plain`] read as `plain` (a request, a
/// remark to the assistant, a question, or nothing in particular), is a
/// standing instruction ([`Basis::Standing`]): how the assistant should
/// work with the user from now on, which a memory exists to keep. Read from
/// the sentence's shape:
///
/// - it is **said to the assistant**: a request ("Please keep your answers
///   short from now on."), a sentence naming it ("… any UI mockups you make
///   for me"), or one that opens with its standing word, an imperative
///   after it ("Always use metric units.", "From now on, answer me in
///   Dutch.", "Don't ever suggest Java to me."); a question only as a polite
///   request ("Could you always cite your sources?", not "Do you always
///   …?");
/// - it holds for **every time after**: a standing word ([`crate::write_back::STANDING`]) not
///   told of a subject's habit ([`STANDING_SUBJECTS`]: "I always struggle
///   with these", "You always make me laugh"), unless the user's own "I" or
///   "we" wants it ("I always want …"); or the user's stated preference
///   about the assistant ("I prefer that you …", "I'd rather you …");
/// - it **says something**: two words that carry meaning besides the
///   standing words ("Never do that." says nothing).
fn standing_instruction(patterns: &Patterns, probe: &str, plain: &Reading) -> Option<Reading> {
    let all = words(probe);
    let (mut start, end) = core_range(probe, &all);
    // The reading of statements cuts a leading "you" as in "thank you";
    // here it is the assistant, addressed: "You should always …".
    if let Some(at) = all.iter().position(|w| w.start == start)
        && let Some(before) = at.checked_sub(1).and_then(|i| all.get(i))
        && listed(SECOND_PERSON, &before.lower)
        && at
            .checked_sub(2)
            .and_then(|i| all.get(i))
            .is_none_or(|w| w.lower != "thank")
    {
        start = before.start;
    }
    let core = probe.get(start..end)?;
    let words_in = words(core);
    let first = words_in.first()?.lower.as_str();
    let second = words_in.get(1).map(|w| w.lower.as_str());
    let asked = ends_in_a_question_mark(probe);
    let polite_request = matches!(first, "can" | "could" | "would")
        && second.is_some_and(|s| s == "you" || s == "u");
    let told = !asked
        && (listed(SECOND_PERSON, first)
            || (matches!(first, "don't" | "dont") && !second.is_some_and(is_a_subject)));
    // "When you suggest recipes, …", "… whenever you give me numbers": a
    // condition over every time the assistant does a kind of thing, its
    // object said in general ("When you send the file, …" is once, and so
    // is "When you get a chance, …").
    let generic_condition = words_in.windows(4).any(|window| {
        let [when, you, verb, object] = window else {
            return false;
        };
        // In capitals it is a title's ("Pretty When You Cry").
        let capital = |text: &str| text.chars().next().is_some_and(char::is_uppercase);
        matches!(when.lower.as_str(), "when" | "whenever")
            && matches!(you.lower.as_str(), "you" | "u")
            && !capital(you.text)
            && (when.start == 0 || !capital(when.text))
            && !listed(AUXILIARIES, &verb.lower)
            && !listed(ONCE_VERBS, &verb.lower)
            && !listed(PARTICULAR, &object.lower)
    });
    // "When you write code for me, use tabs." opens like a question and
    // tells.
    if (asked || *plain == Reading::Not(NotStatement::Question))
        && !polite_request
        && !told
        && (asked || !generic_condition)
    {
        return None;
    }
    // Whether a standing word at `at` tells of its subject's habit or
    // ability: just after the subject ("I always struggle", "You never
    // disappoint") or after the subject and an auxiliary ("you can never
    // predict", "my plans are always changing"), but not after "should" or
    // "must" ("You should always cite …"), and not after "you" that follows
    // a modal, a polite request's ("Can you always …"). Inside a request,
    // a subject, an auxiliary and a standing word describe what is asked
    // for ("Please make sure your answers are always short."), unless a
    // verb in "-ing" follows: a habit told beside the request ("… as my
    // plans are always changing").
    let requested = *plain == Reading::Not(NotStatement::Request);
    let word_at = |index: Option<usize>| index.and_then(|i| words_in.get(i));
    // The first word from byte `at` of the core on.
    let word_from = |at: usize| words_in.iter().find(|w| w.start >= at);
    let subject_before = |at: usize| {
        let Some(index) = words_in
            .iter()
            .rposition(|w| w.start < at && w.start + w.text.len() + 2 >= at)
        else {
            return false;
        };
        let before = word_at(Some(index)).map_or("", |w| w.lower.as_str());
        let earlier = word_at(index.checked_sub(1)).map_or("", |w| w.lower.as_str());
        if listed(STANDING_SUBJECTS, before) {
            return !listed(AUXILIARIES, earlier);
        }
        (listed(AUXILIARIES, before) || matches!(before, "are" | "'re" | "am"))
            && !matches!(before, "should" | "must" | "shall")
            && (listed(STANDING_SUBJECTS, earlier) || earlier.ends_with('s'))
            && (!requested
                || word_from(at + 1).is_some_and(|w| w.lower.len() > 4 && w.lower.ends_with("ing")))
    };
    // A standing word capitalised inside the sentence is a name's ("Play
    // Music Never Sleeps"); in capitals, it is stressed ("You must ALWAYS
    // …").
    let marks: Vec<regex::Match<'_>> = patterns
        .standing
        .find_iter(core)
        .filter(|m| {
            let mut letters = m.as_str().chars().filter(|c| c.is_alphabetic());
            let title = letters.next().is_some_and(char::is_uppercase)
                && letters.next().is_some_and(char::is_lowercase);
            m.start() == 0 || !title
        })
        .collect();
    let standing_mark = marks.iter().find(|m| {
        !subject_before(m.start())
            || (words_in
                .iter()
                .rev()
                .find(|w| w.start < m.start())
                .is_some_and(|w| listed(FIRST_PERSON, &w.lower))
                && word_from(m.end()).is_some_and(|w| listed(STANDING_WANTS, &w.lower)))
    });
    // "I prefer that you …", "I'd rather you …", "We prefer it when you
    // …": the user's preference about what the assistant does ("I'd prefer
    // to not hurt your feelings" is about the user's own doing).
    let first_person_preference = words_in
        .first()
        .is_some_and(|w| listed(FIRST_PERSON, &w.lower) && w.lower != "me")
        && words_in.iter().enumerate().any(|(index, w)| {
            listed(PREFERRING, &w.lower)
                && words_in
                    .iter()
                    .skip(index + 1)
                    .take(3)
                    .any(|w| matches!(w.lower.as_str(), "you" | "u"))
        });
    let to_the_assistant = words_in.iter().any(|w| listed(SECOND_PERSON, &w.lower));
    // "Always use …", "From now on, answer …": the standing word opens the
    // sentence and an imperative follows it ("Always happy to help." is
    // none).
    let opens_an_imperative = marks.first().is_some_and(|m| {
        m.start() == 0
            && word_from(m.end()).is_some_and(|w| listed(IMPERATIVES, &w.lower) || w.lower == "be")
    });
    let for_the_user = words_in
        .iter()
        .any(|w| matches!(w.lower.as_str(), "me" | "us"));
    let said_to_the_assistant = matches!(
        plain,
        Reading::Not(NotStatement::Request | NotStatement::ToAssistant)
    ) || polite_request
        || to_the_assistant
        || for_the_user
        || opens_an_imperative
        || matches!(first, "don't" | "dont");
    let standing = standing_mark.is_some()
        || generic_condition
        || (first_person_preference && to_the_assistant);
    if !(said_to_the_assistant && standing) {
        return None;
    }
    // What the instruction is about: words of the conversation count here
    // ("keep your answers short"), function words and the standing words
    // do not ("Never do that.").
    let content = words_in
        .iter()
        .filter(|w| {
            w.lower.chars().count() > 1
                && !listed(STOP_WORDS, &w.lower)
                && !listed(SECOND_PERSON, &w.lower)
                && !listed(INTERJECTIONS, &w.lower)
                && !listed(PREFERRING, &w.lower)
                && !listed(STANDING_WANTS, &w.lower)
        })
        .filter(|w| {
            !marks
                .iter()
                .any(|m| w.start >= m.start() && w.start < m.end())
        })
        .count();
    if content < 2 {
        return None;
    }
    let keep = kept_end(probe, end);
    Some(Reading::Statement(
        Basis::Standing,
        (start, keep.max(start)),
    ))
}

/// Whether a word is a pronoun that can open a clause as its subject:
/// "Don't you …" asks, "Don't ever …" tells.
fn is_a_subject(word: &str) -> bool {
    matches!(
        word,
        "you" | "u" | "we" | "they" | "i" | "he" | "she" | "it" | "that" | "this"
    )
}

/// Read a sentence with no request words as a statement of the user's
/// world, or say why it is none.
fn read_plain(patterns: &Patterns, probe: &str) -> Reading {
    let all = words(probe);
    if all.is_empty() {
        return Reading::Not(NotStatement::NoContent);
    }
    let question = ends_in_a_question_mark(probe);
    if question {
        return Reading::Not(NotStatement::Question);
    }
    let (start, end) = core_range(probe, &all);
    let core = probe.get(start..end).unwrap_or_default();
    let words_in: Vec<Word<'_>> = words(core);
    let Some(first) = words_in.first() else {
        return Reading::Not(NotStatement::ChitChat);
    };
    let first_lower = first.lower.as_str();
    let second_lower = words_in.get(1).map(|w| w.lower.as_str());
    if listed(AUXILIARIES, first_lower) && !opens_with_had(&words_in) {
        return Reading::Not(NotStatement::Question);
    }
    if listed(QUESTION_WORDS, first_lower)
        && (first_lower.contains('\'')
            || second_lower
                .is_some_and(|s| listed(AUXILIARIES, s) || s == "to" || s.starts_with("you")))
    {
        return Reading::Not(NotStatement::Question);
    }
    if patterns.conditional.is_match(core) {
        return Reading::Not(NotStatement::Conditional);
    }
    let label = label_end(&words_in, core);
    if (listed(IMPERATIVES, first_lower) && !opens_a_subject(&words_in) && label.is_none())
        || matches!(first_lower, "please" | "pls" | "plz" | "kindly")
        || patterns.request.is_match(core)
        || patterns.imperative_clause.is_match(core)
    {
        return Reading::Not(NotStatement::Request);
    }
    if says_a_pleasantry(patterns, core) {
        return Reading::Not(NotStatement::ChitChat);
    }
    if words_in.iter().any(|w| listed(SECOND_PERSON, &w.lower)) {
        return Reading::Not(NotStatement::ToAssistant);
    }
    if has_a_problem_at_hand(patterns, core) || patterns.error_name.is_match(core) {
        return Reading::Not(NotStatement::HelpContext);
    }
    // Whose world.
    let first_person = words_in
        .iter()
        .any(|w| listed(FIRST_PERSON, &w.lower) && w.lower != "me")
        || words_in
            .first()
            .is_some_and(|w| w.lower == "me" && second_lower == Some("and"));
    let names = named_words(&words_in, core);
    let named = !names.is_empty();
    let dated = patterns.date.is_match(core);
    let basis = if first_person {
        Basis::FirstPerson
    } else if listed(CONTINUING, first_lower) {
        Basis::Continued
    } else if listed(POINTERS, first_lower) {
        return Reading::Not(NotStatement::ChitChat);
    } else if leaves_its_subject_unsaid(&words_in) {
        Basis::Unsaid
    } else if label.is_some() {
        Basis::Labelled
    } else if named {
        Basis::Named
    } else if dated {
        Basis::Dated
    } else {
        return Reading::Not(NotStatement::NoSubject);
    };
    // Content.
    let dates: Vec<(usize, usize)> = patterns
        .date
        .find_iter(core)
        .map(|m| (m.start(), m.end()))
        .collect();
    let in_date = |w: &Word<'_>| {
        dates.iter().any(|&(s, e)| w.start >= s && w.start < e)
            || listed(CALENDAR_WORDS, stem(&w.lower))
    };
    let momentary = patterns.momentary.is_match(core) && !named && !dated;
    let content: Vec<&Word<'_>> = words_in
        .iter()
        .filter(|w| is_content(&w.lower) || (in_date(w) && !listed(EMPTY_WORDS, &w.lower)))
        .filter(|w| !(momentary && listed(SMALL_TALK, stem(&w.lower))))
        .collect();
    let plain = content
        .iter()
        .filter(|w| !in_date(w) && !names.iter().any(|n| n == &w.start))
        .count();
    // Two words that carry meaning, or one specific one: a name, a number,
    // a date where `dates_count`.
    let says_something = |part: &[&&Word<'_>], dates_count: bool| {
        part.len() >= 2
            || part.iter().any(|w| {
                names.contains(&w.start)
                    || w.lower.chars().any(|c| c.is_ascii_digit())
                    || (dates_count && in_date(w))
            })
    };
    let enough = match basis {
        _ if momentary => plain >= 2,
        Basis::FirstPerson | Basis::Continued => !content.is_empty(),
        // The opening verb aside, something specific — a name, a number —
        // or two words that carry meaning: "Joined PureGym", "Started keto
        // this month", not "Loving it!", "Made it home", "Looking forward
        // to it!". A date alone is not enough: "Worried about tomorrow."
        // and "Relieved it's Friday." tell a mood, not a fact.
        Basis::Unsaid => {
            let beyond: Vec<&&Word<'_>> =
                content.iter().filter(|w| w.start != first.start).collect();
            says_something(&beyond, false)
        }
        Basis::Named | Basis::Dated => content.len() >= 2 && plain >= 1,
        // The value says something specific — a name, a number, an
        // address, a date — or two words that carry meaning: "Company VPN:
        // Cisco AnyConnect", not "Status: done".
        Basis::Labelled => {
            let value: Vec<&&Word<'_>> = content
                .iter()
                .filter(|w| label.is_some_and(|end| w.start >= end))
                .collect();
            says_something(&value, true)
        }
        // Read by `standing_instruction` alone, never chosen above.
        Basis::Standing => content.len() >= 2,
    };
    if enough {
        let keep = kept_end(probe, end);
        Reading::Statement(basis, (start, keep.max(start)))
    } else {
        Reading::Not(NotStatement::NoContent)
    }
}

/// Whether `core` tells of a problem at hand ([`HELP_CONTEXT`]). An error
/// named as a practice or a rule is none: after "no", "without" or "zero"
/// ("Deploy day is Thursday, no exceptions", "ran without errors"), or
/// before a word in "-ing" ("We use Sentry for error tracking",
/// "exception handling"). ("Raised" and "raises" are not in the pattern:
/// a landlord raises the rent; code that raises names what it raises.)
fn has_a_problem_at_hand(patterns: &Patterns, core: &str) -> bool {
    patterns.help.find_iter(core).any(|found| {
        let noun = found.as_str().to_lowercase();
        if !matches!(
            noun.as_str(),
            "error" | "errors" | "exception" | "exceptions"
        ) {
            return true;
        }
        let before = words(core.get(..found.start()).unwrap_or_default());
        let after = words(core.get(found.end()..).unwrap_or_default());
        let negated = before
            .last()
            .is_some_and(|w| matches!(w.lower.as_str(), "no" | "without" | "zero"));
        let a_practice = core
            .get(found.end()..)
            .is_some_and(|tail| tail.starts_with(' '))
            && after
                .first()
                .is_some_and(|w| w.lower.len() > 4 && w.lower.ends_with("ing"));
        !negated && !a_practice
    })
}

/// Whether `core` says a pleasantry ([`PLEASANTRY`]) in its own words,
/// not inside an address ("hello@ortizdesign.com", "thanks.example").
fn says_a_pleasantry(patterns: &Patterns, core: &str) -> bool {
    patterns.pleasantry.find_iter(core).any(|found| {
        let before = core
            .get(..found.start())
            .and_then(|head| head.chars().last());
        let mut after = core.get(found.end()..).unwrap_or_default().chars();
        let (next, then) = (after.next(), after.next());
        let in_an_address = matches!(before, Some('@' | '.'))
            || next == Some('@')
            || (next == Some('.') && then.is_some_and(char::is_alphanumeric));
        !in_an_address
    })
}

/// The most words a note's label has ("Work email", "Quote from Smith
/// Roofing").
const MAX_LABEL_WORDS: usize = 4;

/// Where the label of a note of a label and its value ends (the byte
/// offset in `core` after its colon), if the sentence is one: one to
/// [`MAX_LABEL_WORDS`] words, then a colon and a space, then the value.
/// The label is a noun phrase — no verb, no question word, no "you" — so
/// its first word is no instruction even where it could be one ("Quote
/// from Smith Roofing: £4,200", "Design review: Thursday 10:00").
fn label_end(words_in: &[Word<'_>], core: &str) -> Option<usize> {
    let colon = core
        .char_indices()
        .zip(core.chars().skip(1))
        .find(|((_, c), next)| *c == ':' && next.is_whitespace())
        .map(|((at, _), _)| at)?;
    let label: Vec<&Word<'_>> = words_in.iter().filter(|w| w.start < colon).collect();
    let noun_phrase = (1..=MAX_LABEL_WORDS).contains(&label.len())
        && label.iter().all(|w| {
            !listed(AUXILIARIES, &w.lower)
                && !listed(QUESTION_WORDS, &w.lower)
                && !listed(SECOND_PERSON, &w.lower)
        });
    let valued = words_in.iter().any(|w| w.start > colon);
    (noun_phrase && valued).then_some(colon + 1)
}

/// Whether a word is an identifier: letters and digits together ("X1",
/// "stg-01.internal", "BA2490"; not a number with its unit or order,
/// "5pm", "2nd", "30kg") or a dotted address ("brightlane.io",
/// "ortiz.jo"). Specific as a name is: what a note of a server, an
/// account or a model names.
fn is_identifier(word: &str) -> bool {
    let letters = word.chars().filter(char::is_ascii_alphabetic).count();
    let digits = word.chars().filter(char::is_ascii_digit).count();
    let unit = digits > 0
        && letters <= 3
        && word
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',')
            .chars()
            .all(|c| c.is_ascii_alphabetic());
    let dotted = word.split('.').count() >= 2
        && word
            .split('.')
            .all(|part| part.chars().filter(|c| c.is_alphanumeric()).count() >= 2);
    (letters > 0 && digits > 0 && !unit) || dotted
}

/// Whether a sentence opening with a word that is also an imperative verb
/// opens with a noun phrase instead, the subject of a verb after it: "Book
/// club meets …", "Deploy day is …", "Design sync moves …" — the second
/// word a noun (not a function word) and the third a finite verb (an
/// auxiliary, or a word in "-s"). "Book a table", "Write unit tests" stay
/// requests.
fn opens_a_subject(words_in: &[Word<'_>]) -> bool {
    let (Some(second), Some(third)) = (words_in.get(1), words_in.get(2)) else {
        return false;
    };
    let noun = !listed(STOP_WORDS, &second.lower) && second.lower.chars().all(char::is_alphabetic);
    let finite = listed(AUXILIARIES, &third.lower)
        || (third.lower.ends_with('s')
            && !third.lower.ends_with("ss")
            && !listed(STOP_WORDS, &third.lower)
            && third.lower.chars().all(char::is_alphabetic)
            && words_in.len() > 3);
    noun && finite
}

/// Irregular past tenses of verbs that are not actions ("felt", "knew",
/// "left"), beside the change judge's action verbs
/// ([`crate::change::PAST_ACTIONS`]: "went", "got", "bought").
const OTHER_IRREGULAR_PAST: &[&str] = &[
    "began",
    "built",
    "chose",
    "fell",
    "felt",
    "flew",
    "forgot",
    "grew",
    "heard",
    "hid",
    "kept",
    "knew",
    "led",
    "left",
    "lent",
    "sat",
    "slept",
    "spoke",
    "stood",
    "taught",
    "thought",
    "threw",
    "understood",
    "woke",
    "wore",
];

/// Irregular past tenses a note may open with, its subject left unsaid
/// ("Went to Tokyo in April", "Got a fixed desk"): the closed set of common
/// English irregular verbs, which no suffix tells, the action verbs the
/// change judge reads written once, there.
const IRREGULAR_PAST: &[&str] = &crate::words::joined::<
    { crate::words::total_len(&[crate::change::PAST_ACTIONS, OTHER_IRREGULAR_PAST]) },
>(&[crate::change::PAST_ACTIONS, OTHER_IRREGULAR_PAST]);

/// Whether a note opens with "had" and what was had or had to be done,
/// its subject left unsaid ("Had my flu jab this morning.", "Had the
/// boiler serviced.", "Had to cancel the Porto trip."): not the auxiliary
/// of a question ("Had you heard?" ends in a question mark and is read
/// before; "Had I known, …" names its subject).
fn opens_with_had(words_in: &[Word<'_>]) -> bool {
    words_in.first().is_some_and(|w| w.lower == "had")
        && words_in.get(1).is_some_and(|w| {
            matches!(
                w.lower.as_str(),
                "my" | "our" | "a" | "an" | "the" | "to" | "some" | "his" | "her" | "their"
            )
        })
}

/// Whether a sentence leaves its subject, the first person, unsaid, as a
/// diary or a note does: it opens with a verb in the past ("Joined …",
/// "Gave up …", "Ordered …"; a word in "-ed" or a common irregular past) or
/// in "-ing" ("Learning Spanish …", "Renting a room …"), and the word after
/// it is no verb of its own ("Swimming is fun" has a subject: swimming).
fn leaves_its_subject_unsaid(words_in: &[Word<'_>]) -> bool {
    let Some(first) = words_in.first() else {
        return false;
    };
    if opens_with_had(words_in) {
        return true;
    }
    let word = first.lower.as_str();
    // The short "-ing" verbs a note opens with ("Doing intermittent fasting
    // 16:8 now.", "Using Zed for everything."), which the length rule below
    // leaves out with "thing", "king" and "ring".
    let short_progressive = matches!(word, "doing" | "going" | "using");
    if !word.chars().all(char::is_alphabetic)
        || (listed(STOP_WORDS, word) && !short_progressive)
        || listed(INTERJECTIONS, word)
        || listed(SMALL_TALK, word)
    {
        return false;
    }
    let letters = word.chars().count();
    let past = listed(IRREGULAR_PAST, word)
        || (letters >= 5 && word.ends_with("ed") && !word.ends_with("eed"));
    let progressive =
        short_progressive || (letters >= 6 && word.ends_with("ing") && !word.ends_with("thing"));
    let verb_next = words_in
        .get(1)
        .is_some_and(|next| listed(AUXILIARIES, &next.lower));
    (past || progressive) && !verb_next
}

/// The starts (in the probe) of the words that name someone or something:
/// capitalised words that are not the opening function word, the pronoun
/// "I", a month or a weekday, and the words of the entities the extractor
/// finds.
fn named_words(words_in: &[Word<'_>], core: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for (index, word) in words_in.iter().enumerate() {
        if is_identifier(word.text) {
            out.push(word.start);
            continue;
        }
        let capital = word.text.chars().next().is_some_and(char::is_uppercase);
        if !capital {
            continue;
        }
        let lower = stem(&word.lower);
        if listed(FIRST_PERSON, lower)
            || listed(STOP_WORDS, lower)
            || listed(CALENDAR_WORDS, lower)
            || listed(INTERJECTIONS, lower)
            || listed(SECOND_PERSON, lower)
        {
            continue;
        }
        if index == 0
            && (listed(EMPTY_WORDS, lower)
                || listed(IMPERATIVES, lower)
                || listed(POINTERS, lower)
                || listed(CONTINUING, lower)
                || listed(QUESTION_WORDS, lower)
                || listed(AUXILIARIES, lower))
        {
            continue;
        }
        // A shout ("OK", "LOL") is not a name unless it is long.
        if word.text.chars().count() <= 3
            && word.text.chars().all(char::is_uppercase)
            && listed(EMPTY_WORDS, lower)
        {
            continue;
        }
        out.push(word.start);
    }
    // Every sentence opens with a capital: beside a later name its first
    // word is read as the common word it mostly is ("Dentist is Dr.
    // Kowalczyk", "Company VPN: Cisco AnyConnect", "Joined PureGym"), and
    // alone as the name it must then be ("Luis leads the payments team").
    // The extractor below still finds a first word that is a name.
    if out.len() > 1
        && let Some(opening) = words_in.first()
    {
        out.retain(|&start| start != opening.start);
    }
    for entity in extract_entities(core) {
        // A file is the task at hand, not the user's world.
        if entity.entity_type == super::EntityType::File {
            continue;
        }
        let Some(span) = entity.span else { continue };
        let (from, to) = (span.start as usize, span.end as usize);
        for word in words_in.iter().filter(|w| w.start >= from && w.start < to) {
            if !out.contains(&word.start) {
                out.push(word.start);
            }
        }
    }
    out
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_expression_compiles() {
        assert!(PATTERNS.is_some());
    }
}
