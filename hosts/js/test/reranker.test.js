// The cross-encoder gives the Python host's logits (which its tests hold to
// the Rust host's), through the synchronous import on the worker; the
// reranker is `unavailable` when turned off or not installed, and recall
// with it on says it reranked.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ModelWorker } from '../src/bridge.js';
import { rerankerImports } from '../src/embedder.js';
import { unavailableReranker } from '../src/capabilities.js';
import { HiveMind } from '../src/index.js';
import { RERANKER_MODEL, defaultModelDir, findReranker } from '../src/models.js';
import { FIXTURES, componentMissing, modelMissing, need, scratch } from './helpers.js';

const fixture = JSON.parse(readFileSync(join(FIXTURES, 'python-vectors.json'), 'utf8'));
/** The most a logit may differ from the Python host's. */
const LOGIT_TOLERANCE = 1e-3;

test("the cross-encoder scores as the Python host's does, through the import", async (t) => {
  if (need(t, modelMissing(RERANKER_MODEL))) return;
  const worker = new ModelWorker();
  t.after(() => worker.close());
  const info = await worker.call('load-reranker', { folder: defaultModelDir(RERANKER_MODEL) });
  assert.deepEqual(info, { model: RERANKER_MODEL, maxTokens: 128 });
  const reranker = rerankerImports(worker, info);
  assert.deepEqual(reranker.info(), info);
  const scores = reranker.score(fixture.reranker.query, fixture.texts);
  assert.ok(scores instanceof Float32Array);
  fixture.reranker.scores.forEach((expected, i) => {
    assert.ok(Math.abs(scores[i] - expected) <= LOGIT_TOLERANCE, `passage ${i}: ${scores[i]} against ${expected}`);
  });
  assert.deepEqual([...reranker.score('q', [])], []);
});

test('the reranker is unavailable when turned off or not installed', () => {
  for (const value of ['off', '0', 'false', 'no', 'none', ' OFF ']) {
    assert.match(findReranker({ HIVE_MIND_RERANKER: value }).why, /turned off/);
  }
  const off = unavailableReranker('reranking is turned off (HIVE_MIND_RERANKER=off)');
  assert.throws(() => off.info(), (e) => e.payload.tag === 'unavailable' && /turned off/.test(e.payload.val));
  assert.throws(() => off.score('q', ['p']), (e) => e.payload.tag === 'unavailable');
  const saved = process.env.HIVE_MIND_MODELS_DIR;
  const home = process.env.HIVE_MIND_HOME;
  try {
    process.env.HIVE_MIND_MODELS_DIR = '/nonexistent/models';
    process.env.HIVE_MIND_HOME = '/nonexistent/home';
    const found = findReranker({});
    if (found.folder === undefined) assert.match(found.why, /not installed in any of \/nonexistent\/models/);
  } finally {
    if (saved === undefined) delete process.env.HIVE_MIND_MODELS_DIR;
    else process.env.HIVE_MIND_MODELS_DIR = saved;
    if (home === undefined) delete process.env.HIVE_MIND_HOME;
    else process.env.HIVE_MIND_HOME = home;
  }
});

test('recall reranks when the cross-encoder is on', async (t) => {
  if (need(t, componentMissing() ?? modelMissing('all-MiniLM-L6-v2') ?? modelMissing(RERANKER_MODEL))) return;
  const previous = process.env.HIVE_MIND_RERANKER;
  process.env.HIVE_MIND_RERANKER = 'on';
  let mind;
  try {
    mind = await HiveMind.open(join(scratch(t), 'data'), { model: 'all-MiniLM-L6-v2' });
  } finally {
    process.env.HIVE_MIND_RERANKER = previous;
  }
  t.after(() => mind.close());
  await mind.save('We decided to use Postgres for the ledger.');
  await mind.save('Sam prefers short answers and dark mode.');
  const recall = await mind.recall('which database does the ledger use?');
  assert.equal(recall.memories[0].ref, 'personal:1');
  assert.ok(!recall.notes.some((note) => note.kind === 'reranker' && /no reranker/.test(note.text)), JSON.stringify(recall.notes));
  const off = await HiveMind.open(join(scratch(t), 'data2'), { model: 'all-MiniLM-L6-v2', reranker: false });
  t.after(() => off.close());
  await off.save('We decided to use Postgres for the ledger.');
  const plain = await off.recall('which database does the ledger use?');
  assert.ok(plain.notes.some((note) => note.kind === 'reranker' && /reranker: false/.test(note.text)), JSON.stringify(plain.notes));
});
