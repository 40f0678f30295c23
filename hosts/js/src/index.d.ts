// Types of the hive-mind-engine package (hand-written; `npm run typecheck`
// checks them against test/types.ts).

/** How much a memory matters (`types.importance`), most important first. */
export type Importance = 'critical' | 'important' | 'normal' | 'temporary' | 'deprecated';
/** Where a memory came from (`types.source`). */
export type Source = 'user-stated' | 'tool-verified' | 'agent-inferred' | 'import' | 'system';
/** Which minds a recall searches (`memory.recall-scope`). */
export type RecallScope = 'personal' | 'current' | 'all';
/** How recall weighs its relevance signals (`types.scoring-profile`). */
export type ScoringProfile = 'balanced' | 'recent' | 'important' | 'connected';

/** What harvest reads (`harvest.source-format`). */
export type SourceFormat = 'chatgpt' | 'claude' | 'gemini' | 'perplexity' | 'claude-code' | 'markdown' | 'plain-text' | 'pdf' | 'html' | 'universal';
/** How harvest distills (`harvest.distillation`). */
export type Distillation = 'auto' | 'heuristic' | 'llm';

export const IMPORTANCE: readonly Importance[];
export const SOURCE_FORMATS: readonly SourceFormat[];
export const DISTILLATIONS: readonly Distillation[];
export const SOURCES: readonly Source[];
export const SCOPES: readonly RecallScope[];
export const PROFILES: readonly ScoringProfile[];
/** The owner's word on a pair (`review.pair-verdict`). */
export type PairVerdict = 'replaces' | 'both-stand';
export const PAIR_VERDICTS: readonly PairVerdict[];
/** The logs `log` reads (`review.log-kind`). */
export type LogKind = 'reviews' | 'erasures' | 'installs' | 'ai-interactions';
export const LOGS: readonly LogKind[];
/** What `cleanEntities` looks for (`review.entity-rule`). */
export type EntityRule = 'orphans' | 'noise';
export const ENTITY_RULES: readonly EntityRule[];

/** An ISO-8601 time (a time without a zone, or a date alone, is UTC), or a Date. */
export type Time = string | Date;

export interface OpenOptions {
  /** The engine component (.wasm); default `$HIVE_MIND_COMPONENT`, else this source tree's guest build. */
  component?: string;
  /** The embedding model's folder. */
  modelDir?: string;
  /** The embedding model's name, looked for in the models folders; default `$HIVE_MIND_IN_PROCESS_MODEL`, else bge-small-en-v1.5. */
  model?: string;
  /** `false` turns the cross-encoder off (on when installed, unless `HIVE_MIND_RERANKER=off`). */
  reranker?: boolean;
  /** A cap on the engine's memory in bytes; default 2 GiB (`HIVE_MIND_MEMORY_LIMIT_MIB`); null: none. */
  memoryBytes?: number | null;
  /** Each kind of call's deadline in ms (0: none); default recall 30 s, save 120 s, import 600 s, maintenance 3600 s (`HIVE_MIND_CALL_DEADLINE_MS`); null: none. */
  deadlinesMs?: Partial<Record<'recall' | 'save' | 'import' | 'maintenance', number>> | null;
}

export interface SaveOptions {
  importance?: Importance;
  /** The workspace mind to save to; default the personal mind. */
  workspace?: string;
  /** The event time; default now. */
  createdAt?: Time;
  source?: Source;
}

export interface RecallOptions {
  /** The most memories, every lane together (default 10, at most 100). */
  limit?: number;
  /** The active workspace. */
  workspace?: string;
  scope?: RecallScope;
  /** The time recency is scored against; default now. */
  now?: Time;
  profile?: ScoringProfile;
  /** How many of the best candidates the reranker reads (0: none). */
  rerankPool?: number;
  /** Answer with what was valid then. */
  asOf?: Time;
  /** A bound on the recall block's tokens. */
  maxTokens?: number;
}

/** Where a verbatim conversation turn came from. */
export interface TurnOrigin {
  conversation: string;
  turn: number;
  speaker: string;
}

/** A memory as saved. */
export interface Saved {
  /** `personal:<id>` or `workspace:<workspace>:<id>`. */
  ref: string;
  /** Whether it was already known (deduplicated, nothing written). */
  duplicate: boolean;
  /** The text as stored, with the engine's storage markings. */
  content: string;
  /** What it says, for a person. */
  text: string;
  importance: Importance;
  /** Event time, ISO-8601 UTC. */
  createdAt: string;
  origin?: TurnOrigin;
  /** Why the injection detector held it back, when it did: kept for its
   * owner's review and never recalled until `release`d. */
  quarantine: Quarantine | null;
  /** What to tell whoever saved it when it was quarantined (score,
   * reasons, how to release it); `null` otherwise. */
  notice: string | null;
}

/** The detector's verdict on a memory it held back when it was written. */
export interface Quarantine {
  /** The score, 0 to 1. */
  score: number;
  /** Which detector judged (`ngram-lr-v1-…`, or the regex fallback). */
  detector: string;
  /** Why, strongest first: the sentence that scored highest, then words,
   * phrases and patterns. */
  reasons: string[];
}

/** One recalled memory and why it was chosen. */
export interface Memory {
  ref: string;
  /** The lane that found it (`semantic`, `importance`, `date-window`, …). */
  lane: string;
  score: number;
  /** A short human-readable reason. */
  why: string;
  content: string;
  text: string;
  importance: Importance;
  createdAt: string;
  origin?: TurnOrigin;
}

export interface RecallNote {
  /** What it is about (`near-miss`, `quarantined`, `reranker`, …). */
  kind: string;
  text: string;
}

export interface Recall {
  /** The formatted block to add to the model's context. */
  text: string;
  /** The recalled memories, best first. */
  memories: Memory[];
  /** Identity and awareness, for the system prompt; empty when none. */
  context: string;
  notes: RecallNote[];
  /** Set when the injection scan withheld the whole recall: why. */
  withheld: string | null;
}

export interface ImportOptions {
  /** The format, when not detected from the content. */
  source?: SourceFormat;
  /** The workspace mind to import into; default the personal mind. */
  workspace?: string;
  /** Default `auto` (heuristic here: this host has no language model). */
  distillation?: Distillation;
  /** Report what would be imported, writing nothing. */
  dryRun?: boolean;
}

/** One source of an import (`harvest.source-report`). */
export interface SourceReport {
  name: string;
  format?: SourceFormat;
  items: number;
  known: number;
  unchanged: boolean;
  error?: { tag: string; val?: unknown };
  notes: string[];
}

/** What an import did (`harvest.import-report`, camelCase as jco gives it). */
export interface ImportReport {
  sources: SourceReport[];
  distillation: Distillation;
  dryRun: boolean;
  items: number;
  quarantinedItems: number;
  skippedLowValue: number;
  imported: number;
  failed: number;
  extracted: number;
  duplicatesExact: number;
  duplicatesNear: number;
  contradictions: number;
  droppedExtractions: number;
  frames: { rawTurns: number; facts: number; events: number; profiles: number; documents: number };
  entitiesNew: number;
  entitiesSeen: number;
  relations: number;
  llmCalls: number;
  llmInputTokens: bigint;
  llmOutputTokens: bigint;
  notes: string[];
  /** When items were quarantined: how many, and how to list and release
   * them. */
  notice?: string;
}

export interface Fingerprint {
  provider: string;
  model: string;
  dimensions: number;
}

export interface MindStatus {
  /** `personal` or `workspace:<id>`. */
  mind: string;
  schemaVersion: number;
  embedder: Fingerprint | null;
  frames: number;
  ftsRows: number;
  frameVectors: number;
  chunks: number;
  chunkVectors: number;
  entities: number;
  relations: number;
  sessions: number;
  chunkPlan: string;
  chunkWindow: number | null;
  notes: string[];
}

// What the owner reads and governs. A reference is `personal:<id>` or
// `workspace:<workspace>:<id>`; a mind is `personal` or
// `workspace:<id>`; a time is ISO-8601 UTC text; counts and ids are
// numbers (bigint only past 2^53).

/** A memory reference, as the CLI writes it. */
export type Ref = string;
/** A WIT variant as jco lifts it, its payload plain. */
export interface Variant { tag: string; val?: unknown }

/** How the poisoning detector read a memory when it was written (`types.screening`). */
export interface Screening { score: number; detector: string; reasons: string[]; quarantined: boolean }

/** A memory with everything stored about it (`types.frame`). */
export interface Frame {
  ref: Ref;
  frameType: 'i-frame' | 'p-frame' | 'b-frame';
  gopId: string;
  t: number;
  baseFrame: Ref | null;
  content: string;
  text: string;
  importance: Importance;
  source: Source;
  accessCount: number;
  createdAt: string;
  insertedAt: string;
  lastAccessed: string | null;
  contentHash: string;
  metadata: { kind: Variant | null; harvestFormat: string | null; document: string | null; provenance: string | null; confidence: number | null; [field: string]: unknown };
  validTo: string | null;
  supersededBy: Ref | null;
  status: 'active' | 'archived';
  pinned: boolean;
  tags: string[];
  mergedInto: Ref | null;
  released: boolean;
  screening: Screening | null;
}

/** What `forget` takes: memories by reference, or a filter over one mind. */
export type ForgetSelection =
  | Ref[]
  | {
      /** All its words. */
      matching?: string;
      /** Event days, YYYY-MM-DD. */
      since?: string;
      until?: string;
      /** The days it was written into the mind, UTC. */
      learnedSince?: string;
      learnedUntil?: string;
      harvestFormat?: string;
      document?: string;
      /** The workspace mind to filter; default the personal mind. */
      workspace?: string;
    };

/** What `forget` erased, or with `confirm` left out would erase (`memory.forget-report`). */
export interface ForgetReport {
  memories: { frame: Ref; contentHash: string; eventDay: string; preview: string; branchOf: Ref | null }[];
  entities: { mind: string; name: string }[];
  contextsRewritten: number;
  bytesBefore: number;
  bytesAfter: number;
  dryRun: boolean;
}

/** One version of a memory. */
export interface Version { ref: Ref; content: string; createdAt: string; validTo: string | null; supersededBy: Ref | null }

export interface RestoreReport { frames: number; tables: Record<string, number>; reindexed: number }

export interface SessionInfo {
  gopId: string;
  title: string | null;
  project: string | null;
  closed: boolean;
  startedAt: string;
  endedAt: string | null;
  summary: string | null;
  memories: number;
  firstEvent: string | null;
  lastEvent: string | null;
}

export interface EntityInfo {
  id: number;
  name: string;
  entityType: string;
  seenCount: number;
  /** JSON text. */
  properties: string;
  validFrom: string;
  retiredAt: string | null;
}
export interface RelationInfo { id: number; subject: number; relation: string; object: number; strength: number; seenCount: number }
export interface EntityView { entity: EntityInfo; outgoing: RelationInfo[]; incoming: RelationInfo[]; related: EntityInfo[]; memories: Ref[] }

/** A row of a log; `detail` parsed from its JSON. */
export interface LogRow { id: number; at: string; action: string; memory: Ref | null; detail: unknown }

export interface Trace {
  memory: Frame;
  session: SessionInfo | null;
  base: Ref | null;
  replaced: Ref[];
  mergedFrom: Ref[];
  branches: Ref[];
  entities: EntityInfo[];
  related: { memory: Ref; similarity: number }[];
  reviews: LogRow[];
}

export interface PageSummary {
  slug: string;
  title: string;
  kind: 'you' | 'entity' | 'topic';
  entityType: string;
  statements: number;
  conflicts: number;
  updatedAt: string | null;
}
export interface Page {
  summary: PageSummary;
  about: string[];
  current: Frame[];
  history: Frame[];
  conflicts: { older: Ref; newer: Ref }[];
  related: { slug: string; title: string; relation: string; outgoing: boolean }[];
  markdown: string;
  synthesis: { text: string; sources: Ref[]; model: string; writtenAt: string } | null;
}
export interface HealthReport {
  /** In `wiki.health-kind` order: conflict, stale, orphan, quarantined, replaced, duplicate. */
  counts: number[];
  issues: { kind: 'conflict' | 'stale' | 'orphan' | 'quarantined' | 'replaced' | 'duplicate'; text: string; memories: Ref[]; page: string | null }[];
}

export interface Flagged { memory: Frame; score: number; patterns: string[] }
export interface PairDecision { older: Frame; newer: Frame; verdict: PairVerdict; decidedAt: string }
export interface WorkspaceDeletion { workspace: string; memories: number; entities: number; sessions: number; deleted: boolean }

/** Which mind, and how many. */
export interface Paged { workspace?: string; limit?: number }

export class HiveMind {
  private constructor();
  /** Open the minds in `dataDir` (created, owner-only, if missing). */
  static open(dataDir: string | URL, options?: OpenOptions): Promise<HiveMind>;
  /** The data directory. */
  readonly directory: string;
  save(content: string, options?: SaveOptions): Promise<Saved>;
  recall(query: string, options?: RecallOptions): Promise<Recall>;
  rememberExchange(user: string, assistant: string, options?: { workspace?: string }): Promise<Saved[]>;
  /** Harvest one file into a mind; importing the same file again writes nothing. */
  importFile(path: string, options?: ImportOptions): Promise<ImportReport>;
  status(): Promise<MindStatus[]>;
  /** Forget for real; without `confirm: true` only the report of what would go. */
  forget(selection: ForgetSelection, options?: { reason?: string; confirm?: boolean }): Promise<ForgetReport>;
  /** A new version; the old one is closed and kept in the history. */
  correct(memory: Ref, content: string, options?: { createdAt?: Time }): Promise<{ memory: Saved; replaced: Saved }>;
  /** The versions of a memory, oldest first. */
  history(memory: Ref): Promise<Version[]>;
  /** The portable JSON Lines export (or a Markdown document), one string per line. */
  export(options?: { workspace?: string; markdown?: boolean }): Promise<string[]>;
  /** Restore an export into an empty mind, then embed it. */
  restore(lines: string[], options?: { workspace?: string }): Promise<RestoreReport>;
  /** Archive or bring back, pin, tag. */
  review(memory: Ref, change?: { archived?: boolean; pinned?: boolean; addTags?: string[]; removeTags?: string[] }): Promise<Frame>;
  merge(memories: Ref[], options?: { content?: string }): Promise<{ memory: Frame; originals: Frame[] }>;
  trace(memory: Ref): Promise<Trace>;
  entity(id: number | bigint, options?: { workspace?: string }): Promise<EntityView>;
  entities(options?: Paged & { text?: string; type?: string }): Promise<EntityInfo[]>;
  neighbours(id: number | bigint, options?: Paged & { depth?: number; type?: string }): Promise<{ entity: EntityInfo; depth: number }[]>;
  wikiPages(options?: Paged): Promise<PageSummary[]>;
  /** `you` or `entity-<id>`. */
  wikiPage(page: string, options?: { workspace?: string }): Promise<Page>;
  searchWiki(text: string, options?: Paged): Promise<PageSummary[]>;
  wikiHealth(options?: Paged): Promise<HealthReport>;
  sessions(options?: Paged): Promise<SessionInfo[]>;
  session(gopId: string, options?: Paged): Promise<{ session: SessionInfo; memories: Frame[] }>;
  closeSession(gopId: string, options?: { summary?: string; workspace?: string }): Promise<SessionInfo>;
  decidePair(older: Ref, newer: Ref, verdict: PairVerdict): Promise<PairDecision>;
  /** The newest rows first; `before` a row id to page back from. */
  log(kind: LogKind, options?: Paged & { before?: number | bigint }): Promise<LogRow[]>;
  /** The memories held back as likely prompt injections. */
  flagged(options?: Paged): Promise<Flagged[]>;
  /** You vouch for it: recalled again. */
  release(memory: Ref): Promise<Frame>;
  cleanEntities(rule: EntityRule, options?: { apply?: boolean; workspace?: string }): Promise<EntityInfo[]>;
  /** Without `confirm: true` only what would go. */
  deleteWorkspace(workspace: string, options?: { confirm?: boolean }): Promise<WorkspaceDeletion>;
  /** Call one of the engine's exports as jco names it (`call('memory', 'saveMemories', inputs)`), for what this API does not wrap: its value, or its error as a HiveMindError. */
  call(iface: 'memory' | 'admin' | 'review' | 'harvest' | 'wiki', name: string, ...args: unknown[]): Promise<any>;
  /** Close the engine (its databases, the model worker) and end its thread (idempotent). */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A failure reported by the engine. */
export class HiveMindError extends Error {
  constructor(kase: string, detail?: string);
  /** The WIT case name (`invalid-argument`, `storage`, `embedder`, `llm`; `closed`, `trap`). */
  readonly case: string;
  readonly detail: string;
}
export class InvalidArgumentError extends HiveMindError {}
export class StorageError extends HiveMindError {
  constructor(kase: string, detail: string, storageCase: string);
  /** The `types.storage-error` case: `busy`, `sql`, `newer-schema`, `not-found`, … */
  readonly storageCase: string;
}
export class NotFoundError extends StorageError {}
export class NewerSchemaError extends StorageError {
  constructor(kase: string, detail: string, storageCase: string, schemaVersion: number);
  readonly schemaVersion: number;
}
export class EmbedderError extends HiveMindError {}
export class LlmError extends HiveMindError {}
export class EngineTrap extends HiveMindError {
  constructor(kase: string, detail: string, kind?: TrapKind);
  readonly kind: TrapKind;
}
export type TrapKind = 'deadline-exceeded' | 'stack-overflow' | 'memory-limit' | 'guest-panic' | 'other-trap' | 'host-failure';

/** The component file is missing, unreadable, not a component, or not the engine of this host's WIT version. */
export class ComponentError extends Error {
  readonly path: string;
}
/** A model file is missing, unreadable or not the shipped one. */
export class ModelError extends Error {
  readonly path: string;
}
/** better-sqlite3's SQLite was built without FTS5. */
export class Fts5MissingError extends Error {}

export function defaultComponentPath(): string;
export function defaultModelDir(model?: string): string;
