//! Row by row scores for studies (`--scores-out`): what the detector made
//! of each held-out and measured row, to set another detector beside it
//! on the same folds and sets (`data/vector_head_study.py`).

use hive_mind_core::detector::model::{Model, log_odds};
use hive_mind_core::detector::{loudest_sentence, worst_window};
use serde::Serialize;

/// One row's score, in log-odds above the threshold it met.
#[derive(Debug, Serialize)]
pub struct RowScore {
    /// Where it was scored: `held-out:<origin>` (by that fold's model),
    /// `measure:<file>` or `corpus` (by the shipped model).
    pub set: String,
    /// FNV-1a of the text's bytes, to join the row with other scores.
    pub text_fnv: String,
    /// 1: hostile; 0: benign.
    pub label: u8,
    /// Its worst window's score in log-odds, less the threshold's for its
    /// window count.
    pub above_threshold: f64,
    /// The sentence of its worst window the model scores highest: what a
    /// second reader of the text's meaning would read.
    pub loudest: String,
}

impl RowScore {
    /// `text` scored by `model` against `threshold` (for one window; the
    /// model's length slope raises it for more).
    pub fn of(model: &Model, threshold: f64, set: &str, text: &str, label: u8) -> RowScore {
        let (score, window, tally) = worst_window(model, text);
        RowScore {
            set: set.to_string(),
            text_fnv: format!("{:016x}", crate::corpus::fnv(text.as_bytes())),
            label,
            above_threshold: log_odds(model.one_window_score(score, tally)) - log_odds(threshold),
            loudest: loudest_sentence(model, window).unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_scored_in_log_odds_above_its_threshold_with_its_loudest_sentence() {
        // The bias alone: log-odds 2 against a bar of 0.5 (log-odds 0),
        // and against 0.88 (log-odds 2) exactly at it.
        let model = Model::new(4, 2.0, 1.0, 0.5, vec![0; 16]);
        let score = RowScore::of(&model, 0.5, "corpus", "Lunch at noon? Fine.", 0);
        assert_eq!(score.set, "corpus");
        assert_eq!(score.label, 0);
        assert!((score.above_threshold - 2.0).abs() < 1e-6, "{score:?}");
        assert_eq!(
            score.text_fnv,
            format!("{:016x}", crate::corpus::fnv(b"Lunch at noon? Fine."))
        );
        assert!(!score.loudest.is_empty());
        let level = RowScore::of(&model, 1.0 / (1.0 + (-2f64).exp()), "corpus", "x", 1);
        assert!(level.above_threshold.abs() < 1e-6, "{level:?}");
    }
}
