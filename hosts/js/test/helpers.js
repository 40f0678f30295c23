// What the tests share: the engine component, the models, the CLI, and a
// component cache of their own.
//
// Tests that need the engine component skip (with the reason) until one is
// built at `$HIVE_MIND_COMPONENT`, else this source tree's guest build; the
// model tests need the models (`$HIVE_MIND_MODELS_DIR`, else this source
// tree's models/); the cross-host tests need a `hive-mind` CLI
// (`$HIVE_MIND_BIN`, else target/debug or target/release). With
// HIVE_MIND_REQUIRE_CROSS_HOST=1 (CI), a missing one fails instead.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { defaultComponentPath, REPOSITORY } from '../src/component.js';
import { defaultModelDir } from '../src/models.js';

export const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURES = join(PACKAGE, 'test', 'fixtures');
export { REPOSITORY };

// Transpiled components go to this package's .cache (gitignored), shared
// by the test files, never to the user's cache.
process.env.HIVE_MIND_CACHE_DIR ??= join(PACKAGE, '.cache', 'components');
// Rankings are compared with the CLI, whose debug build runs the
// cross-encoder slowly; test/reranker.test.js turns it back on for itself.
process.env.HIVE_MIND_RERANKER ??= 'off';

/** Why a test cannot run, or undefined: skip it (fail it in CI). */
export function need(t, reason) {
  if (reason === undefined) return false;
  if (process.env.HIVE_MIND_REQUIRE_CROSS_HOST) throw new Error(reason);
  t.skip(reason);
  return true;
}

export function componentMissing() {
  const path = defaultComponentPath();
  return existsSync(path) ? undefined : `no engine component at ${path} (build it, or set HIVE_MIND_COMPONENT)`;
}

export function modelMissing(model) {
  const folder = defaultModelDir(model);
  return existsSync(join(folder, 'tokenizer.json'))
    ? undefined
    : `no ${model ?? 'default'} model at ${folder} (set HIVE_MIND_MODELS_DIR to the repository's models/)`;
}

/** The probe component beside the engine's. */
export function probePath() {
  return join(dirname(defaultComponentPath()), 'hive-mind-sandbox-probe.wasm');
}

/** A fresh temporary folder, removed after the test. */
export function scratch(t) {
  const dir = mkdtempSync(join(tmpdir(), 'hive-mind-js-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The `hive-mind` CLI to compare with, or undefined. */
export function cliBinary() {
  const candidates = process.env.HIVE_MIND_BIN ? [process.env.HIVE_MIND_BIN] : [];
  candidates.push(...['debug', 'release'].map((profile) => join(REPOSITORY, 'target', profile, 'hive-mind')));
  return candidates.find((path) => existsSync(path));
}

/** Float32 vectors from base64 (little-endian). */
export function f32(base64) {
  const bytes = Buffer.from(base64, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

export function cosine(a, b) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}
