// The idiomatic API: HiveMind over the engine component.
//
//   import { HiveMind } from 'hive-mind-engine';
//   const mind = await HiveMind.open('/path/to/data');
//   await mind.save('We decided to use Postgres for the ledger.', { importance: 'important' });
//   const recall = await mind.recall('which database for the ledger?');
//   console.log(recall.text);
//   for (const m of recall.memories) console.log(m.ref, m.lane, m.score, m.content);
//   await mind.close();
//
// Every method is one call of the engine's `memory` or `admin` export; the
// data directory holds the same files the `hive-mind` CLI and the Python
// host use (`personal.sqlite`, `workspaces/<id>.sqlite`), so they share
// minds. Frame references are written as the CLI writes them:
// `personal:42`, `workspace:acme:42`. Failures are HiveMindError subclasses
// (src/errors.js); bad input is a TypeError or RangeError.

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';

import { ModelWorker } from './bridge.js';
import { defaultComponentPath, loadComponent } from './component.js';
import { DISTILLATIONS, IMPORTANCE, PROFILES, SCOPES, SOURCE_FORMATS, SOURCES } from './enums.js';
import { HiveMindError, fromVariant } from './errors.js';
import { ComponentHost } from './host.js';
import { defaultModelDir, findReranker } from './models.js';
import { requireFts5 } from './sqlite.js';

function choice(name, value, allowed) {
  if (value === undefined || value === null) return undefined;
  if (!allowed.includes(value)) {
    throw new RangeError(`${name} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A WIT timestamp (Unix milliseconds, bigint) as ISO-8601 UTC, as the
 * Python host writes it: whole seconds without milliseconds. */
export function iso(timestamp) {
  const ms = Number(timestamp);
  const text = new Date(ms).toISOString();
  return ms % 1000 === 0 ? text.replace(/\.000Z$/, 'Z') : text;
}

/** ISO-8601 text (or a Date) as a WIT timestamp; a time without a zone, or
 * a date alone, is UTC. */
export function timestamp(value) {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return BigInt(value.getTime());
  const text = String(value).trim();
  const zoned = /([zZ]|[+-]\d\d:?\d\d)$/.test(text) || !/T|\s\d/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned.replace(' ', 'T'));
  if (Number.isNaN(ms)) throw new RangeError(`not an ISO-8601 time: ${JSON.stringify(value)}`);
  return BigInt(ms);
}

function mindName(mind) {
  return mind.tag === 'personal' ? 'personal' : `workspace:${mind.val}`;
}

function ref(frameRef) {
  return frameRef.mind.tag === 'personal'
    ? `personal:${frameRef.id}`
    : `workspace:${frameRef.mind.val}:${frameRef.id}`;
}

function origin(frame) {
  const kind = frame.metadata?.kind;
  if (!kind || kind.tag !== 'raw-turn') return undefined;
  return { conversation: kind.val.conversation, turn: kind.val.turn, speaker: kind.val.speaker };
}

/** What a saved and a recalled memory both say of their frame. */
function frameFields(frame) {
  return {
    content: frame.content,
    text: frame.text,
    importance: frame.importance,
    createdAt: iso(frame.createdAt),
    origin: origin(frame),
  };
}

function saved(item) {
  const { frame } = item;
  return { ref: ref(frame.ref), duplicate: item.duplicate, ...frameFields(frame) };
}

function memory(recalled) {
  const { frame } = recalled;
  return {
    ref: ref(frame.ref),
    lane: recalled.lane,
    score: recalled.score,
    why: recalled.why,
    ...frameFields(frame),
  };
}

function mindStatus(status) {
  const count = (value) => Number(value);
  return {
    mind: mindName(status.mind),
    schemaVersion: status.schemaVersion,
    embedder: status.embedder
      ? { provider: status.embedder.provider, model: status.embedder.model, dimensions: status.embedder.dimensions }
      : null,
    frames: count(status.frames),
    ftsRows: count(status.ftsRows),
    frameVectors: count(status.frameVectors),
    chunks: count(status.chunks),
    chunkVectors: count(status.chunkVectors),
    entities: count(status.entities),
    relations: count(status.relations),
    sessions: count(status.sessions),
    chunkPlan: status.chunkPlan,
    chunkWindow: status.chunkWindow ?? null,
    notes: [...status.notes],
  };
}

function workspaceMind(workspace) {
  return workspace === undefined || workspace === null ? { tag: 'personal' } : { tag: 'workspace', val: String(workspace) };
}

function text(name, value) {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, not ${typeof value}`);
  return value;
}

function optionalCount(name, value) {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new RangeError(`${name} must be a whole number from 0 to 4294967295; got ${value}`);
  }
  return value;
}

export class HiveMind {
  /**
   * Open the minds in `dataDir` (created on the first save).
   *
   * Options: `component`, the engine `.wasm` (default
   * `$HIVE_MIND_COMPONENT`, else this source tree's guest build);
   * `modelDir`, the embedding model's folder, else `model`, its name
   * (`bge-small-en-v1.5`, `all-MiniLM-L6-v2`; default
   * `$HIVE_MIND_IN_PROCESS_MODEL`, else bge-small-en-v1.5) looked for in
   * `$HIVE_MIND_MODELS_DIR`, `$HIVE_MIND_HOME/models` and this source
   * tree's `models/`; `reranker: false` turns the cross-encoder off (it is
   * on when installed, unless `HIVE_MIND_RERANKER=off`).
   *
   * Rejects with ComponentError (no component, or not one), ModelError
   * (a model file missing or not the shipped one), Fts5MissingError.
   */
  static async open(dataDir, options = {}) {
    if (typeof dataDir !== 'string' && !(dataDir instanceof URL)) {
      throw new TypeError('HiveMind.open needs the data directory (a path)');
    }
    const directory = resolve((dataDir instanceof URL ? fileURLToPath(dataDir) : dataDir).replace(/^~(?=$|\/)/, homedir()));
    requireFts5();
    const component = await loadComponent(options.component ?? defaultComponentPath());
    const folder = options.modelDir ?? defaultModelDir(options.model);
    const worker = new ModelWorker();
    try {
      const embedderInfo = await worker.call('load-embedder', { folder: String(folder) });
      let rerankerInfo;
      let rerankerWhy;
      if (options.reranker === false) {
        rerankerWhy = 'reranking is turned off (reranker: false)';
      } else {
        const found = findReranker();
        if (found.folder) rerankerInfo = await worker.call('load-reranker', { folder: found.folder });
        else rerankerWhy = found.why;
      }
      const host = new ComponentHost({ component, dataDir: directory, worker, embedderInfo, rerankerInfo, rerankerWhy });
      return new HiveMind(host, worker, directory);
    } catch (error) {
      await worker.close();
      throw error;
    }
  }

  /** Use HiveMind.open. */
  constructor(host, worker, directory) {
    this.host = host;
    this.worker = worker;
    /** The data directory. */
    this.directory = directory;
  }

  call(iface, name, ...args) {
    if (this.host === undefined) throw new HiveMindError('closed', 'this HiveMind is closed');
    return this.result(this.host.call(iface, name, ...args));
  }

  /**
   * Save one memory to the personal mind, or to `workspace`'s.
   * `importance`: one of IMPORTANCE (default normal); `source`: one of
   * SOURCES (default user-stated); `createdAt`: the event time (ISO-8601 or
   * a Date; default now). Resolves to the memory as saved.
   */
  async save(content, { importance, workspace, createdAt, source } = {}) {
    const result = this.call('memory', 'saveMemory', {
      content: text('content', content),
      importance: choice('importance', importance, IMPORTANCE),
      source: choice('source', source, SOURCES),
      mind: workspaceMind(workspace),
      createdAt: timestamp(createdAt),
      kind: undefined,
    });
    return saved(result);
  }

  /**
   * Recall the memories most relevant to `query`. Every option left out
   * gets the engine's default (`recall-options` in wit/memory.wit): `limit`
   * 10; `workspace` the active workspace; `scope` one of SCOPES; `now` the
   * time recency is scored against; `profile` one of PROFILES;
   * `rerankPool` how many candidates the reranker reads (0: none); `asOf`
   * what was valid then; `maxTokens` a bound on the block's text.
   * Resolves to `{ text, memories, context, notes, withheld }`, memories
   * best first.
   */
  async recall(query, { limit, workspace, scope, now, profile, rerankPool, asOf, maxTokens } = {}) {
    const result = this.call('memory', 'recallMemory', text('query', query), {
      limit: optionalCount('limit', limit),
      workspace: workspace ?? undefined,
      scope: choice('scope', scope, SCOPES),
      profile: choice('profile', profile, PROFILES),
      now: timestamp(now),
      floor: undefined,
      rerankPool: optionalCount('rerankPool', rerankPool),
      asOf: timestamp(asOf),
      maxTokens: optionalCount('maxTokens', maxTokens),
    });
    return {
      text: result.text,
      memories: result.memories.map(memory),
      context: result.context,
      notes: result.notes.map((note) => ({ kind: note.kind, text: note.text })),
      withheld: result.withheld ?? null,
    };
  }

  /** Learn from one successful (user, assistant) exchange: the memories
   * the write-back patterns find, as saved. */
  async rememberExchange(user, assistant, { workspace } = {}) {
    const result = this.call('memory', 'rememberExchange', text('user', user), text('assistant', assistant), {
      workspace: workspace ?? undefined,
      gopId: undefined,
      succeeded: true,
      occurredAt: undefined,
    });
    return result.map(saved);
  }

  /**
   * Harvest one file (an export, its zip, Markdown, PDF, …) into the
   * personal mind or `workspace`'s: the engine detects the format by
   * content (`source`, one of SOURCE_FORMATS, overrides it), parses it in
   * the sandbox and runs the passes; `distillation` is one of
   * DISTILLATIONS (this host has no language model, so `auto` is
   * heuristic). Resolves to the import's report (the WIT `import-report`,
   * as jco gives it: camelCase). Importing the same file again writes
   * nothing.
   */
  async importFile(path, { source, workspace, distillation = 'auto', dryRun = false } = {}) {
    const bytes = new Uint8Array(await readFile(path));
    const options = {
      source: choice('source', source, SOURCE_FORMATS),
      mind: workspaceMind(workspace),
      distillation: choice('distillation', distillation, DISTILLATIONS),
      dryRun: Boolean(dryRun),
    };
    const stepItems = this.call('admin', 'getPlanConstants').harvestStepItems;
    const host = this.host;
    const instance = host.restarts;
    const { ImportJob } = host.instance.harvest;
    const job = this.result(host.run('import-job.start', () => ImportJob.start([{ tag: 'document', val: { name: String(path), bytes } }], options)));
    try {
      while (!this.result(host.run('import-job.step', () => job.step(stepItems))).finished);
      return this.result(host.run('import-job.report', () => job.report()));
    } finally {
      // A job whose instance trapped died with it.
      if (host.restarts === instance) job[Symbol.dispose ?? Symbol.for('dispose')]();
    }
  }

  result(outcome) {
    if (!outcome.ok) throw fromVariant(outcome.error);
    return outcome.value;
  }

  /** Every mind's counts, personal first. */
  async status() {
    return this.call('admin', 'status').map(mindStatus);
  }

  /** The engine's exports as jco gives them (`memory`, `admin`, `review`,
   * `harvest`, `wiki`), for what this API does not wrap; a trap inside
   * them is not caught here. */
  get exports() {
    if (this.host === undefined) throw new HiveMindError('closed', 'this HiveMind is closed');
    return this.host.instance;
  }

  /** Release the engine, close its databases and stop the model worker
   * (idempotent). */
  async close() {
    if (this.host === undefined) return;
    this.host.close();
    this.host = undefined;
    await this.worker.close();
  }

  async [Symbol.asyncDispose ?? Symbol.for('asyncDispose')]() {
    await this.close();
  }
}
