// The enums' case names the API checks arguments against (src/enums.js)
// are the WIT's (wit/types.wit, wit/memory.wit, wit/harvest.wit, wit/review.wit).

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

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
} from '../src/enums.js';
import { REPOSITORY } from './helpers.js';

function witEnum(file, name) {
  const text = readFileSync(join(REPOSITORY, 'wit', file), 'utf8').replace(/\/\/[^\n]*/g, '');
  const body = new RegExp(`enum ${name} \\{([^}]*)\\}`).exec(text);
  assert.ok(body, `no enum ${name} in wit/${file}`);
  return body[1].split(',').map((c) => c.trim().replace(/^%/, '')).filter(Boolean);
}

test('the enums are the WIT\'s', (t) => {
  if (!existsSync(join(REPOSITORY, 'wit'))) return t.skip('no wit/ folder (not in the source tree)');
  assert.deepEqual(IMPORTANCE, witEnum('types.wit', 'importance'));
  assert.deepEqual(SOURCES, witEnum('types.wit', 'source'));
  assert.deepEqual(PROFILES, witEnum('types.wit', 'scoring-profile'));
  assert.deepEqual(SCOPES, witEnum('memory.wit', 'recall-scope'));
  assert.deepEqual(SOURCE_FORMATS, witEnum('harvest.wit', 'source-format'));
  assert.deepEqual(DISTILLATIONS, witEnum('harvest.wit', 'distillation'));
  assert.deepEqual(PAIR_VERDICTS, witEnum('review.wit', 'pair-verdict'));
  assert.deepEqual(LOGS, witEnum('review.wit', 'log-kind'));
  assert.deepEqual(ENTITY_RULES, witEnum('review.wit', 'entity-rule'));
});
