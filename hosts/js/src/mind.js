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

import { defaultComponentPath } from './component.js';
import {
  DISTILLATIONS,
  ENTITY_RULES,
  IMPORTANCE,
  LOGS,
  PAIR_VERDICTS,
  PROFILES,
  SCOPES,
  SOURCE_FORMATS,
  SOURCES,
} from './enums.js';
import { fromVariant } from './errors.js';
import { limitsFrom } from './limits.js';
import { defaultModelDir } from './models.js';
import { EngineThread } from './thread.js';
import { iso, mindName, plain, ref, refIn, timestamp, workspaceMind } from './values.js';

function choice(name, value, allowed) {
  if (value === undefined || value === null) return undefined;
  if (!allowed.includes(value)) {
    throw new RangeError(`${name} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** `choice` of a value that must be given. */
function requiredChoice(name, value, allowed) {
  const chosen = choice(name, value, allowed);
  if (chosen === undefined) throw new RangeError(`${name} must be one of ${allowed.join(', ')}`);
  return chosen;
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
  const reference = ref(frame.ref);
  const quarantine = frame.screening?.quarantined
    ? { score: frame.screening.score, detector: frame.screening.detector, reasons: [...frame.screening.reasons] }
    : null;
  return {
    ref: reference,
    duplicate: item.duplicate,
    ...frameFields(frame),
    quarantine,
    notice: quarantine ? quarantineNotice(reference, quarantine) : null,
  };
}

/** What to tell whoever saved a memory the detector held back: its score
 * and reasons, and how to let it through (the CLI and MCP say the same in
 * their own commands). */
function quarantineNotice(reference, { score, reasons }) {
  const why = reasons.length > 0 ? `: ${reasons.join('; ')}` : '';
  return (
    `quarantined: the injection detector scored it ${score.toFixed(2)}${why}. ` +
    `It is kept for its owner's review and never recalled: mind.flagged() lists it, ` +
    `mind.release('${reference}') lets it through.`
  );
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

/** How many rows a restore's re-embedding writes per engine call (the
 * Python host's batch). */
const REINDEX_BATCH = 64;

/** A page size: a whole number from 1 to 2^32 - 1. */
function limitOf(name, value, fallback) {
  const limit = value ?? fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > 0xffffffff) {
    throw new RangeError(`${name} must be a whole number from 1 to 4294967295; got ${limit}`);
  }
  return limit;
}

/** An entity or log-row id (u64). */
function idOf(name, value) {
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new RangeError(`${name} must be a whole number of at least 0; got ${value}`);
}

function optionalText(name, value) {
  return value === undefined || value === null ? undefined : text(name, value);
}

/** A WIT log-entry: its detail parsed from JSON. */
function logRow(entry) {
  const row = plain(entry);
  row.detail = JSON.parse(entry.detail);
  return row;
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
   * on when installed, unless `HIVE_MIND_RERANKER=off`); `memoryBytes`
   * caps the engine's memory (default 2 GiB, `HIVE_MIND_MEMORY_LIMIT_MIB`;
   * null: none) and `deadlinesMs` bounds each kind of call (`{ recall,
   * save, import, maintenance }`, default 30 s, 120 s, 600 s, 3600 s,
   * `HIVE_MIND_CALL_DEADLINE_MS`; null: none): see src/limits.js. The
   * engine runs in a thread of its own, so a call never blocks Node's event
   * loop, and a call past its deadline is stopped (EngineTrap, `kind`
   * `deadline-exceeded`) and the engine restarted for the next.
   *
   * Rejects with ComponentError (no component, not one, or not the engine
   * of this host's WIT version), ModelError
   * (a model file missing or not the shipped one), Fts5MissingError.
   */
  static async open(dataDir, options = {}) {
    if (typeof dataDir !== 'string' && !(dataDir instanceof URL)) {
      throw new TypeError('HiveMind.open needs the data directory (a path)');
    }
    const directory = resolve((dataDir instanceof URL ? fileURLToPath(dataDir) : dataDir).replace(/^~(?=$|\/)/, homedir()));
    const limits = limitsFrom(process.env, { memoryBytes: options.memoryBytes, deadlinesMs: options.deadlinesMs });
    const thread = await EngineThread.start(
      {
        dataDir: directory,
        component: resolve(String(options.component ?? defaultComponentPath())),
        modelDir: String(options.modelDir ?? defaultModelDir(options.model)),
        reranker: options.reranker,
      },
      limits,
    );
    return new HiveMind(thread, directory);
  }

  /** Use HiveMind.open. */
  constructor(thread, directory) {
    this.thread = thread;
    /** The data directory. */
    this.directory = directory;
  }

  /**
   * Call the engine's export `iface.name(...args)` as jco names them
   * (`memory.saveMemories`, `admin.reindexStep`, …; WIT values as jco
   * lifts and lowers them): its value, or the engine's error as a
   * HiveMindError subclass. For what this API does not wrap.
   */
  async call(iface, name, ...args) {
    return this.result(await this.thread.call(iface, name, args));
  }

  /**
   * Save one memory to the personal mind, or to `workspace`'s.
   * `importance`: one of IMPORTANCE (default normal); `source`: one of
   * SOURCES (default user-stated); `createdAt`: the event time (ISO-8601 or
   * a Date; default now). Resolves to the memory as saved.
   */
  async save(content, { importance, workspace, createdAt, source } = {}) {
    const result = await this.call('memory', 'saveMemory', {
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
    const result = await this.call('memory', 'recallMemory', text('query', query), {
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
    const result = await this.call('memory', 'rememberExchange', text('user', user), text('assistant', assistant), {
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
   * as jco gives it: camelCase), with a `notice` when items were
   * quarantined (how to list and release them). Importing the same file
   * again writes nothing.
   */
  async importFile(path, { source, workspace, distillation = 'auto', dryRun = false } = {}) {
    const bytes = new Uint8Array(await readFile(path));
    const options = {
      source: choice('source', source, SOURCE_FORMATS),
      mind: workspaceMind(workspace),
      distillation: choice('distillation', distillation, DISTILLATIONS),
      dryRun: Boolean(dryRun),
    };
    const { harvestStepItems } = await this.call('admin', 'getPlanConstants');
    const documents = [{ tag: 'document', val: { name: String(path), bytes } }];
    const job = this.result(await this.thread.request({ op: 'job-start', documents, options }, '[static]import-job.start'));
    try {
      while (!this.result(await this.thread.request({ op: 'job-step', job, items: harvestStepItems }, '[method]import-job.step')).finished);
      const report = this.result(await this.thread.request({ op: 'job-report', job }, '[method]import-job.report'));
      if (report.quarantinedItems > 0 && !report.dryRun) {
        report.notice =
          `${report.quarantinedItems} item(s) quarantined by the injection detector: kept for their owner's ` +
          `review and never recalled. mind.flagged() lists them, mind.release(ref) lets one through.`;
      }
      return report;
    } finally {
      // A job whose engine thread was replaced died with it.
      await this.thread.request({ op: 'job-drop', job }).catch(() => {});
    }
  }

  /**
   * Forget memories for real (`memory.forget`): `selection` is an array of
   * references (`personal:42`), or a filter over the personal mind (or
   * `workspace`'s): `{ matching, since, until, learnedSince,
   * learnedUntil, harvestFormat, document, workspace }` (`matching`: all
   * its words; `since`/`until`: event days, YYYY-MM-DD; `learned…`: the
   * days it was written into the mind, UTC). Without `confirm: true`
   * nothing changes and the report lists exactly what would be erased.
   * With it, each memory goes with its search entries, vectors, the
   * entities left without evidence and the copies of its text, and the
   * freed pages are reclaimed. `reason` is kept in the erasure log, which
   * never keeps the text. Resolves to the WIT `forget-report`.
   */
  async forget(selection, { reason, confirm = false } = {}) {
    let selector;
    if (Array.isArray(selection)) {
      if (selection.length === 0) throw new RangeError('name the memories to forget, or give a filter');
      selector = { tag: 'memories', val: selection.map(refIn) };
    } else if (selection !== null && typeof selection === 'object') {
      const known = ['matching', 'since', 'until', 'learnedSince', 'learnedUntil', 'harvestFormat', 'document', 'workspace'];
      const unknown = Object.keys(selection).filter((key) => !known.includes(key));
      if (unknown.length > 0) throw new RangeError(`unknown forget filter ${unknown.join(', ')}; the filters are ${known.join(', ')}`);
      const filter = Object.fromEntries(known.slice(0, -1).map((key) => [key, optionalText(key, selection[key])]));
      if (Object.values(filter).every((value) => value === undefined)) {
        throw new RangeError('a forget filter needs at least one of matching, since, until, learnedSince, learnedUntil, harvestFormat, document');
      }
      const { matching, ...rest } = filter;
      selector = { tag: 'matching', val: { mind: workspaceMind(selection.workspace), text: matching, ...rest } };
    } else {
      throw new TypeError('forget takes an array of memory references or a filter object');
    }
    const report = await this.call('memory', 'forget', {
      selector,
      reason: optionalText('reason', reason),
      dryRun: confirm !== true,
    });
    return plain(report);
  }

  /**
   * Correct a memory (`memory.correct-memory`): `content` becomes its new
   * version (event time `createdAt`, default now) and the old one is
   * closed; recall answers with the new one, a recall `asOf` before it
   * with the old. Resolves to `{ memory, replaced }`, each as saved.
   */
  async correct(memory, content, { createdAt } = {}) {
    const corrected = await this.call('memory', 'correctMemory', {
      frame: refIn(memory),
      content: text('content', content),
      createdAt: timestamp(createdAt),
    });
    return {
      memory: saved({ frame: corrected.memory, duplicate: false }),
      replaced: saved({ frame: corrected.replaced, duplicate: false }),
    };
  }

  /** The versions of a memory, oldest first (`memory.memory-history`):
   * each `{ ref, content, createdAt, validTo, supersededBy }` (the last
   * two null while current). */
  async history(memory) {
    return (await this.call('memory', 'memoryHistory', refIn(memory))).map((frame) => ({
      ref: ref(frame.ref),
      content: frame.content,
      createdAt: iso(frame.createdAt),
      validTo: frame.validTo == null ? null : iso(frame.validTo),
      supersededBy: frame.supersededBy == null ? null : ref(frame.supersededBy),
    }));
  }

  /** Export the personal mind (or `workspace`'s), read in one
   * transaction: the lines of the portable `hive-mind-export` JSON Lines
   * format (restorable with `restore`), or with `markdown: true` a
   * document to read. Vectors are not exported. */
  async export({ workspace, markdown = false } = {}) {
    return [...await this.call('admin', 'exportMind', workspaceMind(workspace), markdown ? 'markdown' : 'json-lines')];
  }

  /** Restore a JSON Lines export (`export`'s lines, or a file's non-empty
   * lines) into the personal mind (or `workspace`'s), which must be empty;
   * every line is checked before anything is written. The restored
   * memories are then embedded with this host's model. Resolves to
   * `{ frames, tables: { table: rows }, reindexed }`. */
  async restore(lines, { workspace } = {}) {
    if (!Array.isArray(lines)) throw new TypeError('restore takes the export\'s lines (an array of strings)');
    const mind = workspaceMind(workspace);
    const report = await this.call('admin', 'restoreMind', mind, lines.map((line) => text('line', line)).filter((line) => line.trim()));
    let step;
    do step = await this.call('admin', 'reindexStep', mind, REINDEX_BATCH);
    while (!step.finished);
    return {
      frames: Number(report.frames),
      tables: Object.fromEntries(report.tables.map((table) => [table.table, Number(table.rows)])),
      reindexed: Number(step.total),
    };
  }

  /** Review a memory by hand (`review.set-metadata`): `archived` archives
   * it (kept, out of recall) or brings it back, `pinned` pins it (cleanup
   * never retires it), and tags are added or removed; what is left out
   * stays. Resolves to the memory (the WIT `frame`). */
  async review(memory, { archived, pinned, addTags = [], removeTags = [] } = {}) {
    const change = {
      status: archived === undefined || archived === null ? undefined : archived ? 'archived' : 'active',
      pinned: pinned === undefined || pinned === null ? undefined : Boolean(pinned),
      addTags: addTags.map((tag) => text('tag', tag)),
      removeTags: removeTags.map((tag) => text('tag', tag)),
    };
    return plain(await this.call('review', 'setMetadata', refIn(memory), change));
  }

  /** Merge memories of one mind into one (`review.merge`): the originals
   * are archived with `mergedInto` set, never deleted. Resolves to
   * `{ memory, originals }`. */
  async merge(memories, { content } = {}) {
    if (!Array.isArray(memories)) throw new TypeError('merge takes an array of memory references');
    const merged = await this.call('review', 'merge', { memories: memories.map(refIn), content: optionalText('content', content) });
    return plain(merged);
  }

  /** Where a memory came from and what it is tied to (`review.trace`):
   * the WIT `memory-trace`, its log rows' details parsed. */
  async trace(memory) {
    const found = await this.call('review', 'trace', refIn(memory));
    return { ...plain(found), reviews: found.reviews.map(logRow) };
  }

  /** An entity with its relations in and out (`review.get-entity`). */
  async entity(id, { workspace } = {}) {
    return plain(await this.call('review', 'getEntity', workspaceMind(workspace), idOf('id', id)));
  }

  /** Entities whose name contains `text`, of one `type`, most seen first
   * (`review.list-entities`). */
  async entities({ text: contains = '', type, workspace, limit } = {}) {
    const found = await this.call('review', 'listEntities', workspaceMind(workspace), text('text', contains), optionalText('type', type), limitOf('limit', limit, 50));
    return plain(found);
  }

  /** The entities within `depth` hops, nearest first (`review.neighbours`). */
  async neighbours(id, { depth = 2, type, workspace, limit } = {}) {
    const found = await this.call(
      'review',
      'neighbours',
      workspaceMind(workspace),
      idOf('id', id),
      limitOf('depth', depth, 2),
      optionalText('type', type),
      limitOf('limit', limit, 50),
    );
    return plain(found);
  }

  /** The wiki's pages: `you` first, then the entities the memories name,
   * the most stated first (`wiki.list-pages`). */
  async wikiPages({ workspace, limit } = {}) {
    return plain(await this.call('wiki', 'listPages', workspaceMind(workspace), limitOf('limit', limit, 50)));
  }

  /** One wiki page (`you` or `entity-<id>`): its current statements and
   * history, conflicts, related pages and the page as Markdown
   * (`wiki.get-page`). */
  async wikiPage(page, { workspace } = {}) {
    return plain(await this.call('wiki', 'getPage', workspaceMind(workspace), text('page', page)));
  }

  /** The wiki pages whose title or statements contain `text`
   * (`wiki.search-wiki`). */
  async searchWiki(contains, { workspace, limit } = {}) {
    return plain(await this.call('wiki', 'searchWiki', workspaceMind(workspace), text('text', contains), limitOf('limit', limit, 50)));
  }

  /** The health report: counts by kind and the findings (`wiki.health`). */
  async wikiHealth({ workspace, limit } = {}) {
    return plain(await this.call('wiki', 'health', workspaceMind(workspace), limitOf('limit', limit, 100)));
  }

  /** A mind's sessions, newest first (`review.list-sessions`). */
  async sessions({ workspace, limit } = {}) {
    return plain(await this.call('review', 'listSessions', workspaceMind(workspace), limitOf('limit', limit, 50)));
  }

  /** One session and its memories in the order they were written: a
   * whole imported conversation, turn by turn (`review.get-session`). */
  async session(gopId, { workspace, limit } = {}) {
    return plain(await this.call('review', 'getSession', workspaceMind(workspace), text('gopId', gopId), limitOf('limit', limit, 200)));
  }

  /** Close a session (`review.close-session`). */
  async closeSession(gopId, { summary, workspace } = {}) {
    return plain(await this.call('review', 'closeSession', workspaceMind(workspace), text('gopId', gopId), optionalText('summary', summary)));
  }

  /** The owner's word on two memories the engine read as one fact
   * changing (`review.decide-pair`): `verdict` one of PAIR_VERDICTS
   * (`replaces`: the newer is true now; `both-stand`: both are true, an
   * automatic replacement undone). */
  async decidePair(older, newer, verdict) {
    const kind = requiredChoice('verdict', verdict, PAIR_VERDICTS);
    return plain(await this.call('review', 'decidePair', refIn(older), refIn(newer), kind));
  }

  /** The newest rows of a log (`review.read-log`): `kind` one of LOGS;
   * each row's `detail` parsed from its JSON; `before` a row id to page
   * back from. */
  async log(kind, { workspace, limit, before } = {}) {
    const log = requiredChoice('log', kind, LOGS);
    const rows = await this.call(
      'review',
      'readLog',
      workspaceMind(workspace),
      log,
      limitOf('limit', limit, 50),
      before === undefined || before === null ? undefined : idOf('before', before),
    );
    return rows.map(logRow);
  }

  /** The memories held back as likely prompt injections, not released
   * (`review.list-flagged`): each `{ memory, score, patterns }` (the
   * reasons). */
  async flagged({ workspace, limit } = {}) {
    return plain(await this.call('review', 'listFlagged', workspaceMind(workspace), limitOf('limit', limit, 50)));
  }

  /** Release a memory from quarantine (`review.release`): you have read it
   * and vouch for it, and it is recalled again. */
  async release(memory) {
    return plain(await this.call('review', 'release', refIn(memory)));
  }

  /** The entities a cleanup `rule` (ENTITY_RULES) finds; with `apply`,
   * retired (`review.clean-entities`). */
  async cleanEntities(rule, { apply = false, workspace } = {}) {
    const kind = requiredChoice('rule', rule, ENTITY_RULES);
    return plain(await this.call('review', 'cleanEntities', workspaceMind(workspace), kind, apply === true));
  }

  /** Delete a workspace mind for good (`review.delete-workspace`).
   * Without `confirm: true` nothing changes and the answer says what
   * would go (its memories, entities and sessions). */
  async deleteWorkspace(workspace, { confirm = false } = {}) {
    return plain(await this.call('review', 'deleteWorkspace', text('workspace', workspace), confirm !== true));
  }

  result(outcome) {
    if (!outcome.ok) throw fromVariant(outcome.error);
    return outcome.value;
  }

  /** Every mind's counts, personal first. */
  async status() {
    return (await this.call('admin', 'status')).map(mindStatus);
  }

  /** Close the engine (its databases, the model worker) and end its
   * thread (idempotent). */
  async close() {
    await this.thread.close();
  }

  async [Symbol.asyncDispose ?? Symbol.for('asyncDispose')]() {
    await this.close();
  }
}
