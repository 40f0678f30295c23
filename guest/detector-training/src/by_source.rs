//! Validation by held-out source: what the detector does on text from a
//! public source it never saw, the way a judge with its own corpus
//! measures it.
//!
//! The corpus's own split holds out wrapper templates, goals and
//! documents, but every source is on both sides of it, so the model has
//! seen each source's style. Here each public origin in turn
//! ([`ORIGINS`]) is taken out of everything: the fit, the length slope
//! and the threshold are made without any row of it (rows that mix it
//! into a template go with it), and all of its rows are then scored. The
//! figures per origin and language are at that fold's own threshold,
//! chosen on the fold's calibration rows; the pooled line puts every
//! origin's held-out scores together and reads them at 1 % false alarms.
//!
//! The shipped threshold is chosen here ([`BySource::margin`]): where the
//! held-out origins' benign rows are flagged at 1 % averaged over the
//! origins, read relative to each fold's calibration threshold, and
//! carried over to the shipped model's. A threshold chosen on calibration
//! rows holds its rate on the sources it was fitted on; on a source never
//! seen it flagged several times as much, which is what a user importing
//! their own texts meets.
//!
//! The project's own templates (`hive-mind-synthetic`) are not a fold:
//! they are in nearly every hostile row.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use hive_mind_core::detector::model::{log_odds, sigmoid};

use crate::corpus::{Row, Split};
use crate::fit::{self, Example};
use crate::report::{self, Scored};
use crate::scores::RowScore;
use crate::{BITS, EPOCHS, SEED, TARGET_FALSE_ALARMS, length};

/// The public origins held out in turn: a source id, or a prefix ending
/// in `-` for a family (the Universal Dependencies treebanks, one per
/// language).
pub const ORIGINS: &[&str] = &[
    "spikee",
    "jailbreakbench",
    "multijail",
    "sgd",
    "awesome-chatgpt-prompts",
    "llm-guard-docs",
    "owasp-llm-top10",
    "ud-",
    "agentdojo",
    "chatterbot-corpus",
    "spam-assassin",
    "sotu",
];

/// Whether `row` holds text of `origin` (alone or mixed into a template).
fn from_origin(row: &Row, origin: &str) -> bool {
    row.source
        .split('+')
        .any(|part| part == origin || (origin.ends_with('-') && part.starts_with(origin)))
}

/// Caught and flagged counts of `rows` at `threshold`.
fn tally(rows: &[&Scored], threshold: f64) -> (usize, usize, usize, usize) {
    let hostile = rows.iter().filter(|r| r.hostile).count();
    let caught = rows
        .iter()
        .filter(|r| r.hostile && r.score >= threshold)
        .count();
    let benign = rows.len() - hostile;
    let flagged = rows
        .iter()
        .filter(|r| !r.hostile && r.score >= threshold)
        .count();
    (hostile, caught, benign, flagged)
}

/// "caught of hostile (percent)", or "–" when there are none.
fn share(part: usize, whole: usize) -> String {
    if whole == 0 {
        "–".to_string()
    } else {
        format!("{part} of {whole} ({})", report::percent(part, whole))
    }
}

/// What validation by held-out source found.
pub struct BySource {
    /// The figures, as Markdown (`BY-SOURCE.md`).
    pub markdown: String,
    /// How far, in log-odds, a threshold chosen on calibration rows must
    /// move for the benign rows of sources never seen to be flagged at
    /// [`HELD_OUT_FALSE_ALARMS`] averaged over the origins (each weighing
    /// the same): positive raises it. Each fold's scores are read relative
    /// to that fold's own calibration threshold, so the margin carries
    /// over to the shipped model's.
    pub margin: f64,
    /// Every held-out row's score, in log-odds above its fold's threshold
    /// (`--scores-out`): for studies that set another detector beside
    /// this one on the same folds.
    pub held_out: Vec<RowScore>,
}

/// The false-alarm rate, averaged over the held-out origins' benign rows,
/// the shipped threshold is chosen for: the goal on sources held
/// out from training.
pub const HELD_OUT_FALSE_ALARMS: f64 = 0.01;

/// Fit without each origin, score it, and write the figures as Markdown;
/// and the margin the threshold needs on sources never seen.
/// `examples` are the featurised `split.train` rows, in order.
pub fn report(split: &Split, examples: &[Example]) -> BySource {
    let mut out = String::new();
    let _ = writeln!(out, "# Injection detector: validation by held-out source\n");
    let _ = writeln!(
        out,
        "Written by `cargo run --release -p hive-mind-detector-training -- --by-source` (do not \
         edit by hand). Each origin is left out of the fit, the length slope and the \
         threshold (`guest/detector-training/src/by_source.rs`); all of its rows are then \
         scored at that fold's threshold.\n"
    );
    let _ = writeln!(
        out,
        "| held-out origin | language | threshold | hostile caught | benign flagged |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|");
    let mut pooled: Vec<Scored> = Vec::new();
    let mut benign_by_origin: Vec<Vec<f64>> = Vec::new();
    let mut held_out = Vec::new();
    for origin in ORIGINS {
        let kept: Vec<&Example> = split
            .train
            .iter()
            .zip(examples)
            .filter(|(row, _)| !from_origin(row, origin))
            .map(|(_, example)| example)
            .collect();
        let weights = fit::fit(&kept, BITS, EPOCHS, SEED);
        let unthresholded = fit::quantise(&weights, BITS, 0.5);
        let calibration: Vec<Row> = split
            .calibration
            .iter()
            .filter(|row| !from_origin(row, origin))
            .cloned()
            .collect();
        let (slope, median) = length::fit(&unthresholded, &calibration);
        let model = unthresholded.with_length_slope(slope, median);
        let threshold =
            report::choose_threshold(&report::scored(&model, &calibration), TARGET_FALSE_ALARMS);
        let held: Vec<Row> = split
            .train
            .iter()
            .chain(&split.calibration)
            .chain(&split.validation)
            .filter(|row| from_origin(row, origin))
            .cloned()
            .collect();
        let scored = report::scored(&model, &held);
        let set = format!("held-out:{origin}");
        held_out.extend(
            held.iter()
                .map(|row| RowScore::of(&model, threshold, &set, &row.text, row.label)),
        );
        let mut by_language: BTreeMap<&str, Vec<&Scored>> = BTreeMap::new();
        for row in &scored {
            by_language.entry(row.lang.as_str()).or_default().push(row);
        }
        let all: Vec<&Scored> = scored.iter().collect();
        let mut line = |language: &str, rows: &[&Scored]| {
            let (hostile, caught, benign, flagged) = tally(rows, threshold);
            let _ = writeln!(
                out,
                "| {origin} | {language} | {threshold:.4} | {} | {} |",
                share(caught, hostile),
                share(flagged, benign)
            );
        };
        line("all", &all);
        if by_language.len() > 1 {
            for (language, rows) in &by_language {
                line(language, rows);
            }
        }
        eprintln!("held out {origin}: {} rows", held.len());
        // Each fold's scores are brought to its own threshold's scale
        // (log-odds relative to it), so the pool reads one scale.
        let shift = log_odds(threshold);
        let rescaled: Vec<Scored> = scored
            .into_iter()
            .map(|row| {
                let score = sigmoid(log_odds(row.score) - shift);
                row.with_score(score)
            })
            .collect();
        let benign: Vec<f64> = rescaled
            .iter()
            .filter(|row| !row.hostile)
            .map(|row| row.score)
            .collect();
        if !benign.is_empty() {
            benign_by_origin.push(benign);
        }
        pooled.extend(rescaled);
    }
    let all: Vec<&Scored> = pooled.iter().collect();
    let (hostile, caught, benign, flagged) = tally(&all, 0.5);
    let at_one = report::threshold_at_false_alarms(&pooled, 0.01);
    let (_, caught_at_one, _, flagged_at_one) = tally(&all, at_one);
    let at_mean = report::threshold_at_mean_false_alarms(&benign_by_origin, HELD_OUT_FALSE_ALARMS)
        .unwrap_or(0.0);
    let (_, caught_at_mean, _, flagged_at_mean) = tally(&all, at_mean);
    let _ = writeln!(
        out,
        "\nPooled over the held-out origins: at each fold's own threshold {} caught, {} benign \
         flagged; at 1 % false alarms on the pooled benign rows {} caught ({} flagged); at 1 % \
         false alarms averaged over the {} origins with benign rows, each weighing the same (as \
         a corpus sampled evenly across sources weighs them) {} caught ({} of the benign rows \
         flagged).",
        share(caught, hostile),
        share(flagged, benign),
        share(caught_at_one, hostile),
        share(flagged_at_one, benign),
        benign_by_origin.len(),
        share(caught_at_mean, hostile),
        share(flagged_at_mean, benign)
    );
    let margin = log_odds(at_mean);
    let _ = writeln!(
        out,
        "\nThe shipped threshold is chosen here: the calibration rows' threshold moved by \
         {margin:+.3} log-odds, where each fold's held-out origin is flagged at \
         {:.0} % averaged over the origins.",
        HELD_OUT_FALSE_ALARMS * 100.0
    );
    BySource {
        markdown: out,
        margin,
        held_out,
    }
}

/// The shipped threshold: `calibrated` (chosen on the calibration rows)
/// moved by `margin` log-odds ([`BySource::margin`]), never below `floor`
/// (just above every calibration conversation turn).
pub fn held_out_threshold(calibrated: f64, margin: f64, floor: f64) -> f64 {
    sigmoid(log_odds(calibrated) + margin).max(floor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(source: &str) -> Row {
        serde_json::from_value(serde_json::json!({
            "text": "x", "label": 0, "slice": "chat", "lang": "en",
            "source": source, "split": "train", "group": "g"
        }))
        .unwrap()
    }

    #[test]
    fn each_origin_weighs_the_same_in_the_mean_false_alarm_threshold() {
        // One small origin with a high score and one large origin of low
        // ones: at a mean of 10 %, the small origin's one row (weight ½)
        // may not be flagged, whatever the large origin's size.
        let small = vec![0.9];
        let large: Vec<f64> = (0..1000).map(|i| f64::from(i) / 10_000.0).collect();
        let threshold =
            report::threshold_at_mean_false_alarms(&[small, large.clone()], 0.1).unwrap();
        assert!(threshold > 0.9, "{threshold}");
        // With the large origin alone, 10 % of its rows are flagged.
        let threshold =
            report::threshold_at_mean_false_alarms(std::slice::from_ref(&large), 0.1).unwrap();
        let flagged = large.iter().filter(|&&s| s >= threshold).count();
        assert_eq!(flagged, 100);
    }

    #[test]
    fn the_held_out_margin_moves_the_calibrated_threshold_in_log_odds() {
        assert!((held_out_threshold(0.5, 0.0, 0.0) - 0.5).abs() < 1e-12);
        // 0.5 is log-odds 0; +ln 3 is odds 3:1.
        assert!((held_out_threshold(0.5, 3f64.ln(), 0.0) - 0.75).abs() < 1e-12);
        assert!(
            held_out_threshold(0.6, -1.0, 0.0) < 0.6,
            "a negative margin lowers it"
        );
        assert_eq!(
            held_out_threshold(0.6, -1.0, 0.55),
            0.55,
            "never below the floor"
        );
    }

    #[test]
    fn an_origin_takes_its_mixed_rows_with_it() {
        assert!(from_origin(&row("spikee+sgd"), "sgd"));
        assert!(from_origin(
            &row("hive-mind-synthetic+ud-german-pud"),
            "ud-"
        ));
        assert!(!from_origin(&row("hive-mind-synthetic"), "sgd"));
        assert!(!from_origin(&row("sgd-extra"), "sgd"));
    }
}
