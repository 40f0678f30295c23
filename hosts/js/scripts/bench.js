// Figures for the three hosts of the engine on the same mind: the
// JavaScript host, the Python host (when its interpreter is there) and the
// Rust host (when `hive-mind-lab` is built: its `bench session`):
//
//   open      opening the engine (component from the cache, model loaded),
//             then the first recall
//   recall    p50 and p95 over the queries, after one warm-up recall
//   embed     the embedder's own time for each query, embedded alone by
//             the host's model after the session
//   overhead  recall minus embed, query by query (the median): what recall
//             costs beyond embedding its question, the engine's work and
//             the host's glue; and its ratio to the Rust host's
//   save      memories saved one by one into that mind, per second
//
// The mind is written once (by this host, in batches) and copied for each
// run; the hosts' runs are interleaved and each figure is the median over
// the runs. The reranker is off for all (HIVE_MIND_RERANKER=off): the
// figures are the engine's, the embedder's and the host's.
//
//   node scripts/bench.js [--memories 10000] [--runs 3] [--queries 40] [--saves 50] [--model bge-small-en-v1.5]
//
// Needs $HIVE_MIND_COMPONENT (or the source tree's guest build) and the
// models ($HIVE_MIND_MODELS_DIR); Python: $HIVE_MIND_PYTHON, else
// hosts/python/.venv/bin/python, with hosts/python/src importable; Rust:
// $HIVE_MIND_LAB, else target/release/hive-mind-lab (build it with
// `cargo build --release -p hive-mind-lab`; a debug build's figures mean
// nothing).

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ModelWorker } from '../src/bridge.js';
import { HiveMind } from '../src/index.js';
import { InProcessEmbedder, defaultModelDir } from '../src/models.js';
import { PACKAGE_DIR, REPOSITORY } from '../src/component.js';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, value, i, all) => (value.startsWith('--') ? [...pairs, [value.slice(2), all[i + 1]]] : pairs), []),
);
const MEMORIES = Number(args.memories ?? 10000);
const RUNS = Number(args.runs ?? 3);
const QUERIES = Number(args.queries ?? 40);
const SAVES = Number(args.saves ?? 50);
const MODEL = args.model ?? 'bge-small-en-v1.5';
process.env.HIVE_MIND_RERANKER = 'off';
process.env.HIVE_MIND_CACHE_DIR ??= join(PACKAGE_DIR, '.cache', 'components');

// Deterministic synthetic memories and queries.
let seed = 42;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = (list) => list[Math.floor(random() * list.length)];
const PEOPLE = ['Sam', 'Maria', 'Ade', 'Lena', 'Kenji', 'Priya', 'Omar', 'Chloe', 'Ivan', 'Zoe'];
const THINGS = ['the ledger', 'the billing service', 'the mobile app', 'the data warehouse', 'the deploy pipeline', 'the search index', 'the auth gateway', 'the quarterly report', 'the onboarding flow', 'the staging cluster'];
const VERBS = ['decided to move', 'prefers to keep', 'wants to rewrite', 'is blocked on', 'finished migrating', 'proposed caching', 'asked to review', 'will benchmark', 'reported a bug in', 'documented'];
const TOOLS = ['Postgres', 'Kafka', 'Redis', 'Kubernetes', 'Rust', 'TypeScript', 'SQLite', 'Terraform', 'GraphQL', 'S3'];
const WHEN = ['on Monday', 'last week', 'before the release', 'by June 3', 'after the outage', 'during the offsite', 'next sprint', 'in Q3'];
function memory(i) {
  return `${pick(PEOPLE)} ${pick(VERBS)} ${pick(THINGS)} to ${pick(TOOLS)} ${pick(WHEN)} (note ${i}).`;
}
function query() {
  return pick([
    () => `what did ${pick(PEOPLE)} decide about ${pick(THINGS)}?`,
    () => `who is working on ${pick(TOOLS)}`,
    () => `status of ${pick(THINGS)}`,
    () => `what happened ${pick(WHEN)}`,
  ])();
}
const queries = Array.from({ length: QUERIES }, query);
const saves = Array.from({ length: SAVES }, (_, i) => memory(MEMORIES + i));

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const median = (values) => percentile(values, 50);

async function buildMind(dir) {
  const mind = await HiveMind.open(dir, { model: MODEL });
  const started = performance.now();
  for (let start = 0; start < MEMORIES; start += 64) {
    const batch = [];
    for (let i = start; i < Math.min(start + 64, MEMORIES); i++) {
      batch.push({ content: memory(i), mind: { tag: 'personal' }, importance: undefined, source: undefined, createdAt: BigInt(Date.UTC(2026, 0, 1) + i * 3_600_000), kind: undefined });
    }
    await mind.call('memory', 'saveMemories', batch);
  }
  const [status] = await mind.status();
  await mind.close();
  console.error(`built a mind of ${status.frames} memories in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** A host's session figures from its recall and embed times. */
function figures({ open, firstRecall, recalls, embeds, savePerSecond }) {
  const overheads = recalls.map((ms, i) => ms - embeds[i]);
  return {
    open,
    firstRecall,
    p50: percentile(recalls, 50),
    p95: percentile(recalls, 95),
    embed: percentile(embeds, 50),
    overhead: percentile(overheads, 50),
    savePerSecond,
  };
}

async function jsRun(data) {
  let t = performance.now();
  const mind = await HiveMind.open(data, { model: MODEL });
  const open = performance.now() - t;
  t = performance.now();
  await mind.recall('warm-up: what is new?');
  const firstRecall = performance.now() - t;
  const recalls = [];
  for (const q of queries) {
    t = performance.now();
    await mind.recall(q);
    recalls.push(performance.now() - t);
  }
  t = performance.now();
  for (const content of saves) await mind.save(content);
  const savePerSecond = SAVES / ((performance.now() - t) / 1000);
  await mind.close();
  // The embedder's own time for each query: the same model on a model
  // worker of its own, called alone.
  const worker = new ModelWorker();
  await worker.call('load-embedder', { folder: defaultModelDir(MODEL) });
  const embeds = [];
  for (const q of queries) {
    t = performance.now();
    worker.callSync('embed', { texts: [q], kind: 'query' });
    embeds.push(performance.now() - t);
  }
  await worker.close();
  return figures({ open, firstRecall, recalls, embeds, savePerSecond });
}

const PYTHON_RUN = `
import json, sys, time
from hive_mind import HiveMind
data, model, queries, saves = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
t = time.perf_counter(); mind = HiveMind(data, model=model); open_ms = (time.perf_counter() - t) * 1000
t = time.perf_counter(); mind.recall("warm-up: what is new?"); first = (time.perf_counter() - t) * 1000
recalls = []
for q in queries:
    t = time.perf_counter(); mind.recall(q); recalls.append((time.perf_counter() - t) * 1000)
t = time.perf_counter()
for content in saves: mind.save(content)
rate = len(saves) / (time.perf_counter() - t)
# The embedder's own time for each query: the host's model, called alone.
model_only = mind._host.embedder.embedder
embeds = []
for q in queries:
    t = time.perf_counter(); model_only.embed([q], "query"); embeds.append((time.perf_counter() - t) * 1000)
mind.close()
print(json.dumps({"open": open_ms, "firstRecall": first, "recalls": recalls, "embeds": embeds, "savePerSecond": rate}))
`;

function pythonInterpreter() {
  const candidate = process.env.HIVE_MIND_PYTHON ?? join(REPOSITORY, 'hosts', 'python', '.venv', 'bin', 'python');
  return existsSync(candidate) ? candidate : undefined;
}

function pythonRun(python, data) {
  const env = { ...process.env, PYTHONPATH: join(REPOSITORY, 'hosts', 'python', 'src'), HIVE_MIND_CACHE_DIR: join(PACKAGE_DIR, '.cache', 'python') };
  const out = JSON.parse(
    execFileSync(python, ['-c', PYTHON_RUN, data, MODEL, JSON.stringify(queries), JSON.stringify(saves)], { env, encoding: 'utf8', maxBuffer: 16 << 20 }),
  );
  return figures(out);
}

function labBinary() {
  const candidate = process.env.HIVE_MIND_LAB ?? join(REPOSITORY, 'target', 'release', 'hive-mind-lab');
  return existsSync(candidate) ? candidate : undefined;
}

function rustRun(lab, data, work) {
  const queriesFile = join(work, 'queries.json');
  const savesFile = join(work, 'saves.json');
  writeFileSync(queriesFile, JSON.stringify(queries));
  writeFileSync(savesFile, JSON.stringify(saves));
  const env = { ...process.env, HIVE_MIND_IN_PROCESS_MODEL: MODEL, HIVE_MIND_CACHE_DIR: join(PACKAGE_DIR, '.cache', 'rust') };
  const out = execFileSync(lab, ['--data-dir', data, 'bench', 'session', '--queries', queriesFile, '--saves', savesFile], {
    env,
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  return figures(JSON.parse(out));
}

/** What blocking on the worker costs: an empty round trip, and one query
 * embedded through the bridge against the same model awaited directly. */
async function bridgeCost() {
  const worker = new ModelWorker();
  await worker.call('load-embedder', { folder: defaultModelDir(MODEL) });
  const direct = await InProcessEmbedder.load(defaultModelDir(MODEL));
  const trips = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    worker.callSync('idle', {});
    trips.push(performance.now() - t);
  }
  const bridged = [];
  const awaited = [];
  for (let i = 0; i < 30; i++) {
    const texts = [queries[i % queries.length]];
    let t = performance.now();
    worker.callSync('embed', { texts, kind: 'query' });
    bridged.push(performance.now() - t);
    t = performance.now();
    await direct.embed(texts, 'query');
    awaited.push(performance.now() - t);
  }
  await worker.close();
  return { trip: median(trips), bridged: median(bridged), awaited: median(awaited) };
}

const work = mkdtempSync(join(tmpdir(), 'hive-mind-bench-'));
try {
  const base = join(work, 'base');
  await buildMind(base);
  const copy = (name) => (cpSync(base, join(work, name), { recursive: true }), join(work, name));
  const python = pythonInterpreter();
  if (python) pythonRun(python, copy('py-warm')); // compiles Python's cache once
  else console.error('no Python host (set HIVE_MIND_PYTHON): its row is left out');
  const lab = labBinary();
  if (lab) rustRun(lab, copy('rust-warm'), work); // and the Rust host's
  else console.error('no hive-mind-lab (cargo build --release -p hive-mind-lab, or HIVE_MIND_LAB): the Rust row is left out');
  const results = { rust: [], js: [], python: [] };
  for (let run = 0; run < RUNS; run++) {
    if (lab) results.rust.push(rustRun(lab, copy(`rust-${run}`), work));
    results.js.push(await jsRun(copy(`js-${run}`)));
    if (python) results.python.push(pythonRun(python, copy(`py-${run}`)));
    console.error(`run ${run + 1}/${RUNS} done`);
  }
  console.log(`${MEMORIES} memories, ${MODEL}, reranker off, ${QUERIES} recalls and ${SAVES} saves a run, median of ${RUNS} interleaved runs (Node ${process.version}):`);
  console.log('host        open ms   first recall ms   recall p50 ms   recall p95 ms   embed p50 ms   overhead p50 ms   × Rust   saves/s');
  const rustOverhead = results.rust.length ? median(results.rust.map((r) => r.overhead)) : undefined;
  for (const [host, runs] of Object.entries(results)) {
    if (!runs.length) continue;
    const m = (key) => median(runs.map((r) => r[key]));
    const ratio = rustOverhead ? (m('overhead') / rustOverhead).toFixed(2) : '–';
    console.log(
      `${host.padEnd(10)} ${m('open').toFixed(0).padStart(8)} ${m('firstRecall').toFixed(0).padStart(17)} ${m('p50').toFixed(1).padStart(15)} ${m('p95').toFixed(1).padStart(15)} ${m('embed').toFixed(1).padStart(14)} ${m('overhead').toFixed(1).padStart(17)} ${ratio.padStart(8)} ${m('savePerSecond').toFixed(1).padStart(9)}`,
    );
  }
  const cost = await bridgeCost();
  console.log(
    `worker bridge (Atomics.wait): empty round trip ${(cost.trip * 1000).toFixed(0)} µs; one query embedded ${cost.bridged.toFixed(1)} ms through it, ${cost.awaited.toFixed(1)} ms awaited on the main thread (medians)`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
