//! `hive-mind save` and `hive-mind recall`: the memory API through the engine
//! component.
//!
//! The command parses its flags into the WIT `memory-input`, opens the
//! engine over the data directory ([`hive_mind_runtime::engine::open`]) and calls
//! `memory.save-memory`; the component chunks, embeds and stores. Output is
//! the saved frame as JSON on stdout.

use std::path::Path;

use serde_json::{Value as Json, json};

use crate::command_error::CommandError;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_types::{self, Mind};

/// `hive-mind save`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct SaveArgs {
    /// The memory's text.
    pub text: String,
    /// critical, important, normal, temporary or deprecated.
    #[arg(long, default_value = "normal")]
    pub importance: String,
    /// user-stated, tool-verified, agent-inferred, import or system.
    #[arg(long, default_value = "user-stated")]
    pub source: String,
    /// Save to this workspace's mind instead of the personal one.
    #[arg(long)]
    pub workspace: Option<String>,
    /// Event time (ISO-8601); default now.
    #[arg(long)]
    pub created_at: Option<String>,
}

/// The WIT frame as JSON, every field by its WIT name.
pub fn frame_json(frame: &wit_types::Frame) -> Json {
    convert::frame_json(frame)
}

/// Save one memory in the data directory `dir`, as its owner; the saved
/// frame as JSON.
pub fn save(dir: &Path, args: &SaveArgs) -> Result<Json, CommandError> {
    crate::limits::check_each(&[("workspace", args.workspace.as_ref())])
        .map_err(|error| CommandError::Argument(error.to_string()))?;
    let mind = match &args.workspace {
        Some(id) => convert::workspace(id).map_err(|why| bad_flag("workspace", why))?,
        None => Mind::Personal,
    };
    let operation = crate::ops::save::SaveOperation::new(
        crate::ops::save::SaveRequest {
            content: args.text.clone(),
            importance: Some(args.importance.clone()),
            source: Some(args.source.clone()),
            mind,
            created_at: args.created_at.clone(),
        },
        true,
    )?;
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    let saved = crate::ops::execute(&mut engine, &crate::ops::Caller::Owner, operation)?;
    Ok(saved_json(&saved))
}

/// A saved memory as JSON: its reference, whether it was a duplicate, and
/// the frame.
pub fn saved_json(saved: &hive_mind_runtime::engine::wit_memory::SavedMemory) -> Json {
    let frame = frame_json(&saved.frame);
    json!({
        "ref": frame["ref"],
        "duplicate": saved.duplicate,
        "frame": frame,
    })
}

/// `hive-mind recall`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct RecallArgs {
    /// What to recall memories for.
    pub query: String,
    /// The most memories to return (default: the engine's, 10).
    #[arg(long)]
    pub limit: Option<u32>,
    /// How to weigh the relevance signals: balanced, recent, important or
    /// connected (default: the engine's, balanced).
    #[arg(long)]
    pub profile: Option<String>,
    /// The active workspace (searched before the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
    /// Which minds: personal, current (the workspace only) or all (default:
    /// the engine's, all).
    #[arg(long)]
    pub scope: Option<String>,
    /// The time to score recency against (ISO-8601); default now.
    #[arg(long)]
    pub now: Option<String>,
    /// The relevance floor's least cosine for a semantic match (default:
    /// what unrelated texts reach under the embedder, measured once: about
    /// 0.50 for bge-small, 0.24 for MiniLM); with `--no-floor`, nothing is
    /// filtered.
    #[arg(long)]
    pub min_cosine: Option<f64>,
    /// Turn the relevance floor off: always return the top memories.
    #[arg(long)]
    pub no_floor: bool,
    /// How many of the best candidates the reranker reads (default: the
    /// engine's); 0 turns reranking off.
    #[arg(long)]
    pub rerank_pool: Option<u32>,
    /// Answer with what was valid at this time (ISO-8601): memories from
    /// before it that had not been replaced by then.
    #[arg(long)]
    pub as_of: Option<String>,
    /// The most tokens the recall block may take; the lowest-ranked
    /// memories are left out until it fits.
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// Print the structured result as JSON instead of the text.
    #[arg(long)]
    pub json: bool,
}

impl RecallArgs {
    /// The operation's request (validated by [`crate::ops::recall`]).
    pub fn request(&self) -> crate::ops::recall::RecallRequest {
        crate::ops::recall::RecallRequest {
            query: self.query.clone(),
            limit: self.limit,
            profile: self.profile.clone(),
            workspace: self.workspace.clone(),
            scope: self.scope.clone(),
            now: self.now.clone(),
            min_cosine: self.min_cosine,
            no_floor: self.no_floor,
            rerank_pool: self.rerank_pool,
            as_of: self.as_of.clone(),
            max_tokens: self.max_tokens,
        }
    }
}

/// A flag value outside its vocabulary: the flag and why.
fn bad_flag(flag: &str, why: String) -> CommandError {
    CommandError::Argument(format!("--{flag}: {why}"))
}

/// Recall memories in the data directory `dir`, as its owner.
pub fn recall(
    dir: &Path,
    args: &RecallArgs,
) -> Result<hive_mind_runtime::engine::wit_memory::Recall, CommandError> {
    let operation = crate::ops::recall::RecallOperation::try_from(args.request())?;
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    Ok(crate::ops::execute(
        &mut engine,
        &crate::ops::Caller::Owner,
        operation,
    )?)
}
