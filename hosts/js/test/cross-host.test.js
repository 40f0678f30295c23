// One ranking, three hosts: a mind written by the Rust CLI is read by this
// host, and the same queries recall the same memories in the same order,
// with the same scores (within SCORE_TOLERANCE); a mind written by this host
// is read by the CLI the same way; and, when the Python host's interpreter
// is there, Python reads them alike. The memories and queries are the
// Python host's (tests/test_engine.py).
//
// Recall writes (access counts, the recall log), so each host reads its own
// copy of the same files. All embed with all-MiniLM-L6-v2, as the Python
// host's cross-host tests do (a debug CLI embeds it about twice as fast as
// bge-small); bge's vectors are compared across hosts by embedder.test.js.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { HiveMind } from '../src/index.js';
import { PACKAGE, REPOSITORY, cliBinary, componentMissing, modelMissing, need, scratch } from './helpers.js';

const MODEL = 'all-MiniLM-L6-v2';
const NOW = '2026-06-01T12:00:00Z';
/** The most two hosts' scores of one memory may differ. */
export const SCORE_TOLERANCE = 1e-6;

/** [content, importance, workspace, createdAt] */
const MEMORIES = [
  ['We decided to use Postgres for the ledger because it supports serializable transactions.', 'important', null, '2026-05-02T10:00:00Z'],
  ['The deploy key lives in the vault, not in the repository.', null, null, '2026-05-03T09:00:00Z'],
  ['Sam prefers short answers and dark mode.', 'important', null, '2026-04-20T08:00:00Z'],
  ['Lunch on Friday was pizza at the corner place.', 'temporary', null, '2026-05-01T12:00:00Z'],
  ['The billing rewrite is blocked on the tax service.', null, 'acme', '2026-05-10T12:00:00Z'],
  ["Acme's staging cluster runs Kubernetes 1.30 on three nodes.", null, 'acme', '2026-05-11T12:00:00Z'],
  ['Acme wants the quarterly report as a PDF by June 3.', 'critical', 'acme', '2026-05-12T12:00:00Z'],
];

/** [query, workspace, scope] */
const QUERIES = [
  ['which database does the ledger use?', null, 'personal'],
  ['where is the deploy key', null, 'all'],
  ['what does Sam prefer', 'acme', 'all'],
  ['billing rewrite status', 'acme', 'current'],
  ['what happened in May 2026?', 'acme', 'all'],
  ['catch me up', 'acme', 'all'],
  ['kubernetes nodes', 'acme', 'personal'],
];

function cliEnv(home) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('HIVE_MIND_')));
  env.HIVE_MIND_HOME = home;
  env.HIVE_MIND_IN_PROCESS_MODEL = MODEL;
  env.HIVE_MIND_RERANKER = 'off';
  if (process.env.HIVE_MIND_MODELS_DIR) env.HIVE_MIND_MODELS_DIR = process.env.HIVE_MIND_MODELS_DIR;
  // The CLI compiles its engine once (a minute or more for a debug build on
  // two cores) into a cache the test runs share, never the user's.
  env.HIVE_MIND_CACHE_DIR = process.env.HIVE_MIND_TEST_CLI_CACHE_DIR ?? join(PACKAGE, '.cache', 'cli');
  return env;
}

class Cli {
  constructor(binary, home) {
    this.binary = binary;
    this.env = cliEnv(home);
  }

  run(...args) {
    return execFileSync(this.binary, args, { env: this.env, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 << 20 });
  }

  save(data, [content, importance, workspace, createdAt]) {
    const args = ['save', '--data-dir', data, '--json', '--created-at', createdAt];
    if (importance) args.push('--importance', importance);
    if (workspace) args.push('--workspace', workspace);
    return JSON.parse(this.run(...args, content));
  }

  recall(data, [query, workspace, scope]) {
    const args = ['recall', '--data-dir', data, '--json', '--limit', '10', '--scope', scope, '--now', NOW];
    if (workspace) args.push('--workspace', workspace);
    return JSON.parse(this.run(...args, query)).memories.map((m) => ({ ref: m.ref, score: m.score }));
  }
}

async function jsRecalls(data) {
  const mind = await HiveMind.open(data, { model: MODEL });
  try {
    const out = [];
    for (const [query, workspace, scope] of QUERIES) {
      const recall = await mind.recall(query, { limit: 10, workspace: workspace ?? undefined, scope, now: NOW });
      out.push(recall.memories.map((m) => ({ ref: m.ref, score: m.score })));
    }
    return out;
  } finally {
    await mind.close();
  }
}

const PYTHON_RECALLS = `
import json, sys
from hive_mind import HiveMind
queries, now = json.loads(sys.argv[2]), sys.argv[3]
with HiveMind(sys.argv[1], model="${MODEL}") as mind:
    print(json.dumps([[{"ref": m.ref, "score": m.score} for m in mind.recall(q, limit=10, workspace=w, scope=s, now=now).memories] for q, w, s in queries]))
`;

function pythonInterpreter() {
  const configured = process.env.HIVE_MIND_PYTHON;
  const candidate = configured ?? join(REPOSITORY, 'hosts', 'python', '.venv', 'bin', 'python');
  return existsSync(candidate) ? candidate : undefined;
}

function pythonRecalls(python, data, home) {
  const env = cliEnv(home);
  env.PYTHONPATH = join(REPOSITORY, 'hosts', 'python', 'src');
  // The Python host's compile cache: the suite's own when CI ran it first.
  env.HIVE_MIND_CACHE_DIR = process.env.HIVE_MIND_TEST_PYTHON_CACHE_DIR ?? join(PACKAGE, '.cache', 'python');
  env.HIVE_MIND_COMPONENT = process.env.HIVE_MIND_COMPONENT ?? '';
  if (!env.HIVE_MIND_COMPONENT) delete env.HIVE_MIND_COMPONENT;
  const out = execFileSync(python, ['-c', PYTHON_RECALLS, data, JSON.stringify(QUERIES), NOW], {
    env,
    encoding: 'utf8',
    timeout: 600_000,
  });
  return JSON.parse(out);
}

/** Same refs in the same order, scores within the tolerance. */
function assertSameRanking(actual, expected, who) {
  assert.ok(expected.some((memories) => memories.length), 'the first host recalled nothing');
  QUERIES.forEach(([query], i) => {
    assert.deepEqual(actual[i].map((m) => m.ref), expected[i].map((m) => m.ref), `${who}: ${query}`);
    actual[i].forEach((m, j) => {
      const gap = Math.abs(m.score - expected[i][j].score);
      assert.ok(gap <= SCORE_TOLERANCE, `${who}: ${query}: ${m.ref} scores ${m.score} against ${expected[i][j].score}`);
    });
  });
}

function copies(data, dir, names) {
  return names.map((name) => {
    const copy = join(dir, name);
    cpSync(data, copy, { recursive: true });
    return copy;
  });
}

function missing() {
  const cli = cliBinary();
  return componentMissing() ?? modelMissing(MODEL) ?? (cli ? undefined : 'no hive-mind CLI (set HIVE_MIND_BIN, or build target/debug/hive-mind)');
}

test('this host recalls what the CLI wrote as the CLI does (and so does Python)', { timeout: 900_000 }, async (t) => {
  if (need(t, missing())) return;
  const dir = scratch(t);
  const cli = new Cli(cliBinary(), join(dir, 'home'));
  mkdirSync(join(dir, 'home'));
  const data = join(dir, 'data');
  for (const memory of MEMORIES) cli.save(data, memory);
  const [forCli, forJs, forPython] = copies(data, dir, ['cli', 'js', 'python']);
  const expected = QUERIES.map((query) => cli.recall(forCli, query));
  assertSameRanking(await jsRecalls(forJs), expected, 'JavaScript against the CLI');
  const python = pythonInterpreter();
  if (python) assertSameRanking(pythonRecalls(python, forPython, join(dir, 'home')), expected, 'Python against the CLI');
  else t.diagnostic('no Python host interpreter (HIVE_MIND_PYTHON): Python not compared');
});

test('the CLI (and Python) recall what this host wrote as this host does', { timeout: 900_000 }, async (t) => {
  if (need(t, missing())) return;
  const dir = scratch(t);
  const cli = new Cli(cliBinary(), join(dir, 'home'));
  mkdirSync(join(dir, 'home'));
  const data = join(dir, 'data');
  const mind = await HiveMind.open(data, { model: MODEL });
  for (const [content, importance, workspace, createdAt] of MEMORIES) {
    await mind.save(content, { importance: importance ?? undefined, workspace: workspace ?? undefined, createdAt });
  }
  await mind.close();
  assert.equal(cli.save(data, [MEMORIES[0][0], null, null, NOW]).duplicate, true, 'the CLI finds the memory this host wrote');
  const [forCli, forJs, forPython] = copies(data, dir, ['cli', 'js', 'python']);
  const expected = await jsRecalls(forJs);
  assertSameRanking(QUERIES.map((query) => cli.recall(forCli, query)), expected, 'the CLI against JavaScript');
  const python = pythonInterpreter();
  if (python) assertSameRanking(pythonRecalls(python, forPython, join(dir, 'home')), expected, 'Python against JavaScript');
  else t.diagnostic('no Python host interpreter (HIVE_MIND_PYTHON): Python not compared');
});
