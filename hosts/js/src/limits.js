// What one engine call may use, as the Rust and Python hosts bound it: a
// cap on the guest's linear memory, and a deadline per kind of call.
//
// The kinds and their defaults are the other hosts' (`CallKind` in the Rust
// host, `CALL_KINDS` in hosts/python): `recall` (and every read) 30 s,
// `save` (and small writes) 120 s, `import` (a harvest step, an exchange, a
// conversation import) 600 s, `maintenance` (reindex, check, cleanup,
// forget, export) 3600 s; the memory cap 2 GiB. The environment overrides
// them the way it does for the other hosts: `HIVE_MIND_MEMORY_LIMIT_MIB`
// and `HIVE_MIND_CALL_DEADLINE_MS` (every kind), 0 turning a limit off.
// test/limits.test.js checks the table against the Python host's.
//
// How they are enforced here: the engine runs in a worker thread
// (src/engine-thread.js), so a call past its deadline is stopped by
// terminating that thread, which stops running WebAssembly; the memory cap
// is the maximum written into the component's memory before it is
// compiled (src/component.js), so a `memory.grow` past it fails inside the
// guest, whose allocator then aborts.

/** The kinds of call. */
export const CALL_KINDS = ['recall', 'save', 'import', 'maintenance'];

/** The default deadline of each kind, in milliseconds. */
export const DEFAULT_DEADLINES_MS = { recall: 30_000, save: 120_000, import: 600_000, maintenance: 3_600_000 };

/** The default cap on the guest's linear memory: 2 GiB. */
export const DEFAULT_MEMORY_BYTES = 2 * 1024 ** 3;

/** Which kind each export is (WIT names); an export not listed is
 * `recall`. */
export const KIND_OF = {
  'save-memory': 'save',
  'save-memories': 'save',
  'save-entity': 'save',
  'create-relation': 'save',
  'create-workspace': 'save',
  'set-identity': 'save',
  'add-awareness': 'save',
  'remove-awareness': 'save',
  'clear-awareness': 'save',
  'retire-entity': 'save',
  'remember-exchange': 'import',
  'import-conversations': 'import',
  '[static]import-job.start': 'import',
  '[method]import-job.step': 'import',
  '[method]import-job.report': 'import',
  'reindex-step': 'maintenance',
  check: 'maintenance',
  'cleanup-frames': 'maintenance',
  forget: 'maintenance',
  'correct-memory': 'save',
  'memory-history': 'recall',
  'dedupe-entities': 'maintenance',
  'export-mind': 'maintenance',
  'restore-mind': 'import',
  'set-metadata': 'save',
  merge: 'save',
  'close-session': 'save',
  release: 'save',
  'decide-pair': 'save',
  'get-page': 'save',
  'clean-entities': 'maintenance',
  'list-flagged': 'maintenance',
  health: 'maintenance',
  'delete-workspace': 'maintenance',
};

function whole(name, text) {
  if (!/^\d+$/.test(text.trim())) throw new RangeError(`${name} must be a whole number, not ${JSON.stringify(text)}`);
  return Number(text.trim());
}

/**
 * The limits: the defaults, overridden by the environment (see the module
 * comment) and then by `options` (`memoryBytes`, `deadlinesMs`: null turns
 * one off). `{ memoryBytes, deadlinesMs }`, each null when off; a kind at 0
 * has no deadline.
 */
export function limitsFrom(env = process.env, options = {}) {
  let memoryBytes = DEFAULT_MEMORY_BYTES;
  let deadlinesMs = { ...DEFAULT_DEADLINES_MS };
  if (env.HIVE_MIND_MEMORY_LIMIT_MIB !== undefined) {
    memoryBytes = whole('HIVE_MIND_MEMORY_LIMIT_MIB', env.HIVE_MIND_MEMORY_LIMIT_MIB) * 1024 ** 2 || null;
  }
  if (env.HIVE_MIND_CALL_DEADLINE_MS !== undefined) {
    const ms = whole('HIVE_MIND_CALL_DEADLINE_MS', env.HIVE_MIND_CALL_DEADLINE_MS);
    deadlinesMs = ms > 0 ? Object.fromEntries(CALL_KINDS.map((kind) => [kind, ms])) : null;
  }
  if (options.memoryBytes !== undefined) memoryBytes = options.memoryBytes;
  if (options.deadlinesMs !== undefined) deadlinesMs = options.deadlinesMs === null ? null : { ...DEFAULT_DEADLINES_MS, ...options.deadlinesMs };
  return { memoryBytes, deadlinesMs };
}

/** The deadline in milliseconds of a call of the export `witName`, or
 * undefined when it has none. */
export function deadlineOf(limits, witName) {
  if (limits.deadlinesMs === null) return undefined;
  const ms = limits.deadlinesMs[KIND_OF[witName] ?? 'recall'];
  return ms > 0 ? ms : undefined;
}
