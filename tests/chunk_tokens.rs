//! The guest's token estimate against the real MiniLM tokenizer.
//!
//! The engine plans chunks by an estimate of WordPiece tokens
//! (`hive_mind_core::tokens`), because the guest has no tokenizer. The
//! estimate must lean high — an under-estimate means the tail of a chunk is
//! never embedded — without being so high that chunks come out needlessly
//! short. This test cuts a varied set of texts (prose, chat, Markdown, Rust,
//! numbers, URLs, hashes, six languages, emoji) with the 256-token plan and
//! tokenizes every chunk with the shipped model's own `tokenizer.json`:
//!
//! - every chunk fits the window, special tokens included (the point);
//! - the estimate is at least the real count for nearly every chunk (the
//!   plan's 10 % safety margin covers the rest), and on average not more
//!   than 1.6× it in any kind of text (hex digests, the densest, are 1.5×);
//! - the old 2,000-character plan did not fit: some of its prose chunks ran
//!   past the window.
//!
//! `cargo nextest run -p hive-mind-host --test end_to_end chunk_tokens
//! --no-capture` prints the ratio per kind of text.

use std::path::Path;

use hive_mind_core::{ChunkOptions, TokenBudget, chunk_text, chunk_tokens, estimate_tokens};
use tokenizers::Tokenizer;

use crate::support::workspace;

/// The window of all-MiniLM-L6-v2, special tokens included.
const WINDOW: u32 = 256;

fn tokenizer() -> Tokenizer {
    let path = workspace().join("models/all-MiniLM-L6-v2/tokenizer.json");
    let mut tokenizer = Tokenizer::from_file(&path).unwrap();
    // The file pads to 128 and truncates; count the whole text.
    tokenizer.with_padding(None);
    tokenizer.with_truncation(None).unwrap();
    tokenizer
}

/// Tokens of `text` with `[CLS]` and `[SEP]`.
fn real_tokens(tokenizer: &Tokenizer, text: &str) -> usize {
    tokenizer.encode(text, true).unwrap().get_ids().len()
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(workspace().join(Path::new(relative))).unwrap()
}

/// A deterministic stream of pseudo-random numbers (a 64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn pick(&mut self, alphabet: &[u8]) -> char {
        alphabet[(self.next() as usize) % alphabet.len()] as char
    }

    fn word(&mut self, alphabet: &[u8], length: usize) -> String {
        (0..length).map(|_| self.pick(alphabet)).collect()
    }
}

/// The texts, by kind.
fn corpus() -> Vec<(&'static str, String)> {
    let mut rng = Lcg(13);
    let lower = b"abcdefghijklmnopqrstuvwxyz";
    let base64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let numbers: Vec<String> = (0..900)
        .map(|_| {
            let digits = 1 + (rng.next() % 12) as u32;
            (rng.next() % 10u64.pow(digits)).to_string()
        })
        .collect();
    let urls: Vec<String> = (0..200)
        .map(|_| {
            format!(
                "https://example.com/{}/{}?q={}&id={:x}",
                rng.word(lower, 8),
                rng.next() % 10_000,
                rng.word(lower, 3),
                rng.next()
            )
        })
        .collect();
    let hashes: Vec<String> = (0..200)
        .map(|_| format!("{:016x}{:016x}", rng.next() << 31 ^ rng.next(), rng.next()))
        .collect();
    let tokens: Vec<String> = (0..120).map(|_| rng.word(base64, 40)).collect();
    let identifiers: Vec<String> = (0..800)
        .map(|_| {
            let length = 3 + (rng.next() % 12) as usize;
            rng.word(lower, length)
        })
        .collect();
    vec![
        ("docs (ARCHITECTURE.md)", read("ARCHITECTURE.md")),
        ("docs (README.md)", read("README.md")),
        ("rust (chunk.rs)", read("guest/core/src/chunk.rs")),
        ("rust (frames.rs)", read("guest/store/src/frames.rs")),
        (
            "letter",
            read("guest/harvest/tests/fixtures/text/letter.txt"),
        ),
        (
            "markdown notes",
            read("guest/harvest/tests/fixtures/markdown/garden-notes.md"),
        ),
        (
            "chat (ChatGPT export)",
            read("guest/harvest/tests/fixtures/chatgpt/conversations.json"),
        ),
        (
            "multilingual",
            read("guest/core/tests/fixtures/injection/ordinary_multilingual.txt")
                + &read("guest/core/tests/fixtures/injection/hostile_multilingual.txt"),
        ),
        ("numbers", numbers.join(" ")),
        ("urls", urls.join(" ")),
        ("hex digests", hashes.join(" ")),
        ("base64", tokens.join(" ")),
        ("random identifiers", identifiers.join(" ")),
        (
            "chinese, japanese, korean",
            "我们今天去公园散步，天气很好。東京は日本の首都です。서울은 한국의 수도입니다。\n\n"
                .repeat(30),
        ),
        (
            "russian",
            "Москва — столица России, крупнейший по численности населения город страны. "
                .repeat(40),
        ),
        (
            "greek, arabic",
            "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας. القاهرة هي عاصمة مصر. ".repeat(40),
        ),
        (
            "german",
            "Die Donaudampfschifffahrtsgesellschaft ist außergewöhnlich alt, während \
             Übermäßigkeit schädlich ist. Wir treffen uns morgen früh am Bahnhof. "
                .repeat(30),
        ),
        (
            "french, spanish",
            "Nous irons à la plage demain matin si le temps le permet. Mañana iremos \
             al mercado para comprar frutas y verduras frescas. "
                .repeat(30),
        ),
        ("emoji", "I love it 🚀🔥 so much 😀 really ✨✨ ".repeat(80)),
    ]
}

#[test]
fn chunks_planned_by_the_estimate_fit_the_real_tokenizer() {
    let tokenizer = tokenizer();
    let budget = TokenBudget::for_window(WINDOW);
    let mut chunks_seen = 0usize;
    let mut under = Vec::new();
    println!("kind                         chunks  estimate/real: min  mean   max");
    for (kind, text) in corpus() {
        let chunks = chunk_tokens(&text, &budget);
        assert!(!chunks.is_empty(), "{kind}");
        let mut ratios = Vec::new();
        for chunk in &chunks {
            let real = real_tokens(&tokenizer, &chunk.text);
            assert!(
                real <= WINDOW as usize,
                "{kind}: a chunk of {real} tokens does not fit the window: {:?}",
                chunk.text
            );
            let content = real - 2;
            let estimate = estimate_tokens(&chunk.text) as usize;
            if estimate < content {
                under.push((kind, estimate, content));
            }
            if content > 0 {
                ratios.push(estimate as f64 / content as f64);
            }
        }
        chunks_seen += chunks.len();
        let min = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let max = ratios.iter().copied().fold(0.0, f64::max);
        let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
        println!(
            "{kind:28} {:6}  {min:17.2}  {mean:.2}  {max:.2}",
            chunks.len()
        );
        assert!(
            mean <= 1.6,
            "{kind}: the estimate is {mean:.2}× the real count"
        );
    }
    println!(
        "{} of {chunks_seen} chunks under-estimated: {under:?}",
        under.len()
    );
    // Nearly all: at most one chunk in twenty, and never by more than the
    // safety margin (which the window assertion above already shows).
    assert!(
        under.len() * 20 <= chunks_seen,
        "{} of {chunks_seen} chunks under-estimated: {under:?}",
        under.len()
    );
}

#[test]
fn the_old_2000_character_plan_ran_past_the_window() {
    let tokenizer = tokenizer();
    let text = read("ARCHITECTURE.md");
    let legacy = chunk_text(&text, &ChunkOptions::default());
    let longest = legacy
        .iter()
        .map(|chunk| real_tokens(&tokenizer, &chunk.text))
        .max()
        .unwrap();
    assert!(longest > WINDOW as usize, "{longest}");
    let planned = chunk_tokens(&text, &TokenBudget::for_window(WINDOW));
    assert!(planned.len() > legacy.len());
}
