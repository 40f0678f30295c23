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
//! chosen as the shipped one is; the pooled line puts every origin's
//! held-out scores together and reads them at 1 % false alarms.
//!
//! The project's own templates (`hive-mind-synthetic`) are not a fold:
//! they are in nearly every hostile row.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use hive_mind_core::detector::model::{log_odds, sigmoid};

use crate::corpus::{Row, Split};
use crate::fit::{self, Example};
use crate::report::{self, Scored};
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

/// Fit without each origin, score it, and write the figures as Markdown.
/// `examples` are the featurised `split.train` rows, in order.
pub fn report(split: &Split, examples: &[Example]) -> String {
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
        let slope =
            length::fit_slope(&length::benign_window_scores(&unthresholded, &calibration)) as f32;
        let model = unthresholded.with_length_slope(slope);
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
        pooled.extend(scored.into_iter().map(|row| {
            let score = sigmoid(log_odds(row.score) - shift);
            row.with_score(score)
        }));
    }
    let all: Vec<&Scored> = pooled.iter().collect();
    let (hostile, caught, benign, flagged) = tally(&all, 0.5);
    let at_one = report::threshold_at_false_alarms(&pooled, 0.01);
    let (_, caught_at_one, _, flagged_at_one) = tally(&all, at_one);
    let _ = writeln!(
        out,
        "\nPooled over the held-out origins: at each fold's own threshold {} caught, {} benign \
         flagged; at 1 % false alarms on the pooled benign rows {} caught ({} flagged).",
        share(caught, hostile),
        share(flagged, benign),
        share(caught_at_one, hostile),
        share(flagged_at_one, benign)
    );
    out
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
