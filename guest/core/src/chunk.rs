//! Paragraph chunking with overlap and absolute offsets.

use serde::{Deserialize, Serialize};

use crate::types::Chunk;

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
        ChunkOptions { max_chars: 2000, overlap: 200, min_chars: 1500 }
    }
}

/// Split `text` into overlapping paragraph chunks.
pub fn chunk_text(text: &str, options: &ChunkOptions) -> Vec<Chunk> {
    unimplemented!("{text}{options:?}")
}
