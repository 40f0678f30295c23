// The values the API speaks (src/values.js): references, minds and times
// as the CLI writes them, and the timestamp fields known from the WIT.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { TIME_FIELDS, iso, plain, ref, refIn, timestamp } from '../src/values.js';
import { REPOSITORY } from './helpers.js';

test('every WIT field typed timestamp is read as a time, and no other', (t) => {
  const wit = join(REPOSITORY, 'wit');
  if (!existsSync(wit)) return t.skip('no wit/ folder (not in the source tree)');
  const fields = new Set();
  for (const file of readdirSync(wit).filter((name) => name.endsWith('.wit'))) {
    const text = readFileSync(join(wit, file), 'utf8').replace(/\/\/[^\n]*/g, '');
    // Record fields only: `name: timestamp,` or `name: option<timestamp>,`
    // inside a record's braces (function parameters end with `)` or `,`
    // inside parentheses, and are not lifted values).
    for (const record of text.matchAll(/record [a-z-]+ \{([^}]*)\}/g)) {
      for (const field of record[1].matchAll(/([a-z][a-z0-9-]*): (?:option<)?timestamp>?,/g)) {
        fields.add(field[1].replace(/-([a-z])/g, (_, c) => c.toUpperCase()));
      }
    }
  }
  assert.deepEqual([...TIME_FIELDS].sort(), [...fields].sort());
});

test('references go both ways, and a malformed one is named', () => {
  for (const name of ['personal:42', 'workspace:acme:7', 'workspace:a:b:1']) assert.equal(ref(refIn(name)), name);
  assert.deepEqual(refIn('personal:18446744073709551615'), { mind: { tag: 'personal' }, id: 18446744073709551615n });
  for (const bad of ['42', 'personal:', 'personal:x', 'workspace::3', 'team:3', 'personal:-1', 'personal:18446744073709551616']) {
    assert.throws(() => refIn(bad), (e) => e instanceof RangeError && e.message.includes(JSON.stringify(bad)), bad);
  }
  assert.throws(() => refIn(42), TypeError);
});

test('lifted values become plain: refs, minds, times, counts, variants', () => {
  const lifted = {
    ref: { mind: { tag: 'workspace', val: 'acme' }, id: 3n },
    mind: { tag: 'personal' },
    createdAt: 1777716000000n,
    validTo: undefined,
    seenCount: 4,
    bytesBefore: 12288n,
    huge: 2n ** 60n,
    kind: { tag: 'raw-turn', val: { conversation: 'c', turn: 2, speaker: 'user' } },
    tags: ['a'],
    vector: new Float32Array([1, 2]),
  };
  assert.deepEqual(plain(lifted), {
    ref: 'workspace:acme:3',
    mind: 'personal',
    createdAt: '2026-05-02T10:00:00Z',
    validTo: null,
    seenCount: 4,
    bytesBefore: 12288,
    huge: 2n ** 60n,
    kind: { tag: 'raw-turn', val: { conversation: 'c', turn: 2, speaker: 'user' } },
    tags: ['a'],
    vector: new Float32Array([1, 2]),
  });
  assert.equal(iso(timestamp('2026-05-02 10:00:00.250')), '2026-05-02T10:00:00.250Z');
  assert.equal(iso(timestamp('2026-05-02')), '2026-05-02T00:00:00Z');
});
