//! Scoring held-out rows, choosing the threshold, writing the figures.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use hive_mind_core::detector::{model::Model, worst_window};
use hive_mind_core::{ScanContext, scan_in_windows};

use crate::corpus::{Row, Split};

/// A held-out row's scores.
pub struct Scored {
    /// The score on one window's scale (see [`scored`]).
    pub score: f64,
    /// Labelled hostile.
    pub hostile: bool,
    conversation: bool,
    regex_flags: bool,
    slice: String,
    /// Its language.
    pub lang: String,
    source: String,
}

impl Scored {
    /// The same row with another score.
    pub fn with_score(self, score: f64) -> Scored {
        Scored { score, ..self }
    }
}

/// Score `rows` as the engine screens a write (the worst window, brought
/// to one window's scale by the model's length slope, so that `score >=
/// threshold` is the engine's verdict), and with the regex scanner alone
/// for comparison.
pub fn scored(model: &Model, rows: &[Row]) -> Vec<Scored> {
    rows.iter()
        .map(|row| Scored {
            score: {
                let (score, _, tally) = worst_window(model, &row.text);
                model.one_window_score(score, tally)
            },
            hostile: row.label == 1,
            conversation: row.is_conversation(),
            regex_flags: !scan_in_windows(&row.text, ScanContext::ToolOutput).safe,
            slice: row.slice.clone(),
            lang: row.lang.clone(),
            source: row.source.clone(),
        })
        .collect()
}

/// The lowest threshold that flags at most `target` of the benign rows and
/// strictly more than every conversation turn's score.
pub fn choose_threshold(rows: &[Scored], target: f64) -> f64 {
    threshold_at_false_alarms(rows, target).max(above_conversation(rows))
}

/// A threshold just above every conversation turn of `rows`.
pub fn above_conversation(rows: &[Scored]) -> f64 {
    let conversation = rows
        .iter()
        .filter(|r| r.conversation)
        .map(|r| r.score)
        .fold(0.0f64, f64::max);
    above(conversation)
}

/// The lowest threshold that flags at most `rate` of the benign rows.
pub fn threshold_at_false_alarms(rows: &[Scored], rate: f64) -> f64 {
    let benign: Vec<f64> = rows
        .iter()
        .filter(|r| !r.hostile)
        .map(|r| r.score)
        .collect();
    threshold_at_mean_false_alarms(&[benign], rate).unwrap_or(0.5)
}

/// The lowest threshold at which the benign scores of `groups` (one group
/// per origin) are flagged at most `rate` averaged over the groups: each
/// weighs the same whatever its size, so a large easy source cannot hide a
/// small hard one. One group is the plain rate. `None` when every score
/// may be flagged.
pub fn threshold_at_mean_false_alarms(groups: &[Vec<f64>], rate: f64) -> Option<f64> {
    let count = groups.len() as f64;
    let mut weighted: Vec<(f64, f64)> = groups
        .iter()
        .flat_map(|scores| {
            let weight = 1.0 / (count * scores.len() as f64);
            scores.iter().map(move |&score| (score, weight))
        })
        .collect();
    weighted.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut flagged = 0.0;
    for (score, weight) in weighted {
        // (a hair of tolerance: a hundred weights of 0.001 make 0.1)
        if flagged + weight > rate + 1e-12 {
            return Some(above(score));
        }
        flagged += weight;
    }
    None
}

/// A threshold just above `score` (flagging is `score >= threshold`).
pub fn above(score: f64) -> f64 {
    (score + 1e-6).min(1.0)
}

/// Counts at one threshold.
struct Counts {
    hostile: usize,
    caught: usize,
    benign: usize,
    false_alarms: usize,
    conversation: usize,
    conversation_alarms: usize,
}

fn counts(rows: &[Scored], flagged: impl Fn(&Scored) -> bool) -> Counts {
    let mut c = Counts {
        hostile: 0,
        caught: 0,
        benign: 0,
        false_alarms: 0,
        conversation: 0,
        conversation_alarms: 0,
    };
    for row in rows {
        let f = flagged(row);
        if row.hostile {
            c.hostile += 1;
            c.caught += usize::from(f);
        } else {
            c.benign += 1;
            c.false_alarms += usize::from(f);
            if row.conversation {
                c.conversation += 1;
                c.conversation_alarms += usize::from(f);
            }
        }
    }
    c
}

pub fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "–".to_string()
    } else {
        format!("{:.2} %", 100.0 * part as f64 / whole as f64)
    }
}

/// The figures as Markdown (`models/injection-detector/VALIDATION.md`).
pub fn markdown(
    model: &Model,
    split: &Split,
    left_out: &[String],
    calibration: &[Scored],
    validation: &[Scored],
    length_study: &str,
    threshold_choice: &str,
) -> String {
    let threshold = model.threshold();
    let mut out = String::new();
    let _ = writeln!(out, "# Injection detector: validation figures\n");
    let _ = writeln!(
        out,
        "Written by `cargo run --release -p hive-mind-detector-training` (do not edit by hand).\n"
    );
    let _ = writeln!(
        out,
        "Rows: {} fitted, {} calibration (the threshold), {} validation (held out by group: \
         wrapper templates, goals and documents the fit never saw). Weights: 2^{} `i8`. \
         Threshold: **{threshold:.4}**, {threshold_choice}.\n",
        split.train.len(),
        split.calibration.len(),
        split.validation.len(),
        model.bits()
    );
    if !left_out.is_empty() {
        let _ = writeln!(
            out,
            "Left out: the rows in {}, languages the corpus has attacks but no benign text in \
             (the model would learn the language as the attack).\n",
            left_out.join(", ")
        );
    }
    let _ = writeln!(out, "## Held-out validation\n");
    let _ = writeln!(
        out,
        "| detector | hostile caught | false alarms (benign) | false alarms (conversation turns) |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|");
    let mut line = |name: &str, c: Counts| {
        let _ = writeln!(
            out,
            "| {name} | {} of {} ({}) | {} of {} ({}) | {} of {} |",
            c.caught,
            c.hostile,
            percent(c.caught, c.hostile),
            c.false_alarms,
            c.benign,
            percent(c.false_alarms, c.benign),
            c.conversation_alarms,
            c.conversation
        );
    };
    line(
        &format!("learned, at the shipped threshold {threshold:.4}"),
        counts(validation, |r| r.score >= threshold),
    );
    let at_one = threshold_at_false_alarms(validation, 0.01);
    line(
        &format!("learned, at 1 % false alarms on validation ({at_one:.4})"),
        counts(validation, |r| r.score >= at_one),
    );
    line("regex scanner alone", counts(validation, |r| r.regex_flags));
    let c = counts(calibration, |r| r.score >= threshold);
    let _ = writeln!(
        out,
        "\nOn the calibration rows, at the shipped threshold: {} of {} caught, {} of {} \
         false alarms, {} of {} conversation turns.\n",
        c.caught, c.hostile, c.false_alarms, c.benign, c.conversation_alarms, c.conversation
    );
    let _ = writeln!(out, "## Length\n");
    let _ = writeln!(
        out,
        "A text is hostile when its worst window reaches the threshold raised by a length slope \
         of **{:.3}** log-odds per `ln` of the windows counted: of `k` windows scoring above the \
         benign windows' median (**{:.4}**), `2k`, at most the `n` windows read and at most 16 \
         (both read off the benign calibration rows' windows: \
         `guest/detector-training/src/length.rs`). Long texts built from validation rows, with \
         no correction, with the slope on every window (`ln n`, the engine before the median) and \
         with it on the windows above the median:\n",
        model.length_slope(),
        model.window_median()
    );
    let _ = writeln!(out, "{length_study}");
    for (title, key) in [
        (
            "slice",
            (|r: &Scored| r.slice.clone()) as fn(&Scored) -> String,
        ),
        ("language", |r: &Scored| r.lang.clone()),
        ("source", |r: &Scored| r.source.clone()),
    ] {
        let _ = writeln!(out, "## Validation by {title}, at the shipped threshold\n");
        let _ = writeln!(
            out,
            "| {title} | hostile caught | benign flagged | regex: caught / flagged |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|");
        let mut groups: BTreeMap<String, Vec<&Scored>> = BTreeMap::new();
        for row in validation {
            groups.entry(key(row)).or_default().push(row);
        }
        for (name, rows) in groups {
            let hostile: Vec<&&Scored> = rows.iter().filter(|r| r.hostile).collect();
            let benign: Vec<&&Scored> = rows.iter().filter(|r| !r.hostile).collect();
            let caught = hostile.iter().filter(|r| r.score >= threshold).count();
            let flagged = benign.iter().filter(|r| r.score >= threshold).count();
            let regex_caught = hostile.iter().filter(|r| r.regex_flags).count();
            let regex_flagged = benign.iter().filter(|r| r.regex_flags).count();
            let _ = writeln!(
                out,
                "| {name} | {} | {} | {} / {} |",
                if hostile.is_empty() {
                    "–".to_string()
                } else {
                    format!(
                        "{caught} of {} ({})",
                        hostile.len(),
                        percent(caught, hostile.len())
                    )
                },
                if benign.is_empty() {
                    "–".to_string()
                } else {
                    format!(
                        "{flagged} of {} ({})",
                        benign.len(),
                        percent(flagged, benign.len())
                    )
                },
                percent(regex_caught, hostile.len()),
                percent(regex_flagged, benign.len()),
            );
        }
        let _ = writeln!(out);
    }
    out
}

/// Print up to `count` missed hostile rows and `count` false alarms of
/// `rows` (scored as `scored`), to standard error.
pub fn show_errors(model: &Model, rows: &[Row], scored: &[Scored], count: usize) {
    let threshold = model.threshold();
    for (want_hostile, title) in [(true, "missed"), (false, "false alarm")] {
        for (row, score) in rows
            .iter()
            .zip(scored)
            .filter(|(_, s)| s.hostile == want_hostile && (s.score >= threshold) != want_hostile)
            .take(count)
        {
            let text: String = row.text.chars().take(400).collect();
            eprintln!(
                "--- {title} [{} {} {}] score {:.3}\n{text}",
                row.slice, row.lang, row.source, score.score
            );
        }
    }
}
