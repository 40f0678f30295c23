//! Pattern write-back: what is worth remembering in a live exchange.
//!
//! After every successful agent turn, the (user, assistant) exchange is read
//! for the few sentences that deserve to become memories: how the user likes
//! things, where they corrected the agent, what was decided, what was
//! learned, how answers should be written, and what work the assistant
//! delivered. Everything else, and casual chatter above all, is left alone:
//! a memory store that remembers "thanks, have a nice weekend" ranks real
//! memories lower on every later recall.
//!
//! # The procedure
//!
//! 1. **Split** each turn into sentences: lines first, then at `.`, `!`, `?`
//!    (and `…`, `。`, `！`, `？`) followed by white space or the end of the
//!    line. The terminator stays with its sentence. A full stop does not end
//!    a sentence after a common abbreviation ("e.g.", "vs.", "Dr.") or a
//!    leading list number ("1."). Fenced code blocks and quoted lines (`>`)
//!    are skipped: they hold code and someone else's words, not the speaker's
//!    statements. Leading list markers (`-`, `*`, `•`, `1.`) are dropped.
//! 2. **Guard** each sentence:
//!    - *topic chatter*: a sentence about food, drinks, the weather, sports or
//!      films ("lunch", "coffee", "raining", …) yields nothing;
//!    - *conditionals and hedges*: a sentence that starts with "if",
//!      "unless", "whether", "maybe", "perhaps", … states no fact and yields
//!      nothing;
//!    - *questions*: a sentence ending in `?` yields nothing, except a
//!      request ("Could you keep it short?", "Can you call me Sam?") for a
//!      style or preference pattern;
//!    - *pleasantries*: in a sentence with "thanks", "hello", "bye", "see
//!      you", … only *strong* patterns may fire (a weak one such as "I like …
//!      better" in "Thanks, I like it better now!" is chatter).
//!    - *the answer at hand, someone else's likes*: a preference or style
//!      pattern yields nothing for a request scoped to the present task
//!      ("for this email", "just this once", "the second option you gave")
//!      that has no standing word ("always", "from now on", "for all my
//!      reports", [`STANDING`]), nor for a sentence telling another person's
//!      likes ("My boss always wants reports in bullet points"), nor for
//!      the user's own plan ("From now on I'm going to the gym every
//!      morning"): none is how the user likes things from now on.
//!    - sentences longer than [`MAX_SENTENCE_CHARS`] are skipped (a wall of
//!      text without a full stop is a log or code, not a statement).
//! 3. **Match** the pattern table in order; the *first* pattern that applies
//!    to the speaking turn, matches, is not vetoed by its exception and
//!    survives the guards names the candidate. One sentence yields at most
//!    one candidate.
//!
//! # Precedence
//!
//! The table order is the precedence, most specific first:
//! corrections › style › explicit preferences › decisions › findings ›
//! work output › generic preferences ("always …", "from now on …"). So
//! "No, it's Postgres, not MySQL" is a correction rather than anything
//! else, "From now on, use bullet points" is style, and "From now on we'll
//! use pnpm" is a decision rather than a personal preference.
//!
//! # Who may say what
//!
//! Preferences, corrections and style come from the **user** turn only (the
//! assistant does not correct itself into the user's profile); work output
//! from the **assistant** turn only; decisions and findings from either.
//!
//! # Routing and importance
//!
//! Preferences, corrections and style are about the user and go to the
//! [`TargetMind::Personal`] mind; decisions, findings and work output are
//! about the work and go to [`TargetMind::Workspace`] (the host falls back to
//! the personal mind when no workspace is active).
//!
//! | kind        | importance | why |
//! |-------------|------------|-----|
//! | correction  | important  | the agent got something wrong; repeating it is the costliest failure |
//! | preference  | important  | shapes every later answer; the importance lane surfaces it unprompted |
//! | style       | important  | the same: it must apply without being asked for |
//! | decision    | important  | "what did we decide" is the core catch-up question |
//! | finding     | normal, important for a root cause | most findings are context; a root cause prevents the next outage |
//! | work output | normal     | a log of what was done; recent, not vital |
//!
//! The output is ordered by turn (user, then assistant), then by position,
//! and a sentence already produced (same content) is not produced twice.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::types::Importance;

/// What a candidate records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteBackKind {
    /// How the user likes things.
    Preference,
    /// The user correcting the agent.
    Correction,
    /// A decision taken.
    Decision,
    /// Something learned.
    Finding,
    /// How answers should be written.
    Style,
    /// Work the assistant delivered.
    WorkOutput,
}

impl WriteBackKind {
    /// The mind a memory of this kind belongs in: the user's own things
    /// (preferences, corrections, style) in the personal mind, the work's
    /// (decisions, findings, work output) in the workspace mind.
    pub fn target(self) -> TargetMind {
        match self {
            WriteBackKind::Preference | WriteBackKind::Correction | WriteBackKind::Style => {
                TargetMind::Personal
            }
            WriteBackKind::Decision | WriteBackKind::Finding | WriteBackKind::WorkOutput => {
                TargetMind::Workspace
            }
        }
    }
}

/// Which mind a candidate belongs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetMind {
    /// About the user.
    Personal,
    /// About the work.
    Workspace,
}

/// A memory worth keeping.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct WriteBackCandidate {
    /// What it records.
    pub kind: WriteBackKind,
    /// The memory text.
    pub content: String,
    /// Where it belongs.
    pub target: TargetMind,
    /// How much it matters.
    pub importance: Importance,
    /// The matched pattern's name.
    pub pattern: String,
}

/// Sentences longer than this many characters are not considered: a memory
/// is a statement, and a run this long without a sentence end is a log line,
/// a stack trace or code.
pub const MAX_SENTENCE_CHARS: usize = 500;

/// Find the memories worth keeping in an exchange.
///
/// See the module documentation for the splitting, the guards, the
/// precedence and the routing.
///
/// ```
/// use hive_mind_core::{pattern_write_back, TargetMind, WriteBackKind};
/// let found = pattern_write_back(
///     "Actually no, the staging port is 8443. Thanks!",
///     "Got it. I've updated the deploy script to use 8443.",
/// );
/// assert_eq!(found.len(), 2);
/// assert_eq!(found[0].kind, WriteBackKind::Correction);
/// assert_eq!(found[0].content, "Actually no, the staging port is 8443.");
/// assert_eq!(found[0].target, TargetMind::Personal);
/// assert_eq!(found[1].kind, WriteBackKind::WorkOutput);
/// assert_eq!(found[1].target, TargetMind::Workspace);
/// ```
pub fn pattern_write_back(user: &str, assistant: &str) -> Vec<WriteBackCandidate> {
    let mut out: Vec<WriteBackCandidate> = Vec::new();
    for (turn, text) in [(Turn::User, user), (Turn::Assistant, assistant)] {
        for sentence in split_sentences(text) {
            if let Some(candidate) = classify(&sentence, turn)
                && !out.iter().any(|c| c.content == candidate.content)
            {
                out.push(candidate);
            }
        }
    }
    out
}

/// The candidate one sentence of the **user's** turn yields, if any: the
/// same reading as [`pattern_write_back`] gives that sentence (its guards,
/// its precedence), for a caller that splits the turn itself.
///
/// ```
/// use hive_mind_core::write_back::classify_user_sentence;
/// assert_eq!(classify_user_sentence("I prefer tabs.").unwrap().pattern, "preference.i-prefer");
/// assert!(classify_user_sentence("Thanks, have a nice weekend!").is_none());
/// ```
pub fn classify_user_sentence(sentence: &str) -> Option<WriteBackCandidate> {
    classify(sentence.trim(), Turn::User)
}

/// Which side of the exchange a sentence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
    User,
    Assistant,
}

/// Which turns a pattern reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Speaker {
    User,
    Assistant,
    Either,
}

impl Speaker {
    fn allows(self, turn: Turn) -> bool {
        matches!(
            (self, turn),
            (Speaker::Either, _)
                | (Speaker::User, Turn::User)
                | (Speaker::Assistant, Turn::Assistant)
        )
    }
}

/// Whether a pattern survives a pleasantry in its sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strength {
    /// Explicit enough to stand next to "thanks" or "hi".
    Strong,
    /// Suppressed by a pleasantry in the same sentence.
    Weak,
}

/// One row of the pattern table.
struct Spec {
    name: &'static str,
    kind: WriteBackKind,
    from: Speaker,
    strength: Strength,
    importance: Importance,
    /// Case-insensitive; read against the sentence with typographic
    /// apostrophes unified to `'`.
    pattern: &'static str,
    /// A veto: when this also matches, the pattern does not fire. Empty for
    /// none.
    except: &'static str,
}

use Importance::{Important, Normal};
use Speaker::{Assistant as A, Either as E, User as U};
use Strength::{Strong, Weak};
use WriteBackKind::{
    Correction as Corr, Decision as Dec, Finding as Find, Preference as Pref, Style as Sty,
    WorkOutput as Work,
};

const fn spec(
    name: &'static str,
    kind: WriteBackKind,
    from: Speaker,
    strength: Strength,
    importance: Importance,
    pattern: &'static str,
    except: &'static str,
) -> Spec {
    Spec {
        name,
        kind,
        from,
        strength,
        importance,
        pattern,
        except,
    }
}

/// The pattern table, in precedence order (see the module docs).
const SPECS: &[Spec] = &[
    // ----- corrections (user) -----
    spec(
        "correction.actually-no",
        Corr,
        U,
        Strong,
        Important,
        r"\b(?:actually|no\s+wait|wait)\s*,?\s+(?:no|nope|not\s+quite|that's\s+(?:not|wrong|incorrect)|that\s+is\s+(?:not|wrong|incorrect)|it's\s+not|it\s+is\s+not|it\s+(?:is|was)n't|it's\s+actually|i\s+meant|i\s+said|we\s+(?:use|switched|moved|don't|do\s+not))\b|\bno\s*,?\s+actually\b",
        "",
    ),
    spec(
        "correction.thats-wrong",
        Corr,
        U,
        Strong,
        Important,
        r"\b(?:that's|that\s+is|this\s+is|that\s+was|this\s+was|it's|it\s+is|you're|you\s+are)\s+(?:(?:just|simply|completely|totally|plain|actually)\s+)?(?:wrong|incorrect|inaccurate|not\s+(?:right|correct|true|accurate|what\s+i\s+(?:said|meant|asked)))\b",
        "",
    ),
    spec(
        "correction.you-got-it-wrong",
        Corr,
        U,
        Strong,
        Important,
        r"\byou(?:'ve|\s+have)?\s+(?:got|get|have|had|did)\s+(?:that|this|it|the\s+\w+|my\s+\w+)\s+(?:\w+\s+)?(?:wrong|backwards|mixed\s+up|confused|incorrect)\b|\byou\s+(?:misunderstood|misread|misremembered|mixed\s+up|confused|misspelled|misspelt)\b",
        "",
    ),
    spec(
        "correction.i-meant",
        Corr,
        U,
        Strong,
        Important,
        r"\bi\s+(?:meant|said|asked\s+for|wanted)\s+[^,]{1,60}?,?\s+not\s+\S+|\bwhat\s+i\s+(?:meant|said)\s+(?:was|is)\b",
        "",
    ),
    spec(
        "correction.should-be-not",
        Corr,
        U,
        Strong,
        Important,
        r"\b(?:it|that|this|the\s+\w+)\s+should\s+(?:be|have\s+been)\s+[^,]{1,40},?\s+not\s+\S+|\bshould\s+be\s+\S+\s+instead\s+of\b",
        "",
    ),
    spec(
        "correction.no-longer-true",
        Corr,
        U,
        Strong,
        Important,
        r"\b(?:that's|that\s+is|this\s+is|it's|it\s+is)\s+(?:no\s+longer\s+(?:true|correct|accurate|valid|the\s+case|right)|outdated|out\s+of\s+date|stale|obsolete)\b|\bnot\s+any\s?more\b",
        "",
    ),
    spec(
        "correction.let-me-correct",
        Corr,
        U,
        Strong,
        Important,
        r"\bcorrection\s*:|\b(?:to\s+correct\s+(?:you|that|myself)|let\s+me\s+correct|i\s+(?:need|have|want)\s+to\s+correct|small\s+correction|quick\s+correction)\b",
        "",
    ),
    spec(
        "correction.no-its",
        Corr,
        U,
        Weak,
        Important,
        r"^(?:no|nope|nah)\s*[,.!:;–—-]+\s*(?:it's|it\s+is|it\s+was|it\s+should\s+be|that's|that\s+is|the\s+\w+\s+(?:is|was|should\s+be)|we\s+(?:use|need|want)|i\s+(?:said|meant|want|need|use)|my\s+\w+\s+is|use)\b",
        r"^(?:no|nope|nah)\s*[,.!:;–—-]+\s*(?:it's|it\s+is|that's|that\s+is|i'm|we're)\s+(?:fine|ok|okay|alright|all\s+right|good|great|cool|no\s+problem|not\s+a\s+problem|perfect|totally\s+fine)\b",
    ),
    spec(
        "correction.not-x-but-y",
        Corr,
        U,
        Weak,
        Important,
        r"\bnot\s+[\w.\-/#+@]+(?:\s+[\w.\-/#+@]+){0,2}?\s*,?\s+but\s+(?:rather\s+|instead\s+)?[\w.\-/#+@]+",
        r"\bnot\s+(?:only|just|merely|sure|certain|much|bad|great|ideal|perfect|that|too|very|quite|yet|really|exactly|necessarily|always|everything|all|there|so|a\s+big|an?\s+issue|a\s+problem|bad)\b",
    ),
    // ----- style (user) -----
    spec(
        "style.keep-it-brief",
        Sty,
        U,
        Strong,
        Important,
        r"\b(?:keep|make)\s+(?:it|them|this|that|things|everything|(?:your\s+)?(?:answers?|replies|responses|messages|explanations|summaries))\s+(?:(?:really|very|nice\s+and|short\s+and)\s+)?(?:brief|short|concise|succinct|tight|simple|to\s+the\s+point|crisp|snappy)\b",
        "",
    ),
    spec(
        "style.be-concise",
        Sty,
        U,
        Strong,
        Important,
        r"\bbe\s+(?:more\s+|less\s+|a\s+bit\s+more\s+|a\s+lot\s+more\s+)?(?:concise|brief|succinct|terse|verbose|formal|casual|informal|technical|detailed)\b|\b(?:you're|you\s+are|your\s+(?:answers?|replies|responses|messages)\s+are)\s+(?:too|so|way\s+too|a\s+bit|a\s+little)\s+(?:verbose|long|wordy|long-winded|chatty|formal|terse)\b|\bless\s+verbose\b|\b(?:shorter|briefer|more\s+concise)\s+(?:answers|replies|responses|please)\b",
        "",
    ),
    spec(
        "style.bullets",
        Sty,
        U,
        Strong,
        Important,
        r"\b(?:use|using|with|in|as|prefer|want|give\s+me|format\s+(?:it|this|them|that)\s+(?:as|in|with))\s+(?:a\s+|some\s+)?(?:(?:short|simple|numbered|bulleted)\s+)?(?:bullets|bullet\s+points?|bullet\s+lists?|bulleted\s+lists?|numbered\s+lists?)\b",
        "",
    ),
    spec(
        "style.no-emojis",
        Sty,
        U,
        Strong,
        Important,
        r"\b(?:no|without|zero|don't\s+use|do\s+not\s+use|stop\s+using|avoid|skip|drop|fewer|less|lose\s+the|ditch\s+the)\s+(?:the\s+|any\s+|more\s+)?(?:emojis?|emoticons?|smileys?)\b",
        "",
    ),
    spec(
        "style.avoid-filler",
        Sty,
        U,
        Strong,
        Important,
        r"\b(?:no|without|don't\s+use|do\s+not\s+use|stop\s+using|avoid|skip|drop|fewer|less|cut\s+the|lose\s+the|ditch\s+the)\s+(?:the\s+|any\s+|more\s+|so\s+much\s+)?(?:jargon|headers|headings|markdown|apologies|apologizing|apologising|filler|fluff|preamble|preambles|disclaimers|caveats|exclamation\s+marks?|small\s+talk|pleasantries|hedging|explanations?|intros?|introductions?|recaps?|code\s+comments)\b",
        "",
    ),
    spec(
        "style.language",
        Sty,
        U,
        Strong,
        Important,
        r"\b(?:answer|reply|respond|write|talk|speak|explain|communicate)\s+(?:to\s+me\s+|back\s+)?(?:only\s+)?in\s+(?:plain\s+|simple\s+|british\s+|american\s+|formal\s+)?(?:english|german|deutsch|spanish|french|italian|portuguese|dutch|japanese|chinese|mandarin|korean|polish|swedish|russian|ukrainian|turkish|arabic|hindi)\b|\b(?:in|use)\s+(?:plain\s+|simple\s+)?(?:english|german|spanish|french|italian|portuguese|dutch|japanese|chinese)\s*,?\s*please\b|\bplease\s+use\s+(?:english|german|spanish|french|italian|portuguese|dutch|japanese|chinese)\b",
        "",
    ),
    spec(
        "style.tone",
        Sty,
        U,
        Strong,
        Important,
        r"\b(?:use|keep|write\s+(?:in|with)|adopt|take)\s+(?:a\s+|the\s+)?(?:more\s+|less\s+)?(?:formal|informal|casual|friendly|neutral|professional|relaxed|serious|playful)\s+(?:tone|style|register|voice)\b",
        "",
    ),
    spec(
        "style.skip-explanation",
        Sty,
        U,
        Strong,
        Important,
        r"\bjust\s+(?:give|show|send)\s+me\s+the\s+(?:code|answer|command|result|diff|fix)\b|\bno\s+need\s+to\s+explain\b|\b(?:don't|do\s+not)\s+(?:explain|over-?explain|elaborate)\b|\bget\s+(?:straight\s+)?to\s+the\s+point\b|\bcode\s+only\b",
        "",
    ),
    spec(
        "style.format",
        Sty,
        U,
        Strong,
        Important,
        r"\b(?:use|format\s+(?:it|this|them|answers?|responses?)\s+(?:as|in|with)|prefer)\s+(?:a\s+)?(?:markdown|plain\s+text|tables?|headings|code\s+blocks|numbered\s+steps|short\s+paragraphs)\b",
        r"\b(?:we|they|i|you|he|she|it)\s+(?:use|prefer)\b",
    ),
    // ----- explicit preferences (user) -----
    spec(
        "preference.my-name",
        Pref,
        U,
        Strong,
        Important,
        r"\b(?:my\s+name\s+is|my\s+name's|i\s+go\s+by|my\s+(?:preferred\s+)?pronouns\s+are|i\s+prefer\s+to\s+be\s+called)\b",
        "",
    ),
    spec(
        "preference.call-me",
        Pref,
        U,
        Strong,
        Important,
        r#"\b(?:call|address)\s+me\s+["'“]?\p{L}"#,
        r"\bcall\s+me\s+(?:back|later|tomorrow|tonight|today|when|if|after|before|at|on|asap|once|anytime|any|sometime|now|again|maybe|crazy|old-fashioned|whenever|as|in|about|to|up|out|first|right|please|and|or|but|so)\b|\bcall\s+me\s+an?\s+\w+(?:\s+\w+)?\s*,?\s+(?:but|if)\b|\b(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?call\s+me\s+(?:an?|the|my)\s",
    ),
    spec(
        "preference.i-want-you-to",
        Pref,
        U,
        Strong,
        Important,
        r"\bi\s+(?:want|need|'d\s+like|would\s+like)\s+you\s+to\s+(?:always|never|stop|start|keep|remember|use|call|avoid)\b",
        "",
    ),
    spec(
        "preference.stop-doing",
        Pref,
        U,
        Weak,
        Important,
        r"\b(?:stop|quit)\s+(?:doing|saying|adding|using|apologi[sz]ing|asking|suggesting|recommending|writing|putting|calling)\b",
        "",
    ),
    spec(
        "preference.i-prefer",
        Pref,
        U,
        Weak,
        Important,
        r"\bi(?:'d|\s+would)?\s+(?:(?:really|strongly|generally|usually|always|much|definitely|personally|still)\s+)?(?:prefer|rather)\b",
        r"\bi(?:'d|\s+would)\s+rather\s+not\s+(?:say|talk|discuss|share|answer|comment)\b",
    ),
    spec(
        "preference.like-better",
        Pref,
        U,
        Weak,
        Important,
        r"\bi\s+(?:(?:really|much|definitely)\s+)?(?:like|love|enjoy)\s+[^.!?]{1,60}?\s+(?:better|more)\s+than\b|\bi\s+(?:(?:really|much|definitely)\s+)?like\s+[^.!?]{1,60}?\s+better\b",
        r"\blike\s+(?:it|this|that|them)\s+better\s*(?:now\b|[.!]|$)",
    ),
    spec(
        "preference.my-favourite",
        Pref,
        U,
        Weak,
        Important,
        r"\bmy\s+(?:all-time\s+|absolute\s+)?(?:favou?rite|preferred|go-to)\s+\p{L}+",
        "",
    ),
    spec(
        "preference.i-dislike",
        Pref,
        U,
        Weak,
        Important,
        r"\bi\s+(?:really\s+|absolutely\s+|truly\s+)?(?:hate|dislike|detest|can't\s+stand|cannot\s+stand|don't\s+like|do\s+not\s+like)\s+(?:it\s+when|when|\p{L}+)",
        r"\bi\s+(?:really\s+)?(?:hate|don't\s+like)\s+to\s+(?:bother|interrupt|complain|say|ask)\b",
    ),
    // ----- decisions (either turn) -----
    spec(
        "decision.we-decided",
        Dec,
        E,
        Strong,
        Important,
        r"\b(?:we(?:'ve|'d|\s+have|\s+had)?|the\s+team(?:\s+has)?|they(?:'ve|\s+have)?|everyone|we\s+all)\s+(?:finally\s+|just\s+|collectively\s+|unanimously\s+)?(?:decided|agreed|chose|chosen|settled\s+on|opted|committed\s+to|signed\s+off\s+on|went\s+with)\b",
        "",
    ),
    spec(
        "decision.ive-decided",
        Dec,
        E,
        Strong,
        Important,
        r"\bi(?:'ve|\s+have)?\s+(?:finally\s+|just\s+)?(?:decided|settled\s+on|opted|chosen|made\s+(?:a|the|my)\s+(?:decision|call))\b",
        "",
    ),
    spec(
        "decision.decision-label",
        Dec,
        E,
        Strong,
        Important,
        r"^(?:final\s+)?decision\s*:|\bthe\s+(?:final\s+)?decision\s+(?:is|was)\s+(?:to|that)\b|\b(?:it's|it\s+is)\s+decided\b|\bdecision\s+made\b",
        "",
    ),
    spec(
        "decision.go-with-option",
        Dec,
        E,
        Strong,
        Important,
        r"\b(?:go|going|went|stick|sticking|proceed|proceeding)\s+with\s+(?:option|approach|plan|variant|choice|alternative|proposal|solution|design)\s+(?:[a-z0-9]|one|two|three|four|#\d+)\b|\boption\s+(?:[a-z0-9]|one|two|three)\s+it\s+is\b",
        "",
    ),
    spec(
        "decision.lets-go-with",
        Dec,
        E,
        Weak,
        Important,
        r"\blet's\s+(?:go\s+(?:with|ahead\s+with)|use|stick\s+with|pick|choose|adopt|switch\s+to|move\s+to|migrate\s+to|standardi[sz]e\s+on)\b",
        "",
    ),
    spec(
        "decision.well-use",
        Dec,
        E,
        Weak,
        Important,
        r"\bwe(?:'ll|\s+will|'re\s+going\s+to|\s+are\s+going\s+to|'re\s+gonna|\s+are\s+gonna)\s+(?:use|go\s+with|adopt|switch\s+to|migrate\s+to|move\s+to|stick\s+with|standardi[sz]e\s+on|keep\s+using|stay\s+on|build\s+on|ship\s+with)\b|\bwe(?:'re|\s+are)\s+(?:going|sticking|staying)\s+with\b|\bwe(?:'re|\s+are)\s+(?:switching|moving|migrating)\s+to\b",
        "",
    ),
    spec(
        "decision.wont-use",
        Dec,
        E,
        Weak,
        Important,
        r"\bwe(?:\s+won't|\s+will\s+not|'re\s+not\s+going\s+to|\s+are\s+not\s+going\s+to|'re\s+dropping|\s+are\s+dropping)\s+(?:use|using|go\s+with|adopt|support|ship)?\b",
        r"\bwe\s+won't\s+(?:be\s+)?(?:able|know|have|need)\b",
    ),
    // ----- findings (either turn) -----
    spec(
        "finding.root-cause",
        Find,
        E,
        Strong,
        Important,
        r"\b(?:the\s+)?root\s+cause\s+(?:was|is|turned\s+out|seems|appears)\b|\bthe\s+(?:culprit|real\s+(?:cause|problem|issue)|actual\s+(?:cause|problem|issue))\s+(?:was|is)\b|\bthe\s+(?:bug|issue|problem|crash|outage|failure|error|leak|regression|slowdown|timeout)\s+(?:was|is)\s+(?:caused|triggered)\s+by\b|\bcaused\s+by\s+a\s+(?:race|bug|typo|misconfiguration|missing|stale|wrong)\b",
        "",
    ),
    spec(
        "finding.discovered-that",
        Find,
        E,
        Weak,
        Normal,
        r"\b(?:discovered|noticed|realized|realised|learned|learnt|found|confirmed|verified|established|determined)\s+that\b",
        "",
    ),
    spec(
        "finding.turns-out",
        Find,
        E,
        Weak,
        Normal,
        r"\b(?:it\s+)?turns?\s+out\b|\bturned\s+out\s+(?:that|to\s+be)\b",
        "",
    ),
    spec(
        "finding.found-out",
        Find,
        E,
        Weak,
        Normal,
        r"\b(?:found|find|figured|worked)\s+out\s+(?:that|why|how|what|where|the)\b",
        "",
    ),
    spec(
        "finding.til",
        Find,
        E,
        Weak,
        Normal,
        r"(?-i:\bTIL\b)|\btoday\s+i\s+learned\b",
        "",
    ),
    spec(
        "finding.the-problem-was",
        Find,
        E,
        Weak,
        Normal,
        r"\bthe\s+(?:problem|issue|bug|trick|fix|catch|gotcha|reason)\s+(?:was|is)\s+(?:that|to|because|in)\b",
        "",
    ),
    spec(
        "finding.measured",
        Find,
        E,
        Weak,
        Normal,
        r"\b\d+(?:\.\d+)?\s*(?:x|×|times|%)\s+(?:faster|slower|smaller|larger|bigger|less|more|fewer|cheaper)\b",
        "",
    ),
    // ----- work output (assistant) -----
    spec(
        "work-output.ive-implemented",
        Work,
        A,
        Strong,
        Normal,
        r"\bi(?:'ve|\s+have)\s+(?:now\s+|just\s+|also\s+|already\s+|successfully\s+)?(?:implemented|added|built|refactored|updated|migrated|deployed|configured|set\s+up|written|created|fixed|resolved|removed|renamed|moved|completed|finished|drafted|prepared|generated|rewritten|patched|documented|tested|optimi[sz]ed)\b",
        "",
    ),
    spec(
        "work-output.i-created",
        Work,
        A,
        Strong,
        Normal,
        r"\bi\s+(?:just\s+|also\s+|then\s+)?(?:created|wrote|fixed|implemented|added|built|refactored|updated|patched|resolved|deployed|set\s+up|generated|drafted|rewrote|migrated|removed|renamed|optimi[sz]ed|documented)\b",
        "",
    ),
    // Only when it introduces something in the same sentence ("Here is the
    // plan: …", "Here's the fix for …"); a bare "here is a summary." says
    // nothing a memory could keep.
    spec(
        "work-output.here-is",
        Work,
        A,
        Strong,
        Normal,
        r"\bhere(?:'s|\s+is|\s+are)\s+(?:the|a|an|your|my)\s+(?:[\w-]+\s+){0,2}?(?:plan|summary|implementation|fix|patch|draft|outline|proposal|design|diff|script|function|query|migration|report|analysis|overview|breakdown|checklist|recap|code|solution|tests?|changes|changelog|spec|specification|config|configuration|steps)(?:\s*[:—–-]\s*\S|\s+(?:for|of|to|that|which|with|in|on|from)\s+\S)",
        "",
    ),
    spec(
        "work-output.completed",
        Work,
        A,
        Strong,
        Normal,
        r"\ball\s+(?:the\s+)?(?:tests|checks)\s+(?:now\s+)?(?:pass|are\s+passing|passed|are\s+green)\b|\b(?:the\s+)?(?:fix|change|changes|feature|pr|pull\s+request|migration|refactor|deployment)\s+(?:is|has\s+been|are|have\s+been)\s+(?:now\s+)?(?:merged|deployed|in\s+place|live|ready|done|complete|shipped|pushed)\b",
        "",
    ),
    // ----- generic preferences (user), last: the least specific -----
    spec(
        "preference.always-never",
        Pref,
        U,
        Weak,
        Important,
        r"^(?:please\s+|and\s+|also\s+|but\s+)?(?:always|never)\s+\p{L}+|\b(?:you\s+(?:should|must)|make\s+sure\s+(?:to|you)|remember\s+to|be\s+sure\s+to|please)\s+(?:always|never)\b|\b(?:don't|do\s+not)\s+ever\b",
        r"^(?:never\s+mind|always\s+(?:a|an|the|good|nice|happy|glad|fun|great)\b|never\s+(?:again|ever|seen|heard|thought|knew|been|had)\b)",
    ),
    spec(
        "preference.from-now-on",
        Pref,
        U,
        Weak,
        Important,
        r"\b(?:from\s+now\s+on|going\s+forward|henceforth|from\s+here\s+on(?:\s+out)?|in\s+future)\b",
        "",
    ),
];

/// One compiled pattern.
struct Compiled {
    spec: &'static Spec,
    regex: Regex,
    except: Option<Regex>,
}

/// The compiled table, in [`SPECS`] order. A row whose pattern or exception
/// fails to compile is left out rather than panicking; the unit tests assert
/// that none is.
static PATTERNS: LazyLock<Vec<Compiled>> = LazyLock::new(|| {
    SPECS
        .iter()
        .filter_map(|spec| {
            let regex = Regex::new(&format!("(?i){}", spec.pattern)).ok()?;
            let except = if spec.except.is_empty() {
                None
            } else {
                Some(Regex::new(&format!("(?i){}", spec.except)).ok()?)
            };
            Some(Compiled {
                spec,
                regex,
                except,
            })
        })
        .collect()
});

/// Small talk about food, drinks, weather, sports and films: a sentence on
/// these topics is chatter whatever else it says.
const TOPIC_CHATTER: &str = r"(?i)\b(?:lunch|lunches|dinner|breakfast|brunch|coffee|beers?|drinks|pizza|sushi|tacos|burgers?|snacks?|dessert|weather|rain|raining|rainy|sunny|snow|snowing|snowy|humid|birthday|movies?|netflix|football|soccer|basketball|tennis|golf)\b";

/// Pleasantries: only strong patterns fire in a sentence that has one.
const PLEASANTRY: &str = r"(?i)\b(?:thanks|thank\s+you|thx|ty|cheers|hello|hi|hey|bye|goodbye|good\s+(?:morning|night|evening|afternoon)|see\s+(?:you|ya)|take\s+care|have\s+a\s+(?:nice|good|great)|how\s+are\s+you|how's\s+it\s+going|nice\s+to\s+meet|you're\s+welcome|no\s+worries|lol|haha+|great\s+job|well\s+done|congrats|congratulations)\b";

/// Conditionals and hedges: the sentence states no fact.
const CONDITIONAL: &str = r"(?i)^(?:if|unless|whether|suppose|supposing|what\s+if|in\s+case|assuming|maybe|perhaps|should\s+we|i\s+wonder)\b";

/// A question that is a request to the assistant.
const REQUEST: &str = r"(?i)^(?:please\s+)?(?:can|could|would|will)\s+you\b";

/// Verbs of wanting: "I always want dark mode …", "I never need the
/// long version". The statement reading uses them after a standing word too.
pub(crate) const STANDING_WANTS: &[&str] = &["want", "wanna", "prefer", "like", "need", "expect"];

/// Words that make a request or a remark to the assistant hold for every
/// time after, not for the task at hand: "always", "never", "from now on",
/// "whenever", "by default", and a scope over every case ("in general",
/// "for all my reports", "in everything you write"; not "in all .rs
/// files", a set of things at hand, nor thanks "for all your help").
/// Cognify's statement reading finds standing instructions by them too.
pub(crate) const STANDING: &str = r"(?ix)\b(?:
    always|never|whenever|every\s+time|each\s+time|
    from\s+now\s+on|from\s+here\s+on(?:\s+out)?|going\s+forward|
    in\s+(?:the\s+)?future|for\s+the\s+future|by\s+default|as\s+a\s+rule|
    (?:don't|do\s+not)\s+ever|ever\s+again|
    in\s+general|generally|(?:in|for|on)\s+(?:everything|anything)|
    (?:in|on)\s+(?:all|every|any|each)\s+(?:of\s+)?(?:my|our|your)|
    for\s+(?:all|every|any|each)\s+(?:of\s+)?(?:my|our)|
    (?:everything|anything)\s+(?:you|u)
)\b";

/// A request scoped to what is at hand, not to every time after: "just
/// this once", "for now", "for this comparison", "give me that list as a
/// table", "the second option you gave", "make the last part bold". A
/// preference or a style note holds for later turns; a sentence that points
/// at the present task or at the assistant's last answer (a demonstrative
/// or an ordinal before a noun, "you gave", "of the two") asks for this
/// answer only.
const AT_HAND: &str = r"(?ix)
    \b(?:just\s+|only\s+)?this\s+(?:once|time)\b
  | \b(?:for\s+now|for\s+the\s+moment|right\s+now|for\s+today)\b
  | \b(?:this|these)\s+(?:one|ones|\p{L}{3,})\b
  | \b(?:for|in|on|of|into|to|with|from|make|give\s+me|put|turn|format|rewrite|redo|write)\s+(?:that|those)\s+(?:one|ones|\p{L}{3,})\b
  | \bthe\s+(?:first|second|third|fourth|fifth|last|next|previous|other|latter|former|top|bottom|final|opening|closing)\s+(?:one|ones|\p{L}{3,})\b
  | \b(?:you|u)\s+(?:just\s+)?(?:gave|suggested|proposed|wrote|sent|showed|offered|mentioned|listed|shared|drafted|recommended|came\s+up\s+with)\b
  | \b(?:of|between)\s+the\s+(?:two|three|four|options|versions|drafts)\b
";

/// The words after "this" or "these" that do not make it point at a thing
/// at hand: a verb ("this is"), a pronoun ("this I know"), a word of time
/// ("this week": a plan, not a request).
const NOT_AT_HAND_AFTER_THIS: &[&str] = &[
    "is",
    "was",
    "are",
    "were",
    "will",
    "would",
    "should",
    "could",
    "can",
    "has",
    "have",
    "had",
    "does",
    "did",
    "means",
    "seems",
    "sounds",
    "looks",
    "works",
    "makes",
    "helps",
    "way",
    "kind",
    "sort",
    "type",
    "style",
    "format",
    "days",
    "times",
    "week",
    "weekend",
    "month",
    "year",
    "quarter",
    "season",
    "term",
    "semester",
    "sprint",
    "morning",
    "evening",
    "afternoon",
    "summer",
    "winter",
    "spring",
    "autumn",
    "fall",
    "project",
    "company",
    "team",
    "job",
    "chat",
    "conversation",
    "workspace",
    "repo",
    "repository",
    "codebase",
];

/// A sentence about someone else's likes: "My boss always wants reports in
/// bullet points.", "Sarah prefers tea.", "Our team uses tabs." It tells a
/// fact about them (the statement reading keeps it), not how the user
/// likes things. The subject is a possessed noun or a name, and a verb of
/// liking or using follows it ([`LIKING_ADVERBS`] between them): after a
/// name only in the third person or the past ([`LIKES_THIRD_PERSON`]), so
/// that a capitalised request ("Please use tabs.") is no name; after a
/// possessed noun, a plural one's forms too ([`LIKES_PLURAL`]: "My parents
/// want …", "Our team used to …").
fn someone_elses() -> String {
    format!(
        r"(?x)^
    (?:(?i:and|but|also|so|well|oh)\s*,?\s+)?
    (?:
        (?i:my|our|his|her|their)\s+(?:\p{{L}}[\p{{L}}'-]*\s+){{1,2}}
        (?:(?i:{LIKING_ADVERBS})\s+)?
        (?i:{LIKES_THIRD_PERSON}|{LIKES_PLURAL})
      | \p{{Lu}}\p{{Ll}}+(?:\s+\p{{Lu}}\p{{Ll}}+)?(?:'s\s+\p{{L}}+)?\s+
        (?:(?i:{LIKING_ADVERBS})\s+)?
        (?i:{LIKES_THIRD_PERSON})
    )\b"
    )
}

/// Adverbs between a subject and its verb of liking: "My boss *always*
/// wants …" ([`someone_elses`]).
const LIKING_ADVERBS: &str =
    "always|never|usually|often|really|also|only|generally|still|just|normally|typically|mostly";

/// Verbs of liking or using in the third person and the past, as a name
/// takes them ([`someone_elses`]).
const LIKES_THIRD_PERSON: &str = r"wants|prefers|likes|loves|hates|needs|expects|uses|asks\s+for|insists\s+on|
    wanted|preferred|liked|loved|hated|needed|expected|asked\s+for|insisted\s+on";

/// The same verbs' plural forms, which a possessed noun may take too
/// ([`someone_elses`]).
const LIKES_PLURAL: &str =
    r"want|prefer|like|love|hate|need|expect|use|ask\s+for|insist\s+on|used\s+to";

/// A plan of the user's own for every time after: "From now on I'm going
/// to the gym every morning.", "Going forward, we deploy on Tuesdays." The
/// standing words open it, a first-person subject follows them, and the
/// word after the subject is captured: a verb of wanting there ("From now
/// on I want …", [`WANTING`]) makes it a preference after all, and so does
/// the assistant named anywhere in the sentence.
const OWN_PLAN: &str = r"(?ix)^
    (?:(?:and|but|also|so|ok|okay)\s*,?\s+)?
    (?:from\s+now\s+on|going\s+forward|henceforth|from\s+here\s+on(?:\s+out)?|in\s+(?:the\s+)?future)
    \s*,?\s+(?:i|we)(?:'m|'ll|'ve|'d|\s+am|\s+will|\s+are|'re|\s+have|\s+shall)?
    \s+(\p{L}+)";

/// Verbs of wanting after "from now on I": the sentence is a preference.
/// The statement reading's verbs of wanting, and the conditional's words
/// ("From now on I would like …", "… I'd rather …").
const WANTING: &[&str] = &crate::words::joined::<
    { crate::words::total_len(&[STANDING_WANTS, &["would", "rather"]]) },
>(&[STANDING_WANTS, &["would", "rather"]]);

/// The words after "my" or "our" that make a sentence the user's own
/// preference ("My favourite editor is …", "My go-to is …").
const OWN_LIKING: &[&str] = &[
    "favourite",
    "favorite",
    "preferred",
    "go-to",
    "name",
    "pronouns",
];

/// The guard regexes (see the module docs).
struct Guards {
    /// [`TOPIC_CHATTER`].
    topic: Regex,
    /// [`PLEASANTRY`].
    pleasantry: Regex,
    /// [`CONDITIONAL`].
    conditional: Regex,
    /// [`REQUEST`].
    request: Regex,
    /// Those that tell a preference pattern's sentence is none.
    preference: NoPreference,
}

/// The guards that tell a preference pattern's sentence is none
/// ([`not_the_users_standing_preference`]).
struct NoPreference {
    /// [`STANDING`].
    standing: Regex,
    /// [`AT_HAND`].
    at_hand: Regex,
    /// [`someone_elses`].
    someone_elses: Regex,
    /// [`OWN_PLAN`].
    own_plan: Regex,
}

static GUARDS: LazyLock<Option<Guards>> = LazyLock::new(|| {
    Some(Guards {
        topic: Regex::new(TOPIC_CHATTER).ok()?,
        pleasantry: Regex::new(PLEASANTRY).ok()?,
        conditional: Regex::new(CONDITIONAL).ok()?,
        request: Regex::new(REQUEST).ok()?,
        preference: NoPreference {
            standing: Regex::new(STANDING).ok()?,
            at_hand: Regex::new(AT_HAND).ok()?,
            someone_elses: Regex::new(&someone_elses()).ok()?,
            own_plan: Regex::new(OWN_PLAN).ok()?,
        },
    })
});

/// Whether a sentence is no preference of the user's even when a
/// preference or style pattern matches it: it asks for what is at hand
/// ([`AT_HAND`]) with no standing word, it tells someone else's likes
/// ([`someone_elses`]), or it is the user's own plan ([`OWN_PLAN`]).
fn not_the_users_standing_preference(probe: &str, guards: &NoPreference) -> bool {
    let NoPreference {
        standing,
        at_hand,
        someone_elses,
        own_plan,
    } = guards;
    let lower = probe.to_lowercase();
    let names_the_assistant = lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "you" | "your" | "u"));
    if !names_the_assistant
        && let Some(verb) = own_plan.captures(probe).and_then(|c| c.get(1))
        && !WANTING.contains(&verb.as_str().to_lowercase().as_str())
    {
        return true;
    }
    let pointing = at_hand.find_iter(probe).any(|m| {
        let words: Vec<String> = m
            .as_str()
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let demonstrative = words.iter().any(|w| matches!(w.as_str(), "this" | "these"));
        let after = words.last().map_or("", String::as_str);
        !(demonstrative && NOT_AT_HAND_AFTER_THIS.contains(&after))
    });
    if pointing && !standing.is_match(probe) {
        return true;
    }
    someone_elses.find(probe).is_some_and(|m| {
        let possessed = m.as_str().split_whitespace().nth(1).unwrap_or_default();
        !OWN_LIKING.contains(&possessed.to_lowercase().as_str())
    })
}

/// The candidate one sentence yields, if any.
fn classify(sentence: &str, turn: Turn) -> Option<WriteBackCandidate> {
    if sentence.chars().count() > MAX_SENTENCE_CHARS {
        return None;
    }
    let Guards {
        topic,
        pleasantry,
        conditional,
        request,
        preference,
    } = GUARDS.as_ref()?;
    let probe: String = sentence
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{02BC}' => '\'',
            _ => c,
        })
        .collect();
    if topic.is_match(&probe) || conditional.is_match(&probe) {
        return None;
    }
    let question = sentence
        .trim_end_matches(['"', '\'', ')', ']', '\u{201D}', '\u{2019}', '»'])
        .ends_with(['?', '？']);
    let is_request = request.is_match(&probe);
    let has_pleasantry = pleasantry.is_match(&probe);
    let not_a_preference =
        std::cell::LazyCell::new(|| not_the_users_standing_preference(&probe, preference));
    PATTERNS.iter().find_map(|p| {
        let spec = p.spec;
        if !spec.from.allows(turn) {
            return None;
        }
        if question
            && !(is_request
                && matches!(spec.kind, WriteBackKind::Style | WriteBackKind::Preference))
        {
            return None;
        }
        if has_pleasantry && spec.strength == Strength::Weak {
            return None;
        }
        if !p.regex.is_match(&probe) || p.except.as_ref().is_some_and(|e| e.is_match(&probe)) {
            return None;
        }
        if matches!(spec.kind, WriteBackKind::Style | WriteBackKind::Preference)
            && *not_a_preference
        {
            return None;
        }
        Some(WriteBackCandidate {
            kind: spec.kind,
            content: sentence.to_string(),
            target: spec.kind.target(),
            importance: spec.importance,
            pattern: spec.name.to_string(),
        })
    })
}

/// Abbreviations after which a full stop does not end a sentence
/// (lower-case, without the final dot).
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "approx", "cf", "fig", "inc",
    "ltd", "jr", "sr", "st", "no", "nr", "z.b", "d.h", "bzw", "ca",
];

/// Split a turn into cleaned sentences (see the module docs): fenced code
/// and quoted lines left out, list markers dropped, sentence ends found
/// with abbreviations and numbered lists in mind. Harvest's distillation
/// reads texts through the same splitter.
pub fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || trimmed.starts_with('>') {
            continue;
        }
        split_line(trimmed, &mut out);
    }
    out
}

/// Split one line at sentence ends, keeping the terminators.
fn split_line(line: &str, out: &mut Vec<String>) {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut start = 0;
    let mut i = 0;
    while let Some(&(at, c)) = chars.get(i) {
        let wide = matches!(c, '。' | '！' | '？');
        if !(wide || matches!(c, '.' | '!' | '?' | '…')) {
            i += 1;
            continue;
        }
        // Take the whole run of terminators and closing marks.
        let mut j = i + 1;
        while chars.get(j).is_some_and(|&(_, next)| {
            matches!(
                next,
                '.' | '!' | '?' | '…' | '"' | '\'' | '\u{201D}' | '\u{2019}' | ')' | ']' | '»'
            )
        }) {
            j += 1;
        }
        let end = chars.get(j).map_or(line.len(), |&(pos, _)| pos);
        let boundary = wide || chars.get(j).is_none_or(|&(_, next)| next.is_whitespace());
        // `start`, `at` and `end` are character boundaries of `line`.
        let before = line.get(start..at).unwrap_or_default();
        let keeps_going = c == '.' && (is_abbreviation(before) || is_list_number(before));
        if boundary && !keeps_going {
            push_sentence(line.get(start..end).unwrap_or_default(), out);
            start = end;
        }
        i = j;
    }
    push_sentence(line.get(start..).unwrap_or_default(), out);
}

/// Whether the text before a full stop ends in a known abbreviation.
fn is_abbreviation(before: &str) -> bool {
    let last = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or_default()
        .to_lowercase();
    ABBREVIATIONS.contains(&last.as_str())
}

/// Whether the sentence so far is only a list number ("1").
fn is_list_number(before: &str) -> bool {
    let t = before.trim();
    !t.is_empty() && t.len() <= 3 && t.chars().all(|c| c.is_ascii_digit())
}

/// Trim a sentence, drop a leading list marker, and keep it if anything is
/// left.
fn push_sentence(raw: &str, out: &mut Vec<String>) {
    let mut s = raw.trim();
    for marker in ["- ", "* ", "• ", "+ "] {
        if let Some(rest) = s.strip_prefix(marker) {
            s = rest.trim_start();
            break;
        }
    }
    let rest = s.trim_start_matches(|c: char| c.is_ascii_digit());
    let digits = s.len() - rest.len();
    if (1..=3).contains(&digits)
        && let Some(after) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") "))
    {
        s = after.trim_start();
    }
    if s.chars().any(char::is_alphanumeric) {
        out.push(s.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(user: &str, assistant: &str) -> WriteBackCandidate {
        let found = pattern_write_back(user, assistant);
        assert_eq!(found.len(), 1, "{found:#?}");
        found.into_iter().next().unwrap()
    }

    fn none(user: &str, assistant: &str) {
        let found = pattern_write_back(user, assistant);
        assert!(found.is_empty(), "{found:#?}");
    }

    /// A style or preference pattern does not fire on a request for the
    /// answer at hand or on someone else's likes, and still fires for the
    /// same words said for every time after.
    #[test]
    fn requests_at_hand_and_others_likes_are_no_preferences() {
        for said in [
            "Use a table for this comparison, please.",
            "Just this once, skip the explanation.",
            "I prefer the second option you gave.",
            "I'd rather go with the cheaper hotel of the two.",
            "Give me that list as a table.",
            "Use markdown headings for this document.",
            "My boss always wants reports in bullet points.",
            "Sarah prefers using bullet points.",
            "From now on I'm going to the gym every morning.",
        ] {
            none(said, "");
        }
        for (said, pattern) in [
            ("Use a table for comparisons from now on.", "style.format"),
            (
                "Use markdown headings in everything you write.",
                "style.format",
            ),
            ("I prefer this style of answer.", "preference.i-prefer"),
            ("My favourite editor is Helix.", "preference.my-favourite"),
            (
                "Honestly Padella is my favourite place to eat these days.",
                "preference.my-favourite",
            ),
            (
                "Always use bullet points for status updates.",
                "style.bullets",
            ),
            (
                "From now on I want replies in Dutch.",
                "preference.from-now-on",
            ),
            (
                "From now on, I'd like you to double-check dates.",
                "preference.from-now-on",
            ),
        ] {
            assert_eq!(one(said, "").pattern, pattern, "{said:?}");
        }
    }

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(PATTERNS.len(), SPECS.len());
        assert!(GUARDS.is_some());
        assert!(SPECS.len() >= 30, "30+ calibrated patterns");
    }

    #[test]
    fn pattern_names_are_unique_and_prefixed_by_their_kind() {
        let mut seen = std::collections::BTreeSet::new();
        for spec in SPECS {
            assert!(seen.insert(spec.name), "duplicate {}", spec.name);
            let prefix = match spec.kind {
                WriteBackKind::Preference => "preference.",
                WriteBackKind::Correction => "correction.",
                WriteBackKind::Decision => "decision.",
                WriteBackKind::Finding => "finding.",
                WriteBackKind::Style => "style.",
                WriteBackKind::WorkOutput => "work-output.",
            };
            assert!(spec.name.starts_with(prefix), "{}", spec.name);
        }
    }

    #[test]
    fn speakers_follow_the_contract() {
        for spec in SPECS {
            let want = match spec.kind {
                WriteBackKind::Preference | WriteBackKind::Correction | WriteBackKind::Style => {
                    Speaker::User
                }
                WriteBackKind::Decision | WriteBackKind::Finding => Speaker::Either,
                WriteBackKind::WorkOutput => Speaker::Assistant,
            };
            assert_eq!(spec.from, want, "{}", spec.name);
        }
    }

    #[test]
    fn routing_follows_the_kind() {
        assert_eq!(WriteBackKind::Preference.target(), TargetMind::Personal);
        assert_eq!(WriteBackKind::Correction.target(), TargetMind::Personal);
        assert_eq!(WriteBackKind::Style.target(), TargetMind::Personal);
        assert_eq!(WriteBackKind::Decision.target(), TargetMind::Workspace);
        assert_eq!(WriteBackKind::Finding.target(), TargetMind::Workspace);
        assert_eq!(WriteBackKind::WorkOutput.target(), TargetMind::Workspace);
    }

    #[test]
    fn content_is_the_trimmed_sentence() {
        let c = one("Sure. I prefer tabs over spaces!  Anyway.", "");
        assert_eq!(c.content, "I prefer tabs over spaces!");
        assert_eq!(c.pattern, "preference.i-prefer");
        assert_eq!(c.importance, Importance::Important);
    }

    #[test]
    fn empty_exchange_yields_nothing() {
        none("", "");
        none("   \n ", "\n");
    }

    #[test]
    fn user_only_kinds_ignore_the_assistant() {
        none("", "Actually no, that's wrong.");
        none("", "I prefer tabs.");
        none("", "Keep it brief.");
        none("I've implemented the parser.", "");
    }

    #[test]
    fn decisions_and_findings_come_from_either_turn() {
        assert_eq!(
            one("We decided to use SQLite.", "").kind,
            WriteBackKind::Decision
        );
        assert_eq!(
            one("", "We decided to use SQLite.").kind,
            WriteBackKind::Decision
        );
        assert_eq!(
            one("Turns out the cache was stale.", "").kind,
            WriteBackKind::Finding
        );
        assert_eq!(
            one("", "Turns out the cache was stale.").kind,
            WriteBackKind::Finding
        );
    }

    #[test]
    fn precedence_is_most_specific_first() {
        let c = one("No, it's Postgres, not MySQL.", "");
        assert_eq!(c.kind, WriteBackKind::Correction);
        let c = one("From now on, use bullet points.", "");
        assert_eq!(c.kind, WriteBackKind::Style);
        let c = one("From now on we'll use pnpm.", "");
        assert_eq!(c.kind, WriteBackKind::Decision);
        let c = one("From now on, run the linter before committing.", "");
        assert_eq!(c.pattern, "preference.from-now-on");
    }

    #[test]
    fn one_candidate_per_sentence_ordered_by_turn_then_position() {
        let found = pattern_write_back(
            "We decided to use Rust. Actually no, that's wrong: we use Go.",
            "I've implemented the service in Go. The root cause was a missing index.",
        );
        let kinds: Vec<_> = found.iter().map(|c| c.kind).collect();
        assert_eq!(
            kinds,
            vec![
                WriteBackKind::Decision,
                WriteBackKind::Correction,
                WriteBackKind::WorkOutput,
                WriteBackKind::Finding,
            ]
        );
        assert_eq!(found[3].importance, Importance::Important);
    }

    #[test]
    fn chatter_is_skipped() {
        none("Thanks, I like it better now!", "You're welcome!");
        none("Let's go with pizza for lunch.", "");
        none("I prefer sunny weather, honestly.", "");
        none("Hello! How are you?", "Hi, I'm fine. Have a nice weekend!");
    }

    #[test]
    fn strong_patterns_survive_pleasantries() {
        let c = one("Thanks, but that's wrong: the port is 8080.", "");
        assert_eq!(c.kind, WriteBackKind::Correction);
        let c = one("Hi, my name is Anna.", "");
        assert_eq!(c.pattern, "preference.my-name");
    }

    #[test]
    fn questions_and_conditionals_state_nothing() {
        none("Have we decided to use Redis?", "");
        none("If we decided to use Redis, we'd need a cluster.", "");
        none("Maybe we'll use Kafka.", "");
        let c = one("Could you keep it short?", "");
        assert_eq!(c.kind, WriteBackKind::Style);
    }

    #[test]
    fn exceptions_veto_their_pattern() {
        none("Call me back tomorrow when it's done.", "");
        none("No, it's fine.", "");
        none("It's not only fast but also safe.", "");
        none("We use tables in Postgres for that.", "");
        assert_eq!(one("Please call me Sam.", "").pattern, "preference.call-me");
        // Asked to call the user something: a taxi, not a name.
        assert!(pattern_write_back("Can you call me a taxi?", "").is_empty());
        assert!(
            pattern_write_back("Could you please call me an Uber to the airport?", "").is_empty()
        );
    }

    #[test]
    fn til_is_case_sensitive() {
        assert_eq!(
            one("TIL that cargo caches git deps.", "").pattern,
            "finding.til"
        );
        none("Hold it til tomorrow.", "");
    }

    #[test]
    fn sentence_splitting() {
        let s = split_sentences(
            "Use e.g. Node.js here. Version 1.2 works! Really?\n- I prefer tabs\n1. First item.\n```\nI fixed it.\n```\n> quoted. text",
        );
        assert_eq!(
            s,
            vec![
                "Use e.g. Node.js here.",
                "Version 1.2 works!",
                "Really?",
                "I prefer tabs",
                "First item.",
            ]
        );
        let s = split_sentences("他来了。我们决定用Rust！好");
        assert_eq!(s, vec!["他来了。", "我们决定用Rust！", "好"]);
        let s = split_sentences("Wait... what?! \"Done.\" Next");
        assert_eq!(s, vec!["Wait...", "what?!", "\"Done.\"", "Next"]);
    }

    #[test]
    fn long_sentences_are_skipped() {
        let long = format!("I prefer {}", "x ".repeat(MAX_SENTENCE_CHARS));
        none(&long, "");
    }

    #[test]
    fn duplicate_sentences_are_reported_once() {
        let found = pattern_write_back("We decided to use Rust.", "We decided to use Rust.");
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn here_is_needs_what_it_introduces() {
        let c = one("", "Here is the plan: freeze on Monday, ship on Thursday.");
        assert_eq!(c.pattern, "work-output.here-is");
        let c = one("", "Here's the fix for the race in the connection pool.");
        assert_eq!(c.pattern, "work-output.here-is");
        none("", "My mistake, here is a summary.");
        none("", "Here's the code:");
    }
}
