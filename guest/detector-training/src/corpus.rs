//! The corpus: labelled texts with their slice, language, source and split.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

/// One labelled text.
#[derive(Debug, Clone, Deserialize)]
pub struct Row {
    /// The text.
    pub text: String,
    /// 1: an attempt to instruct or hijack an agent; 0: benign.
    pub label: u8,
    /// What kind of text (`direct`, `indirect-email`, `chat`, …).
    pub slice: String,
    /// Its language (ISO 639-1).
    pub lang: String,
    /// The source's id in `data/SOURCES.md`.
    pub source: String,
    /// `train` or `val`.
    pub split: String,
    /// The group its split was decided by (a wrapper template, a dialogue,
    /// a document): calibration rows are held back by group too.
    pub group: String,
}

impl Row {
    /// Whether this is an ordinary conversation turn (the slices no false
    /// alarm is acceptable on).
    pub fn is_conversation(&self) -> bool {
        self.label == 0 && self.slice.starts_with("chat")
    }
}

/// Read the corpus, refusing a row without a 0/1 label or a known split.
pub fn load(path: &Path) -> Result<Vec<Row>> {
    let file = std::fs::File::open(path)?;
    let reader = BufReader::new(flate2::read::GzDecoder::new(file));
    let mut rows = Vec::new();
    for (number, line) in reader.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let row: Row =
            serde_json::from_str(&line).with_context(|| format!("line {}", number + 1))?;
        if row.label > 1 || !["train", "val"].contains(&row.split.as_str()) {
            bail!(
                "line {}: label {} split {:?}",
                number + 1,
                row.label,
                row.split
            );
        }
        rows.push(row);
    }
    Ok(rows)
}

/// The three parts the trainer uses.
pub struct Split {
    /// Fitted on.
    pub train: Vec<Row>,
    /// The threshold is chosen on these.
    pub calibration: Vec<Row>,
    /// Reported on, never fitted or calibrated on.
    pub validation: Vec<Row>,
}

impl Split {
    /// Sort rows into the three parts, leaving out the rows of a language
    /// the corpus has no benign text in (the model would learn the
    /// language itself as the attack, and flag every ordinary text in it).
    pub fn of(rows: Vec<Row>) -> (Split, Vec<String>) {
        let benign: BTreeSet<&str> = rows
            .iter()
            .filter(|row| row.label == 0)
            .map(|row| row.lang.as_str())
            .collect();
        let left_out: BTreeSet<String> = rows
            .iter()
            .filter(|row| !benign.contains(row.lang.as_str()))
            .map(|row| row.lang.clone())
            .collect();
        let mut split = Split {
            train: Vec::new(),
            calibration: Vec::new(),
            validation: Vec::new(),
        };
        for row in rows {
            if left_out.contains(&row.lang) {
                continue;
            }
            if row.split == "val" {
                split.validation.push(row);
            } else if fnv(row.group.as_bytes()).is_multiple_of(crate::CALIBRATION_ONE_IN) {
                split.calibration.push(row);
            } else {
                split.train.push(row);
            }
        }
        (split, left_out.into_iter().collect())
    }
}

/// FNV-1a, 64-bit: a stable hash of a row's group (or text).
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
