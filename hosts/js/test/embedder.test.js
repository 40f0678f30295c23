// The embedder gives the Python host's vectors (and so the Rust host's:
// the Python host's tests hold it to those), word-piece ids and all; the
// fixture is written by scripts/python_reference_vectors.py. The
// synchronous bridge to the worker gives the same vectors as the model
// itself, and a batch gives each text the vector it gets alone.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ModelWorker } from '../src/bridge.js';
import { dequantizedModelBytes } from '../src/dequantize.js';
import { embedderImports } from '../src/embedder.js';
import { InProcessEmbedder, defaultModelDir } from '../src/models.js';
import { BertEncoder } from '../src/tokenize.js';
import { FIXTURES, cosine, f32, modelMissing, need } from './helpers.js';

const fixture = JSON.parse(readFileSync(join(FIXTURES, 'python-vectors.json'), 'utf8'));
/** The least cosine to the Python host's vector, per model. */
const FLOOR = { 'bge-small-en-v1.5': 0.9999, 'all-MiniLM-L6-v2': 0.9999 };

for (const [model, entry] of Object.entries(fixture.models)) {
  test(`${model}: the Python host's word pieces and vectors`, async (t) => {
    if (need(t, modelMissing(model))) return;
    const embedder = await InProcessEmbedder.load(defaultModelDir(model));
    assert.equal(embedder.info.model, entry.info.model);
    assert.equal(embedder.info.dimensions, entry.info.dimensions);
    for (const kind of ['document', 'query']) {
      if (!entry[kind]) continue;
      assert.deepEqual(embedder.tokenize(fixture.texts, kind), entry[kind].ids, `${kind} word pieces`);
      const vectors = await embedder.embed(fixture.texts, kind);
      entry[kind].vectors.forEach((reference, i) => {
        const similarity = cosine(vectors[i], f32(reference));
        assert.ok(similarity >= FLOOR[model], `${kind} text ${i}: cosine ${similarity}`);
        let norm = 0;
        for (const x of vectors[i]) norm += x * x;
        assert.ok(Math.abs(Math.sqrt(norm) - 1) < 1e-5, 'L2-normalised');
      });
    }
  });
}

test('bge-small: a text gets the same vector alone as in a batch, and its prompt only as a query', async (t) => {
  if (need(t, modelMissing('bge-small-en-v1.5'))) return;
  const embedder = await InProcessEmbedder.load(defaultModelDir('bge-small-en-v1.5'));
  const [alone] = await embedder.embed([fixture.texts[0]]);
  const batch = await embedder.embed(fixture.texts);
  assert.ok(cosine(alone, batch[0]) > 0.99999);
  const [query] = await embedder.embed([fixture.texts[0]], 'query');
  assert.ok(cosine(alone, query) < 0.999, 'the query prompt changes the vector');
  assert.equal(embedder.tokenize(['x'], 'query')[0].length > embedder.tokenize(['x'], 'document')[0].length, true);
});

test('the import blocks on the worker: embed and start-embed/finish give the model\'s vectors', async (t) => {
  if (need(t, modelMissing('bge-small-en-v1.5'))) return;
  const worker = new ModelWorker();
  t.after(() => worker.close());
  const info = await worker.call('load-embedder', { folder: defaultModelDir('bge-small-en-v1.5') });
  assert.deepEqual(info, { provider: 'in-process', model: 'bge-small-en-v1.5', dimensions: 384, meaningful: true, maxTokens: 512 });
  const { imports } = embedderImports(worker, info);
  assert.deepEqual(imports.info(), info);
  const texts = fixture.texts.slice(0, 3);
  const now = imports.embed(texts, 'document');
  const pending = imports.startEmbed(texts, 'query');
  const another = imports.startEmbed(['dropped before it is finished'], 'document');
  another[Symbol.for('dispose')]();
  const later = pending.finish();
  assert.throws(() => pending.finish(), (e) => e.payload.tag === 'failed');
  const reference = fixture.models['bge-small-en-v1.5'];
  now.forEach((entry, i) => {
    assert.equal(entry.tag, 'ok');
    assert.ok(cosine(entry.val, f32(reference.document.vectors[i])) >= 0.9999);
    assert.ok(cosine(later[i].val, f32(reference.query.vectors[i])) >= 0.9999);
  });
  assert.deepEqual(imports.embed([], 'document'), []);
  const none = embedderImports(undefined, undefined, 'nothing here').imports;
  assert.throws(() => none.embed(['x'], 'query'), (e) => e.payload.tag === 'unavailable' && e.payload.val === 'nothing here');
  assert.throws(() => none.info(), (e) => e.payload.tag === 'unavailable');
});

test('the quantized matmuls are rewritten to f32, and a model without them is left as it is', async (t) => {
  if (need(t, modelMissing('bge-small-en-v1.5'))) return;
  const bytes = readFileSync(join(defaultModelDir('bge-small-en-v1.5'), 'model.onnx'));
  const { bytes: rewritten, rewritten: count } = dequantizedModelBytes(bytes);
  assert.equal(count, 72);
  assert.ok(!Buffer.from(rewritten).includes('DynamicQuantizeLinear'));
  assert.ok(!Buffer.from(rewritten).includes('MatMulInteger'));
  const plain = new Uint8Array([0x08, 0x07]);
  assert.equal(dequantizedModelBytes(plain).rewritten, 0);
});

test('a pair is cut longest first, as tokenizers does', async (t) => {
  if (need(t, modelMissing('ms-marco-MiniLM-L-12-v2'))) return;
  const encoder = new BertEncoder(JSON.parse(readFileSync(join(defaultModelDir('ms-marco-MiniLM-L-12-v2'), 'tokenizer.json'), 'utf8')), 128);
  const lengths = (a, b) => {
    const { ids, typeIds } = encoder.encodePair(a, b);
    const first = typeIds.filter((x) => x === 0).length - 2;
    return [first, ids.length - first - 3];
  };
  assert.deepEqual(lengths('q '.repeat(10), 'p '.repeat(200)), [10, 115]);
  assert.deepEqual(lengths('q '.repeat(100), 'p '.repeat(20)), [100, 20]);
  assert.deepEqual(lengths('q '.repeat(150), 'p '.repeat(20)), [105, 20]);
  assert.deepEqual(lengths('q '.repeat(100), 'p '.repeat(100)), [62, 63]);
  assert.deepEqual(lengths('q '.repeat(120), 'p '.repeat(100)), [63, 62]);
  assert.deepEqual(lengths('q', 'p'), [1, 1]);
});
