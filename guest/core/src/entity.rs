//! Entity-name canonicalisation and noise filtering.
//!
//! The knowledge graph stores people, products, places and concepts as
//! entities, and an entity is only useful if every mention of it lands on the
//! same row. Two small functions guard that:
//!
//! - [`normalize_entity_name`] turns a surface form into the *canonical* form
//!   used in the dedup key (`normalized::type`): trimmed, inner white space
//!   collapsed to one space, lower-cased, and a handful of well-known aliases
//!   mapped to one spelling, so that "Postgres", "PG" and "postgresql" become
//!   one entity. The alias table is deliberately small: an alias is only safe
//!   when the short form has no other common meaning in a developer's notes.
//! - [`is_noise_name`] rejects would-be entities that an extractor picks up
//!   because they are capitalised, not because they name anything: months,
//!   weekdays, pronouns, sentence starters ("However", "Thanks") and short
//!   shouted words ("TODO", "NOTE"). A short allow-list keeps the real
//!   technical names that would otherwise fall to the length rule (`go`,
//!   `npm`, `k8s`, …).
//!
//! Both follow the reference engine (`reference-constants.md`, "Entity
//! names"). The noise rules run in a fixed order, and the order matters: the
//! allow-list is consulted *before* the length rule, so `Go` is kept although
//! it is two letters long, and *before* the all-capitals rule, so `HTTP` or
//! `JSON` survive although they are short shouted words.
//!
//! [`EntityType`], the graph's types, lives here too: the extractor and its
//! word lists both name it, and neither should have to import the other.

use serde::{Deserialize, Serialize};

/// Known aliases, `(alias, canonical)`, looked up on the lower-cased,
/// white-space-collapsed name. Canonical names are not listed: they map to
/// themselves.
pub const ENTITY_ALIASES: &[(&str, &str)] = &[
    ("postgres", "postgresql"),
    ("pg", "postgresql"),
    ("js", "javascript"),
    ("ts", "typescript"),
    ("k8s", "kubernetes"),
    ("nyc", "new york city"),
    ("node.js", "nodejs"),
    ("node", "nodejs"),
    ("reactjs", "react.js"),
    ("react", "react.js"),
    ("vuejs", "vue.js"),
    ("vue", "vue.js"),
    ("py", "python"),
    ("mongo", "mongodb"),
];

/// Short technical names that are real entities although they fail the
/// length rule (under [`NOISE_MIN_CHARS`] characters) or the all-capitals
/// rule (a shouted word of at most [`NOISE_MAX_CAPS_LETTERS`] letters).
/// Compared case-insensitively on the trimmed name.
///
/// The reference list (go, npm, vue, ai, ml, k8s, sdk, …) is extended with
/// the acronyms a developer's notes are full of; every entry is something a
/// team can depend on, deploy, or argue about.
pub const SHORT_TECH_NAMES: &[&str] = &[
    // The reference engine's list.
    "go", "npm", "vue", "ai", "ml", "k8s", "sdk", "api", "aws", "gcp", "css", "sql", "ui", "ux",
    "qa", "ci", "cd", "db", "os", "vm", "js", "ts", "py",
    // Further short technical names.
    "c#", "c++", "f#", "git", "gpu", "cpu", "tpu", "ram", "ssd", "llm", "rag", "mcp", "jvm", "php",
    "vim", "xml", "csv", "pdf", "ios", "iot", "sre", "tls", "ssl", "ssh", "dns", "tcp", "udp",
    "ip", "url", "jwt", "orm", "cli", "ide", "gcc", "pip", "bun", "deno", "yarn", "pnpm", "wit",
    "wasm", "wasi", "http", "https", "json", "yaml", "toml", "html", "grpc", "rest", "oauth",
    "cuda", "rust", "java", "ruby", "dart", "lua", "zig", "nim", "elm", "ocaml", "scala", "kafka",
    "redis", "nginx", "azure", "linux", "macos", ".net", "s3", "ec2", "gke", "eks", "aks", "sqs",
    "sns", "cdn", "vpn", "vpc", "nfs", "ldap", "saml", "oidc", "gdpr", "hipaa", "soc2",
];

/// Names shorter than this many characters (after trimming) are noise unless
/// they are in [`SHORT_TECH_NAMES`]: one- to three-letter capitalised tokens
/// are overwhelmingly initials, articles and abbreviations of nothing.
pub const NOISE_MIN_CHARS: usize = 4;

/// A single all-capitals word of at most this many letters is noise: such
/// words are shouted emphasis and markers ("NOTE", "TODO", "ASAP", "URGENT")
/// far more often than organisations. Longer all-capitals words are kept.
pub const NOISE_MAX_CAPS_LETTERS: usize = 6;

/// Common words that are capitalised only because they start a sentence or
/// are calendar names: months (including "May"), weekdays, pronouns and
/// determiners, sentence starters and conversational fillers. Compared
/// case-insensitively against the whole (trimmed, collapsed) name, so a
/// multi-word name that merely contains one of them ("The Beatles") is kept.
/// Words shorter than [`NOISE_MIN_CHARS`] are already caught by the length
/// rule; a few are listed anyway so the list reads as what it means.
pub const COMMON_TITLE_WORDS: &[&str] =
    &crate::words::joined::<{ crate::words::total_len(COMMON_TITLE_PARTS) }>(COMMON_TITLE_PARTS);

/// The parts of [`COMMON_TITLE_WORDS`]: the month names (the one table,
/// [`crate::dates::month::MONTH_NAMES`]), "sept", and the other words.
const COMMON_TITLE_PARTS: &[&[&str]] = &[
    &crate::dates::month::MONTH_NAMES,
    &[crate::dates::month::SEPT],
    OTHER_COMMON_TITLE_WORDS,
];

/// The words of [`COMMON_TITLE_WORDS`] that are not month names.
const OTHER_COMMON_TITLE_WORDS: &[&str] = &[
    // Weekdays.
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    // Relative days.
    "today",
    "tomorrow",
    "yesterday",
    "tonight",
    "weekend",
    // Pronouns and determiners.
    "this",
    "that",
    "these",
    "those",
    "they",
    "them",
    "their",
    "theirs",
    "there",
    "here",
    "what",
    "which",
    "where",
    "when",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "your",
    "yours",
    "mine",
    "ours",
    "hers",
    "itself",
    "myself",
    "yourself",
    "ourselves",
    "themselves",
    "someone",
    "something",
    "somebody",
    "anyone",
    "anything",
    "anybody",
    "everyone",
    "everything",
    "everybody",
    "nobody",
    "nothing",
    "none",
    "each",
    "every",
    "some",
    "many",
    "most",
    "much",
    "other",
    "another",
    "such",
    "both",
    "either",
    "neither",
    // Sentence starters and connectives.
    "the",
    "however",
    "also",
    "then",
    "than",
    "thus",
    "hence",
    "therefore",
    "because",
    "since",
    "although",
    "though",
    "after",
    "before",
    "during",
    "until",
    "unless",
    "with",
    "without",
    "from",
    "into",
    "about",
    "above",
    "below",
    "maybe",
    "perhaps",
    "still",
    "just",
    "only",
    "even",
    "actually",
    "basically",
    "anyway",
    "meanwhile",
    "otherwise",
    "first",
    "second",
    "third",
    "next",
    "last",
    "finally",
    "later",
    "again",
    "once",
    "instead",
    "indeed",
    "besides",
    "furthermore",
    "moreover",
    "overall",
    "please",
    "note",
    "sure",
    "okay",
    "well",
    "would",
    "could",
    "should",
    "might",
    "must",
    "shall",
    "does",
    "have",
    // Conversational fillers and pleasantries.
    "thanks",
    "thank you",
    "hello",
    "hey",
    "yes",
    "yeah",
    "yep",
    "nope",
    "sorry",
    "great",
    "good",
    "nice",
    "cool",
    "awesome",
    "perfect",
    "right",
    "alright",
    "fine",
    "wow",
    "cheers",
    "regards",
    "best",
    "welcome",
    "goodbye",
    "bye",
];

/// The canonical form of an entity name: trimmed, white space collapsed,
/// lower-cased, and common aliases mapped (`js` → `javascript`,
/// `postgres` → `postgresql`, `k8s` → `kubernetes`, …).
///
/// ```
/// use hive_mind_core::normalize_entity_name;
/// assert_eq!(normalize_entity_name("  Postgres "), "postgresql");
/// assert_eq!(normalize_entity_name("New   York\tCity"), "new york city");
/// assert_eq!(normalize_entity_name("Rust"), "rust");
/// ```
pub fn normalize_entity_name(name: &str) -> String {
    let collapsed = collapse_lower(name);
    match ENTITY_ALIASES.iter().find(|(alias, _)| *alias == collapsed) {
        Some((_, canonical)) => (*canonical).to_string(),
        None => collapsed,
    }
}

/// Whether a would-be entity name is noise (too short, a month or weekday, a
/// pronoun or sentence starter, a short all-capitals word) rather than a real
/// entity. Short technical names such as `go` or `npm` are kept.
///
/// The rules, in order: empty or white space → noise; in
/// [`SHORT_TECH_NAMES`] → kept; fewer than [`NOISE_MIN_CHARS`] characters →
/// noise; in [`COMMON_TITLE_WORDS`] → noise; a single all-capitals word of at
/// most [`NOISE_MAX_CAPS_LETTERS`] letters → noise; otherwise kept.
///
/// ```
/// use hive_mind_core::is_noise_name;
/// assert!(is_noise_name("May"));
/// assert!(is_noise_name("TODO"));
/// assert!(!is_noise_name("npm"));
/// assert!(!is_noise_name("Kubernetes"));
/// ```
pub fn is_noise_name(name: &str) -> bool {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return true;
    }
    let lowered = collapse_lower(trimmed);
    if SHORT_TECH_NAMES.contains(&lowered.as_str()) {
        return false;
    }
    if trimmed.chars().count() < NOISE_MIN_CHARS {
        return true;
    }
    if COMMON_TITLE_WORDS.contains(&lowered.as_str()) {
        return true;
    }
    is_short_shouted_word(trimmed)
}

/// Trim, collapse white-space runs to one space, lower-case.
fn collapse_lower(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A single word made only of upper-case letters, at most
/// [`NOISE_MAX_CAPS_LETTERS`] of them. A digit or punctuation mark ("GPT-4",
/// "S3") makes it a product-like token, which is kept.
fn is_short_shouted_word(word: &str) -> bool {
    let mut letters = 0usize;
    for c in word.chars() {
        if !c.is_alphabetic() || !c.is_uppercase() {
            return false;
        }
        letters += 1;
    }
    letters > 0 && letters <= NOISE_MAX_CAPS_LETTERS
}

/// What kind of thing an entity is. The graph keys entities on canonical
/// name *and* type, so "Marko" the person and "Marko" the project stay two
/// nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EntityType {
    /// A person ("Ana Lima", "@marko").
    Person,
    /// A company, institution or team ("Acme Corp", "Platform team").
    Organization,
    /// A named piece of work ("Phoenix", "billing-api").
    Project,
    /// A language, framework, database, platform, tool or product
    /// ("PostgreSQL", "Kubernetes", "Slack"): one type for all of them, so
    /// one name cannot split between "tool" and "product".
    Technology,
    /// A city, country or region ("Berlin", "Silicon Valley").
    Place,
    /// A file ("Cargo.toml", "src/main.rs").
    File,
    /// Any other named thing ("Memory Center", "Release Notes").
    Concept,
}

impl EntityType {
    /// Every type.
    pub const ALL: [EntityType; 7] = [
        EntityType::Person,
        EntityType::Organization,
        EntityType::Project,
        EntityType::Technology,
        EntityType::Place,
        EntityType::File,
        EntityType::Concept,
    ];

    /// The type's name in the graph and in JSON (`person`, `organization`,
    /// …): the string to pass as the store's `entity-type`.
    pub fn as_str(self) -> &'static str {
        match self {
            EntityType::Person => "person",
            EntityType::Organization => "organization",
            EntityType::Project => "project",
            EntityType::Technology => "technology",
            EntityType::Place => "place",
            EntityType::File => "file",
            EntityType::Concept => "concept",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reference_alias_maps_to_its_canonical_name() {
        let cases = [
            ("postgres", "postgresql"),
            ("pg", "postgresql"),
            ("PostgreSQL", "postgresql"),
            ("js", "javascript"),
            ("JavaScript", "javascript"),
            ("ts", "typescript"),
            ("k8s", "kubernetes"),
            ("K8S", "kubernetes"),
            ("nyc", "new york city"),
            ("NYC", "new york city"),
            ("node.js", "nodejs"),
            ("Node.js", "nodejs"),
            ("node", "nodejs"),
            ("reactjs", "react.js"),
            ("React", "react.js"),
            ("vuejs", "vue.js"),
            ("Vue", "vue.js"),
            ("py", "python"),
            ("mongo", "mongodb"),
        ];
        for (input, want) in cases {
            assert_eq!(normalize_entity_name(input), want, "{input}");
        }
    }

    #[test]
    fn canonical_names_are_fixed_points() {
        for (_, canonical) in ENTITY_ALIASES {
            assert_eq!(normalize_entity_name(canonical), *canonical);
            assert_eq!(
                normalize_entity_name(&normalize_entity_name(canonical)),
                *canonical
            );
        }
    }

    #[test]
    fn normalisation_trims_collapses_and_lowercases() {
        assert_eq!(normalize_entity_name("  Marko  Bauer\n"), "marko bauer");
        assert_eq!(normalize_entity_name("New\tYork  City"), "new york city");
        assert_eq!(normalize_entity_name(" \t "), "");
        assert_eq!(normalize_entity_name("ÄRZTE Verband"), "ärzte verband");
        // Aliases apply to the whole name only, never to a word inside it.
        assert_eq!(normalize_entity_name("pg admin"), "pg admin");
        assert_eq!(normalize_entity_name("React Native"), "react native");
    }

    #[test]
    fn empty_and_blank_names_are_noise() {
        assert!(is_noise_name(""));
        assert!(is_noise_name("   "));
        assert!(is_noise_name("\n\t"));
    }

    #[test]
    fn short_tech_names_are_kept_in_any_case() {
        for name in [
            "go", "Go", "GO", "npm", "NPM", "vue", "AI", "ml", "k8s", "SDK", "api",
        ] {
            assert!(!is_noise_name(name), "{name}");
        }
        for name in [
            "aws", "gcp", "CSS", "SQL", "UI", "ux", "QA", "CI", "cd", "DB", "os", "VM",
        ] {
            assert!(!is_noise_name(name), "{name}");
        }
        for name in ["JS", "ts", "py", "HTTP", "JSON", "YAML", " wasm "] {
            assert!(!is_noise_name(name), "{name}");
        }
    }

    #[test]
    fn short_names_are_noise() {
        for name in ["a", "I", "It", "Bob", "XYZ", "Mr.", "ok"] {
            assert!(is_noise_name(name), "{name}");
        }
    }

    #[test]
    fn calendar_words_pronouns_and_starters_are_noise() {
        for name in [
            "May",
            "January",
            "september",
            "Monday",
            "Sunday",
            "Today",
            "This",
            "These",
            "They",
            "However",
            "Thanks",
            "Thank you",
            "Yes",
            "Hello",
            "Actually",
            "Please",
            "Maybe",
        ] {
            assert!(is_noise_name(name), "{name}");
        }
    }

    #[test]
    fn short_all_capitals_words_are_noise() {
        for name in ["TODO", "NOTE", "ASAP", "URGENT", "ABCDEF", "ÄÖÜÄ"] {
            assert!(is_noise_name(name), "{name}");
        }
        // Seven letters or more, or anything that is not letters only, is kept.
        for name in ["UNICEF2", "GPT-4", "NVIDIA CORP", "BENCHMARK"] {
            assert!(!is_noise_name(name), "{name}");
        }
    }

    #[test]
    fn real_entities_are_kept() {
        for name in [
            "Kubernetes",
            "PostgreSQL",
            "Marko Bauer",
            "Berlin",
            "The Beatles",
            "May Day Parade",
            "Acme Corp",
            "hive-mind",
            "München",
            "東京タワー",
        ] {
            assert!(!is_noise_name(name), "{name}");
        }
    }

    #[test]
    fn allow_list_and_title_words_are_lowercase_and_trimmed() {
        for name in SHORT_TECH_NAMES.iter().chain(COMMON_TITLE_WORDS) {
            assert_eq!(*name, name.trim().to_lowercase(), "{name}");
        }
        for (alias, canonical) in ENTITY_ALIASES {
            assert_eq!(*alias, alias.to_lowercase());
            assert_eq!(*canonical, canonical.to_lowercase());
        }
    }
}
