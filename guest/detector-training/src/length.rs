//! Whether a text's length moves its verdict, and the correction that keeps
//! it from doing so.
//!
//! A long text is screened in many windows and scored by its worst
//! ([`hive_mind_core::detector::screen`]), so with a threshold chosen on
//! texts of one window, every extra window is one more chance of a false
//! alarm: a long, ordinary assistant answer is likelier to be quarantined
//! than a short one. The engine therefore raises the bar with the number
//! of windows that could be the worst by chance: a text whose `k` windows
//! score above the benign windows' median is hostile when its worst
//! window's log-odds reach the threshold's plus `slope · ln 2k` (at most
//! `ln n`; [`hive_mind_core::detector::model::WindowTally`] gives the
//! reasoning: an ordinary text has `k ≈ n / 2`, a lone instruction in a
//! cold carrier `k` of one or two).
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
//! The median ([`fit_median`]) is read off the same windows.
//!
//! **Measured, not assumed.** [`study`] builds long texts out of held-out
//! validation rows — benign rows of one source joined, and the same with
//! one hostile row set in the middle; and cold carriers, benign rows none
//! of whose windows pass the median joined around one ordinary or one
//! hostile row — and reports false alarms and catches by length, with no
//! correction, with the slope on every window, and with it on the windows
//! above the median (`models/injection-detector/VALIDATION.md`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use hive_mind_core::detector::model::{Model, WindowTally, log_odds};
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

/// The median of `benign` window scores: the score a window must pass to
/// count towards the length slope. 0 (every window counts) when there are
/// none.
pub fn fit_median(benign: &[f64]) -> f64 {
    let mut scores: Vec<f64> = benign.to_vec();
    if scores.is_empty() {
        return 0.0;
    }
    // The middle element, selected rather than sorted: the slope sorts its
    // own copy, in log-odds, already.
    let middle = scores.len() / 2;
    *scores.select_nth_unstable_by(middle, f64::total_cmp).1
}

/// The length correction read off `rows`' benign windows under `model`:
/// the slope ([`fit_slope`]) and the median ([`fit_median`]), as the model
/// file stores them.
pub fn fit(model: &Model, rows: &[Row]) -> (f32, f32) {
    let benign = benign_window_scores(model, rows);
    (fit_slope(&benign) as f32, fit_median(&benign) as f32)
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
    tally: WindowTally,
    score: f64,
    hostile: bool,
    cold: bool,
}

/// Long texts built from `validation`: for each length of [`LENGTHS`],
/// each source's benign rows joined that many at a time, and each hostile
/// row set in the middle of as many benign rows of one source less one;
/// then the same rows, ordinary and hostile, set among the cold benign
/// rows (none of whose windows passes the median).
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
    let cold_rows: Vec<&str> = benign
        .iter()
        .copied()
        .filter(|text| worst_window(model, text).2.above_median == 0)
        .collect();
    let mut out = Vec::new();
    let mut judge = |parts: &[&str], rows: usize, is_hostile: bool, cold: bool| {
        let text = parts.join("\n\n");
        let (score, _, tally) = worst_window(model, &text);
        out.push(LongText {
            rows,
            tally,
            score,
            hostile: is_hostile,
            cold,
        });
    };
    for &rows in &LENGTHS {
        for texts in by_source.values() {
            for parts in texts.chunks_exact(rows) {
                judge(parts, rows, false, false);
            }
        }
        for (index, attack) in hostile.iter().enumerate() {
            if let Some(parts) = among(&benign, attack, index, rows) {
                judge(&parts, rows, true, false);
            }
        }
        if rows == 1 {
            continue;
        }
        // One row in a cold carrier: benign rows at a stride (about as many
        // as there are hostile rows), and every hostile row.
        let step = (benign.len() / hostile.len().max(1)).max(1);
        for (index, row) in benign.iter().step_by(step).enumerate() {
            if let Some(parts) = among(&cold_rows, row, index, rows) {
                judge(&parts, rows, false, true);
            }
        }
        for (index, attack) in hostile.iter().enumerate() {
            if let Some(parts) = among(&cold_rows, attack, index, rows) {
                judge(&parts, rows, true, true);
            }
        }
    }
    out
}

/// `row` set in the middle of `rows - 1` rows of `carrier`, chosen by
/// `index`; `None` for an empty carrier.
fn among<'t>(carrier: &[&'t str], row: &'t str, index: usize, rows: usize) -> Option<Vec<&'t str>> {
    if carrier.is_empty() {
        return None;
    }
    let mut parts: Vec<&str> = (0..rows.saturating_sub(1))
        .filter_map(|offset| {
            carrier
                .get((index * 7 + offset * 13) % carrier.len())
                .copied()
        })
        .collect();
    parts.insert(parts.len() / 2, row);
    Some(parts)
}

/// How a long text's bar is raised, in the study's three columns.
#[derive(Clone, Copy)]
enum Correction {
    /// Not at all: every text meets the one-window threshold.
    None,
    /// By the slope on every window (the engine before the median).
    EveryWindow,
    /// By the slope on the windows above the median (the engine's).
    AboveMedian,
}

/// The study's tables as Markdown, ordinary texts and then cold
/// carriers: per length, the mean windows read and counted, the benign
/// texts flagged and the hostile ones caught, with no length correction,
/// with the slope on every window, and with it on the windows above the
/// median.
pub fn study(model: &Model, validation: &[Row]) -> String {
    let texts = long_texts(model, validation);
    let mut out = String::new();
    for (cold, title) in [
        (
            false,
            "Ordinary texts: benign rows of one source joined; one hostile row set among benign ones.",
        ),
        (
            true,
            "Cold carriers: one benign or one hostile row set among benign rows none of whose windows passes the median.",
        ),
    ] {
        let _ = writeln!(out, "{title}\n");
        let _ = writeln!(
            out,
            "| rows joined | mean windows | mean counted | benign texts | flagged, no correction | flagged, slope on every window | flagged, slope above the median | hostile texts | caught, no correction | caught, slope on every window | caught, slope above the median |"
        );
        let _ = writeln!(
            out,
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for &rows in &LENGTHS {
            let of: Vec<&LongText> = texts
                .iter()
                .filter(|text| text.rows == rows && text.cold == cold)
                .collect();
            if of.is_empty() {
                continue;
            }
            let benign: Vec<&LongText> = of.iter().copied().filter(|text| !text.hostile).collect();
            let hostile: Vec<&LongText> = of.iter().copied().filter(|text| text.hostile).collect();
            let mean = |value: fn(&LongText) -> usize| {
                of.iter().map(|text| value(text) as f64).sum::<f64>() / of.len() as f64
            };
            let count = |set: &[&LongText], correction: Correction| {
                set.iter()
                    .filter(|text| {
                        let tally = match correction {
                            Correction::None => WindowTally::ONE,
                            Correction::EveryWindow => WindowTally {
                                windows: text.tally.windows,
                                above_median: text.tally.windows,
                            },
                            Correction::AboveMedian => text.tally,
                        };
                        text.score >= model.threshold_for(tally)
                    })
                    .count()
            };
            let share = |set: &[&LongText], correction| {
                crate::report::percent(count(set, correction), set.len())
            };
            let _ = writeln!(
                out,
                "| {rows} | {:.1} | {:.1} | {} | {} | {} | {} | {} | {} | {} | {} |",
                mean(|text| text.tally.windows),
                mean(|text| text.tally.counted()),
                benign.len(),
                share(&benign, Correction::None),
                share(&benign, Correction::EveryWindow),
                share(&benign, Correction::AboveMedian),
                hostile.len(),
                share(&hostile, Correction::None),
                share(&hostile, Correction::EveryWindow),
                share(&hostile, Correction::AboveMedian),
            );
        }
        let _ = writeln!(out);
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

    #[test]
    fn the_median_is_the_middle_benign_window() {
        assert_eq!(fit_median(&[0.9, 0.1, 0.3, 0.2, 0.5]), 0.3);
        assert_eq!(fit_median(&[]), 0.0);
    }
}
