// What one call may use (src/limits.js): a deadline per kind of call,
// enforced by ending the engine's thread, and a cap on the engine's memory;
// after either, the next call runs. And the engine's thread never blocks
// Node's event loop.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { EngineTrap, HiveMind } from '../src/index.js';
import { DEFAULT_DEADLINES_MS, KIND_OF, deadlineOf, limitsFrom } from '../src/limits.js';
import { withMemoryMax } from '../src/component.js';
import { REPOSITORY, componentMissing, modelMissing, need, scratch } from './helpers.js';

const MODEL = 'all-MiniLM-L6-v2';

test('the kinds of call are the Python host\'s, and the environment sets the limits', (t) => {
  const python = join(REPOSITORY, 'hosts', 'python', 'src', 'hive_mind', 'engine.py');
  if (!existsSync(python)) return t.skip('no Python host (not in the source tree)');
  const table = /_KINDS = \{([^}]*)\}/.exec(readFileSync(python, 'utf8'));
  assert.ok(table, 'no _KINDS table in the Python host');
  const kinds = Object.fromEntries([...table[1].matchAll(/"([^"]+)": "([a-z]+)"/g)].map((m) => [m[1], m[2]]));
  assert.deepEqual(KIND_OF, kinds);

  assert.deepEqual(limitsFrom({}), { memoryBytes: 2 * 1024 ** 3, deadlinesMs: DEFAULT_DEADLINES_MS });
  const set = limitsFrom({ HIVE_MIND_MEMORY_LIMIT_MIB: '64', HIVE_MIND_CALL_DEADLINE_MS: '250' });
  assert.equal(set.memoryBytes, 64 * 1024 ** 2);
  assert.equal(deadlineOf(set, 'recall-memory'), 250);
  assert.equal(deadlineOf(set, 'reindex-step'), 250);
  const off = limitsFrom({ HIVE_MIND_MEMORY_LIMIT_MIB: '0', HIVE_MIND_CALL_DEADLINE_MS: '0' });
  assert.deepEqual(off, { memoryBytes: null, deadlinesMs: null });
  assert.equal(deadlineOf(off, 'save-memory'), undefined);
  assert.equal(deadlineOf(limitsFrom({}), 'forget'), 3_600_000);
  assert.equal(deadlineOf(limitsFrom({}, { deadlinesMs: { save: 0 } }), 'save-memory'), undefined);
  assert.throws(() => limitsFrom({ HIVE_MIND_CALL_DEADLINE_MS: 'soon' }), /HIVE_MIND_CALL_DEADLINE_MS must be a whole number/);
});

test('a memory section gets its maximum, and a module without one is left as it is', () => {
  // (module (memory 2)) and (module)
  const withMemory = Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 3, 1, 0, 2]);
  const capped = withMemoryMax(withMemory, 10 * 65536);
  assert.deepEqual([...capped.subarray(8)], [5, 4, 1, 1, 2, 10]);
  assert.ok(WebAssembly.validate(capped));
  assert.deepEqual([...withMemoryMax(withMemory, 65536).subarray(8)], [5, 4, 1, 1, 2, 2], 'never below the minimum');
  const empty = Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  assert.equal(withMemoryMax(empty, 65536), empty);
});

test('a call past its deadline is stopped, the engine restarted, and the next call runs', async (t) => {
  if (need(t, componentMissing() ?? modelMissing(MODEL))) return;
  // An exchange embeds and learns for tens of milliseconds: past 1 ms.
  const mind = await HiveMind.open(join(scratch(t), 'data'), { model: MODEL, deadlinesMs: { import: 1 } });
  t.after(() => mind.close());
  await mind.save('The bike room door code is 4812.');
  await assert.rejects(
    mind.rememberExchange('Remember that my brother Karim lives in Rotterdam.', 'Noted: Rotterdam.'),
    (e) => e instanceof EngineTrap && e.kind === 'deadline-exceeded' && /remember-exchange ran past its deadline of 1 ms/.test(e.message),
  );
  assert.equal((await mind.save('Saved after the deadline.')).ref, 'personal:2', 'the stopped exchange wrote nothing');
  assert.equal(mind.thread.restarts, 1);
  const [personal] = await mind.status();
  assert.equal(personal.frames, 2);
  assert.match((await mind.recall('bike room door code')).memories[0].content, /4812/);
});

test('a call stopped while the model runs leaves the process up and the model serving', async (t) => {
  if (need(t, componentMissing() ?? modelMissing(MODEL))) return;
  const data = join(scratch(t), 'data');
  const first = await HiveMind.open(data, { model: MODEL });
  await first.save('The bike room door code is 4812.');
  await first.close();
  const mind = await HiveMind.open(data, { model: MODEL, deadlinesMs: { save: 100 } });
  t.after(() => mind.close());
  // About fifty chunks to embed: the model is mid-batch at 100 ms.
  // (Ending a thread in the middle of an onnxruntime run aborts the whole
  // process; the model worker outlives the engine thread for that.)
  await assert.rejects(mind.save('lorem ipsum dolor sit amet '.repeat(3600)), (e) => e instanceof EngineTrap && e.kind === 'deadline-exceeded');
  assert.match((await mind.recall('bike room door code')).memories[0].content, /4812/);
  assert.equal((await mind.status())[0].frames, 1);
});

test('the memory cap stops a call, and the next call runs', async (t) => {
  if (need(t, componentMissing() ?? modelMissing(MODEL))) return;
  const mind = await HiveMind.open(join(scratch(t), 'data'), { model: MODEL, memoryBytes: 64 * 1024 ** 2 });
  t.after(() => mind.close());
  await mind.save('A small memory fits under the cap.');
  // A 30 MiB document (a memory is bounded far below the cap): copied in
  // under the cap, then the engine's own allocations pass it.
  const document = join(scratch(t), 'notes.md');
  writeFileSync(document, 'word '.repeat(6 << 20));
  await assert.rejects(mind.importFile(document), (e) => e instanceof EngineTrap && e.kind === 'memory-limit');
  assert.equal((await mind.save('Another small memory after the trap.')).ref, 'personal:2');
});

test('a call runs off the event loop', async (t) => {
  if (need(t, componentMissing() ?? modelMissing(MODEL))) return;
  const mind = await HiveMind.open(join(scratch(t), 'data'), { model: MODEL });
  t.after(() => mind.close());
  await mind.save('The deploy runs every Tuesday at noon.');
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  try {
    const recalls = [];
    for (let i = 0; i < 5; i++) recalls.push(mind.recall('when does the deploy run?'));
    await Promise.all(recalls);
  } finally {
    clearInterval(timer);
  }
  assert.ok(ticks > 0, 'timers ran while the engine recalled');
});
