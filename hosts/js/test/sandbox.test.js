// The engine gets no ambient authority from this host's WASI: the
// repository's sandbox probe (tests/sandbox-probe, built with the guest
// components) tries the environment, the arguments, the file system and
// the network, and prints a bit mask of what worked. Under the WASI the
// host gives the engine (src/wasi.js) it must print 0; as a control, under
// preview2-shim with authority granted it must see it, so the test would
// fail if the probe saw nothing ever. The Rust host's tests/sandbox.rs and
// the Python host's tests/test_sandbox.py, for this host.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { loadComponent } from '../src/component.js';
import { sandboxWasi } from '../src/wasi.js';
import { FIXTURES, need, probePath, scratch } from './helpers.js';

const ENV_VISIBLE = 1;
const FILES_VISIBLE = 2;
const ARGS_VISIBLE = 32;

function missing() {
  return existsSync(probePath()) ? undefined : `no sandbox probe at ${probePath()} (it is built with the guest components)`;
}

test('the sandbox grants nothing', async (t) => {
  if (need(t, missing())) return;
  const probe = await loadComponent(probePath());
  let printed = '';
  const decoder = new TextDecoder();
  const instance = probe.instantiate(sandboxWasi({ stdout: (bytes) => (printed += decoder.decode(bytes)) }));
  instance.run.run();
  assert.equal(Number.parseInt(printed.trim(), 10), 0, `the probe saw ${printed.trim()}`);
});

test('the probe detects authority when it is granted', async (t) => {
  if (need(t, missing())) return;
  const printed = execFileSync(process.execPath, [join(FIXTURES, 'permissive-probe.js'), probePath(), scratch(t)], {
    encoding: 'utf8',
    env: process.env,
  });
  const found = Number.parseInt(printed.trim(), 10);
  assert.ok(found & ENV_VISIBLE && found & ARGS_VISIBLE && found & FILES_VISIBLE, `the probe saw ${found}`);
});
