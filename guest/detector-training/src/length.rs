//! Whether a text's length moves its verdict, and the correction that keeps
//! it from doing so.
//!
//! A long text is screened in many windows and scored by its worst
//! ([`hive_mind_core::detector::screen`]), so with a threshold chosen on
//! texts of one window, every extra window is one more chance of a false
//! alarm: a long, ordinary assistant answer is likelier to be quarantined
//! than a short one. The engine therefore raises the bar with the number
//! of windows: a text of `n` windows is hostile when its worst window's
//! log-odds reach the threshold's plus `slope · ln n`
//! ([`hive_mind_core::detector::model::Model::length_slope`]).
//!
//! **Why `ln n`.** Beyond the threshold, the benign windows' log-odds fall
//! off about exponentially, `P(l > x) ≈ c · e^(−x/β)`. The worst of `n`
//! independent windows passes `x` about `n` times as often, and `x + β ln n`
//! brings that back to the one-window rate. [`fit_slope`] reads `β` off the
//! benign calibration rows (the mean excess over the tail's start, the
//! exponential's maximum-likelihood scale). The count stops at
//! [`hive_mind_core::detector::model::MAX_PENALISED_WINDOWS`]: a text that
//! repeats an attack on every page must not pass for being long.
//!
//! **Measured, not assumed.** [`study`] builds long texts out of held-out
//! validation rows — benign rows of one source joined, and the same with
//! one hostile row set in the middle — and reports false alarms and
//! catches by length, with and without the correction
//! (`models/injection-detector/VALIDATION.md`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use hive_mind_core::detector::model::{Model, log_odds};
use hive_mind_core::detector::{windows, worst_window};

use crate::corpus::Row;

/// The share of benign calibration windows, highest first, whose excess
/// over the lowest of them estimates the tail's scale.
const TAIL_SHARE: f64 = 0.10;

/// How many rows a long text is built from, per length studied.
pub const LENGTHS: [usize; 6] = [1, 2, 4, 8, 16, 32];

/// The exponential scale of the benign scores' upper tail, in log-odds:
/// the mean excess of the highest [`TAIL_SHARE`] of `benign` scores over
/// the next one. 0 when there are too few to say.
pub fn fit_slope(benign: &[f64]) -> f64 {
    let mut logits: Vec<f64> = benign.iter().map(|&s| log_odds(s)).collect();
    logits.sort_by(|a, b| b.total_cmp(a));
    let tail = ((logits.len() as f64) * TAIL_SHARE).floor() as usize;
    let Some(&start) = logits.get(tail) else {
        return 0.0;
    };
    if tail < 10 {
        return 0.0;
    }
    let excess: f64 = logits.iter().take(tail).map(|l| l - start).sum::<f64>() / tail as f64;
    excess.max(0.0)
}

/// The score of every window of every benign row of `rows`: what the
/// length slope is read from.
pub fn benign_window_scores(model: &Model, rows: &[Row]) -> Vec<f64> {
    rows.iter()
        .filter(|row| row.label == 0)
        .flat_map(|row| windows(&row.text))
        .map(|window| model.score(window))
        .collect()
}

/// One long text's verdict inputs.
struct LongText {
    rows: usize,
    windows: usize,
    score: f64,
    hostile: bool,
}

/// Long texts built from `validation`: for each length of [`LENGTHS`],
/// each source's benign rows joined that many at a time, and each hostile
/// row set in the middle of as many benign rows of one source less one.
fn long_texts(model: &Model, validation: &[Row]) -> Vec<LongText> {
    let mut by_source: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for row in validation.iter().filter(|row| row.label == 0) {
        by_source
            .entry(row.source.as_str())
            .or_default()
            .push(row.text.as_str());
    }
    let benign: Vec<&str> = by_source.values().flatten().copied().collect();
    let hostile: Vec<&str> = validation
        .iter()
        .filter(|row| row.label == 1)
        .map(|row| row.text.as_str())
        .collect();
    let mut out = Vec::new();
    let mut judge = |parts: &[&str], rows: usize, is_hostile: bool| {
        let text = parts.join("\n\n");
        let (score, _, windows) = worst_window(model, &text);
        out.push(LongText {
            rows,
            windows,
            score,
            hostile: is_hostile,
        });
    };
    for &rows in &LENGTHS {
        for texts in by_source.values() {
            for parts in texts.chunks_exact(rows) {
                judge(parts, rows, false);
            }
        }
        if benign.is_empty() {
            continue;
        }
        for (index, attack) in hostile.iter().enumerate() {
            let mut parts: Vec<&str> = (0..rows - 1)
                .filter_map(|offset| {
                    benign
                        .get((index * 7 + offset * 13) % benign.len())
                        .copied()
                })
                .collect();
            parts.insert(parts.len() / 2, attack);
            judge(&parts, rows, true);
        }
    }
    out
}

/// The study's table as Markdown: per length, the mean windows, the
/// benign texts flagged and the hostile ones caught, without and with the
/// length correction.
pub fn study(model: &Model, validation: &[Row]) -> String {
    let texts = long_texts(model, validation);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| rows joined | mean windows | benign texts | flagged, worst window alone | flagged, with the length slope | hostile texts | caught, worst window alone | caught, with the length slope |"
    );
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &rows in &LENGTHS {
        let of: Vec<&LongText> = texts.iter().filter(|text| text.rows == rows).collect();
        let benign: Vec<&&LongText> = of.iter().filter(|text| !text.hostile).collect();
        let hostile: Vec<&&LongText> = of.iter().filter(|text| text.hostile).collect();
        let mean_windows =
            of.iter().map(|text| text.windows as f64).sum::<f64>() / of.len().max(1) as f64;
        // Without the slope every text meets the one-window threshold.
        let count = |set: &[&&LongText], sloped: bool| {
            set.iter()
                .filter(|text| {
                    let windows = if sloped { text.windows } else { 1 };
                    text.score >= model.threshold_for(windows)
                })
                .count()
        };
        let _ = writeln!(
            out,
            "| {rows} | {mean_windows:.1} | {} | {} | {} | {} | {} | {} |",
            benign.len(),
            crate::report::percent(count(&benign, false), benign.len()),
            crate::report::percent(count(&benign, true), benign.len()),
            hostile.len(),
            crate::report::percent(count(&hostile, false), hostile.len()),
            crate::report::percent(count(&hostile, true), hostile.len()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slope_is_the_exponential_tails_scale() {
        // Log-odds 0.0, 0.1, …, 9.9: the top tenth (9.0 to 9.9) exceeds the
        // next, 8.9, by 0.55 on average.
        let scores: Vec<f64> = (0..100)
            .map(|i| 1.0 / (1.0 + (-f64::from(i) / 10.0).exp()))
            .collect();
        let slope = fit_slope(&scores);
        assert!((slope - 0.55).abs() < 1e-6, "{slope}");
        assert_eq!(fit_slope(&[0.1, 0.2]), 0.0);
    }
}
