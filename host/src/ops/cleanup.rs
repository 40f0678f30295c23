//! Keeping a mind tidy: its dead-weight memories retired, its graph's
//! noise and duplicates. One request each for the MCP tools
//! `cleanup_frames`, `cleanup_memory` and `cleanup_entities`, and
//! `hive-mind review clean-entities`.
//!
//! Every cleanup retires, never deletes (a memory's importance becomes
//! `deprecated`, an entity leaves the graph), and the rules of what is
//! dead weight are the engine's (`memory.cleanup-frames`,
//! `review.clean-entities`, `admin.dedupe-entities`). A cleanup that only
//! reports reads its mind; one that applies writes it.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_memory::{CleanupOptions, CleanupReport};
use hive_mind_runtime::engine::wit_review::{EntityInfo, EntityRule};
use hive_mind_runtime::engine::wit_types::Mind;

use serde::Deserialize;

use super::{Access, OpError, Operation, capped, read_mind};
use crate::tokens::Scope;

/// The read of a report, the write of a cleanup applied.
fn access(mind: &Mind, apply: bool) -> Access {
    Access::on(if apply { Scope::Write } else { Scope::Read }, mind.clone())
}

/// MCP `cleanup_frames`' request.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CleanupFramesRequest {
    /// The workspace to clean (default: the personal mind).
    pub workspace: Option<String>,
    /// Retire what is found (importance `deprecated`: kept for history,
    /// ranked down, never deleted). Default false: only report it.
    #[serde(default)]
    pub apply: bool,
}

/// MCP `cleanup_memory`'s request.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CleanupMemoryRequest {
    /// `compact` (retire empty and duplicated memories), `retire-orphans`
    /// (entities nothing mentions or relates), `remove-noise` (entities
    /// named by noise words), or `audit` (report them all; never changes
    /// anything).
    pub mode: String,
    /// Apply the mode (retire what it finds; retired things are kept for
    /// history). Default false: only report.
    #[serde(default)]
    pub apply: bool,
    /// The workspace (default: the personal mind).
    pub workspace: Option<String>,
}

/// Find a mind's dead-weight memories (empty, duplicated, nearly
/// duplicated) and, with `apply`, retire them.
pub struct CleanupFrames {
    /// Whose.
    pub mind: Mind,
    /// Retire what is found; false only reports it.
    pub apply: bool,
}

impl CleanupFrames {
    /// The cleanup `request` asks for.
    pub fn new(request: &CleanupFramesRequest) -> Result<CleanupFrames, OpError> {
        capped(&[("workspace", request.workspace.as_ref())])?;
        Ok(CleanupFrames {
            mind: read_mind(request.workspace.as_deref())?,
            apply: request.apply,
        })
    }
}

impl Operation for CleanupFrames {
    type Output = CleanupReport;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(access(&self.mind, self.apply))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<CleanupReport, OpError> {
        Ok(engine.cleanup_frames(&CleanupOptions {
            mind: self.mind,
            apply: self.apply,
        })?)
    }
}

/// Find a mind's entities of one rule (orphans: no memory mentions them
/// and no relation touches them; noise: named by noise words, with no
/// relation) and, with `apply`, retire them from the graph.
pub struct CleanEntities {
    /// Whose.
    pub mind: Mind,
    /// Which entities.
    pub rule: EntityRule,
    /// Retire what is found; false only reports it.
    pub apply: bool,
}

impl Operation for CleanEntities {
    type Output = Vec<EntityInfo>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(access(&self.mind, self.apply))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<EntityInfo>, OpError> {
        Ok(engine
            .review()
            .clean_entities(&self.mind, self.rule, self.apply)?)
    }
}

/// What a [`CleanupMemory`] looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CleanupMode {
    /// Empty and duplicated memories.
    Compact,
    /// Entities no memory mentions and no relation touches.
    RetireOrphans,
    /// Entities named by noise words, with no relation.
    RemoveNoise,
    /// All of them, and how many memories are held back as likely
    /// injections; never changes anything.
    Audit,
}

impl CleanupMode {
    /// Every mode, as the surfaces spell them.
    pub const ALL: [CleanupMode; 4] = [
        CleanupMode::Compact,
        CleanupMode::RetireOrphans,
        CleanupMode::RemoveNoise,
        CleanupMode::Audit,
    ];

    /// `compact`, `retire-orphans`, `remove-noise` or `audit`.
    pub fn name(self) -> &'static str {
        match self {
            CleanupMode::Compact => "compact",
            CleanupMode::RetireOrphans => "retire-orphans",
            CleanupMode::RemoveNoise => "remove-noise",
            CleanupMode::Audit => "audit",
        }
    }

    /// The mode of this name (spaces around it ignored); the error names
    /// the modes there are.
    pub fn parse(name: &str) -> Result<CleanupMode, OpError> {
        let name = name.trim();
        CleanupMode::ALL
            .into_iter()
            .find(|mode| mode.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = CleanupMode::ALL.iter().map(|mode| mode.name()).collect();
                OpError::Invalid(format!(
                    "unknown mode {name:?}; expected one of: {}",
                    names.join(", ")
                ))
            })
    }

    /// Whether it looks at memories.
    fn memories(self) -> bool {
        matches!(self, CleanupMode::Compact | CleanupMode::Audit)
    }

    /// Whether it looks at the entities of `rule`.
    fn entities(self, rule: EntityRule) -> bool {
        match self {
            CleanupMode::Audit => true,
            CleanupMode::RetireOrphans => rule == EntityRule::Orphans,
            CleanupMode::RemoveNoise => rule == EntityRule::Noise,
            CleanupMode::Compact => false,
        }
    }
}

/// A cleanup mode run on a mind (MCP `cleanup_memory`).
pub struct CleanupMemory {
    /// Whose.
    pub mind: Mind,
    /// What it looks at.
    pub mode: CleanupMode,
    /// Retire what is found (never for an audit).
    apply: bool,
}

/// The most held-back memories an audit counts.
pub const MAX_FLAGGED_COUNTED: u32 = 1000;

impl CleanupMemory {
    /// The request; an audit never applies, whatever `apply` says.
    pub fn new(request: &CleanupMemoryRequest) -> Result<CleanupMemory, OpError> {
        capped(&[
            ("mode", Some(&request.mode)),
            ("workspace", request.workspace.as_ref()),
        ])?;
        let mode = CleanupMode::parse(&request.mode)?;
        Ok(CleanupMemory {
            mind: read_mind(request.workspace.as_deref())?,
            mode,
            apply: request.apply && mode != CleanupMode::Audit,
        })
    }

    /// Whether it retires what it finds.
    pub fn applies(&self) -> bool {
        self.apply
    }
}

/// What a cleanup mode found (each part present when the mode looks at it).
#[derive(Debug, Clone)]
pub struct Cleaned {
    /// The memories, for `compact` and `audit`.
    pub memories: Option<CleanupReport>,
    /// Entities no memory mentions and no relation touches.
    pub orphan_entities: Option<Vec<EntityInfo>>,
    /// Entities named by noise words, with no relation.
    pub noise_entities: Option<Vec<EntityInfo>>,
    /// How many memories are held back as likely injections (at most
    /// [`MAX_FLAGGED_COUNTED`]), for `audit`: counted, never shown.
    pub flagged_memories: Option<usize>,
}

impl Operation for CleanupMemory {
    type Output = Cleaned;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(access(&self.mind, self.apply))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Cleaned, OpError> {
        let memories = if self.mode.memories() {
            Some(engine.cleanup_frames(&CleanupOptions {
                mind: self.mind.clone(),
                apply: self.apply,
            })?)
        } else {
            None
        };
        let mut entities = |rule: EntityRule| -> Result<Option<Vec<EntityInfo>>, OpError> {
            if !self.mode.entities(rule) {
                return Ok(None);
            }
            let clean = CleanEntities {
                mind: self.mind.clone(),
                rule,
                apply: self.apply,
            };
            clean.run(engine).map(Some)
        };
        let orphan_entities = entities(EntityRule::Orphans)?;
        let noise_entities = entities(EntityRule::Noise)?;
        let flagged_memories = if self.mode == CleanupMode::Audit {
            Some(
                engine
                    .review()
                    .list_flagged(&self.mind, MAX_FLAGGED_COUNTED)?
                    .len(),
            )
        } else {
            None
        };
        Ok(Cleaned {
            memories,
            orphan_entities,
            noise_entities,
            flagged_memories,
        })
    }
}

/// Merge a mind's active entities of the same canonical name and type (MCP
/// `cleanup_entities`); answers how many were retired.
pub struct DedupeEntities {
    /// Whose.
    pub mind: Mind,
}

impl Operation for DedupeEntities {
    type Output = u64;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::write(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<u64, OpError> {
        Ok(engine.admin().dedupe_entities(&self.mind)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mode_is_read_by_its_name_and_an_audit_never_applies() {
        for mode in CleanupMode::ALL {
            assert_eq!(CleanupMode::parse(mode.name()).ok(), Some(mode));
        }
        assert_eq!(
            CleanupMode::parse(" compact ").ok(),
            Some(CleanupMode::Compact)
        );
        let refused = CleanupMode::parse("shred")
            .err()
            .map(|error| error.to_string());
        assert_eq!(
            refused.as_deref(),
            Some(
                "unknown mode \"shred\"; expected one of: compact, retire-orphans, remove-noise, audit"
            )
        );
        let request = |mode: &str| CleanupMemoryRequest {
            mode: mode.to_string(),
            apply: true,
            workspace: None,
        };
        let audit = CleanupMemory::new(&request("audit")).unwrap();
        assert!(!audit.applies());
        assert_eq!(access(&audit.mind, audit.apply).scope, Scope::Read);
        let compact = CleanupMemory::new(&request("compact")).unwrap();
        assert!(matches!(compact.mind, Mind::Personal));
        assert_eq!(access(&compact.mind, compact.apply).scope, Scope::Write);
        assert!(CleanupMemory::new(&request("shred")).is_err());
    }
}
