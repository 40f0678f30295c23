//! # What one engine call may use, and what stopped one that trapped
//!
//! The engine component runs whatever its inputs make it do: a 16 MiB query,
//! a hostile import, a bug that loops or recurses. Two limits keep such a
//! call from taking the host down with it, and [`TrapKind`] says which one
//! stopped it:
//!
//! - **Memory.** The store's [`wasmtime::ResourceLimiter`] ([`GuestLimiter`],
//!   over wasmtime's [`StoreLimits`]) refuses to grow a linear memory past
//!   [`Limits::memory_bytes`] and turns the refusal into a trap at once
//!   ([`MemoryLimitExceeded`]), instead of letting the guest's allocator
//!   abort with an anonymous `unreachable`. The number of instances, tables
//!   and memories is capped too, at a few times what the engine component
//!   instantiates, since a component cannot make more at run time.
//! - **Time.** The engine's code is compiled with epoch checks
//!   ([`wasmtime::Config::epoch_interruption`]); an [`EpochTicker`] thread
//!   advances the engine's epoch every [`EPOCH_TICK`], and every export call
//!   is armed with its kind's deadline ([`Deadlines::of`],
//!   [`wasmtime::Store::set_epoch_deadline`]). A deadline counts wall time,
//!   the host's imports included (an embedding, a reranking, a language
//!   model's answer), but it can only stop the guest's own code: a call that
//!   overran inside an import traps as soon as the import returns.
//!
//! Either trap leaves the instance unusable (wasmtime refuses to enter a
//! component instance that trapped); [`crate::engine::EngineRuntime`] drops
//! it — closing its SQLite connections, which rolls back an open transaction
//! and releases the write lock — and instantiates a fresh one for the next
//! call.
//!
//! [`Limits::default`] holds the defaults, each with its reason; a data
//! directory's `config.toml` (`[limits]`) and the environment
//! (`HIVE_MIND_MEMORY_LIMIT_MIB`, `HIVE_MIND_CALL_DEADLINE_MS`) override them
//! through [`Limits::from_config`].

use std::time::Duration;

use wasmtime::{ResourceLimiter, StoreLimits, StoreLimitsBuilder};

pub use hive_mind_models::config::LimitsConfig;

/// How often the engine's epoch advances: the resolution of a deadline.
/// One wake-up of a sleeping thread per tick costs nothing measurable; a
/// finer tick would only make deadlines more exact than anyone needs.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Instances, tables and memories a store may create: the engine component
/// instantiates a handful of core instances (its module and the canonical
/// ABI's shims) with one memory; a component cannot create more at run time,
/// so these only bound what a different component could ask for.
const MAX_INSTANCES: usize = 64;
/// See [`MAX_INSTANCES`].
const MAX_TABLES: usize = 64;
/// See [`MAX_INSTANCES`].
const MAX_MEMORIES: usize = 8;
/// Elements in one table: the guest's function table holds a few thousand
/// entries and never grows.
const MAX_TABLE_ELEMENTS: usize = 1 << 20;

/// The kind of an export call, which picks its deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// A recall, and every read of a few rows (listings, identity,
    /// awareness, entities, sources, status).
    Recall,
    /// A save of a few memories, and every small write (entities,
    /// relations, identity, awareness, a workspace).
    Save,
    /// One step of an import: a harvest job's start, step or report,
    /// `import-conversations`, and `remember-exchange` (each may wait on a
    /// language model and embed many texts).
    Import,
    /// Maintenance an operator runs: a reindex step, `check`, cleanup,
    /// entity de-duplication, a forget (its `VACUUM` rewrites the file).
    Maintenance,
}

/// How long one export call of each kind may run (see [`CallKind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    /// [`CallKind::Recall`].
    pub recall: Duration,
    /// [`CallKind::Save`].
    pub save: Duration,
    /// [`CallKind::Import`].
    pub import: Duration,
    /// [`CallKind::Maintenance`].
    pub maintenance: Duration,
}

impl Deadlines {
    /// The same deadline for every kind.
    pub fn all(deadline: Duration) -> Deadlines {
        Deadlines {
            recall: deadline,
            save: deadline,
            import: deadline,
            maintenance: deadline,
        }
    }

    /// The deadline of a call of `kind`.
    pub fn of(&self, kind: CallKind) -> Duration {
        match kind {
            CallKind::Recall => self.recall,
            CallKind::Save => self.save,
            CallKind::Import => self.import,
            CallKind::Maintenance => self.maintenance,
        }
    }

    /// `deadline` in epoch ticks, rounded up (at least one).
    pub fn ticks(deadline: Duration) -> u64 {
        let tick = EPOCH_TICK.as_nanos().max(1);
        let ticks = deadline.as_nanos().div_ceil(tick).max(1);
        u64::try_from(ticks).unwrap_or(u64::MAX / 2)
    }
}

impl Default for Deadlines {
    /// The defaults, each about ten times the slowest legitimate call of its
    /// kind seen on the 2-core reference machine, so that no real call comes
    /// near them while a runaway one still ends:
    ///
    /// - **recall: 30 s.** A recall over a 100,000-memory mind answers in
    ///   tens of milliseconds once its vector index is loaded; the first one
    ///   loads the index (every vector through SQL, about a second or two)
    ///   and the cross-encoder scores its pool on the CPU (one to three
    ///   seconds for the shipped model).
    /// - **save: 2 min.** A save embeds its memories before it writes:
    ///   `save-memories` with a thousand long memories and their chunks is a
    ///   few thousand texts for the in-process model, tens of seconds.
    /// - **import: 10 min.** One harvest step distils up to twenty items, each
    ///   with a language-model call (a local model on two cores takes tens of
    ///   seconds per item), and embeds what it keeps; `import-conversations`
    ///   embeds every turn of its conversations in one call.
    /// - **maintenance: 1 h.** A reindex step re-embeds a batch of frames
    ///   with their chunks, and `check` reads every row of every mind; they
    ///   are started by an operator, who can wait, but a stuck one still ends.
    fn default() -> Deadlines {
        Deadlines {
            recall: Duration::from_secs(30),
            save: Duration::from_secs(120),
            import: Duration::from_secs(600),
            maintenance: Duration::from_secs(3600),
        }
    }
}

/// What an engine instance may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest a guest linear memory may grow, in bytes; `None`: wasm32's
    /// own 4 GiB.
    pub memory_bytes: Option<u64>,
    /// How long a call may run; `None`: no deadline, and the engine is
    /// compiled without epoch checks (what the benchmark compares against).
    pub deadlines: Option<Deadlines>,
}

impl Limits {
    /// The default memory cap: 2 GiB. A mind's in-memory vector index takes
    /// about 40 MB per 100,000 memories (int8 codes of 384-d vectors) plus
    /// their chunks, and loading it briefly holds the vectors as SQL results
    /// too: a few hundred megabytes for a 100,000-memory mind, several minds
    /// open at once. Half of wasm32's address space leaves that room many
    /// times over and still stops a runaway guest before it takes the
    /// machine's memory.
    pub const DEFAULT_MEMORY_BYTES: u64 = 2 << 30;

    /// No memory cap beyond wasm32's and no deadline.
    pub fn unlimited() -> Limits {
        Limits {
            memory_bytes: None,
            deadlines: None,
        }
    }

    /// The defaults overridden by a configuration (`[limits]` and the
    /// environment, read by [`hive_mind_models::config::Config`]): a
    /// memory cap of 0 MiB, or a deadline of 0 ms, turns that limit off.
    pub fn from_config(config: &LimitsConfig) -> Limits {
        let mut limits = Limits::default();
        if let Some(mib) = config.memory_mib {
            limits.memory_bytes = (mib > 0).then(|| mib.saturating_mul(1 << 20));
        }
        let mut deadlines = Deadlines::default();
        if let Some(ms) = config.call_deadline_ms {
            deadlines = Deadlines::all(Duration::from_millis(ms));
        }
        for (field, configured) in [
            (&mut deadlines.recall, config.recall_deadline_ms),
            (&mut deadlines.save, config.save_deadline_ms),
            (&mut deadlines.import, config.import_deadline_ms),
            (&mut deadlines.maintenance, config.maintenance_deadline_ms),
        ] {
            if let Some(ms) = configured {
                *field = Duration::from_millis(ms);
            }
        }
        let off = [
            deadlines.recall,
            deadlines.save,
            deadlines.import,
            deadlines.maintenance,
        ]
        .iter()
        .all(Duration::is_zero);
        limits.deadlines = (!off).then_some(deadlines);
        limits
    }

    /// The epoch deadline of a call of `kind`, in ticks beyond the current
    /// epoch (a kind whose deadline is 0 gets none); `None` when the engine
    /// has no epoch checks.
    pub fn deadline_ticks(&self, kind: CallKind) -> Option<u64> {
        let deadline = self.deadlines?.of(kind);
        Some(if deadline.is_zero() {
            // Far enough never to come, near enough not to overflow when
            // wasmtime adds the current epoch.
            u64::MAX / 2
        } else {
            Deadlines::ticks(deadline)
        })
    }

    /// The store limiter for these limits.
    pub fn limiter(&self) -> GuestLimiter {
        let mut builder = StoreLimitsBuilder::new()
            .instances(MAX_INSTANCES)
            .tables(MAX_TABLES)
            .memories(MAX_MEMORIES)
            .table_elements(MAX_TABLE_ELEMENTS);
        if let Some(bytes) = self.memory_bytes {
            builder = builder.memory_size(usize::try_from(bytes).unwrap_or(usize::MAX));
        }
        GuestLimiter {
            limits: builder.build(),
            memory_bytes: self.memory_bytes,
        }
    }
}

impl Default for Limits {
    /// [`Limits::DEFAULT_MEMORY_BYTES`] and [`Deadlines::default`].
    fn default() -> Limits {
        Limits {
            memory_bytes: Some(Limits::DEFAULT_MEMORY_BYTES),
            deadlines: Some(Deadlines::default()),
        }
    }
}

/// A memory grow refused by [`Limits::memory_bytes`]: the error a call
/// traps with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the engine tried to grow its memory to {desired} bytes, past the limit of {limit} bytes")]
pub struct MemoryLimitExceeded {
    /// The size asked for.
    pub desired: usize,
    /// The cap.
    pub limit: u64,
}

/// The store's resource limiter: wasmtime's [`StoreLimits`], with a refused
/// memory grow turned into a [`MemoryLimitExceeded`] trap.
pub struct GuestLimiter {
    limits: StoreLimits,
    memory_bytes: Option<u64>,
}

impl ResourceLimiter for GuestLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = self.limits.memory_growing(current, desired, maximum)?;
        match self.memory_bytes {
            Some(limit) if !allowed => Err(MemoryLimitExceeded { desired, limit }.into()),
            _ => Ok(allowed),
        }
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }

    fn instances(&self) -> usize {
        self.limits.instances()
    }

    fn tables(&self) -> usize {
        self.limits.tables()
    }

    fn memories(&self) -> usize {
        self.limits.memories()
    }
}

/// Advances an engine's epoch every [`EPOCH_TICK`] on a thread of its own,
/// for as long as the engine lives (the thread holds a weak reference and
/// ends once the engine is dropped).
pub struct EpochTicker;

impl EpochTicker {
    /// Start ticking `engine` (which must have epoch interruption on).
    pub fn start(engine: &wasmtime::Engine) -> Result<(), std::io::Error> {
        let engine = engine.weak();
        std::thread::Builder::new()
            .name("hive-mind-epoch".into())
            .spawn(move || {
                while let Some(engine) = engine.upgrade() {
                    engine.increment_epoch();
                    drop(engine);
                    std::thread::sleep(EPOCH_TICK);
                }
            })
            .map(drop)
    }
}

/// What stopped a call that trapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrapKind {
    /// The call ran past its kind's deadline.
    DeadlineExceeded,
    /// The guest tried to grow its memory past the cap.
    MemoryLimit,
    /// The guest's stack overflowed (deep recursion).
    StackOverflow,
    /// The guest panicked or aborted (its code is built with
    /// `panic = "abort"`: an `unreachable` instruction).
    GuestPanic,
    /// Another trap (a bad memory access, a division by zero, …).
    OtherTrap,
    /// A host import failed in a way the guest cannot be told (the error
    /// unwinds through the guest like a trap).
    HostFailure,
}

impl TrapKind {
    /// Which kind of trap `error`, the error of an export call, is.
    pub fn of(error: &wasmtime::Error) -> TrapKind {
        if error.downcast_ref::<MemoryLimitExceeded>().is_some() {
            return TrapKind::MemoryLimit;
        }
        match error.downcast_ref::<wasmtime::Trap>() {
            Some(wasmtime::Trap::Interrupt) => TrapKind::DeadlineExceeded,
            Some(wasmtime::Trap::StackOverflow) => TrapKind::StackOverflow,
            Some(wasmtime::Trap::UnreachableCodeReached) => TrapKind::GuestPanic,
            Some(_) => TrapKind::OtherTrap,
            None => TrapKind::HostFailure,
        }
    }
}

impl std::fmt::Display for TrapKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TrapKind::DeadlineExceeded => "deadline exceeded",
            TrapKind::MemoryLimit => "memory limit reached",
            TrapKind::StackOverflow => "stack overflow",
            TrapKind::GuestPanic => "the engine panicked",
            TrapKind::OtherTrap => "the engine trapped",
            TrapKind::HostFailure => "a host capability failed",
        })
    }
}

/// How many engines a pool over one data directory starts by default (the
/// server's `--engines`, and the lab's serve benchmark, which reports the
/// server's setting): one per core, at most four. Recall is bound by the
/// CPU (the query's embedding, the reranker), so an engine more than the
/// cores only queues, and each costs its own linear memory — about 120 MiB
/// on a 10k-memory mind, measured by `hive-mind-lab bench serve`.
pub fn default_engines() -> usize {
    std::thread::available_parallelism()
        .map(std::num::NonZeroUsize::get)
        .unwrap_or(2)
        .clamp(1, 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_trap_maps_to_its_kind() {
        let cases = [
            (wasmtime::Trap::Interrupt, TrapKind::DeadlineExceeded),
            (wasmtime::Trap::StackOverflow, TrapKind::StackOverflow),
            (wasmtime::Trap::UnreachableCodeReached, TrapKind::GuestPanic),
            (wasmtime::Trap::MemoryOutOfBounds, TrapKind::OtherTrap),
            (wasmtime::Trap::IntegerDivisionByZero, TrapKind::OtherTrap),
        ];
        for (trap, kind) in cases {
            assert_eq!(TrapKind::of(&wasmtime::Error::new(trap)), kind, "{trap}");
            // Wasmtime adds the guest's backtrace as context: still found.
            let with_context = wasmtime::Error::new(trap).context("backtrace");
            assert_eq!(TrapKind::of(&with_context), kind, "{trap} with context");
        }
        let memory = MemoryLimitExceeded {
            desired: 2 << 20,
            limit: 1 << 20,
        };
        assert_eq!(
            TrapKind::of(&wasmtime::Error::new(memory).context("in memory.grow")),
            TrapKind::MemoryLimit
        );
        assert_eq!(
            TrapKind::of(&wasmtime::Error::msg("the embedder thread died")),
            TrapKind::HostFailure
        );
    }

    #[test]
    fn the_limiter_refuses_growth_past_the_cap_with_a_typed_error() {
        let limits = Limits {
            memory_bytes: Some(1 << 20),
            deadlines: None,
        };
        let mut limiter = limits.limiter();
        assert!(limiter.memory_growing(0, 1 << 20, None).unwrap());
        let refused = limiter.memory_growing(1 << 20, 2 << 20, None).unwrap_err();
        assert_eq!(TrapKind::of(&refused), TrapKind::MemoryLimit);
        let mut unlimited = Limits::unlimited().limiter();
        assert!(unlimited.memory_growing(0, 3 << 30, None).unwrap());
    }

    #[test]
    fn configuration_overrides_the_defaults() {
        assert_eq!(
            Limits::from_config(&LimitsConfig::default()),
            Limits::default()
        );
        let configured = Limits::from_config(&LimitsConfig {
            memory_mib: Some(64),
            call_deadline_ms: Some(5_000),
            recall_deadline_ms: Some(250),
            ..LimitsConfig::default()
        });
        assert_eq!(configured.memory_bytes, Some(64 << 20));
        let deadlines = configured.deadlines.unwrap();
        assert_eq!(deadlines.recall, Duration::from_millis(250));
        assert_eq!(deadlines.save, Duration::from_secs(5));
        assert_eq!(deadlines.maintenance, Duration::from_secs(5));
        assert_eq!(configured.deadline_ticks(CallKind::Recall), Some(25));

        let off = Limits::from_config(&LimitsConfig {
            memory_mib: Some(0),
            call_deadline_ms: Some(0),
            ..LimitsConfig::default()
        });
        assert_eq!(off, Limits::unlimited());
        assert_eq!(off.deadline_ticks(CallKind::Save), None);
    }

    #[test]
    fn a_deadline_is_at_least_one_tick() {
        assert_eq!(Deadlines::ticks(Duration::from_micros(1)), 1);
        assert_eq!(Deadlines::ticks(EPOCH_TICK * 3), 3);
        assert_eq!(
            Deadlines::ticks(EPOCH_TICK * 3 + Duration::from_nanos(1)),
            4
        );
    }
}
