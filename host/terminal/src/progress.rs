//! # Progress on long work
//!
//! `eval`, `bench` (building a corpus) and `reindex` run for minutes. They
//! report through a [`Progress`]: a bar on stderr (items done, rate, ETA,
//! what is being worked on) when stderr is a terminal, and nothing but the
//! occasional [`Progress::note`] line otherwise (a CI log, a pipe, `--quiet`),
//! so logs stay readable and scripts see the same lines as before.
//!
//! Library code takes `&Progress` and never decides whether it is shown; the
//! CLI builds it with [`Progress::new`] and tests with [`Progress::hidden`].
//! A server keeps one per job and reads it back ([`Progress::done`],
//! [`Progress::total`], [`Progress::current`]) for the job's status.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};

use hive_mind_runtime::engine::import::ImportProgress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// A progress report for one long job.
#[derive(Debug, Clone)]
pub struct Progress {
    bar: ProgressBar,
    visible: bool,
    /// Where notes go instead of stderr ([`Progress::recording`]).
    recorded: Option<Arc<Mutex<Vec<String>>>>,
}

/// A bar over `total` items of `unit` drawn to `target`; with `total` 0
/// (not known yet: an import before its inputs are read) a spinner with the
/// count so far, never a full bar of 0/0.
fn drawn(total: u64, unit: &str, target: ProgressDrawTarget) -> ProgressBar {
    let known = (total > 0).then_some(total);
    let bar = ProgressBar::with_draw_target(known, target);
    bar.set_prefix(unit.to_string());
    bar.set_style(if known.is_some() {
        bar_style(unit)
    } else {
        spinner_style(unit)
    });
    bar
}

/// The bar: done of total, rate, ETA.
fn bar_style(unit: &str) -> ProgressStyle {
    let template = format!(
        "{{msg:20!}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} · {{rate}} · ETA {{eta}}"
    );
    with_rate(ProgressStyle::with_template(&template)).progress_chars("=> ")
}

/// The spinner while the total is not known: done so far and the rate.
fn spinner_style(unit: &str) -> ProgressStyle {
    let template = format!("{{spinner}} {{msg:20!}} {{human_pos}} {unit} · {{rate}}");
    with_rate(ProgressStyle::with_template(&template))
}

/// A style with the `rate` key (items a second), or the default style if
/// the template were refused.
fn with_rate(style: Result<ProgressStyle, indicatif::style::TemplateError>) -> ProgressStyle {
    style
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key(
            "rate",
            |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                let _ = write!(out, "{:.0}/s", state.per_sec());
            },
        )
}

impl Progress {
    /// A bar over `total` items of `unit` (e.g. "turns"), on stderr, shown
    /// only when stderr is a terminal and `quiet` is false.
    pub fn new(total: u64, unit: &str, quiet: bool) -> Progress {
        let visible = !quiet && std::io::stderr().is_terminal();
        if !visible {
            return Progress::hidden();
        }
        Progress {
            bar: drawn(total, unit, ProgressDrawTarget::stderr()),
            visible,
            recorded: None,
        }
    }

    /// A report that shows nothing (tests, and whenever output is not for a
    /// person); [`Progress::note`] still prints.
    pub fn hidden() -> Progress {
        Progress {
            bar: ProgressBar::hidden(),
            visible: false,
            recorded: None,
        }
    }

    /// A hidden report that keeps its notes (for tests: see
    /// [`Progress::notes`]).
    pub fn recording() -> Progress {
        Progress {
            recorded: Some(Arc::default()),
            ..Progress::hidden()
        }
    }

    /// The notes a [`Progress::recording`] report kept.
    pub fn notes(&self) -> Vec<String> {
        self.recorded
            .as_ref()
            .and_then(|notes| notes.lock().ok().map(|notes| notes.clone()))
            .unwrap_or_default()
    }

    /// Whether a bar is drawn.
    pub fn is_visible(&self) -> bool {
        self.visible
    }

    /// Change the number of items expected: a count not known yet (a
    /// spinner) becomes a bar.
    pub fn set_total(&self, total: u64) {
        if total > 0 && self.bar.length().is_none() {
            self.bar.set_style(bar_style(&self.unit()));
        }
        self.bar.set_length(total);
    }

    /// The unit a spinner's message names (kept in its prefix).
    fn unit(&self) -> String {
        self.bar.prefix()
    }

    /// `count` more items done.
    pub fn advance(&self, count: u64) {
        self.bar.inc(count);
    }

    /// `done` items done in all.
    pub fn set_done(&self, done: u64) {
        self.bar.set_position(done);
    }

    /// What is being worked on now (shown beside the bar).
    pub fn working_on(&self, what: impl Into<String>) {
        let what: String = what.into();
        self.bar.set_message(what);
    }

    /// A line for the log: printed above the bar when one is drawn, else to
    /// stderr as it is.
    pub fn note(&self, line: &str) {
        if let Some(notes) = &self.recorded {
            if let Ok(mut notes) = notes.lock() {
                notes.push(line.to_string());
            }
        } else if self.visible {
            self.bar.println(line);
        } else {
            eprintln!("{line}");
        }
    }

    /// Items done so far (what a server reports of a job in progress).
    pub fn done(&self) -> u64 {
        self.bar.position()
    }

    /// Items expected, once known.
    pub fn total(&self) -> Option<u64> {
        self.bar.length()
    }

    /// What is being worked on now.
    pub fn current(&self) -> String {
        self.bar.message()
    }

    /// Remove the bar (the job is over).
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// An import job moves the bar and says what it is on.
impl ImportProgress for Progress {
    fn items(&self, done: u64, total: u64) {
        self.set_total(total);
        self.set_done(done);
    }

    fn working_on(&self, what: String) {
        Progress::working_on(self, what);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiet_or_hidden_report_draws_nothing() {
        assert!(!Progress::new(10, "items", true).is_visible());
        let hidden = Progress::hidden();
        assert!(!hidden.is_visible());
        hidden.advance(3);
        hidden.set_total(20);
        hidden.working_on("sample 1");
        hidden.finish();
    }

    #[test]
    fn an_unknown_total_spins_until_it_is_known() {
        let progress = Progress {
            bar: drawn(0, "items", ProgressDrawTarget::hidden()),
            visible: true,
            recorded: None,
        };
        assert_eq!(progress.total(), None, "no full 0/0 bar before the count");
        progress.advance(3);
        progress.set_total(10);
        assert_eq!(progress.total(), Some(10));
        assert_eq!(progress.done(), 3);
        let known = drawn(5, "items", ProgressDrawTarget::hidden());
        assert_eq!(known.length(), Some(5));
    }

    #[test]
    fn a_recording_report_keeps_its_notes() {
        let progress = Progress::recording();
        progress.note("sample 1: done");
        progress.clone().note("sample 2: done");
        assert_eq!(progress.notes(), ["sample 1: done", "sample 2: done"]);
        assert!(Progress::hidden().notes().is_empty());
    }
}
