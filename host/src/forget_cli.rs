//! `hive-mind forget`: erase memories for real, through the engine's
//! `memory.forget`.
//!
//! Without `--yes` the command is a dry run: it lists exactly what would be
//! erased (each memory with its reference, day and first words; the entities
//! left without evidence) and changes nothing. With `--yes` it erases that,
//! reclaims the freed pages and prints what went. The memories are named by
//! reference (`personal:42`, `workspace:acme:7`) or selected by a filter of
//! one mind (`--matching`, `--since`, `--until`, `--harvest-format`,
//! `--document`, all of which must hold).

use std::path::Path;

use serde_json::{Value as Json, json};

use crate::command_error::CommandError;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_memory::ForgetReport;

/// `hive-mind forget`'s arguments: the one forget request (its `confirm`
/// spelt `--yes`), and how to print.
#[derive(Debug, Clone, clap::Args)]
pub struct ForgetArgs {
    /// What to forget.
    #[command(flatten)]
    pub request: crate::ops::forget::ForgetMemoryRequest,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Run `hive-mind forget` on the data directory `dir`, as its owner.
pub fn forget(dir: &Path, args: &ForgetArgs) -> Result<ForgetReport, CommandError> {
    let operation = crate::ops::forget::ForgetOperation::new(&args.request)?;
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    Ok(crate::ops::execute(
        &mut engine,
        &crate::ops::Caller::Owner,
        operation,
    )?)
}

/// The report as JSON, every field by its WIT name.
pub fn report_json(report: &ForgetReport) -> Json {
    json!({
        "dry-run": report.dry_run,
        "memories": report.memories.iter().map(|memory| json!({
            "ref": convert::ref_name(&memory.frame),
            "content-hash": memory.content_hash,
            "event-day": memory.event_day,
            "preview": memory.preview,
            "branch-of": memory.branch_of.as_ref().map(convert::ref_name),
        })).collect::<Vec<_>>(),
        "entities": report.entities.iter().map(|entity| json!({
            "mind": convert::mind_name(&entity.mind),
            "name": entity.name,
        })).collect::<Vec<_>>(),
        "contexts-rewritten": report.contexts_rewritten,
        "bytes-before": report.bytes_before,
        "bytes-after": report.bytes_after,
    })
}

/// The report for a person: what goes (or went), and how to confirm.
pub fn report_text(report: &ForgetReport) -> String {
    let mut text = String::new();
    let count = report.memories.len();
    text.push_str(&if report.dry_run {
        format!("would forget {count} memor{}:\n", plural(count))
    } else {
        format!("forgot {count} memor{}:\n", plural(count))
    });
    for memory in &report.memories {
        let branch = memory
            .branch_of
            .as_ref()
            .map(|base| format!(" (branches off {})", convert::ref_name(base)))
            .unwrap_or_default();
        text.push_str(&format!(
            "  {}  {}  {}{branch}\n",
            convert::ref_name(&memory.frame),
            memory.event_day,
            memory.preview.replace('\n', " ")
        ));
    }
    if !report.entities.is_empty() {
        let names: Vec<String> = report
            .entities
            .iter()
            .map(|entity| format!("{} ({})", entity.name, convert::mind_name(&entity.mind)))
            .collect();
        text.push_str(&format!(
            "{} entit{} left without evidence: {}\n",
            names.len(),
            if names.len() == 1 { "y" } else { "ies" },
            names.join(", ")
        ));
    }
    if report.dry_run {
        text.push_str("nothing was changed; run again with --yes to erase these for good\n");
    } else {
        text.push_str(&format!(
            "{} search context{} rewritten; database size {} -> {} bytes\n",
            report.contexts_rewritten,
            if report.contexts_rewritten == 1 {
                ""
            } else {
                "s"
            },
            report.bytes_before,
            report.bytes_after
        ));
    }
    text
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "y" } else { "ies" }
}
