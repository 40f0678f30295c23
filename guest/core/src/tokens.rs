//! A conservative estimate of how many WordPiece tokens a text costs.
//!
//! The embedder reads a fixed window of tokens (256 for all-MiniLM-L6-v2,
//! 512 for bge-small), and whatever lies past it is never embedded. The
//! guest has no tokenizer (the vocabulary is the model's, and the model is
//! the host's), so chunks are planned with this estimate instead. An
//! over-estimate is safe — chunks come out a little shorter than they could
//! be — while an under-estimate loses the tail of a chunk, so every rule
//! below leans high.
//!
//! # How BERT-family tokenizers cut a text
//!
//! The uncased WordPiece tokenizer of MiniLM, bge and most BERT-family
//! embedders first *pre-tokenizes*: it drops control characters, splits on
//! white space, makes every punctuation character a token of its own and
//! every CJK ideograph too, lowercases and strips accents. Each remaining
//! word is then cut into the longest vocabulary pieces, left to right: a
//! common word is one piece, a rare one several (`hebbian` → `he ##bb
//! ##ian`), and a word longer than 100 characters is a single `[UNK]`.
//!
//! # The estimate
//!
//! The pre-tokenization is done exactly (each punctuation mark, symbol or
//! ideograph costs 1); a word's pieces are estimated from what it is made
//! of:
//!
//! - **Letters** (ASCII, or Latin letters whose accent the tokenizer
//!   strips): 1 piece up to 5 letters, then one more per 3 letters, plus one
//!   for every letter pair that is uncommon inside English words
//!   ([`COMMON_PAIRS`]) — an uncommon pair is where WordPiece usually has to
//!   break (`xtask`, `fn`, random identifiers). Words of another language
//!   split into short pieces, accented or not (`plage` → `pl ##age`,
//!   `verduras` → `ver ##du ##ras`), so a word within a sentence's reach of
//!   an accented word ([`FOREIGN_REACH`]) costs at least one piece per 2.5
//!   letters.
//! - **Digits** only: one piece per 1.5 digits (the vocabulary holds the
//!   numbers up to a few thousand; longer ones split into 1–3-digit pieces).
//! - **Letters and digits mixed** (hashes, version strings, base64): one
//!   piece per character — their pieces are that short.
//! - **Other scripts** (Cyrillic, Greek, Arabic, kana, …): one piece per
//!   character, which is what the English vocabulary gives them; a Hangul
//!   syllable costs 3 (accent stripping decomposes it into 2–3 jamo, each a
//!   piece).
//!
//! Measured against the real MiniLM tokenizer (`tests/chunk_tokens.rs` at
//! the workspace root cuts prose, chat, Markdown, Rust, numbers, URLs,
//! hashes, random identifiers, eight languages and emoji with the 256-token
//! plan and tokenizes every chunk), the estimate averages 1.1–1.2× the real
//! count for English prose, chat and code, 1.0–1.25× for other scripts and
//! for German, French and Spanish, 1.1–1.3× for numbers and URLs and up to
//! 1.5× for hex digests; 15 of its 480 chunks come out under, by at most 8 %
//! (code with many rare identifiers, random letters), which the chunk plan's
//! safety margin ([`super::chunk::TokenBudget`]) covers: every chunk fits
//! the window. Text of another language with no accent anywhere near
//! (Dutch, Indonesian, unaccented German) is read as English and may run
//! 10–20 % under; such chunks can lose their last few tokens.
//!
//! [`token_weights`] spreads each word's estimate over its characters (in
//! [`UNIT`]ths of a token), so the chunker can price any span of the text by
//! adding weights; for a span that starts and ends on word boundaries the
//! sum is at least [`estimate_tokens`] of the span on its own (exactly it,
//! unless an accented word just outside the span makes words inside it
//! foreign).

/// Weights are in thousandths of a token, so a word's estimate can be spread
/// over its characters without rounding any span of whole words.
pub const UNIT: u64 = 1000;

/// BERT's `max_input_chars_per_word`: a longer word is one `[UNK]` token.
const MAX_WORD_CHARS: usize = 100;

/// How many words either side of a word with a Latin accent are read as
/// foreign too: about a sentence. French, Spanish, Portuguese, German or
/// Italian put an accent in one word of every five to ten, so a reach of 8
/// covers their unaccented words (`plage`, `verduras`, `morgen`), which
/// split as much as the accented ones; an English text that quotes one
/// `café` only has the words around it estimated a little high. The rule
/// only looks at words inside the text it is given, so a span estimated on
/// its own never weighs more than it does inside the whole text.
const FOREIGN_REACH: usize = 8;

/// Letter pairs common inside words: bit `b` of entry `a` is set when the
/// pair (`a`, `b`) occurs inside at least 10 of the 21,358 alphabetic whole
/// words (3+ letters) of the bert-base-uncased vocabulary that MiniLM and
/// bge share (406 of the 676 pairs). A pair outside this set is one
/// WordPiece rarely keeps inside a piece.
const COMMON_PAIRS: [u32; 26] = [
    0x3ffffff, // a
    0x11e5b1b, // b
    0x11f4d95, // c
    0x17e7bff, // d
    0x3ffffff, // e
    0x11e4931, // f
    0x11e79d1, // g
    0x15e791b, // h
    0x2bffd7f, // i
    0x0104111, // j
    0x1566991, // k
    0x13cfd7f, // l
    0x114f937, // m
    0x37fffff, // n
    0x3feffff, // o
    0x11ed991, // p
    0x0100000, // q
    0x17efdff, // r
    0x15ffdff, // s
    0x35ef9b7, // t
    0x2aefd7f, // u
    0x1004111, // v
    0x1066d91, // w
    0x018c195, // x
    0x01ef91f, // y
    0x3004111, // z
];

/// The estimated WordPiece tokens of `text`, special tokens (`[CLS]`,
/// `[SEP]`) not included.
pub fn estimate_tokens(text: &str) -> u64 {
    token_weights(text).iter().sum::<u64>().div_ceil(UNIT)
}

/// Each character's share of the estimate, in [`UNIT`]ths of a token (see
/// the module docs): 0 for white space and control characters, [`UNIT`] for
/// a punctuation mark, symbol or ideograph, and a word's estimate spread
/// evenly over its characters (the remainder on its first ones).
pub fn token_weights(text: &str) -> Vec<u64> {
    let chars: Vec<char> = text.chars().collect();
    let mut weights = vec![0u64; chars.len()];
    // The pre-tokenized words, as char ranges; separate tokens are weighed
    // on the way.
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut word_start = None;
    for (i, &c) in chars.iter().enumerate() {
        match class(c) {
            Class::Space => words.extend(word_start.take().map(|start| (start, i))),
            Class::Alone(tokens) => {
                words.extend(word_start.take().map(|start| (start, i)));
                if let Some(weight) = weights.get_mut(i) {
                    *weight = tokens * UNIT;
                }
            }
            Class::Word => {
                word_start.get_or_insert(i);
            }
        }
    }
    words.extend(word_start.map(|start| (start, chars.len())));

    // A word is read as foreign when a word with a Latin accent is near it.
    let accented: Vec<bool> = words
        .iter()
        .map(|&(start, end)| {
            chars
                .get(start..end)
                .is_some_and(|word| word.iter().any(|&c| is_accented_latin(c)))
        })
        .collect();
    for (index, &(start, end)) in words.iter().enumerate() {
        let near =
            index.saturating_sub(FOREIGN_REACH)..(index + FOREIGN_REACH + 1).min(words.len());
        let foreign = accented.get(near).is_some_and(|near| near.contains(&true));
        spread(&chars, &mut weights, start, end, foreign);
    }
    weights
}

/// How the pre-tokenizer treats a character.
enum Class {
    /// A separator that costs nothing (white space, control and format
    /// characters).
    Space,
    /// A token (or tokens) of its own: punctuation, symbols, ideographs.
    Alone(u64),
    /// Part of a word.
    Word,
}

fn class(c: char) -> Class {
    if c.is_whitespace() || c.is_control() || is_format(c) {
        Class::Space
    } else if c.is_ascii() {
        if c.is_ascii_alphanumeric() {
            Class::Word
        } else {
            Class::Alone(1)
        }
    } else if is_ideograph(c) || !c.is_alphanumeric() {
        // Non-ASCII punctuation and symbols: BERT splits off punctuation;
        // a symbol (emoji, currency) it keeps in the word but as one piece
        // (or `[UNK]`), so alone or not it costs 1.
        Class::Alone(1)
    } else {
        Class::Word
    }
}

/// Zero-width and other format characters the tokenizer drops.
fn is_format(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
}

/// The CJK ideographs BERT's pre-tokenizer makes tokens of their own.
fn is_ideograph(c: char) -> bool {
    matches!(c,
        '\u{4E00}'..='\u{9FFF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2A6DF}'
        | '\u{2A700}'..='\u{2CEAF}'
        | '\u{2F800}'..='\u{2FA1F}')
}

/// The ASCII letter a Latin letter becomes once its accent is stripped, if
/// it has one (`é` → `e`); `None` for the letters that do not decompose
/// (`ß`, `æ`, `ø`, `ł`, `œ`, …), which stay pieces of their own.
fn strip_accent(c: char) -> Option<char> {
    let base = match c.to_lowercase().next().unwrap_or(c) {
        'à'..='å' | 'ā' | 'ă' | 'ą' => 'a',
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => 'c',
        'ď' => 'd',
        'è'..='ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => 'e',
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => 'g',
        'ĥ' => 'h',
        'ì'..='ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' => 'i',
        'ĵ' => 'j',
        'ķ' => 'k',
        'ĺ' | 'ļ' | 'ľ' => 'l',
        'ñ' | 'ń' | 'ņ' | 'ň' => 'n',
        'ò'..='ö' | 'ō' | 'ŏ' | 'ő' => 'o',
        'ŕ' | 'ŗ' | 'ř' => 'r',
        'ś' | 'ŝ' | 'ş' | 'š' => 's',
        'ţ' | 'ť' => 't',
        'ù'..='ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => 'u',
        'ŵ' => 'w',
        'ý' | 'ÿ' | 'ŷ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        _ => return None,
    };
    Some(base)
}

/// Spread the estimate of the word `chars[start..end]` over its characters.
fn spread(chars: &[char], weights: &mut [u64], start: usize, end: usize, foreign: bool) {
    let Some(word) = chars.get(start..end) else {
        return;
    };
    let n = u64::try_from(word.len()).unwrap_or(u64::MAX).max(1);
    let total = word_tokens(word, foreign) * UNIT;
    let (share, remainder) = (total / n, total % n);
    for (offset, weight) in weights
        .get_mut(start..end)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let extra = u64::from(u64::try_from(offset).unwrap_or(u64::MAX) < remainder);
        *weight = share + extra;
    }
}

/// Whether `c` is a Latin letter with a diacritic, or one of the Latin
/// letters English does not use (`ß`, `æ`, `ø`, `ł`, …): a sign of a
/// non-English text.
fn is_accented_latin(c: char) -> bool {
    ('\u{00C0}'..='\u{024F}').contains(&c) && c.is_alphabetic()
}

/// The estimated pieces of one pre-tokenized word (see the module docs);
/// `foreign` when it stands near an accented word.
fn word_tokens(word: &[char], foreign: bool) -> u64 {
    if word.len() > MAX_WORD_CHARS {
        return 1;
    }
    let mut ascii = Vec::with_capacity(word.len());
    let mut other = 0u64;
    for &c in word {
        if c.is_ascii() {
            ascii.push(c.to_ascii_lowercase());
        } else if let Some(base) = strip_accent(c) {
            ascii.push(base);
        } else if ('\u{AC00}'..='\u{D7A3}').contains(&c) {
            other += 3;
        } else {
            other += 1;
        }
    }
    let length = u64::try_from(ascii.len()).unwrap_or(u64::MAX);
    let digits = u64::try_from(ascii.iter().filter(|c| c.is_ascii_digit()).count()).unwrap_or(0);
    let pieces = if ascii.is_empty() {
        0
    } else if digits == 0 {
        let letters = letter_pieces(&ascii);
        if foreign {
            letters.max((2 * length).div_ceil(5))
        } else {
            letters
        }
    } else if digits == length {
        (2 * digits).div_ceil(3)
    } else {
        length
    };
    (pieces + other).max(1)
}

/// The estimated pieces of a word of lowercase ASCII letters.
fn letter_pieces(letters: &[char]) -> u64 {
    let n = u64::try_from(letters.len()).unwrap_or(u64::MAX);
    let by_length = 1 + n.saturating_sub(5).div_ceil(3);
    let uncommon = letters
        .iter()
        .zip(letters.iter().skip(1))
        .filter(|&(&first, &second)| !common_pair(first, second))
        .count();
    by_length + u64::try_from(uncommon).unwrap_or(u64::MAX)
}

fn common_pair(a: char, b: char) -> bool {
    let index = |c: char| (c as u32).checked_sub('a' as u32).filter(|&i| i < 26);
    match (index(a), index(b)) {
        (Some(a), Some(b)) => COMMON_PAIRS
            .get(a as usize)
            .is_some_and(|row| row & (1 << b) != 0),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pre_tokenization_is_counted_exactly() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens(" \n\t\u{200B} "), 0);
        // Each punctuation mark is a token; short common words are one.
        assert_eq!(estimate_tokens("the cat, the hat."), 6);
        // Ideographs are one each, their punctuation too.
        assert_eq!(estimate_tokens("我们去公园。"), 6);
        // A Hangul syllable decomposes into 2–3 jamo pieces.
        assert_eq!(estimate_tokens("한국"), 6);
    }

    #[test]
    fn rare_words_cost_more_than_common_ones() {
        assert_eq!(estimate_tokens("house"), 1);
        assert!(
            estimate_tokens("xqzvkj") >= 5,
            "{}",
            estimate_tokens("xqzvkj")
        );
        // Long words: one more piece per three letters past five.
        assert_eq!(estimate_tokens("information"), 3);
        // Numbers split into short pieces, hashes into shorter ones.
        assert_eq!(estimate_tokens("123456"), 4);
        assert_eq!(estimate_tokens("9f86d081"), 8);
        // Accents are stripped, but accented words split more.
        assert_eq!(estimate_tokens("außergewöhnlich"), 7);
        // A word past 100 characters is a single [UNK].
        assert_eq!(estimate_tokens(&"a".repeat(101)), 1);
    }

    #[test]
    fn weights_add_up_to_the_estimate_on_word_boundaries() {
        let text = "Hello, world! 12345 abc9 — 東京 ok";
        let weights = token_weights(text);
        assert_eq!(weights.len(), text.chars().count());
        assert_eq!(weights.iter().sum::<u64>(), estimate_tokens(text) * UNIT);
        // "Hello" is 5 chars sharing one token.
        assert_eq!(weights[..5].iter().sum::<u64>(), UNIT);
        assert_eq!(weights[5], UNIT);
        assert_eq!(weights[6], 0);
    }

    #[test]
    fn words_near_an_accent_are_read_as_foreign() {
        // Unaccented Spanish words split as much as accented ones (the real
        // tokenizer: `ve ##rd ##ura ##s fr ##es ##cas`, 7). Alone, nothing
        // says they are not English (4: the limit of the estimate); next to
        // `mañana` (`mana ##na`, 9 in all) they are read as foreign.
        assert_eq!(estimate_tokens("verduras frescas"), 4);
        assert_eq!(estimate_tokens("mañana verduras frescas"), 3 + 4 + 3);
        // Only within reach: the ninth word after the accent is English again.
        let far = format!("mañana {} verduras", "a ".repeat(FOREIGN_REACH));
        assert_eq!(estimate_tokens(&far), 3 + FOREIGN_REACH as u64 + 2);
        // A span on its own never weighs more than inside its text.
        let text = "Nous irons à la plage demain matin si le temps le permet.";
        let weights = token_weights(text);
        let start = text.find("plage").unwrap_or(0);
        let inside: u64 = weights[text[..start].chars().count()..].iter().sum();
        assert!(estimate_tokens(&text[start..]) * UNIT <= inside);
    }
}
