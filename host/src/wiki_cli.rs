//! `hive-mind wiki`: the wiki of a mind on the command line — the pages
//! (`wiki`), one page (`wiki PAGE`, as Markdown), a search (`wiki search
//! TEXT`), the health report (`wiki health`) and the whole wiki as a folder
//! of Markdown files (`wiki export --out DIR`) a person can open in any
//! editor. Each is the operation's one request ([`crate::ops::wiki`]); the
//! text is for people, `--json` prints the same answer MCP and REST give.

use std::io::Write;
use std::path::{Path, PathBuf};

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_wiki::{HealthReport, PageSummary};
use serde_json::Value as Json;

use crate::command_error::CommandError;
use crate::ops::wiki::{
    GetPage, HEALTH_KINDS, ListPages, MAX_PAGES, SearchWiki, WikiHealth, WikiHealthRequest,
    WikiRead, WikiRequest, WikiSearchRequest, health_json, health_kind_name, page_json,
    summary_json,
};
use crate::ops::{Caller, execute};

/// `hive-mind wiki`'s arguments.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct WikiArgs {
    /// Search, check or export instead of reading.
    #[command(subcommand)]
    pub command: Option<WikiCommand>,
    /// The page to read, or none for the listing.
    #[command(flatten)]
    pub read: WikiRequest,
    /// Print JSON (as MCP and the REST API answer).
    #[arg(long)]
    pub json: bool,
}

/// What else `hive-mind wiki` does.
#[derive(Debug, clap::Subcommand)]
pub enum WikiCommand {
    /// The pages whose title or statements contain a text.
    Search {
        /// What to look for.
        #[command(flatten)]
        request: WikiSearchRequest,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The health report: conflicting and stale statements, memories no
    /// page cites, quarantined ones waiting for review.
    Health {
        /// Which mind.
        #[command(flatten)]
        request: WikiHealthRequest,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write the whole wiki as Markdown files into a new folder: an index,
    /// a file per page (links between them work in any editor), and the
    /// health report.
    Export {
        /// The workspace whose wiki to export (default: the personal mind).
        #[arg(long)]
        workspace: Option<String>,
        /// The folder to write; it must not exist, or be empty.
        #[arg(long)]
        out: PathBuf,
    },
}

/// A page listing for people: one page to a line.
pub fn pages_text(pages: &[PageSummary]) -> String {
    let mut out = String::new();
    for page in pages {
        let kind = if page.entity_type.is_empty() {
            String::new()
        } else {
            format!(" ({})", page.entity_type)
        };
        let conflicts = if page.conflicts > 0 {
            format!(", {} possibly in conflict", page.conflicts)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{:<12} {}{kind}: {} statement(s){conflicts}\n",
            page.slug, page.title, page.statements
        ));
    }
    if pages.len() <= 1 && pages.first().is_none_or(|page| page.statements == 0) {
        out.push_str(
            "(pages come from the people, places and things memories name: save or import some)\n",
        );
    }
    out
}

/// A health report for people: the counts, then one finding to a line.
pub fn health_text(report: &HealthReport) -> String {
    let counts: Vec<String> = HEALTH_KINDS
        .iter()
        .zip(&report.counts)
        .map(|(kind, count)| format!("{count} {}", health_kind_name(*kind)))
        .collect();
    let mut out = format!("health: {}\n", counts.join(", "));
    for issue in &report.issues {
        out.push_str(&format!(
            "- [{}] {}\n",
            health_kind_name(issue.kind),
            issue.text
        ));
    }
    out
}

fn owner() -> Caller {
    Caller::Owner
}

/// Run `hive-mind wiki …` on the data directory `dir`, printing to `out`.
pub fn run(dir: &Path, args: WikiArgs, out: &mut dyn Write) -> Result<(), CommandError> {
    let print_json = |out: &mut dyn Write, value: &Json| -> Result<(), CommandError> {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(value).unwrap_or_default()
        )?;
        Ok(())
    };
    match args.command {
        None => {
            let read = args.read.read()?;
            let mut engine = hive_mind_runtime::engine::open(dir)?;
            match read {
                WikiRead::List(list) => {
                    let pages = execute(&mut engine, &owner(), list)?;
                    if args.json {
                        print_json(out, &Json::Array(pages.iter().map(summary_json).collect()))?;
                    } else {
                        out.write_all(pages_text(&pages).as_bytes())?;
                    }
                }
                WikiRead::Page(page) => {
                    let page = execute(&mut engine, &owner(), page)?;
                    if args.json {
                        print_json(out, &page_json(&page))?;
                    } else {
                        out.write_all(page.markdown.as_bytes())?;
                    }
                }
            }
        }
        Some(WikiCommand::Search { request, json }) => {
            let operation = SearchWiki::new(request)?;
            let mut engine = hive_mind_runtime::engine::open(dir)?;
            let pages = execute(&mut engine, &owner(), operation)?;
            if json {
                print_json(out, &Json::Array(pages.iter().map(summary_json).collect()))?;
            } else if pages.is_empty() {
                writeln!(out, "no page says that")?;
            } else {
                out.write_all(pages_text(&pages).as_bytes())?;
            }
        }
        Some(WikiCommand::Health { request, json }) => {
            let operation = WikiHealth::new(request)?;
            let mut engine = hive_mind_runtime::engine::open(dir)?;
            let report = execute(&mut engine, &owner(), operation)?;
            if json {
                print_json(out, &health_json(&report))?;
            } else {
                out.write_all(health_text(&report).as_bytes())?;
            }
        }
        Some(WikiCommand::Export {
            workspace,
            out: folder,
        }) => {
            let mut engine = hive_mind_runtime::engine::open(dir)?;
            let written = export(&mut engine, workspace, &folder)?;
            writeln!(
                out,
                "wrote {written} page(s), index.md and health.md into {}",
                folder.display()
            )?;
        }
    }
    Ok(())
}

/// Write the wiki of a mind into `folder` (new or empty); how many pages.
fn export(
    engine: &mut EngineRuntime,
    workspace: Option<String>,
    folder: &Path,
) -> Result<usize, CommandError> {
    if folder.exists()
        && std::fs::read_dir(folder)
            .map(|mut entries| entries.next().is_some())
            .unwrap_or(true)
    {
        return Err(CommandError::Argument(format!(
            "--out {}: the folder exists and is not empty; name a new folder (nothing was written)",
            folder.display()
        )));
    }
    let listing = WikiRequest {
        page: None,
        workspace: workspace.clone(),
        limit: Some(MAX_PAGES),
    };
    let WikiRead::List(list) = listing.read()? else {
        return Err(CommandError::Argument(
            "a listing names no page".to_string(),
        ));
    };
    let list: ListPages = list;
    let pages = execute(engine, &owner(), list)?;
    let health = execute(
        engine,
        &owner(),
        WikiHealth::new(WikiHealthRequest {
            workspace: workspace.clone(),
            limit: Some(MAX_PAGES),
        })?,
    )?;
    std::fs::create_dir_all(folder)?;
    let mut index = String::from("# Wiki\n\n");
    for summary in &pages {
        let page: GetPage = WikiRequest {
            workspace: workspace.clone(),
            ..WikiRequest::default()
        }
        .page(&summary.slug)?;
        let page = execute(engine, &owner(), page)?;
        std::fs::write(folder.join(format!("{}.md", summary.slug)), &page.markdown)?;
        index.push_str(&format!(
            "- [{}]({}.md) — {} statement(s)\n",
            summary.title, summary.slug, summary.statements
        ));
    }
    index.push_str("\n[Health report](health.md)\n");
    std::fs::write(folder.join("index.md"), index)?;
    std::fs::write(
        folder.join("health.md"),
        format!("# Health\n\n{}", health_text(&health)),
    )?;
    Ok(pages.len())
}
