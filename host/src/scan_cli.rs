//! `hive-mind scan`: the injection detector on one text, for people who
//! tune what it flags.
//!
//! The verdict is the engine's own (the logic component's
//! `scan-for-injection`: the detector every write is screened with), on
//! the text given or read from standard input (capped like a memory's
//! content). The report names the score, the verdict against the
//! detector's threshold, the detector, the features that pushed the score
//! up most, and the regex scanner's categories and patterns (one of the
//! detector's inputs). `--context` weighs only those categories: the
//! learned score reads the text alone.

use std::io::Read;

use serde_json::{Value as Json, json};

use crate::command_error::CommandError;

/// `hive-mind scan`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct ScanArgs {
    /// The text, or `-` to read it from standard input.
    pub text: String,
    /// How it reaches the model: tool-output (a document, a recalled
    /// memory; the default) or user-input (typed by the user).
    #[arg(long, default_value = "tool-output")]
    pub context: String,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Scan the text of `args`; the engine's report, with the verdict.
pub fn scan(args: &ScanArgs) -> Result<Json, CommandError> {
    let text = if args.text == "-" {
        let mut text = String::new();
        std::io::stdin()
            .take(crate::limits::MAX_CONTENT_BYTES as u64 + 1)
            .read_to_string(&mut text)?;
        text
    } else {
        args.text.clone()
    };
    crate::limits::check("text", &text)
        .map_err(|error| CommandError::Argument(error.to_string()))?;
    if !["tool-output", "user-input"].contains(&args.context.as_str()) {
        return Err(CommandError::Argument(format!(
            "--context {:?}: expected tool-output or user-input",
            args.context
        )));
    }
    let mut logic = hive_mind_runtime::LogicRuntime::new()
        .map_err(|error| CommandError::Argument(error.to_string()))?;
    let report = logic
        .call_json(
            "scan-for-injection",
            &json!({"text": text, "context": args.context}),
        )
        .map_err(|error| CommandError::Argument(error.to_string()))?;
    let mut report = report;
    if let Some(object) = report.as_object_mut() {
        let flagged = object.get("safe").and_then(Json::as_bool) == Some(false);
        object.insert(
            "verdict".to_string(),
            json!(if flagged { "flagged" } else { "safe" }),
        );
    }
    Ok(report)
}

/// The report for a person: score against the threshold, verdict, the
/// detector, its reasons, the regex categories and patterns.
pub fn report_text(report: &Json) -> String {
    let list = |key: &str| {
        report
            .get(key)
            .and_then(Json::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Json::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .filter(|joined| !joined.is_empty())
            .unwrap_or_else(|| "none".to_string())
    };
    format!(
        "score {:.3}  {} (threshold {:.3})\ndetector: {}\nreasons: {}\ncategories: {}\npatterns: {}\n",
        report.get("score").and_then(Json::as_f64).unwrap_or(0.0),
        report.get("verdict").and_then(Json::as_str).unwrap_or("?"),
        report
            .get("threshold")
            .and_then(Json::as_f64)
            .unwrap_or(0.0),
        report.get("detector").and_then(Json::as_str).unwrap_or("?"),
        list("reasons"),
        list("flags"),
        list("matched"),
    )
}
