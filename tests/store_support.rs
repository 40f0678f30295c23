//! Shared helpers of the store tests: a temporary data directory, the fake
//! embedder (hash of words → unit vector; no semantics), and frames embedded
//! with it.
#![allow(dead_code, clippy::unwrap_used)]

use hive_mind_host::store::cli::embed_frame;
use hive_mind_host::store::{
    FakeHashVectorSource, Mind, Minds, NewFrame, StoreConfig, VectorSource,
};

/// The fake embedder's dimension in tests (small keeps the files small).
pub const DIM: u32 = 16;

/// The fake embedder.
pub fn fake() -> FakeHashVectorSource {
    FakeHashVectorSource::new(DIM)
}

/// A config whose active embedder is the fake.
pub fn config() -> StoreConfig {
    StoreConfig {
        embedder: Some(fake().fingerprint()),
    }
}

/// Minds in a fresh temporary directory (kept alive by the returned guard).
pub fn minds() -> (tempfile::TempDir, Minds) {
    let dir = tempfile::tempdir().unwrap();
    let minds = Minds::open(dir.path(), config()).unwrap();
    (dir, minds)
}

/// A frame for `mind` with its fake vectors (and chunk vectors).
pub fn frame(mind: &Mind, content: &str) -> NewFrame {
    embed_frame(&fake(), NewFrame::new(mind.clone(), content, Vec::new())).unwrap()
}

/// A long text that chunks into several chunks.
pub fn long_text(tag: &str) -> String {
    (0..6)
        .map(|n| {
            format!("Paragraph {n} about {tag}. ")
                + &"The ledger keeps every posting balanced and auditable. ".repeat(8)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}
