//! Rule-based entity extraction: the names in a snippet worth a node in the
//! knowledge graph.
//!
//! Precision over recall: every entity becomes a graph node that later
//! recalls walk, so a false one ("However", "Monday", "Great Work") costs
//! more than a missed one. A word is an entity only on positive evidence.
//!
//! # The rules, in the order they claim text
//!
//! A span of text claimed by an earlier rule is not read again by a later
//! one, so "`hive-mind-core`" is one technology, not also a project.
//!
//! 1. **Skipped outright**: fenced code blocks, URLs and e-mail addresses
//!    (a domain is not a mention of an organisation).
//! 2. **Inline code** (`` `…` ``) holding one token: a known name, a file
//!    (`main.rs`), a CamelCase type (`HybridSearch`) or a kebab/dotted
//!    identifier (`sqlite-vec`) → technology or file. Anything else in
//!    backticks (commands, snippets) yields nothing.
//! 3. **@handles** (`@marko`, not `a@b.c`, not `@scope/pkg`) → person.
//! 4. **Files**: a word ending in a known extension (`Cargo.toml`,
//!    `src/main.rs`) → file; `Dockerfile`, `Makefile`, … too.
//! 5. **Cue words**: an honorific (`Dr. Ana Lima` → person "Ana Lima"); a
//!    capitalised name before "team"/"squad"/"guild" (`the Platform team` →
//!    organisation "Platform team"); "project"/"initiative"/"codename"
//!    before a name (`project Phoenix` → project "Phoenix"); a capitalised
//!    name or code identifier before "project", "repo", "service", …
//!    (`the billing-api service` → project); a code identifier before
//!    "crate", "library", "package", "extension", … → technology; a name in
//!    quotes after "called", "named", "codenamed", … or before "project",
//!    "feature", "release", …
//! 6. **Runs of capitalised words** (2–5 words; "of", "de", "van", … and
//!    "&" may join them: "Bank of America"). A run breaks at a stop word
//!    ("The", "We", "And", …), at punctuation and at line ends; verbs and
//!    labels that start sentences ("Ask", "Update", "Decision") and month or
//!    weekday names are stripped from its front. The run is typed by its
//!    words alone, so a name always gets the same type (see
//!    [`EntityType`]): a known name or place as listed; a project prefix
//!    ("Project Phoenix" → project "Phoenix"); an organisation suffix ("Acme
//!    Corp", "Platform Team") or "University of …"; a place suffix ("Silicon
//!    Valley"); a known technology inside it ("GitHub Actions") or a known
//!    company in front ("Google Docs") → technology; a generic noun
//!    ("Memory Center", "Release Notes") or a place inside it → concept;
//!    a given name first → person ("Ana Lima"); after "works at", "joined",
//!    … → organisation ("Blue Harbor"); two or three plain title-case words
//!    → person ("Jelena Petrović"); else concept.
//! 7. **Single words**: a known technology or organisation (the ones that
//!    are also ordinary words — Go, Rust, Slack, Vault, Apple — only when
//!    written capitalised and not at the start of a sentence); a versioned
//!    known name (`GPT-4`); a given name (person); a listed place; a
//!    capitalised word after "works at", "joined", … (organisation); a
//!    CamelCase word (`HybridSearch`, `iPhone` → technology). Any other
//!    single capitalised word is *not* an entity: at the start of a sentence
//!    it is capitalised by grammar, and elsewhere nothing says what it is.
//!
//! Every candidate then passes [`accept_entity_name`] (the noise filter
//! [`is_noise_name`] — months, weekdays, pronouns, sentence starters, short
//! shouted words, names under four letters — plus a length cap) and is
//! canonicalised with [`normalize_entity_name`]. Within one text an entity
//! is reported once per canonical name and type, at its first mention.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::vocab::{
    BARE_FILE_NAMES, CALENDAR_WORDS, CONCEPT_WORDS, Case, FILE_EXTENSIONS, GIVEN_NAMES, HONORIFICS,
    LEADING_WORDS, NAME_CONNECTORS, ORG_PREFIXES, ORG_SUFFIXES, PLACE_SUFFIXES, PLACES,
    PROJECT_NOUNS, PROJECT_PREFIXES, STOP_WORDS, TEAM_NOUNS, TECH_NOUNS, known_name, listed,
};
use crate::entity::{EntityType, is_noise_name, normalize_entity_name};

/// Where a mention sits in the text: UTF-8 byte offsets, on character
/// boundaries, `text[start..end]` being the mention's surface form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct TextSpan {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// An entity found in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ExtractedEntity {
    /// The canonical name ([`normalize_entity_name`]): the graph's dedup key
    /// together with the type.
    pub name: String,
    /// The name as first written in the text (for display: the store keeps
    /// an entity's name as first written).
    pub surface: String,
    /// What it is.
    pub entity_type: EntityType,
    /// Where it was first mentioned; `None` for an entity that did not come
    /// from a text.
    pub span: Option<TextSpan>,
}

/// Entity names longer than this many characters are rejected: a name is a
/// few words, and anything longer is a phrase the rules misread.
pub const MAX_ENTITY_NAME_CHARS: usize = 80;

/// Runs of capitalised words longer than this are not names but title-cased
/// headings or sentences.
pub const MAX_NAME_WORDS: usize = 5;

/// Whether a would-be entity name may enter the graph: not noise
/// ([`is_noise_name`]), at most [`MAX_ENTITY_NAME_CHARS`] characters, with a
/// letter, no control characters, and a non-empty canonical form.
///
/// The extractor applies it to every candidate; the write seam should apply
/// it again to whatever it is about to upsert (design §8: the noise check
/// runs twice, at the parser and at the write seam).
///
/// ```
/// use hive_mind_core::cognify::accept_entity_name;
/// assert!(accept_entity_name("Ana Lima"));
/// assert!(accept_entity_name("npm"));
/// assert!(!accept_entity_name("Monday"));
/// assert!(!accept_entity_name("TODO"));
/// assert!(!accept_entity_name("1234"));
/// ```
pub fn accept_entity_name(name: &str) -> bool {
    let trimmed = name.trim();
    !is_noise_name(trimmed)
        && trimmed.chars().count() <= MAX_ENTITY_NAME_CHARS
        && trimmed.chars().any(char::is_alphabetic)
        && !trimmed.chars().any(char::is_control)
        && !normalize_entity_name(trimmed).is_empty()
}

/// The entities a text mentions, each once (by canonical name and type), in
/// order of first mention. See the module documentation for the rules.
///
/// ```
/// use hive_mind_core::cognify::{EntityType, extract_entities};
/// let found = extract_entities("Ana Lima from Acme Corp moved the ledger to Postgres.");
/// let names: Vec<(&str, EntityType)> =
///     found.iter().map(|e| (e.name.as_str(), e.entity_type)).collect();
/// assert_eq!(
///     names,
///     [
///         ("ana lima", EntityType::Person),
///         ("acme corp", EntityType::Organization),
///         ("postgresql", EntityType::Technology),
///     ]
/// );
/// ```
pub fn extract_entities(text: &str) -> Vec<ExtractedEntity> {
    let mut out: Vec<ExtractedEntity> = Vec::new();
    for m in scan_mentions(text) {
        if out
            .iter()
            .any(|e| e.name == m.name && e.entity_type == m.entity_type)
        {
            continue;
        }
        out.push(ExtractedEntity {
            name: m.name,
            surface: m.surface,
            entity_type: m.entity_type,
            span: Some(TextSpan {
                start: to_u32(m.start),
                end: to_u32(m.end),
            }),
        });
    }
    out
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One mention of an entity: every occurrence, not deduplicated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mention {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// `text[start..end]`.
    pub surface: String,
    /// Canonical name.
    pub name: String,
    /// Type.
    pub entity_type: EntityType,
}

/// Every mention in a text, in text order.
pub(crate) fn scan_mentions(text: &str) -> Vec<Mention> {
    let Some(patterns) = PATTERNS.as_ref() else {
        return Vec::new();
    };
    let mut scanner = Scanner {
        text,
        claimed: vec![false; text.len()],
        mentions: Vec::new(),
        org_hints: Vec::new(),
    };
    scanner.skip_fences();
    scanner.skip_urls_and_emails(patterns);
    scanner.inline_code(patterns);
    scanner.handles(patterns);
    scanner.files(patterns);
    scanner.cues(patterns);
    scanner.words(patterns);
    let mut mentions = scanner.mentions;
    mentions.sort_by_key(|m| (m.start, m.end));
    mentions
}

// ---------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------

/// The people someone has ("my brother Karim", "our daughter Noor", "my
/// manager Priya Shah"): the capitalised words after one of these, behind a
/// possessive, name a person.
const KIN_NOUNS: &str = "brother|sister|son|daughter|wife|husband|partner|spouse|boyfriend|girlfriend|fianc[ée]e?|mother|mom|mum|father|dad|parents?|uncle|aunt|auntie|cousin|nephew|niece|grandmother|grandma|granny|grandfather|grandpa|grandson|granddaughter|friend|buddy|pal|boss|manager|colleague|coworker|co-worker|teammate|neighbou?r|roommate|flatmate|housemate|landlord|landlady|doctor|dentist|therapist|physio|teacher|tutor|coach|trainer|mentor|lead|mother-in-law|father-in-law|sister-in-law|brother-in-law|child|kid|baby|stepson|stepdaughter|stepmother|stepfather|assistant|accountant|lawyer|nanny|babysitter|vet|client|report";

/// One to five capitalised words separated by single runs of spaces.
const NAME_WORDS: &str = r"\p{Lu}[\p{L}\p{N}'’&.\-]*(?:[ \t]+\p{Lu}[\p{L}\p{N}'’&.\-]*){0,4}";

/// A lower-case code identifier of two or more parts joined by `-`, `_` or
/// `.` (`sqlite-vec`, `hive_mind`, `billing-api`).
const IDENTIFIER: &str = r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+";

struct Patterns {
    url: Regex,
    email: Regex,
    code: Regex,
    handle: Regex,
    file: Regex,
    honorific: Regex,
    team: Regex,
    project_prefix: Regex,
    project_noun: Regex,
    tech_noun: Regex,
    quoted_called: Regex,
    quoted_noun: Regex,
    work_cue: Regex,
    kin: Regex,
    named: Regex,
    place: Regex,
    word: Regex,
}

static PATTERNS: LazyLock<Option<Patterns>> = LazyLock::new(|| {
    let ext = FILE_EXTENSIONS.join("|");
    let honorifics = HONORIFICS
        .iter()
        .map(|h| crate::words::capitalise(h))
        .collect::<Vec<_>>()
        .join("|");
    let team = TEAM_NOUNS.join("|");
    let project = PROJECT_NOUNS.join("|");
    let tech = TECH_NOUNS.join("|");
    Some(Patterns {
        url: Regex::new(r#"(?i)\b(?:https?|ftp|file)://[^\s<>"'`]+|\bwww\.[^\s<>"'`]+"#).ok()?,
        email: Regex::new(r"[\p{L}\p{N}._%+\-]+@[\p{L}\p{N}\-]+(?:\.[\p{L}\p{N}\-]+)+").ok()?,
        code: Regex::new(r"`([^`\n]{1,100})`").ok()?,
        handle: Regex::new(r"@[A-Za-z][A-Za-z0-9_\-]{1,38}").ok()?,
        file: Regex::new(&format!(
            r"(?:[\p{{L}}\p{{N}}_.\-]+/)*[\p{{L}}\p{{N}}_\-][\p{{L}}\p{{N}}_.\-]*\.(?:{ext})\b"
        ))
        .ok()?,
        honorific: Regex::new(&format!(r"\b(?:{honorifics})\.?[ \t]+({NAME_WORDS})")).ok()?,
        team: Regex::new(&format!(r"\b({NAME_WORDS})[ \t]+(?:{team})\b")).ok()?,
        project_prefix: Regex::new(&format!(
            r"\b(?i:project|initiative|codename|codenamed|code-named)[ \t]+({NAME_WORDS}|{IDENTIFIER})\b"
        ))
        .ok()?,
        project_noun: Regex::new(&format!(
            r"\b({NAME_WORDS}|{IDENTIFIER})[ \t]+(?:{project})\b"
        ))
        .ok()?,
        tech_noun: Regex::new(&format!(r"\b({IDENTIFIER})[ \t]+(?:{tech})\b")).ok()?,
        quoted_called: Regex::new(
            r#"\b(?:called|named|codenamed|code-named|dubbed|titled|known[ \t]+as)[ \t]+["“']([^"”'\n]{2,40})["”']"#,
        )
        .ok()?,
        quoted_noun: Regex::new(
            r#"["“]([^"”\n]{2,40})["”][ \t]+(project|initiative|release|milestone|workspace|repo|repository|feature|epic)\b"#,
        )
        .ok()?,
        work_cue: Regex::new(
            r"\b(?i:works?|worked|working|employed|hired|joined|joins|join)[ \t]+(?:(?i:at|for|by)[ \t]+)?(\p{Lu})",
        )
        .ok()?,
        kin: Regex::new(&format!(
            r"\b(?i:my|our|his|her|their)[ \t]+(?:(?i:older|younger|little|big|baby|eldest|oldest|youngest|twin|new|late|ex|step|best|old|good|close)[ \t-]+)?(?i:{KIN_NOUNS})(?:[ \t]*,)?[ \t]+({NAME_WORDS})"
        ))
        .ok()?,
        place: Regex::new(&format!(
            r"\b(?i:live|lives|lived|living|moved|moving|move|moves|relocated|relocating|born|grew[ \t]+up|based|settled|stay|stays|stayed|staying|visit|visits|visited|visiting|trip|flight|flying|fly|flew|travel|travelling|traveling|travelled|traveled|holiday|holidays|vacation|flat|apartment|house|home|office|cabin|school|studied|study|studies|studying|commute|commutes|commuting)(?:[ \t]+[\p{{Ll}}'’\-]+){{0,3}}?[ \t]+(?i:in|to|from|near|outside|at)[ \t]+({NAME_WORDS})"
        ))
        .ok()?,
        named: Regex::new(&format!(r"\b(?i:named|called)[ \t]+({NAME_WORDS})")).ok()?,
        word: Regex::new(r"[\p{L}\p{N}](?:[\p{L}\p{N}_'’&+#.\-]*[\p{L}\p{N}+#])?").ok()?,
    })
});

// ---------------------------------------------------------------------------
// The scanner
// ---------------------------------------------------------------------------

struct Scanner<'a> {
    text: &'a str,
    /// Per byte: taken by an earlier rule.
    claimed: Vec<bool>,
    mentions: Vec<Mention>,
    /// Byte offsets of capitalised words right after "works at", "joined", …
    org_hints: Vec<usize>,
}

/// A word of the text, as the run and single-word rules see it.
#[derive(Debug, Clone)]
struct Word {
    start: usize,
    /// End of the word without a possessive `'s`.
    end: usize,
    /// Lower-case, without the possessive.
    lower: String,
    capitalised: bool,
    all_caps: bool,
    possessive: bool,
    sentence_initial: bool,
    free: bool,
}

impl Scanner<'_> {
    fn is_free(&self, start: usize, end: usize) -> bool {
        self.claimed
            .get(start..end)
            .is_some_and(|bytes| !bytes.iter().any(|&c| c))
    }

    fn claim(&mut self, start: usize, end: usize) {
        if let Some(bytes) = self.claimed.get_mut(start..end) {
            bytes.fill(true);
        }
    }

    /// Record a mention of `text[start..end]` if the span is free and the
    /// name acceptable; claim the span when recorded.
    fn add(&mut self, start: usize, end: usize, entity_type: EntityType) -> bool {
        let Some(surface) = self.text.get(start..end) else {
            return false;
        };
        if start >= end || !self.is_free(start, end) || !accept_entity_name(surface) {
            return false;
        }
        self.mentions.push(Mention {
            start,
            end,
            surface: surface.to_string(),
            name: normalize_entity_name(surface),
            entity_type,
        });
        self.claim(start, end);
        true
    }

    /// Claim fenced code blocks, fences included.
    fn skip_fences(&mut self) {
        let mut in_fence = false;
        let mut offset = 0;
        let text = self.text;
        for line in text.split_inclusive('\n') {
            let trimmed = line.trim();
            let fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
            if fence || in_fence {
                self.claim(offset, offset + line.len());
            }
            if fence {
                in_fence = !in_fence;
            }
            offset += line.len();
        }
    }

    fn skip_urls_and_emails(&mut self, p: &Patterns) {
        let text = self.text;
        for m in p.url.find_iter(text).chain(p.email.find_iter(text)) {
            self.claim(m.start(), m.end());
        }
    }

    /// Inline code holding one token.
    fn inline_code(&mut self, p: &Patterns) {
        let text = self.text;
        for caps in p.code.captures_iter(text) {
            let (Some(whole), Some(inner)) = (caps.get(0), caps.get(1)) else {
                continue;
            };
            if !self.is_free(whole.start(), whole.end()) {
                continue;
            }
            let token = inner.as_str();
            let lead = token.len() - token.trim_start().len();
            let token = token.trim();
            let start = inner.start() + lead;
            if let Some(ty) = code_token_type(token) {
                self.add(start, start + token.len(), ty);
            }
            self.claim(whole.start(), whole.end());
        }
    }

    /// `@handle` → person.
    fn handles(&mut self, p: &Patterns) {
        let text = self.text;
        for m in p.handle.find_iter(text) {
            let before = char_before(text, m.start());
            if before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '@' | '/')) {
                continue;
            }
            let after = char_after(text, m.end());
            if after.is_some_and(|c| matches!(c, '/' | '@')) {
                continue;
            }
            let end = m.start() + m.as_str().trim_end_matches(['-', '_']).len();
            self.add(m.start(), end, EntityType::Person);
        }
    }

    /// Words ending in a known file extension → file.
    fn files(&mut self, p: &Patterns) {
        let text = self.text;
        for m in p.file.find_iter(text) {
            let before = char_before(text, m.start());
            if before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '/')) {
                continue;
            }
            let after = char_after(text, m.end());
            if after.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '/')) {
                continue;
            }
            let token = m.as_str();
            // A known name that looks like a file ("Node.js", "Vue.js").
            if known_name(&normalize_entity_name(token)).is_some() {
                continue;
            }
            // A file name needs a letter before its extension ("3.5.md"? no).
            let stem = token.rsplit_once('.').map_or("", |(stem, _)| stem);
            if !stem.chars().any(char::is_alphabetic) {
                continue;
            }
            self.add(m.start(), m.end(), EntityType::File);
        }
    }

    /// Cue-word rules: honorifics, teams, projects, code identifiers before
    /// a type noun, quoted names; and the organisation hints.
    fn cues(&mut self, p: &Patterns) {
        let text = self.text;
        for caps in p.kin.captures_iter(text) {
            if let Some(name) = caps.get(1)
                && let Some((start, end)) = trim_name(text, name.start(), name.end())
            {
                self.add(start, end, EntityType::Person);
            }
        }
        // "lives in Ghent", "moved to Lisbon", "a flat in Haarlem": a place.
        for caps in p.place.captures_iter(text) {
            if let Some(name) = caps.get(1)
                && let Some((start, end)) = trim_name(text, name.start(), name.end())
                && let Some(found) = text.get(start..end)
                && known_name(&normalize_entity_name(found)).is_none()
                && !found
                    .split([' ', '\t'])
                    .any(|word| known_name(&normalize_entity_name(word)).is_some())
            {
                self.add(start, end, EntityType::Place);
            }
        }
        // "a puppy named Biscuit", "a bakery called Crumb": a name, a
        // person's when it is a given name.
        for caps in p.named.captures_iter(text) {
            if let Some(name) = caps.get(1)
                && let Some((start, end)) = trim_name(text, name.start(), name.end())
                && let Some(found) = text.get(start..end)
            {
                let first = found
                    .split([' ', '\t'])
                    .next()
                    .unwrap_or_default()
                    .to_lowercase();
                let ty = if listed(GIVEN_NAMES, &first) {
                    EntityType::Person
                } else {
                    EntityType::Concept
                };
                self.add(start, end, ty);
            }
        }
        for caps in p.honorific.captures_iter(text) {
            if let Some(name) = caps.get(1)
                && let Some((start, end)) = trim_name(text, name.start(), name.end())
            {
                self.add(start, end, EntityType::Person);
            }
        }
        for caps in p.team.captures_iter(text) {
            let (Some(whole), Some(name)) = (caps.get(0), caps.get(1)) else {
                continue;
            };
            if ends_possessive(name.as_str()) {
                continue;
            }
            if let Some((start, _)) = trim_name(text, name.start(), name.end()) {
                self.add(start, whole.end(), EntityType::Organization);
            }
        }
        for caps in p.project_prefix.captures_iter(text) {
            if let Some(name) = caps.get(1) {
                self.project_name(name.start(), name.end());
            }
        }
        for caps in p.project_noun.captures_iter(text) {
            if let Some(name) = caps.get(1) {
                self.project_name(name.start(), name.end());
            }
        }
        for caps in p.tech_noun.captures_iter(text) {
            if let Some(name) = caps.get(1)
                && is_code_identifier(name.as_str())
            {
                self.add(name.start(), name.end(), EntityType::Technology);
            }
        }
        for caps in p.quoted_called.captures_iter(text) {
            let (Some(whole), Some(name)) = (caps.get(0), caps.get(1)) else {
                continue;
            };
            let Some(words) = quoted_words(name.as_str()) else {
                continue;
            };
            let ty = if whole.as_str().to_lowercase().starts_with("code") {
                EntityType::Project
            } else {
                let lowers: Vec<&str> = words.iter().map(String::as_str).collect();
                match classify_run(&lowers, false).0 {
                    // Quoted after "called": a title, unless a given name says
                    // it is someone.
                    EntityType::Person
                        if !lowers
                            .first()
                            .is_some_and(|first| listed(GIVEN_NAMES, first)) =>
                    {
                        EntityType::Concept
                    }
                    ty => ty,
                }
            };
            self.add(name.start(), name.end(), ty);
        }
        for caps in p.quoted_noun.captures_iter(text) {
            let (Some(name), Some(noun)) = (caps.get(1), caps.get(2)) else {
                continue;
            };
            if quoted_words(name.as_str()).is_none() {
                continue;
            }
            let ty = match noun.as_str() {
                "feature" | "epic" => EntityType::Concept,
                _ => EntityType::Project,
            };
            self.add(name.start(), name.end(), ty);
        }
        for caps in p.work_cue.captures_iter(text) {
            if let Some(first) = caps.get(1) {
                self.org_hints.push(first.start());
            }
        }
    }

    /// A project's name after "project …" or before "… repo": trimmed of
    /// stop words; left alone when it is a known name (the Kubernetes project
    /// is still the technology) or an ordinary hyphenated word.
    fn project_name(&mut self, start: usize, end: usize) {
        if self.text.get(start..end).is_some_and(ends_possessive) {
            return;
        }
        let Some((start, end)) = trim_name(self.text, start, end) else {
            return;
        };
        let Some(name) = self.text.get(start..end) else {
            return;
        };
        if known_name(&normalize_entity_name(name)).is_some() {
            return;
        }
        if name.starts_with(|c: char| c.is_lowercase()) && !is_code_identifier(name) {
            return;
        }
        self.add(start, end, EntityType::Project);
    }

    /// Runs of capitalised words, then single words.
    fn words(&mut self, p: &Patterns) {
        let words = self.tokenize(p);
        let mut single: Vec<&Word> = Vec::new();
        let mut i = 0;
        while let Some(word) = words.get(i) {
            if !is_name_word(word) {
                single.push(word);
                i += 1;
                continue;
            }
            let run = self.run_from(&words, i);
            let next = run.last().map_or(i + 1, |&last| last + 1);
            let core = strip_run(&words, &run);
            let left_single = if core.len() >= 2 && core.len() <= MAX_NAME_WORDS {
                if self.add_run(&words, &core) {
                    &[][..]
                } else {
                    &core[..]
                }
            } else {
                &run[..]
            };
            single.extend(left_single.iter().filter_map(|&k| words.get(k)));
            i = next;
        }
        for word in single {
            self.add_word(word);
        }
    }

    fn tokenize(&self, p: &Patterns) -> Vec<Word> {
        let text = self.text;
        p.word
            .find_iter(text)
            .map(|m| {
                let raw = m.as_str();
                let core = raw
                    .strip_suffix("'s")
                    .or_else(|| raw.strip_suffix("’s"))
                    .filter(|c| !c.is_empty())
                    .unwrap_or(raw);
                let first = core.chars().next();
                Word {
                    start: m.start(),
                    end: m.start() + core.len(),
                    lower: core.to_lowercase(),
                    capitalised: first.is_some_and(char::is_uppercase),
                    all_caps: core.chars().any(char::is_alphabetic)
                        && !core.chars().any(char::is_lowercase),
                    possessive: core.len() < raw.len(),
                    sentence_initial: sentence_initial(text, m.start()),
                    free: self.is_free(m.start(), m.end()),
                }
            })
            .collect()
    }

    /// The indices of the run starting at `i` (a name word): name words
    /// separated by spaces only, or joined by a connector ("of") or "&".
    fn run_from(&self, words: &[Word], i: usize) -> Vec<usize> {
        let mut run = vec![i];
        let mut j = i;
        while let (Some(current), Some(next)) = (words.get(j), words.get(j + 1)) {
            if current.possessive {
                break;
            }
            let Some(gap) = self.text.get(current.end..next.start) else {
                break;
            };
            if is_name_word(next) && (is_space_gap(gap) || gap.trim() == "&" && !gap.contains('\n'))
            {
                run.push(j + 1);
                j += 1;
                continue;
            }
            if is_space_gap(gap)
                && next.free
                && listed(NAME_CONNECTORS, &next.lower)
                && !next.capitalised
                && let Some(after) = words.get(j + 2)
                && is_name_word(after)
                && self
                    .text
                    .get(next.end..after.start)
                    .is_some_and(is_space_gap)
            {
                run.push(j + 1);
                run.push(j + 2);
                j += 2;
                continue;
            }
            break;
        }
        run
    }

    /// Type and record a run; `false` when nothing was recorded.
    fn add_run(&mut self, words: &[Word], core: &[usize]) -> bool {
        let Some(core) = core
            .iter()
            .map(|&k| words.get(k))
            .collect::<Option<Vec<&Word>>>()
        else {
            return false;
        };
        let (Some(first), Some(last)) = (core.first(), core.last()) else {
            return false;
        };
        let lowers: Vec<&str> = core.iter().map(|w| w.lower.as_str()).collect();
        let hinted = self.org_hints.contains(&first.start);
        let (ty, skip) = classify_run(&lowers, hinted);
        let Some(name_first) = core.get(skip) else {
            return false;
        };
        // Without a project prefix: "Project Phoenix" records "Phoenix".
        let (start, end) = (name_first.start, last.end);
        self.add(start, end, ty)
    }

    /// The single-word rules.
    fn add_word(&mut self, w: &Word) {
        if !w.free {
            return;
        }
        let Some(core) = self.text.get(w.start..w.end) else {
            return;
        };
        let canonical = normalize_entity_name(core);
        let written_as_name = w.capitalised && !w.sentence_initial;
        if listed(BARE_FILE_NAMES, &w.lower) {
            self.add(w.start, w.end, EntityType::File);
            return;
        }
        if let Some((ty, case)) = known_name(&canonical) {
            if case == Case::Any || written_as_name {
                self.add(w.start, w.end, ty);
            }
            return;
        }
        if let Some((prefix, version)) = w.lower.split_once('-')
            && version.starts_with(|c: char| c.is_ascii_digit())
            && let Some((ty, case)) = known_name(&normalize_entity_name(prefix))
            && ty == EntityType::Technology
            && (case == Case::Any || written_as_name)
        {
            self.add(w.start, w.end, ty);
            return;
        }
        if w.capitalised && !w.all_caps {
            if listed(GIVEN_NAMES, &w.lower) {
                self.add(w.start, w.end, EntityType::Person);
                return;
            }
            if listed(PLACES, &canonical) {
                self.add(w.start, w.end, EntityType::Place);
                return;
            }
            if self.org_hints.contains(&w.start) && !is_camel_case(core) {
                self.add(w.start, w.end, EntityType::Organization);
                return;
            }
        }
        if is_camel_case(core) {
            self.add(w.start, w.end, EntityType::Technology);
        }
    }
}

/// A word that may be part of a run of capitalised words.
fn is_name_word(w: &Word) -> bool {
    w.free
        && w.capitalised
        && !listed(STOP_WORDS, &w.lower)
        && w.lower.chars().any(char::is_alphabetic)
}

/// The character of `text` that ends at byte `at`, if any.
fn char_before(text: &str, at: usize) -> Option<char> {
    text.get(..at)?.chars().next_back()
}

/// The character of `text` that starts at byte `at`, if any.
fn char_after(text: &str, at: usize) -> Option<char> {
    text.get(at..)?.chars().next()
}

/// Spaces or tabs only, at least one.
fn is_space_gap(gap: &str) -> bool {
    !gap.is_empty() && gap.chars().all(|c| c == ' ' || c == '\t')
}

/// The run without its leading verbs, labels and calendar words and its
/// trailing calendar words and connectors.
fn strip_run(words: &[Word], run: &[usize]) -> Vec<usize> {
    let mut core: &[usize] = run;
    let lower = |k: usize| words.get(k).map_or("", |w| w.lower.as_str());
    while let Some((&first, rest)) = core.split_first() {
        let lower = lower(first);
        if listed(LEADING_WORDS, lower)
            || listed(CALENDAR_WORDS, lower)
            || listed(NAME_CONNECTORS, lower)
        {
            core = rest;
        } else {
            break;
        }
    }
    while let Some((&last, rest)) = core.split_last() {
        let lower = lower(last);
        if listed(CALENDAR_WORDS, lower) || listed(NAME_CONNECTORS, lower) {
            core = rest;
        } else {
            break;
        }
    }
    core.to_vec()
}

/// The type of a run of words (lower-case), and how many leading words are
/// not part of the name (a project prefix). Depends on the words alone (and
/// the organisation hint), so a name always gets the same type.
fn classify_run(words: &[&str], org_hint: bool) -> (EntityType, usize) {
    let whole = normalize_entity_name(&words.join(" "));
    let first = words.first().copied().unwrap_or_default();
    let last = words.last().copied().unwrap_or_default();
    if let Some((ty, _)) = known_name(&whole) {
        return (ty, 0);
    }
    if listed(PLACES, &whole) {
        return (EntityType::Place, 0);
    }
    if words.len() >= 2 && listed(PROJECT_PREFIXES, first) {
        return (EntityType::Project, 1);
    }
    if listed(ORG_PREFIXES, first) && words.get(1) == Some(&"of") {
        return (EntityType::Organization, 0);
    }
    if words.len() >= 2 && listed(ORG_SUFFIXES, last) {
        return (EntityType::Organization, 0);
    }
    if words.len() >= 2 && listed(PLACE_SUFFIXES, last) {
        return (EntityType::Place, 0);
    }
    let tech_word = words.iter().any(|w| {
        known_name(&normalize_entity_name(w)).is_some_and(|(ty, _)| ty == EntityType::Technology)
    });
    let company_first =
        words.len() >= 2 && known_name(first).is_some_and(|(ty, _)| ty == EntityType::Organization);
    if tech_word || company_first {
        return (EntityType::Technology, 0);
    }
    if words.iter().any(|w| listed(CONCEPT_WORDS, w)) || contains_place(words) {
        return (EntityType::Concept, 0);
    }
    if listed(GIVEN_NAMES, first) {
        return (EntityType::Person, 0);
    }
    if org_hint {
        return (EntityType::Organization, 0);
    }
    let plain = words.iter().all(|w| {
        w.chars()
            .all(|c| c.is_alphabetic() || matches!(c, '\'' | '’' | '-'))
    });
    if (2..=3).contains(&words.len()) && plain {
        return (EntityType::Person, 0);
    }
    (EntityType::Concept, 0)
}

/// Whether a place name (one or two words) occurs inside a longer run.
fn contains_place(words: &[&str]) -> bool {
    words.len() >= 2
        && (words.iter().any(|w| listed(PLACES, w))
            || words.windows(2).any(|pair| listed(PLACES, &pair.join(" "))))
}

/// `text[start..end]` without leading stop words, leading verbs and labels,
/// a trailing possessive, and trailing stop words; `None` if nothing is
/// left.
fn trim_name(text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let span = text.get(start..end)?;
    let mut parts: Vec<(usize, &str)> = Vec::new();
    let mut offset = 0;
    for piece in span.split([' ', '\t']) {
        if !piece.is_empty() {
            parts.push((start + offset, piece));
        }
        offset += piece.len() + 1;
    }
    let is_stop = |w: &str| {
        let lower = w.to_lowercase();
        listed(STOP_WORDS, &lower) || listed(CALENDAR_WORDS, &lower)
    };
    let first = parts
        .iter()
        .position(|(_, w)| !is_stop(w) && !listed(LEADING_WORDS, &w.to_lowercase()))?;
    let last = parts.iter().rposition(|(_, w)| !is_stop(w))?;
    if last < first {
        return None;
    }
    let (s, _) = *parts.get(first)?;
    let (l, word) = *parts.get(last)?;
    let word = word
        .strip_suffix("'s")
        .or_else(|| word.strip_suffix("’s"))
        .unwrap_or(word)
        .trim_end_matches(['.', '-', '\'', '’']);
    if word.is_empty() {
        return None;
    }
    Some((s, l + word.len()))
}

/// Whether a name ends in a possessive ("Marko's"): the owner, not the
/// name, of what follows.
fn ends_possessive(name: &str) -> bool {
    name.ends_with("'s") || name.ends_with("’s")
}

/// The words of a quoted name, lower-cased, if it looks like one: one to
/// [`MAX_NAME_WORDS`] words, each starting with a letter or digit, no
/// sentence punctuation.
fn quoted_words(quoted: &str) -> Option<Vec<String>> {
    let trimmed = quoted.trim();
    if trimmed.len() != quoted.len()
        || trimmed.contains(['.', '!', '?', ';', ':', ','])
        || !trimmed.chars().any(char::is_alphabetic)
    {
        return None;
    }
    let words: Vec<String> = trimmed.split_whitespace().map(str::to_lowercase).collect();
    let looks_like_name = !words.is_empty()
        && words.len() <= MAX_NAME_WORDS
        && words
            .iter()
            .all(|w| w.starts_with(|c: char| c.is_alphanumeric()));
    looks_like_name.then_some(words)
}

/// The type of a single token in backticks, if it names something.
fn code_token_type(token: &str) -> Option<EntityType> {
    if token.is_empty() || token.chars().any(char::is_whitespace) {
        return None;
    }
    let canonical = normalize_entity_name(token);
    if let Some((ty, _)) = known_name(&canonical) {
        return Some(ty);
    }
    if is_file_name(token) {
        return Some(EntityType::File);
    }
    if is_camel_case(token) || is_code_identifier(token) {
        return Some(EntityType::Technology);
    }
    None
}

/// A path or file name with a known extension, or a bare `Dockerfile`.
fn is_file_name(token: &str) -> bool {
    let name = token.rsplit('/').next().unwrap_or(token);
    if listed(BARE_FILE_NAMES, &name.to_lowercase()) {
        return true;
    }
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    stem.chars().any(char::is_alphabetic)
        && listed(FILE_EXTENSIONS, &ext.to_lowercase())
        && token
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
}

/// Parts of ordinary hyphenated English words ("follow-up", "long-term",
/// "end-to-end", "open-source"): an identifier made only of these is a word,
/// not a name.
const ENGLISH_COMPOUND_PARTS: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "to",
    "in",
    "on",
    "up",
    "out",
    "off",
    "by",
    "at",
    "for",
    "and",
    "or",
    "follow",
    "long",
    "short",
    "term",
    "open",
    "source",
    "closed",
    "high",
    "low",
    "priority",
    "real",
    "time",
    "house",
    "back",
    "front",
    "end",
    "full",
    "stack",
    "cross",
    "team",
    "side",
    "one",
    "two",
    "three",
    "four",
    "five",
    "day",
    "week",
    "month",
    "year",
    "self",
    "hosted",
    "well",
    "known",
    "built",
    "read",
    "only",
    "write",
    "top",
    "level",
    "multi",
    "non",
    "pre",
    "post",
    "re",
    "co",
    "sub",
    "semi",
    "anti",
    "old",
    "new",
    "next",
    "gen",
    "half",
    "all",
    "state",
    "art",
    "case",
    "sensitive",
    "based",
    "driven",
    "free",
    "like",
    "wide",
    "scale",
    "grade",
    "first",
    "second",
    "last",
    "third",
    "party",
    "user",
    "facing",
    "mid",
    "way",
    "part",
    "time",
    "check",
    "sign",
    "log",
    "set",
    "run",
    "start",
    "opt",
    "roll",
    "hand",
    "made",
    "off",
    "line",
    "on",
    "key",
    "value",
    "zero",
    "copy",
    "non",
    "blocking",
    "ready",
    "safe",
    "proof",
];

/// A lower-case identifier of two or more parts joined by `-`, `_` or `.`,
/// every part with a letter, not an ordinary hyphenated word.
fn is_code_identifier(token: &str) -> bool {
    let parts: Vec<&str> = token.split(['-', '_', '.']).collect();
    parts.len() >= 2
        && token
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'))
        && token.starts_with(|c: char| c.is_ascii_lowercase())
        && parts
            .iter()
            .all(|p| p.chars().any(|c| c.is_ascii_lowercase()))
        && !parts.iter().all(|p| listed(ENGLISH_COMPOUND_PARTS, p))
}

/// One word of letters and digits with a lower-case letter directly followed
/// by an upper-case one ("HybridSearch", "iPhone", "GitHub"), not a
/// Mc/Mac surname ("McDonald").
fn is_camel_case(token: &str) -> bool {
    if token.chars().count() < 4 || !token.chars().all(char::is_alphanumeric) {
        return false;
    }
    if token.starts_with("Mc") || token.starts_with("Mac") {
        return false;
    }
    token
        .chars()
        .zip(token.chars().skip(1))
        .any(|(first, second)| first.is_lowercase() && second.is_uppercase())
}

/// Whether the word at `start` begins a sentence: nothing but opening
/// punctuation and spaces between it and the start of the text, a line
/// break, or a sentence end (`.`, `!`, `?`, `:`, `;`, `…`).
fn sentence_initial(text: &str, start: usize) -> bool {
    let Some(before) = text.get(..start) else {
        return false;
    };
    for c in before.chars().rev() {
        match c {
            '\n' | '.' | '!' | '?' | ':' | ';' | '…' | '。' | '！' | '？' => return true,
            ' ' | '\t' | '"' | '“' | '‘' | '\'' | '(' | '[' | '{' | '*' | '_' | '>' | '#' | '•'
            | '-' | '+' | '–' | '—' => continue,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(String, EntityType)> {
        extract_entities(text)
            .into_iter()
            .map(|e| (e.name, e.entity_type))
            .collect()
    }

    fn has(text: &str, name: &str, ty: EntityType) {
        let found = names(text);
        assert!(
            found.iter().any(|(n, t)| n == name && *t == ty),
            "{text:?}: no {name:?} ({ty:?}) in {found:?}"
        );
    }

    fn lacks(text: &str, name: &str) {
        let found = names(text);
        assert!(
            !found.iter().any(|(n, _)| n == name),
            "{text:?}: unexpected {name:?} in {found:?}"
        );
    }

    fn none(text: &str) {
        let found = names(text);
        assert!(found.is_empty(), "{text:?}: {found:?}");
    }

    #[test]
    fn patterns_compile() {
        assert!(PATTERNS.is_some());
    }

    #[test]
    fn technologies_are_found_in_any_case_and_canonicalised() {
        let text = "We moved from postgres to Kubernetes, and the UI is React on node.";
        has(text, "postgresql", EntityType::Technology);
        has(text, "kubernetes", EntityType::Technology);
        has(text, "react.js", EntityType::Technology);
        // "node" is an ordinary word written in lower case.
        lacks(text, "nodejs");
        has(
            "The API runs on Node.js and SQLite.",
            "nodejs",
            EntityType::Technology,
        );
        has(
            "The API runs on Node.js and SQLite.",
            "sqlite",
            EntityType::Technology,
        );
        has(
            "Ported the parser to C++ and C#.",
            "c++",
            EntityType::Technology,
        );
        has(
            "Ported the parser to C++ and C#.",
            "c#",
            EntityType::Technology,
        );
        has(
            "We evaluated GPT-4 for this.",
            "gpt-4",
            EntityType::Technology,
        );
    }

    #[test]
    fn ordinary_word_names_need_capitals_away_from_the_sentence_start() {
        has(
            "The service is written in Go.",
            "go",
            EntityType::Technology,
        );
        has("We post alerts to Slack.", "slack", EntityType::Technology);
        none("Let's go with the second option.");
        none("Go ahead and merge it.");
        none("Cut some slack for the new hire.");
        none("Rust is everywhere on this old bike.");
        has(
            "Our secrets live in Vault now.",
            "vault",
            EntityType::Technology,
        );
        none("The vault door was open.");
        has(
            "The endpoint is REST, not gRPC.",
            "rest",
            EntityType::Technology,
        );
        has(
            "The endpoint is REST, not gRPC.",
            "grpc",
            EntityType::Technology,
        );
    }

    #[test]
    fn people() {
        has(
            "I talked to Ana Lima about the rollout.",
            "ana lima",
            EntityType::Person,
        );
        has("Marko approved the budget.", "marko", EntityType::Person);
        has(
            "Ping @jelena-p when the build is green.",
            "@jelena-p",
            EntityType::Person,
        );
        has("Dr. Ana Lima signed off.", "ana lima", EntityType::Person);
        has(
            "The review went to Jelena Petrović yesterday.",
            "jelena petrović",
            EntityType::Person,
        );
        has(
            "Ask Marko Bauer before merging.",
            "marko bauer",
            EntityType::Person,
        );
    }

    #[test]
    fn organisations_projects_places_files() {
        has(
            "Ana works at Acme Corp in Berlin.",
            "acme corp",
            EntityType::Organization,
        );
        has(
            "Ana works at Acme Corp in Berlin.",
            "berlin",
            EntityType::Place,
        );
        has(
            "Ask the Platform team about quotas.",
            "platform team",
            EntityType::Organization,
        );
        has(
            "The Platform Team owns quotas.",
            "platform team",
            EntityType::Organization,
        );
        has(
            "Marko joined Globex last year.",
            "globex",
            EntityType::Organization,
        );
        has(
            "She studied at the University of Vienna.",
            "university of vienna",
            EntityType::Organization,
        );
        has(
            "Project Phoenix ships in May.",
            "phoenix",
            EntityType::Project,
        );
        has(
            "The Phoenix project slipped.",
            "phoenix",
            EntityType::Project,
        );
        has(
            "We split the billing-api service out.",
            "billing-api",
            EntityType::Project,
        );
        has(
            "The new build is codenamed \"Blue Harbor\".",
            "blue harbor",
            EntityType::Project,
        );
        has(
            "We use the sqlite-vec extension for KNN.",
            "sqlite-vec",
            EntityType::Technology,
        );
        has(
            "Bump the version in Cargo.toml and src/lib.rs.",
            "cargo.toml",
            EntityType::File,
        );
        has(
            "Bump the version in Cargo.toml and src/lib.rs.",
            "src/lib.rs",
            EntityType::File,
        );
        has(
            "The Dockerfile pins Alpine.",
            "dockerfile",
            EntityType::File,
        );
        has(
            "We met in San Francisco.",
            "san francisco",
            EntityType::Place,
        );
        has(
            "Our office is near Silicon Valley.",
            "silicon valley",
            EntityType::Place,
        );
    }

    #[test]
    fn code_spans_and_camel_case() {
        has(
            "Call `HybridSearch` from `search.ts`.",
            "hybridsearch",
            EntityType::Technology,
        );
        has(
            "Call `HybridSearch` from `search.ts`.",
            "search.ts",
            EntityType::File,
        );
        has(
            "The `hive-mind-core` crate is pure.",
            "hive-mind-core",
            EntityType::Technology,
        );
        none("Run `cargo test -p foo` first.");
        has(
            "The LinkedIn importer is flaky.",
            "linkedin",
            EntityType::Technology,
        );
    }

    #[test]
    fn concepts_and_products_from_runs() {
        has(
            "Open the Memory Center settings.",
            "memory center",
            EntityType::Concept,
        );
        has(
            "Deploys go through GitHub Actions.",
            "github actions",
            EntityType::Technology,
        );
        has(
            "We keep specs in Google Docs.",
            "google docs",
            EntityType::Technology,
        );
    }

    #[test]
    fn sentence_initial_words_pronouns_calendar_and_generic_words_are_not_entities() {
        none("However, the deploy failed.");
        none("Thanks! That works.");
        none("They said it would be ready.");
        none("We shipped it on Monday in March.");
        none("Yesterday was busy.");
        none("Please keep it short.");
        none("Turns out the cache was stale.");
        none("Actually no, the port is 8443.");
        none("Sounds Good To Me.");
        none("The Cache Is Warm Again Today And Fast.");
        none("I prefer tabs over spaces.");
        none("Decision: keep the old schema.");
        none("NOTE: TODO before Friday.");
        none("The follow-up project is a long-term service.");
        none("Great Work everyone.");
    }

    #[test]
    fn urls_emails_and_fenced_code_are_skipped() {
        none("See https://github.com/acme/Phoenix for details.");
        none("Mail marko@acme.com about it.");
        none("```\nlet client = Redis::new();\n```");
        lacks("Install @types/node first.", "@types");
    }

    #[test]
    fn each_entity_once_with_its_first_span() {
        let text = "Postgres is fine. We like postgres. PG forever.";
        let found = extract_entities(text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].name, "postgresql");
        assert_eq!(found[0].surface, "Postgres");
        assert_eq!(found[0].span, Some(TextSpan { start: 0, end: 8 }));
    }

    #[test]
    fn spans_point_at_the_surface() {
        let text = "Ana Lima and Marko moved the Phoenix project to Kubernetes on 3 May.";
        for e in extract_entities(text) {
            let span = e.span.unwrap();
            assert_eq!(&text[span.start as usize..span.end as usize], e.surface);
            assert_eq!(e.name, normalize_entity_name(&e.surface));
        }
    }

    #[test]
    fn possessives_are_stripped() {
        has(
            "Marko Bauer's plan is ready.",
            "marko bauer",
            EntityType::Person,
        );
        has(
            "Kubernetes's scheduler.",
            "kubernetes",
            EntityType::Technology,
        );
    }

    #[test]
    fn long_title_case_runs_are_headings() {
        none("Quarterly Planning Offsite Agenda Draft Notes Version");
    }

    #[test]
    fn accept_entity_name_rules() {
        assert!(accept_entity_name("Kubernetes"));
        assert!(accept_entity_name("go"));
        assert!(!accept_entity_name(""));
        assert!(!accept_entity_name("However"));
        assert!(!accept_entity_name("2024"));
        assert!(!accept_entity_name(&"x".repeat(MAX_ENTITY_NAME_CHARS + 1)));
        assert!(!accept_entity_name("Ana\u{0}Lima"));
    }

    #[test]
    fn entity_type_names_match_serde() {
        for ty in EntityType::ALL {
            assert_eq!(
                serde_json::to_value(ty).unwrap(),
                serde_json::Value::String(ty.as_str().to_string())
            );
        }
    }
}
