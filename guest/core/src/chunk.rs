//! Paragraph chunking with overlap and absolute offsets.
//!
//! A long frame embeds badly as one vector: its meaning is averaged away. So
//! long texts are also stored as chunks, each embedded on its own, and a chunk
//! hit leads back to its frame. A chunk should be a coherent stretch of text
//! (whole paragraphs where possible) that the embedder reads whole, and
//! neighbouring chunks repeat a little of each other so that a phrase
//! straddling a boundary is still found whole in one of them.
//!
//! # Sizes: tokens, or characters
//!
//! An embedder reads a fixed window of tokens (256 for all-MiniLM-L6-v2) and
//! silently drops the rest, so a frame's chunks are planned in tokens
//! ([`ChunkPlan::Tokens`], [`chunk_tokens`]): the sizes of a
//! [`TokenBudget`] are measured with the estimate of [`crate::tokens`],
//! which prices every character, and the rules below run unchanged on those
//! prices. A dense text (code, numbers, hashes, another script) gets shorter
//! chunks than English prose, each about as long as the window allows. How
//! the budget follows from the window is [`TokenBudget::for_window`].
//!
//! The same rules measured in characters are [`chunk_text`] with
//! [`ChunkOptions`] (the `logic` export `chunk-text`), whose defaults are the
//! reference engine's: `max_chars` 2000, `overlap` 200 and `min_chars` 1500.
//! That was the frame plan before the token plan ([`ChunkPlan::LegacyChars`]);
//! at about 500 tokens of English it ran far past MiniLM's window, so the
//! second half of most long chunks was never embedded. Minds planned that
//! way keep it until `reindex` re-plans them.
//!
//! Below, "characters" stands for whichever measure the plan uses.
//!
//! # How a text is cut
//!
//! Paragraphs are separated by blank lines (a white-space run holding at least
//! two line feeds, the reference's `\n\s*\n`). Chunks are built one after the
//! other, and each one ends at the first rule that applies:
//!
//! 1. If all the remaining text fits in `max_chars`, the chunk takes it all.
//!    In particular a text whose trimmed length is at most `max_chars` is
//!    exactly one chunk.
//! 2. Otherwise, if whole paragraphs end inside the chunk's `max_chars`
//!    window, the chunk absorbs whole paragraphs until it has at least
//!    `min_chars` characters, and stops there. If even the last paragraph
//!    that fits leaves it shorter, the chunk still ends there, because the
//!    next paragraph does not fit whole, unless that next paragraph is longer
//!    than `max_chars` (it must be split anyway): then the chunk is filled up
//!    with as many of its sentences as fit.
//! 3. Otherwise (the chunk is inside a paragraph too long for it), the chunk
//!    ends at the last sentence end in its window (`.`, `!` or `?`, optionally
//!    followed by closing quotes or brackets, then white space), else at the
//!    last word end, else, for a single "word" longer than the window, at the
//!    window's edge.
//!
//! Every chunk after the first starts up to `overlap` characters before the
//! previous chunk's end, at the first word start in that stretch, so the
//! overlap never begins with half a word; when the stretch lies inside a
//! single word (a long URL cut at the window's edge, or a tiny budget), the
//! chunk has no overlap. A chunk repeats only text that was new in the chunk
//! before it, so no character is in more than two chunks. The overlap
//! *counts* toward `max_chars`: no chunk is ever longer than `max_chars`
//! characters. The overlap gives way to keep a paragraph whole: when the
//! paragraph a chunk starts in would fit in `max_chars` on its own but not
//! together with a full overlap, the overlap is shortened so it fits.
//!
//! # The result
//!
//! Each [`Chunk`] is exactly `text[char_start..char_end]`, with byte offsets
//! on character boundaries. Chunks are trimmed (they start and end with a
//! non-white-space character); between one chunk's end and the next one's new
//! text there is only white space, so every non-white-space character of the
//! text lies in some chunk. Starts and ends strictly increase. An empty or
//! all-white-space text has no chunks.
//!
//! Unlike the reference, the overlap is part of the chunk's span (the
//! reference prepended it to the text but kept the offsets of the new part, so
//! the text did not match its offsets), and a chunk's size bound includes it.
//!
//! # Degenerate options
//!
//! [`ChunkOptions::clamped`] makes any options workable: `max_chars` is at
//! least 1; `overlap` is at most half of `max_chars`, so every chunk has room
//! for at least as much new text as it repeats (and chunking always
//! progresses); `min_chars` is at most `max_chars`. A token budget is
//! clamped the same way, and a chunk always takes at least one character of
//! new text, even one that alone outweighs the budget (a Hangul syllable in
//! a budget of two tokens).

use serde::{Deserialize, Serialize};

use crate::types::Chunk;

/// The default largest chunk, in characters.
pub const DEFAULT_MAX_CHARS: u32 = 2000;

/// The default overlap between neighbouring chunks, in characters.
pub const DEFAULT_OVERLAP: u32 = 200;

/// The default size a chunk absorbs whole paragraphs up to, in characters.
pub const DEFAULT_MIN_CHARS: u32 = 1500;

/// Characters that end a sentence when white space follows.
const SENTENCE_ENDS: [char; 3] = ['.', '!', '?'];

/// Characters that may stand between a sentence end and the white space
/// after it (`He said "no."`).
const SENTENCE_CLOSERS: [char; 8] = ['"', '\'', ')', ']', '}', '»', '\u{201d}', '\u{2019}'];

/// Limits for [`chunk_text`], in characters (Unicode scalar values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ChunkOptions {
    /// Largest chunk.
    pub max_chars: u32,
    /// Characters repeated from the previous chunk.
    pub overlap: u32,
    /// A chunk absorbs whole paragraphs until it has at least this many.
    pub min_chars: u32,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            max_chars: DEFAULT_MAX_CHARS,
            overlap: DEFAULT_OVERLAP,
            min_chars: DEFAULT_MIN_CHARS,
        }
    }
}

impl ChunkOptions {
    /// The options [`chunk_text`] actually uses: `max_chars` at least 1,
    /// `overlap` at most `max_chars / 2`, `min_chars` at most `max_chars`.
    pub fn clamped(&self) -> ChunkOptions {
        let max_chars = self.max_chars.max(1);
        ChunkOptions {
            max_chars,
            overlap: self.overlap.min(max_chars / 2),
            min_chars: self.min_chars.min(max_chars),
        }
    }
}

/// The token window planned for when the embedder does not say how much it
/// reads (a remote provider reports 0). 512 is the window of BERT-family
/// encoders (bge, e5, gte) and the least that the usual remote models read
/// (OpenAI's and Voyage's read thousands), so chunks planned for it fit
/// nearly every embedder; longer chunks would not help anyway, because one
/// vector averages the meaning of everything it covers. It is also about
/// the size of the old 2,000-character plan (500 tokens of English prose),
/// so minds on a remote provider keep chunks of the size they had.
pub const UNKNOWN_WINDOW: u32 = 512;

/// The special tokens a BERT-family encoder adds to every input (`[CLS]`
/// and `[SEP]`), which the window includes.
pub const SPECIAL_TOKENS: u32 = 2;

/// The smallest budget a plan uses, whatever the window: below a few tokens
/// a chunk is no longer a stretch of text but a word.
const MIN_BUDGET: u32 = 8;

/// A token plan's limits, in estimated tokens ([`crate::tokens`]): the
/// token version of [`ChunkOptions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct TokenBudget {
    /// Largest chunk, overlap included.
    pub max_tokens: u32,
    /// Tokens repeated from the previous chunk.
    pub overlap: u32,
    /// A chunk absorbs whole paragraphs until it has at least this many.
    pub min_tokens: u32,
}

impl TokenBudget {
    /// The budget for an embedder that reads `window` tokens, special tokens
    /// included (0: unknown, planned as [`UNKNOWN_WINDOW`]):
    ///
    /// - `max_tokens` = the window less the [`SPECIAL_TOKENS`], less 10 % of
    ///   that as a safety margin: the estimate leans high, but runs down to
    ///   about 0.92× the real count on some text (code dense with rare
    ///   identifiers, random letters: [`crate::tokens`]), and the margin
    ///   keeps those chunks inside the window too (229 for a 256-token
    ///   window, 459 for 512);
    /// - `overlap` = a tenth of the window (25 and 51 tokens), the
    ///   reference's ratio (200 of 2,000 characters): enough to repeat a
    ///   sentence or two across a boundary, so a fact that straddles it is
    ///   whole in one chunk, without spending much of each chunk on text the
    ///   chunk before already embedded;
    /// - `min_tokens` = three quarters of `max_tokens`, the reference's ratio
    ///   (1,500 of 2,000): a chunk keeps taking whole paragraphs until it is
    ///   that full.
    pub fn for_window(window: u32) -> TokenBudget {
        let window = if window == 0 { UNKNOWN_WINDOW } else { window };
        let usable = window.saturating_sub(SPECIAL_TOKENS);
        let max_tokens = (usable - usable / 10).max(MIN_BUDGET);
        TokenBudget {
            max_tokens,
            overlap: (window / 10).min(max_tokens / 2),
            min_tokens: max_tokens / 4 * 3,
        }
    }
}

/// Which plan a frame's chunks follow. A mind records the plan its chunks
/// were made with (the store's `meta`), so a save and a `check` always use
/// the mind's plan, and a mind planned for another window than the active
/// embedder's is re-planned by `reindex`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkPlan {
    /// The plan before chunks were sized by tokens: [`ChunkOptions::default`]
    /// (2,000 characters). Minds written then record no plan, and are read
    /// as this one.
    LegacyChars,
    /// Planned for an embedder that reads this many tokens, special tokens
    /// included ([`TokenBudget::for_window`]).
    Tokens(u32),
}

impl ChunkPlan {
    /// The plan for an embedder that reads `max_tokens` tokens (0: unknown,
    /// planned as [`UNKNOWN_WINDOW`]).
    pub fn for_window(max_tokens: u32) -> ChunkPlan {
        ChunkPlan::Tokens(if max_tokens == 0 {
            UNKNOWN_WINDOW
        } else {
            max_tokens
        })
    }

    /// The chunks a stored frame with this content carries beside its own
    /// vector: those of [`chunk_text`] (legacy) or [`chunk_tokens`], or none
    /// when the content is a single chunk (the frame's vector already covers
    /// it). The engine embeds exactly these on a save and the store checks
    /// and re-embeds exactly these, so the two never disagree.
    pub fn chunks(&self, content: &str) -> Vec<Chunk> {
        let chunks = match self {
            ChunkPlan::LegacyChars => chunk_text(content, &ChunkOptions::default()),
            ChunkPlan::Tokens(window) => chunk_tokens(content, &TokenBudget::for_window(*window)),
        };
        if chunks.len() <= 1 {
            Vec::new()
        } else {
            chunks
        }
    }

    /// How the plan is recorded in a mind's `meta`: `tokens:256`, or
    /// `chars:2000` for the legacy plan.
    pub fn to_record(&self) -> String {
        match self {
            ChunkPlan::LegacyChars => format!("chars:{DEFAULT_MAX_CHARS}"),
            ChunkPlan::Tokens(window) => format!("tokens:{window}"),
        }
    }

    /// The plan a record names; `None` when it names none this build knows.
    pub fn from_record(record: &str) -> Option<ChunkPlan> {
        match record.split_once(':')? {
            ("chars", size) if size.parse::<u32>().ok()? == DEFAULT_MAX_CHARS => {
                Some(ChunkPlan::LegacyChars)
            }
            ("tokens", window) => match window.parse::<u32>().ok()? {
                0 => None,
                window => Some(ChunkPlan::Tokens(window)),
            },
            _ => None,
        }
    }
}

impl std::fmt::Display for ChunkPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChunkPlan::LegacyChars => write!(f, "{DEFAULT_MAX_CHARS} characters"),
            ChunkPlan::Tokens(window) => write!(f, "{window} tokens"),
        }
    }
}

/// The chunks a stored frame carries under the legacy plan
/// ([`ChunkPlan::LegacyChars`]); see [`ChunkPlan::chunks`] for the plan a
/// mind records.
pub fn frame_chunks(content: &str, plan: ChunkPlan) -> Vec<Chunk> {
    plan.chunks(content)
}

/// Split `text` into overlapping paragraph chunks (see the module docs for
/// the rules). Each chunk is at most `max_chars` characters, overlap
/// included, and is exactly `text[char_start..char_end]` (UTF-8 byte
/// offsets). Texts longer than `u32::MAX` bytes are chunked only as far as
/// the offsets can express.
pub fn chunk_text(text: &str, options: &ChunkOptions) -> Vec<Chunk> {
    let options = options.clamped();
    let source = Source::new(text, vec![1; text.chars().count()]);
    chunk_weighted(
        &source,
        u64::from(options.max_chars),
        u64::from(options.overlap),
        u64::from(options.min_chars),
    )
}

/// Split `text` into overlapping paragraph chunks by estimated tokens: the
/// rules of [`chunk_text`], with every size measured in the tokens of
/// [`crate::tokens::token_weights`] instead of characters. A chunk that
/// starts and ends on word boundaries (every chunk but those cut inside a
/// single word longer than the budget) estimates at most `max_tokens`.
pub fn chunk_tokens(text: &str, budget: &TokenBudget) -> Vec<Chunk> {
    let unit = crate::tokens::UNIT;
    let max = u64::from(budget.max_tokens.max(1)) * unit;
    let overlap = (u64::from(budget.overlap) * unit).min(max / 2);
    let min = (u64::from(budget.min_tokens) * unit).min(max);
    let source = Source::new(text, crate::tokens::token_weights(text));
    chunk_weighted(&source, max, overlap, min)
}

/// The chunking loop, with sizes in the source's weights (`overlap` at most
/// `max / 2`, `min` at most `max`).
fn chunk_weighted(source: &Source<'_>, max: u64, overlap: u64, min: u64) -> Vec<Chunk> {
    let paragraphs = source.paragraphs();
    let (Some(first), Some(last)) = (paragraphs.first(), paragraphs.last()) else {
        return Vec::new();
    };
    let content_end = last.end;

    let mut chunks = Vec::new();
    // Positions are char indices from here on. `start` is where the chunk
    // begins (overlap included), `core` where its new text begins, and
    // `paragraph` the index of the paragraph `core` is in.
    let mut start = first.start;
    let mut core = first.start;
    let mut paragraph = 0;
    loop {
        let end = if source.cost(start, content_end) <= max {
            content_end
        } else {
            source.chunk_end(&paragraphs, paragraph, start, core, max, min)
        };
        let (Ok(index), Ok(char_start), Ok(char_end)) = (
            u32::try_from(chunks.len()),
            u32::try_from(source.byte(start)),
            u32::try_from(source.byte(end)),
        ) else {
            break;
        };
        chunks.push(Chunk {
            index,
            text: source.slice(start, end).to_owned(),
            char_start,
            char_end,
        });
        if end >= content_end {
            break;
        }

        // The next chunk's new text starts at the next non-white-space
        // character; there is one, since `end < content_end`.
        let next_core = (end..content_end)
            .find(|&i| !source.is_space(i))
            .unwrap_or(content_end);
        while paragraphs
            .get(paragraph)
            .is_some_and(|p| p.end <= next_core)
        {
            paragraph += 1;
        }
        // Let the overlap give way if that keeps the paragraph whole.
        let rest_of_paragraph = paragraphs
            .get(paragraph)
            .map_or(0, |p| source.cost(next_core, p.end));
        let budget = if rest_of_paragraph <= max {
            overlap.min(max - rest_of_paragraph)
        } else {
            overlap
        };
        start = source.overlap_start(start, core, end, next_core, budget);
        core = next_core;
    }
    chunks
}

/// A paragraph's trimmed extent, in char indices (end exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
}

/// The text as characters with their byte offsets, and what each character
/// weighs (1 when sizes are characters; its share of the token estimate when
/// they are tokens) as prefix sums.
struct Source<'a> {
    text: &'a str,
    chars: Vec<(usize, char)>,
    /// `prefix[i]` = the weight of the first `i` characters.
    prefix: Vec<u64>,
}

impl<'a> Source<'a> {
    /// `weights` has one entry per character (missing ones weigh 0).
    fn new(text: &'a str, weights: Vec<u64>) -> Self {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut prefix = Vec::with_capacity(chars.len() + 1);
        let mut sum = 0u64;
        prefix.push(0);
        for i in 0..chars.len() {
            sum = sum.saturating_add(weights.get(i).copied().unwrap_or(0));
            prefix.push(sum);
        }
        Source {
            text,
            chars,
            prefix,
        }
    }

    fn prefix(&self, i: usize) -> u64 {
        self.prefix
            .get(i.min(self.chars.len()))
            .copied()
            .unwrap_or(0)
    }

    /// The weight of the characters `start..end`.
    fn cost(&self, start: usize, end: usize) -> u64 {
        self.prefix(end).saturating_sub(self.prefix(start))
    }

    /// The furthest position `end` (at most the text's length) such that
    /// `start..end` weighs at most `max`.
    fn reach(&self, start: usize, max: u64) -> usize {
        let bound = self.prefix(start).saturating_add(max);
        // The prefix sums never decrease: the first index past the bound.
        let past = self.prefix.partition_point(|&sum| sum <= bound);
        past.saturating_sub(1).max(start)
    }

    /// The earliest position `begin` (at most `end`) such that `begin..end`
    /// weighs at most `budget`.
    fn reach_back(&self, end: usize, budget: u64) -> usize {
        let bound = self.prefix(end).saturating_sub(budget);
        self.prefix.partition_point(|&sum| sum < bound).min(end)
    }

    /// The byte offset of char index `i` (the text's length at the end).
    fn byte(&self, i: usize) -> usize {
        self.chars.get(i).map_or(self.text.len(), |&(byte, _)| byte)
    }

    fn slice(&self, start: usize, end: usize) -> &'a str {
        self.text
            .get(self.byte(start)..self.byte(end))
            .unwrap_or_default()
    }

    fn char_at(&self, i: usize) -> Option<char> {
        self.chars.get(i).map(|&(_, c)| c)
    }

    fn is_space(&self, i: usize) -> bool {
        self.char_at(i).is_some_and(char::is_whitespace)
    }

    fn is_word(&self, i: usize) -> bool {
        self.char_at(i).is_some_and(|c| !c.is_whitespace())
    }

    /// The trimmed paragraphs: maximal stretches of text not interrupted by a
    /// white-space run that holds two or more line feeds.
    fn paragraphs(&self) -> Vec<Span> {
        let mut paragraphs = Vec::new();
        let mut current: Option<Span> = None;
        let mut line_feeds = 0;
        for (i, &(_, c)) in self.chars.iter().enumerate() {
            if c.is_whitespace() {
                if c == '\n' {
                    line_feeds += 1;
                }
                continue;
            }
            current = match current {
                Some(span) if line_feeds < 2 => Some(Span {
                    start: span.start,
                    end: i + 1,
                }),
                Some(span) => {
                    paragraphs.push(span);
                    Some(Span {
                        start: i,
                        end: i + 1,
                    })
                }
                None => Some(Span {
                    start: i,
                    end: i + 1,
                }),
            };
            line_feeds = 0;
        }
        paragraphs.extend(current);
        paragraphs
    }

    /// Where a chunk that starts at `start`, with new text from `core` (in
    /// `paragraphs[paragraph]`), ends when the rest of the text does not fit
    /// in it: rules 2 and 3 of the module docs. Always after `core` and no
    /// further than the chunk's reach (`max` from `start`) unless a single
    /// character outweighs it, after a non-white-space character.
    fn chunk_end(
        &self,
        paragraphs: &[Span],
        paragraph: usize,
        start: usize,
        core: usize,
        max: u64,
        min: u64,
    ) -> usize {
        // At least one character of new text, whatever it weighs, so
        // chunking always progresses.
        let limit = self.reach(start, max).max(core + 1);

        // Rule 2: whole paragraphs. The last paragraph ends at the end of
        // the content, beyond `limit`, so each one that fits has a successor.
        let mut last_fitting = None;
        for (i, p) in paragraphs.iter().enumerate().skip(paragraph) {
            if p.end > limit {
                break;
            }
            if self.cost(start, p.end) >= min {
                return p.end;
            }
            last_fitting = Some(i);
        }
        if let Some(i) = last_fitting {
            let end = paragraphs.get(i).map_or(core + 1, |p| p.end);
            let next_is_oversized = paragraphs
                .get(i + 1)
                .is_some_and(|p| self.cost(p.start, p.end) > max);
            if next_is_oversized {
                return self.last_break(end, limit, Break::Sentence).unwrap_or(end);
            }
            return end;
        }

        // Rule 3: inside a paragraph too long for the chunk.
        self.last_break(core, limit, Break::Sentence)
            .or_else(|| self.last_break(core, limit, Break::Word))
            .unwrap_or(limit)
    }

    /// The last position in `after + 1 ..= limit` where a word (or sentence)
    /// ends: a non-white-space character followed by white space.
    fn last_break(&self, after: usize, limit: usize, kind: Break) -> Option<usize> {
        ((after + 1)..=limit).rev().find(|&e| {
            self.is_space(e)
                && self.is_word(e - 1)
                && (kind == Break::Word || self.ends_sentence(e))
        })
    }

    /// Whether the word ending before `e` ends a sentence.
    fn ends_sentence(&self, e: usize) -> bool {
        let mut i = e;
        while i > 0
            && self
                .char_at(i - 1)
                .is_some_and(|c| SENTENCE_CLOSERS.contains(&c))
        {
            i -= 1;
        }
        i > 0
            && self
                .char_at(i - 1)
                .is_some_and(|c| SENTENCE_ENDS.contains(&c))
    }

    /// Where the chunk whose new text starts at `core` begins, given the
    /// previous chunk's start, new-text start and end: at the first word
    /// start that is at most `budget` characters before `core`, inside the
    /// previous chunk's new text (after its start) and before its end;
    /// `core` itself (no overlap) when there is none.
    fn overlap_start(
        &self,
        previous_start: usize,
        previous_core: usize,
        previous_end: usize,
        core: usize,
        budget: u64,
    ) -> usize {
        let earliest = self
            .reach_back(core, budget)
            .max(previous_core)
            .max(previous_start + 1);
        if earliest >= previous_end {
            return core;
        }
        (earliest..previous_end)
            .find(|&i| self.is_word(i) && self.is_space(i - 1))
            .unwrap_or(core)
    }
}

/// The kind of boundary [`Source::last_break`] looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Break {
    /// The end of a sentence.
    Sentence,
    /// The end of any word.
    Word,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(max_chars: u32, overlap: u32, min_chars: u32) -> ChunkOptions {
        ChunkOptions {
            max_chars,
            overlap,
            min_chars,
        }
    }

    #[test]
    fn a_frame_carries_chunks_only_when_its_content_has_several() {
        for plan in [ChunkPlan::LegacyChars, ChunkPlan::Tokens(256)] {
            assert!(frame_chunks("one short memory", plan).is_empty());
        }
        let long = "A paragraph of some length that says something. ".repeat(30);
        let text = format!("{long}\n\n{long}\n\n{long}");
        let chunks = frame_chunks(&text, ChunkPlan::LegacyChars);
        assert_eq!(chunks, chunk_text(&text, &ChunkOptions::default()));
        assert!(chunks.len() > 1, "{}", chunks.len());
        let chunks = frame_chunks(&text, ChunkPlan::Tokens(256));
        assert_eq!(chunks, chunk_tokens(&text, &TokenBudget::for_window(256)));
        assert!(chunks.len() > 1, "{}", chunks.len());
    }

    fn texts(chunks: &[Chunk]) -> Vec<&str> {
        chunks.iter().map(|c| c.text.as_str()).collect()
    }

    /// The invariants every result must satisfy.
    fn check(text: &str, chunks: &[Chunk], opts: &ChunkOptions) {
        let opts = opts.clamped();
        let mut covered = vec![0u8; text.len()];
        for (i, chunk) in chunks.iter().enumerate() {
            let (s, e) = (chunk.char_start as usize, chunk.char_end as usize);
            assert_eq!(chunk.index as usize, i);
            assert_eq!(&text[s..e], chunk.text);
            assert!(chunk.text.chars().count() <= opts.max_chars as usize);
            assert!(!chunk.text.starts_with(char::is_whitespace));
            assert!(!chunk.text.ends_with(char::is_whitespace));
            covered[s..e].iter_mut().for_each(|c| *c += 1);
            if i > 0 {
                assert!(chunk.char_start > chunks[i - 1].char_start);
                assert!(chunk.char_end > chunks[i - 1].char_end);
            }
        }
        for (b, c) in text.char_indices() {
            assert!(
                c.is_whitespace() || covered[b] > 0,
                "{c:?} at byte {b} not covered"
            );
            assert!(
                covered[b] <= 2,
                "{c:?} at byte {b} in {} chunks",
                covered[b]
            );
        }
    }

    #[test]
    fn empty_and_blank_texts_have_no_chunks() {
        assert!(chunk_text("", &ChunkOptions::default()).is_empty());
        assert!(chunk_text(" \n\n\t \u{3000}", &ChunkOptions::default()).is_empty());
    }

    #[test]
    fn a_short_text_is_one_trimmed_chunk() {
        let text = "\n  First paragraph.\n\nSecond one.  \n";
        let chunks = chunk_text(text, &ChunkOptions::default());
        assert_eq!(
            chunks,
            [Chunk {
                index: 0,
                text: "First paragraph.\n\nSecond one.".to_owned(),
                char_start: 3,
                char_end: 32,
            }]
        );
        // Exactly max_chars characters (after trimming) is still one chunk.
        let text = format!("  {}  ", "é".repeat(10));
        let chunks = chunk_text(&text, &options(10, 2, 5));
        assert_eq!(texts(&chunks), ["é".repeat(10)]);
        assert_eq!((chunks[0].char_start, chunks[0].char_end), (2, 22));
    }

    #[test]
    fn paragraphs_are_absorbed_until_min_chars() {
        // Five 9-char paragraphs; blank lines are 2 chars.
        let text = "aaaa aaaa\n\nbbbb bbbb\n\ncccc cccc\n\ndddd dddd\n\neeee eeee";
        let opts = options(32, 0, 15);
        let chunks = chunk_text(text, &opts);
        // "aaaa aaaa" (9) < 15, absorb "bbbb bbbb" → 20 ≥ 15: stop, although
        // a third paragraph would fit (31). The rest (31) fits: one chunk.
        assert_eq!(
            texts(&chunks),
            [
                "aaaa aaaa\n\nbbbb bbbb",
                "cccc cccc\n\ndddd dddd\n\neeee eeee"
            ]
        );
        check(text, &chunks, &opts);

        // With min 0 every paragraph closes its chunk, until the rest of the
        // text fits whole.
        let chunks = chunk_text(text, &options(20, 0, 0));
        assert_eq!(
            texts(&chunks),
            [
                "aaaa aaaa",
                "bbbb bbbb",
                "cccc cccc",
                "dddd dddd\n\neeee eeee"
            ]
        );
    }

    #[test]
    fn a_short_chunk_closes_when_the_next_paragraph_does_not_fit() {
        let text = "Tiny.\n\nThis paragraph is longer than the rest of the window.";
        let opts = options(55, 0, 50);
        let chunks = chunk_text(text, &opts);
        assert_eq!(
            texts(&chunks),
            [
                "Tiny.",
                "This paragraph is longer than the rest of the window."
            ]
        );
        check(text, &chunks, &opts);
    }

    #[test]
    fn an_oversized_paragraph_is_split_on_sentences() {
        let text = "One two three. Four five six! Seven eight nine? Ten eleven.";
        let opts = options(32, 0, 0);
        let chunks = chunk_text(text, &opts);
        assert_eq!(
            texts(&chunks),
            [
                "One two three. Four five six!",
                "Seven eight nine? Ten eleven."
            ]
        );
        check(text, &chunks, &opts);
    }

    #[test]
    fn closing_quotes_after_a_sentence_end_still_end_it() {
        let text = "He said \"stop.\" Then he left the room quietly.";
        let chunks = chunk_text(text, &options(30, 0, 0));
        assert_eq!(
            texts(&chunks),
            ["He said \"stop.\"", "Then he left the room quietly."]
        );
    }

    #[test]
    fn a_short_chunk_is_filled_from_an_oversized_next_paragraph() {
        let text = "Intro.\n\nAlpha beta. Gamma delta. Epsilon zeta eta theta iota kappa lambda.";
        let opts = options(40, 0, 30);
        let chunks = chunk_text(text, &opts);
        assert_eq!(
            texts(&chunks),
            [
                "Intro.\n\nAlpha beta. Gamma delta.",
                "Epsilon zeta eta theta iota kappa",
                "lambda."
            ]
        );
        check(text, &chunks, &opts);
    }

    #[test]
    fn a_long_sentence_falls_back_to_words_then_a_hard_cut() {
        let text = "alpha beta gamma delta epsilon";
        let chunks = chunk_text(text, &options(12, 0, 0));
        assert_eq!(texts(&chunks), ["alpha beta", "gamma delta", "epsilon"]);

        let text = "abcdefghijklmnopqrstuvwxyz";
        let chunks = chunk_text(text, &options(10, 0, 0));
        assert_eq!(texts(&chunks), ["abcdefghij", "klmnopqrst", "uvwxyz"]);

        // Multi-byte characters are never split.
        let text = "ßßßßßßßßßß€€€";
        let opts = options(4, 0, 0);
        let chunks = chunk_text(text, &opts);
        assert_eq!(texts(&chunks), ["ßßßß", "ßßßß", "ßß€€", "€"]);
        check(text, &chunks, &opts);
    }

    #[test]
    fn overlap_starts_at_a_word_and_counts_toward_the_size() {
        let text = "one two three four five six seven eight nine ten";
        let opts = options(20, 8, 0);
        let chunks = chunk_text(text, &opts);
        assert_eq!(
            texts(&chunks),
            [
                "one two three four",
                "four five six seven",
                "seven eight nine ten"
            ]
        );
        check(text, &chunks, &opts);
        // The second chunk starts inside the first, at "four".
        assert_eq!(chunks[1].char_start, 14);
        assert!(chunks[1].char_start < chunks[0].char_end);
    }

    #[test]
    fn overlap_gives_way_to_keep_a_paragraph_whole() {
        // The second paragraph (29 chars) fits in 40 with an overlap of up to
        // 11 chars, not with the full 16 ("gamma delta.\n\n" is 14).
        let text = "Alpha beta gamma delta.\n\nSecond paragraph is eighteen.";
        let opts = options(40, 16, 0);
        let chunks = chunk_text(text, &opts);
        assert_eq!(
            texts(&chunks),
            [
                "Alpha beta gamma delta.",
                "delta.\n\nSecond paragraph is eighteen."
            ]
        );
        check(text, &chunks, &opts);
    }

    #[test]
    fn overlap_repeats_only_the_previous_chunks_new_text() {
        // Paragraphs of 5 chars 7 apart. Chunk 3's 12-char budget would
        // reach back to the last "a" (in chunk 2's overlap); it stops at
        // chunk 2's new text, so no character is in three chunks.
        let text = "a a a\n\nb b b\n\nc c c\n\nd d d\n\ne e e";
        let opts = options(24, 12, 0);
        let chunks = chunk_text(text, &opts);
        assert_eq!(
            texts(&chunks),
            [
                "a a a",
                "a a\n\nb b b",
                "b b b\n\nc c c",
                "c c c\n\nd d d\n\ne e e"
            ]
        );
        check(text, &chunks, &opts);
    }

    #[test]
    fn no_overlap_inside_a_single_word() {
        let text = "abcdefghijklmnopqrstuvwxyz";
        let opts = options(10, 4, 0);
        let chunks = chunk_text(text, &opts);
        assert_eq!(texts(&chunks), ["abcdefghij", "klmnopqrst", "uvwxyz"]);
        // Only "e." would fit before the second paragraph: no overlap.
        let text = "First paragraph here.\n\nSecond paragraph is eighteen.";
        let chunks = chunk_text(text, &options(32, 10, 0));
        assert_eq!(
            texts(&chunks),
            ["First paragraph here.", "Second paragraph is eighteen."]
        );
    }

    #[test]
    fn no_overlap_across_a_gap_wider_than_the_budget() {
        let text = format!("first part{}second part", " ".repeat(20));
        let opts = options(12, 5, 0);
        let chunks = chunk_text(&text, &opts);
        assert_eq!(texts(&chunks), ["first part", "second part"]);
    }

    #[test]
    fn crlf_blank_lines_separate_paragraphs() {
        let text = "aaaa aaaa\r\n\r\nbbbb bbbb\r\n\r\ncccc cccc";
        let opts = options(21, 0, 0);
        let chunks = chunk_text(text, &opts);
        assert_eq!(texts(&chunks), ["aaaa aaaa", "bbbb bbbb", "cccc cccc"]);
        // A single line break is not a paragraph break.
        let text = "aaaa aaaa\nbbbb bbbb\ncccc cccc";
        let chunks = chunk_text(text, &options(22, 0, 0));
        assert_eq!(texts(&chunks), ["aaaa aaaa\nbbbb bbbb", "cccc cccc"]);
    }

    #[test]
    fn degenerate_options_are_clamped() {
        assert_eq!(options(0, 5, 9).clamped(), options(1, 0, 1));
        assert_eq!(options(10, 10, 20).clamped(), options(10, 5, 10));
        assert_eq!(ChunkOptions::default().clamped(), ChunkOptions::default());

        let text = "ab cd";
        let chunks = chunk_text(text, &options(0, 100, 100));
        assert_eq!(texts(&chunks), ["a", "b", "c", "d"]);
        let chunks = chunk_text(text, &options(2, 100, 0));
        assert_eq!(texts(&chunks), ["ab", "cd"]);
        check(text, &chunks, &options(2, 100, 0));
    }

    #[test]
    fn defaults_on_a_long_document() {
        let paragraph = "The quick brown fox jumps over the lazy dog. ".repeat(9);
        let text = vec![paragraph.trim(); 40].join("\n\n");
        let opts = ChunkOptions::default();
        let chunks = chunk_text(&text, &opts);
        check(&text, &chunks, &opts);
        assert!(chunks.len() > 1);
        // Every chunk but the last reached min_chars, ending at a paragraph.
        for chunk in &chunks[..chunks.len() - 1] {
            assert!(chunk.text.chars().count() >= 1500);
            assert!(text[chunk.char_end as usize..].starts_with("\n\n"));
        }
    }

    #[test]
    fn token_budgets_follow_the_window() {
        let minilm = TokenBudget::for_window(256);
        assert_eq!(
            (minilm.max_tokens, minilm.overlap, minilm.min_tokens),
            (229, 25, 171)
        );
        let bge = TokenBudget::for_window(512);
        assert_eq!(
            (bge.max_tokens, bge.overlap, bge.min_tokens),
            (459, 51, 342)
        );
        // Unknown is planned as 512; a tiny window still leaves a budget.
        assert_eq!(TokenBudget::for_window(0), bge);
        assert_eq!(ChunkPlan::for_window(0), ChunkPlan::Tokens(UNKNOWN_WINDOW));
        assert_eq!(TokenBudget::for_window(3).max_tokens, MIN_BUDGET);
    }

    #[test]
    fn plans_are_recorded_and_read_back() {
        for plan in [
            ChunkPlan::LegacyChars,
            ChunkPlan::Tokens(256),
            ChunkPlan::Tokens(512),
        ] {
            assert_eq!(ChunkPlan::from_record(&plan.to_record()), Some(plan));
        }
        assert_eq!(ChunkPlan::LegacyChars.to_record(), "chars:2000");
        assert_eq!(ChunkPlan::Tokens(256).to_string(), "256 tokens");
        for unknown in ["", "tokens:0", "tokens:x", "chars:1000", "words:5"] {
            assert_eq!(ChunkPlan::from_record(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn token_chunks_of_a_long_document_fit_the_window() {
        let paragraph = "The quick brown fox jumps over the lazy dog. ".repeat(9);
        let text = vec![paragraph.trim(); 40].join("\n\n");
        let budget = TokenBudget::for_window(256);
        let chunks = chunk_tokens(&text, &budget);
        assert!(chunks.len() > 1);
        for chunk in &chunks {
            let tokens = crate::tokens::estimate_tokens(&chunk.text);
            assert!(tokens <= u64::from(budget.max_tokens), "{tokens}");
        }
        // Every chunk but the last reached min_tokens, ending at a paragraph.
        for chunk in &chunks[..chunks.len() - 1] {
            let tokens = crate::tokens::estimate_tokens(&chunk.text);
            assert!(tokens >= u64::from(budget.min_tokens), "{tokens}");
            assert!(text[chunk.char_end as usize..].starts_with("\n\n"));
        }
        // The legacy plan made chunks of up to 2,000 characters of this
        // text, about 440 estimated tokens: past MiniLM's window.
        let legacy = chunk_text(&text, &ChunkOptions::default());
        let longest = legacy
            .iter()
            .map(|c| crate::tokens::estimate_tokens(&c.text))
            .max()
            .unwrap_or(0);
        assert!(longest > 256, "{longest}");
    }

    #[test]
    fn dense_text_gets_shorter_chunks_than_prose() {
        // Hex digests cost about a token per character; prose about a
        // quarter of one.
        let hashes = (0..200)
            .map(|i| format!("{:016x}", (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
            .collect::<Vec<_>>()
            .join(" ");
        let prose = "We walked along the river and talked about the garden. ".repeat(60);
        let budget = TokenBudget::for_window(256);
        let longest = |text: &str| {
            chunk_tokens(text, &budget)
                .iter()
                .map(|c| c.text.chars().count())
                .max()
                .unwrap_or(0)
        };
        assert!(longest(&hashes) < 300, "{}", longest(&hashes));
        assert!(longest(&prose) > 800, "{}", longest(&prose));
    }
}
