//! # How large an argument the engine accepts
//!
//! Every host hands the engine whatever its caller passed: the Rust host
//! caps arguments by name before they cross (`host/src/limits.rs`), but a
//! Python or JavaScript program calls the component directly. So the engine
//! bounds the texts it stores, embeds or searches with itself, and every
//! host answers an oversized argument the same way: an `invalid-argument`
//! naming the argument, its size and the bound, before anything is embedded
//! or written.
//!
//! | argument | bound | why |
//! |---|---|---|
//! | a memory's content (save, a batch, a correction, a merge, an awareness item, a session's summary) | 100,000 bytes | larger texts belong in an import, which chunks them as a document |
//! | a batch of memories | 16 MiB in all | the inline import's bound |
//! | conversations imported in one call | 16 MiB in all | the inline import's bound; a speaker or title is a name |
//! | the lines of an export to restore | 1 GiB in all | the Rust host's restore file cap; the engine holds it all to check it |
//! | one turn of an exchange (user, assistant) | 100,000 bytes each | one turn of a conversation |
//! | a recall query, an entity, entity-list or wiki search | 16 KiB | a user's message, not a document |
//! | an identity field | 16 KiB | it goes into every system prompt |
//! | an entity's name or type, a relation's words | 1 KiB | a name |
//!
//! The Rust host's caps are the same numbers, so its surfaces refuse
//! before the call and the engine's bound is never the one a CLI user
//! meets; a test across the boundary checks the two agree.

/// One bounded argument: its name as the caller knows it, its bound in
/// bytes (UTF-8), and what to do instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// The argument's name, as the error names it.
    pub argument: &'static str,
    /// The largest size accepted, in bytes.
    pub bytes: usize,
    /// What to do instead (empty when there is nothing to suggest).
    pub instead: &'static str,
}

/// A memory's content: saved, corrected or added to awareness.
pub const MEMORY_CONTENT: Bound = Bound {
    argument: "content",
    bytes: 100_000,
    instead: "import a longer text as a document, which is chunked",
};

/// A batch of memories saved in one call, all contents together.
pub const MEMORY_BATCH: Bound = Bound {
    argument: "memories",
    bytes: 16 * 1024 * 1024,
    instead: "save them in smaller batches",
};

/// The conversations of one `import-conversations` call, all turns'
/// texts, speakers, titles and keys together.
pub const CONVERSATIONS: Bound = Bound {
    argument: "conversations",
    bytes: 16 * 1024 * 1024,
    instead: "import them in smaller batches, or import the export file itself",
};

/// The lines of an export handed to `restore-mind`, all together (each
/// counted with the line break the file had).
pub const RESTORE: Bound = Bound {
    argument: "lines",
    bytes: 1024 * 1024 * 1024,
    instead: "",
};

/// One turn of an exchange, named for its speaker (`user`, `assistant`)
/// where it is checked.
pub const TURN: Bound = Bound {
    argument: "turn",
    bytes: 100_000,
    instead: "pass the turn's text, not a document",
};

/// A recall query.
pub const QUERY: Bound = Bound {
    argument: "query",
    bytes: 16 * 1024,
    instead: "ask with the message, not a document",
};

/// A search's text: an entity search, an entity listing's filter, a wiki
/// search.
pub const SEARCH: Bound = Bound {
    argument: "text",
    bytes: 16 * 1024,
    instead: "",
};

/// One field of a mind's identity (personality, capabilities, system
/// prompt).
pub const IDENTITY_FIELD: Bound = Bound {
    argument: "identity",
    bytes: 16 * 1024,
    instead: "",
};

/// An entity's name or type, or one of a relation's words.
pub const NAME: Bound = Bound {
    argument: "name",
    bytes: 1024,
    instead: "",
};

impl Bound {
    /// The same bound under another argument name (`subject`, `type`, …).
    pub const fn named(self, argument: &'static str) -> Bound {
        Bound { argument, ..self }
    }

    /// Whether `text` is within the bound; the error says which argument,
    /// how large it is and what the bound is.
    pub fn check(&self, text: &str) -> Result<(), String> {
        self.check_size(text.len())
    }

    /// Whether a size in bytes is within the bound (for totals).
    pub fn check_size(&self, bytes: usize) -> Result<(), String> {
        if bytes <= self.bytes {
            return Ok(());
        }
        let instead = if self.instead.is_empty() {
            String::new()
        } else {
            format!(": {}", self.instead)
        };
        Err(format!(
            "{} is too large ({bytes} bytes; the limit is {} bytes){instead}",
            self.argument, self.bytes
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_at_the_bound_passes_and_one_byte_more_is_refused_by_name() {
        let at = "a".repeat(MEMORY_CONTENT.bytes);
        assert_eq!(MEMORY_CONTENT.check(&at), Ok(()));
        let over = format!("{at}b");
        let error = MEMORY_CONTENT.check(&over).unwrap_err();
        assert_eq!(
            error,
            "content is too large (100001 bytes; the limit is 100000 bytes): \
             import a longer text as a document, which is chunked"
        );
    }

    #[test]
    fn sizes_are_utf8_bytes_not_characters() {
        // 6,000 three-byte characters: 18,000 bytes, over the 16 KiB query bound.
        let query = "語".repeat(6000);
        assert!(query.chars().count() < QUERY.bytes);
        assert!(
            QUERY
                .check(&query)
                .unwrap_err()
                .starts_with("query is too large (18000 bytes")
        );
    }

    #[test]
    fn a_renamed_bound_names_its_argument_and_an_empty_hint_adds_nothing() {
        let subject = NAME.named("subject");
        assert_eq!(subject.bytes, NAME.bytes);
        assert_eq!(
            subject.check(&"x".repeat(1025)).unwrap_err(),
            "subject is too large (1025 bytes; the limit is 1024 bytes)"
        );
        assert!(MEMORY_BATCH.check_size(MEMORY_BATCH.bytes).is_ok());
        assert!(MEMORY_BATCH.check_size(MEMORY_BATCH.bytes + 1).is_err());
    }
}
