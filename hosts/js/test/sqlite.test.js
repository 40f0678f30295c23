// The sqlite capability: names, settings, values, errors and the sandbox,
// as host/sqlite and the Python host's tests/test_sqlite.py check them.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import Database from 'better-sqlite3';

import { DataDir, Fts5MissingError, SqliteError, requireFts5, sqliteImports } from '../src/sqlite.js';
import { scratch } from './helpers.js';

const int = (val) => ({ tag: 'integer', val: BigInt(val) });
const txt = (val) => ({ tag: 'text', val });

function refused(fn, kase) {
  assert.throws(fn, (error) => error instanceof SqliteError && error.case === kase);
}

test('names map to files under the data directory; others are refused', (t) => {
  const dir = scratch(t);
  const data = new DataDir(dir);
  assert.equal(data.pathOf('personal'), join(dir, 'personal.sqlite'));
  assert.equal(data.pathOf('workspace/acme.v2_x-1'), join(dir, 'workspaces', 'acme.v2_x-1.sqlite'));
  for (const bad of ['workspace/../x', 'workspace/.hidden', 'workspace/', 'workspace/a/b', 'other', `workspace/${'a'.repeat(65)}`, '../personal']) {
    refused(() => data.pathOf(bad), 'access-denied');
  }
});

test('open never creates; create does, with its folder; databases lists them in order', (t) => {
  const dir = join(scratch(t), 'data');
  const data = new DataDir(dir);
  refused(() => data.open('personal'), 'no-such-database');
  assert.deepEqual(data.databases(), []);
  data.create('workspace/zeta').close();
  data.create('workspace/alpha').close();
  data.create('personal').close();
  assert.ok(existsSync(join(dir, 'workspaces', 'zeta.sqlite')));
  writeFileSync(join(dir, 'workspaces', '.hidden.sqlite'), '');
  writeFileSync(join(dir, 'workspaces', 'notes.txt'), '');
  assert.deepEqual(data.databases(), ['personal', 'workspace/alpha', 'workspace/zeta']);
  data.open('personal').close();
  refused(() => data.remove('personal'), 'access-denied');
  refused(() => data.remove('workspace/missing'), 'no-such-database');
  data.remove('workspace/zeta');
  assert.deepEqual(data.databases(), ['personal', 'workspace/alpha']);
});

test('values round-trip with their types; ?NNN parameters bind by position', (t) => {
  const conn = new DataDir(scratch(t)).create('personal');
  t.after(() => conn.close());
  conn.execute('BEGIN', []);
  conn.execute('CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n)', []);
  conn.execute('COMMIT', []);
  const big = 9007199254740993n; // past 2^53: must stay exact
  conn.execute('INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)', [
    { tag: 'integer', val: big },
    { tag: 'real', val: 2.0 },
    txt('héllo'),
    { tag: 'blob', val: new Uint8Array([0, 1, 255]) },
    { tag: 'null' },
  ]);
  assert.equal(conn.lastInsertRowid(), 1n);
  assert.equal(conn.changes(), 1n);
  const result = conn.execute('SELECT i, r, s, b, n FROM t WHERE s = ?2 AND i = ?1', [{ tag: 'integer', val: big }, txt('héllo')]);
  assert.deepEqual(result.columns, ['i', 'r', 's', 'b', 'n']);
  const [row] = result.rows;
  assert.deepEqual(row.values.slice(0, 3), [{ tag: 'integer', val: big }, { tag: 'real', val: 2 }, txt('héllo')]);
  assert.equal(row.values[3].tag, 'blob');
  assert.deepEqual([...row.values[3].val], [0, 1, 255]);
  assert.deepEqual(row.values[4], { tag: 'null' });
  // Plain `?` parameters bind in order too; a write returns no rows.
  assert.deepEqual(conn.execute('UPDATE t SET s = ? WHERE i = ?', [txt('x'), int(big)]), { columns: [], rows: [] });
  assert.equal(conn.changes(), 1n);
});

test('errors come back as their WIT cases', (t) => {
  const data = new DataDir(scratch(t));
  const conn = data.create('personal');
  t.after(() => conn.close());
  conn.execute('BEGIN', []);
  conn.execute('CREATE TABLE u (x INTEGER PRIMARY KEY, y TEXT NOT NULL UNIQUE)', []);
  conn.execute('COMMIT', []);
  conn.execute("INSERT INTO u (y) VALUES ('a')", []);
  assert.throws(() => conn.execute("INSERT INTO u (y) VALUES ('a')", []), (e) => e.case === 'constraint' && /UNIQUE/.test(e.message));
  assert.throws(() => conn.execute('SELEC nonsense', []), (e) => e.case === 'io' && /syntax/.test(e.message));
  assert.throws(() => conn.execute('SELECT * FROM missing', []), (e) => e.case === 'io' && /no such table/.test(e.message));
  assert.throws(() => conn.execute('SELECT ?1', []), (e) => e.case === 'io');
  // A file that is not a database.
  mkdirSync(join(data.directory, 'workspaces'), { recursive: true });
  writeFileSync(join(data.directory, 'workspaces', 'junk.sqlite'), 'this is not a database at all, not even close'.repeat(20));
  const junk = data.open('workspace/junk');
  t.after(() => junk.close());
  assert.throws(() => junk.execute('SELECT * FROM sqlite_master', []), (e) => e.case === 'corrupt');
  // A closed connection.
  const closed = data.open('personal');
  closed.close();
  assert.throws(() => closed.execute('SELECT 1', []), (e) => e.case === 'invalid-connection');
});

test('a lock held longer than the busy timeout is busy', { timeout: 20000 }, (t) => {
  const data = new DataDir(scratch(t));
  const first = data.create('personal');
  const second = data.open('personal');
  t.after(() => {
    first.close();
    second.close();
  });
  first.execute('BEGIN IMMEDIATE', []);
  const started = Date.now();
  assert.throws(() => second.execute('BEGIN IMMEDIATE', []), (e) => e.case === 'busy');
  assert.ok(Date.now() - started >= 4000, 'the busy timeout is 5 s');
  first.execute('ROLLBACK', []);
});

test('connections have foreign keys on and trusted_schema off, and FTS5 works from triggers', (t) => {
  const conn = new DataDir(scratch(t)).create('personal');
  t.after(() => conn.close());
  assert.deepEqual(conn.execute('PRAGMA foreign_keys', []).rows[0].values, [int(1)]);
  assert.deepEqual(conn.execute('PRAGMA trusted_schema', []).rows[0].values, [int(0)]);
  conn.execute('BEGIN', []);
  conn.execute('CREATE TABLE t (x)', []);
  conn.execute('CREATE VIRTUAL TABLE f USING fts5(x)', []);
  conn.execute('CREATE TRIGGER t_f AFTER INSERT ON t BEGIN INSERT INTO f (x) VALUES (new.x); END', []);
  conn.execute('PRAGMA user_version = 1', []);
  conn.execute('COMMIT', []);
  conn.execute("INSERT INTO t VALUES ('hello world')", []);
  assert.equal(conn.execute("SELECT count(*) FROM f WHERE f MATCH 'hello'", []).rows[0].values[0].val, 1n);
});

test('the sandbox refuses what would reach outside the file or undo it', (t) => {
  const dir = scratch(t);
  const conn = new DataDir(dir).create('personal');
  t.after(() => conn.close());
  conn.execute('BEGIN', []);
  conn.execute('CREATE TABLE t (x)', []);
  conn.execute('PRAGMA user_version = 5', []);
  conn.execute('COMMIT', []);
  for (const statement of [
    `ATTACH DATABASE '${join(dir, 'other.sqlite')}' AS other`,
    '  /* hidden */ attach ? as other',
    'DETACH DATABASE main',
    `VACUUM INTO '${join(dir, 'copy.sqlite')}'`,
    "SELECT load_extension('x')",
    'PRAGMA writable_schema = ON',
    'PRAGMA main.trusted_schema = 1',
    'PRAGMA schema_version = 3',
    "PRAGMA temp_store_directory = '/tmp'",
    'PRAGMA user_version = 4',
    'CREATE TABLE outside (x)',
    'DROP TABLE t',
    'ALTER TABLE t ADD COLUMN y',
  ]) {
    refused(() => conn.execute(statement, [txt(join(dir, 'x.sqlite'))].slice(0, statement.includes('?') ? 1 : 0)), 'access-denied');
  }
  assert.ok(!existsSync(join(dir, 'other.sqlite')) && !existsSync(join(dir, 'copy.sqlite')));
  // Still allowed: plain VACUUM, raising user_version, reading pragmas.
  conn.execute('VACUUM', []);
  conn.execute('PRAGMA incremental_vacuum', []);
  conn.execute('PRAGMA user_version = 6', []);
  assert.deepEqual(conn.execute('PRAGMA user_version', []).rows[0].values, [int(6)]);
  refused(() => conn.execute('PRAGMA user_version = 5', []), 'access-denied');
  conn.execute('PRAGMA trusted_schema', []);
});

test('the import wraps connections as resources and closes what the guest left open', (t) => {
  const sqlite = sqliteImports(new DataDir(scratch(t)));
  const { Connection } = sqlite.imports;
  assert.throws(() => Connection.open('personal'), (e) => e.payload.tag === 'no-such-database');
  assert.throws(() => Connection.create('nope'), (e) => e.payload.tag === 'access-denied');
  const conn = Connection.create('personal');
  assert.throws(() => conn.execute('SELEC', []), (e) => e.payload.tag === 'io' && typeof e.payload.val === 'string');
  assert.equal(sqlite.openConnections, 1);
  assert.deepEqual(sqlite.imports.databases(), ['personal']);
  sqlite.close();
  assert.equal(sqlite.openConnections, 0);
  assert.throws(() => conn.execute('SELECT 1', []), (e) => e.payload.tag === 'invalid-connection');
});

test('a SQLite without FTS5 is named as the problem', () => {
  requireFts5();
  class NoFts5 extends Database {
    exec(sql) {
      if (/fts5/i.test(sql)) throw new Error('no such module: fts5');
      return super.exec(sql);
    }
  }
  assert.throws(() => requireFts5(NoFts5), (e) => e instanceof Fts5MissingError && /without FTS5/.test(e.message));
});

test('the data directory is readable by its owner only, and what others could read is tightened', (t) => {
  if (process.platform === 'win32') return;
  const dir = join(scratch(t), 'data');
  const data = new DataDir(dir);
  const previous = process.umask(0o022);
  try {
    data.secure();
    data.create('workspace/acme').close();
    data.create('personal').close();
  } finally {
    process.umask(previous);
  }
  const mode = (path) => statSync(path).mode & 0o777;
  assert.equal(mode(dir), 0o700);
  assert.equal(mode(join(dir, 'workspaces')), 0o700);
  assert.equal(mode(join(dir, 'personal.sqlite')), 0o600);
  assert.equal(mode(join(dir, 'workspaces', 'acme.sqlite')), 0o600);
  chmodSync(join(dir, 'personal.sqlite'), 0o644);
  chmodSync(join(dir, 'workspaces'), 0o755);
  writeFileSync(join(dir, 'notes.txt'), 'x', { mode: 0o644 });
  const warnings = [];
  const listener = (warning) => warnings.push(warning.message);
  process.on('warning', listener);
  t.after(() => process.off('warning', listener));
  data.secure();
  assert.equal(mode(join(dir, 'personal.sqlite')), 0o600);
  assert.equal(mode(join(dir, 'workspaces')), 0o700);
  assert.equal(mode(join(dir, 'notes.txt')), 0o600);
});
