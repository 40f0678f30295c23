// The SQLite capability (`hive:mind/sqlite`) over better-sqlite3.
//
// The engine owns everything inside a database; this host owns only where
// databases live and how they are opened, exactly as the Rust host does
// (`host/sqlite/src/lib.rs`) and the Python host (`hive_mind/sqlite.py`):
//
//   database name       file under the data directory
//   personal            personal.sqlite
//   workspace/<id>      workspaces/<id>.sqlite
//
// A workspace id is 1 to 64 of [A-Za-z0-9._-], not starting with a dot, so
// no name reaches outside the data directory; any other name is refused
// with `access-denied`. `open` never creates a file (`no-such-database`);
// `create` does, with its folder.
//
// Every connection gets a 5 s busy timeout and `PRAGMA foreign_keys = ON`,
// and runs in autocommit mode: the engine sends its own BEGIN/COMMIT (and
// asks for WAL itself, once it has checked a file is a mind). No extension
// is loaded: the engine needs FTS5 and nothing else (`requireFts5` checks
// this SQLite has it).
//
// The sandbox (`host/sqlite/src/sandbox.rs`) as far as better-sqlite3
// allows: it has no authorizer, no commit hook and no `sqlite3_limit`, so
// the rules are checked on each statement's text (comments stripped), and
// every refusal is `access-denied`:
// - ATTACH (so VACUUM INTO) and DETACH are refused; plain VACUUM and
//   PRAGMA incremental_vacuum stay allowed. The SQL function
//   load_extension() is refused by name (better-sqlite3 never enables it
//   for SQL either).
// - Setting trusted_schema, writable_schema, schema_version,
//   temp_store_directory or data_store_directory is refused, and so is
//   lowering user_version.
// - The schema rule is approximated as the Python host does: creating or
//   dropping a schema object or altering a table is refused outside an
//   explicit transaction (where nothing could raise the version with it).
// - trusted_schema = OFF (this SQLite marks FTS5 innocuous, so the engine's
//   full-text triggers still work under it).

import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';

import { witError } from './capabilities.js';
import { createPrivateDir, createPrivateFile, report, secureDataDir, tightenDatabase } from './private.js';

/** How long a statement waits for another connection's lock, in ms. */
export const BUSY_TIMEOUT_MS = 5000;
/** Prepared statements kept per connection (as the Rust host). */
export const STATEMENT_CACHE = 128;

const WORKSPACE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A failure as a case of the WIT `sqlite.error` variant: `case` is the WIT
 * case name, `message` the payload of `constraint`, `corrupt` and `io`. */
export class SqliteError extends Error {
  static CASES_WITH_MESSAGE = ['constraint', 'corrupt', 'io'];

  constructor(kase, message) {
    super(message === undefined ? kase : `${kase}: ${message}`);
    this.name = 'SqliteError';
    this.case = kase;
    this.message_ = SqliteError.CASES_WITH_MESSAGE.includes(kase) ? (message ?? '') : undefined;
  }

  /** The WIT value, thrown to the guest. */
  toWit() {
    return witError(this.case, this.message_);
  }
}

/** SQLite lacks FTS5: the engine cannot run on it. */
export class Fts5MissingError extends Error {
  constructor(version) {
    super(
      `the SQLite of better-sqlite3 (${version}) was built without FTS5; the engine's full-text search ` +
        'needs it (reinstall better-sqlite3 from npm, whose bundled SQLite has it)',
    );
    this.name = 'Fts5MissingError';
  }
}

let fts5Checked = false;

/** Throws Fts5MissingError when this SQLite has no FTS5. */
export function requireFts5(DatabaseClass = Database) {
  if (fts5Checked && DatabaseClass === Database) return;
  const probe = new DatabaseClass(':memory:');
  try {
    const version = probe.prepare('SELECT sqlite_version() AS v').get().v;
    try {
      probe.exec('CREATE VIRTUAL TABLE f USING fts5(x)');
    } catch {
      throw new Fts5MissingError(version);
    }
  } finally {
    probe.close();
  }
  if (DatabaseClass === Database) fts5Checked = true;
}

/** Whether the host accepts a workspace id. */
export function validWorkspaceId(id) {
  return WORKSPACE_ID.test(id) && !id.startsWith('.');
}

/** The WIT error case for an exception raised by better-sqlite3. */
export function errorFrom(error) {
  if (error instanceof SqliteError) return error;
  const code = typeof error?.code === 'string' ? error.code : '';
  const message = String(error?.message ?? error);
  const lowered = message.toLowerCase();
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || (!code && lowered.includes('database is locked'))) {
    return new SqliteError('busy');
  }
  if (code.startsWith('SQLITE_CONSTRAINT')) return new SqliteError('constraint', message);
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) return new SqliteError('corrupt', message);
  if (code.startsWith('SQLITE_FULL')) return new SqliteError('database-full');
  return new SqliteError('io', message);
}

/** The statement without its comments and leading blanks. */
function stripComments(sql) {
  return sql.replace(/--[^\n]*|\/\*[\s\S]*?(\*\/|$)/g, ' ').trim();
}

const READ_ONLY_PRAGMAS = new Set([
  'trusted_schema',
  'writable_schema',
  'schema_version',
  'temp_store_directory',
  'data_store_directory',
]);

const NUMBERED = /\?\d/;
const LITERALS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)/g;
const SCHEMA_CHANGE = /^(CREATE|DROP|ALTER)\b/i;
const PRAGMA_SET = /^PRAGMA\s+(?:["`\[]?\w+["`\]]?\s*\.\s*)?["`\[]?(\w+)["`\]]?\s*(?:=\s*|\(\s*)([^)]*?)\s*\)?\s*;?$/i;

/** What the sandbox needs of a statement's text (comments stripped). */
function analyse(text) {
  const analysis = { always: undefined, pragma: undefined, schemaChange: SCHEMA_CHANGE.test(text), setsVersion: false };
  if (/^ATTACH\b/i.test(text)) analysis.always = 'ATTACH is not allowed; VACUUM INTO is refused for the same reason';
  else if (/^VACUUM\b[\s\S]*\bINTO\b/i.test(text)) analysis.always = 'VACUUM INTO is not allowed';
  else if (/^DETACH\b/i.test(text)) analysis.always = 'DETACH is not allowed';
  else if (/\bload_extension\s*\(/i.test(text)) analysis.always = 'load_extension() is not allowed';
  const pragma = PRAGMA_SET.exec(text);
  if (analysis.always === undefined && pragma) {
    const name = pragma[1].toLowerCase();
    if (READ_ONLY_PRAGMAS.has(name)) analysis.always = `setting PRAGMA ${name} is not allowed`;
    else if (name === 'user_version') {
      const asked = Number.parseInt(pragma[2].replace(/^['"]|['"]$/g, ''), 10);
      if (!Number.isInteger(asked)) analysis.always = `PRAGMA user_version takes an integer, not ${pragma[2]}`;
      else {
        analysis.pragma = asked;
        analysis.setsVersion = true;
      }
    }
  }
  return analysis;
}

/** Why the sandbox refuses a statement, or undefined. */
function refusal(sql, inTransaction, version, analysis = analyse(stripComments(sql))) {
  if (analysis.always !== undefined) return analysis.always;
  if (analysis.pragma !== undefined && version !== undefined && analysis.pragma < version) {
    return `PRAGMA user_version may not go down (from ${version} to ${analysis.pragma})`;
  }
  if (analysis.schemaChange && !inTransaction) {
    return 'creating or dropping a schema object or altering a table needs a transaction that raises PRAGMA user_version';
  }
  return undefined;
}

/** A WIT `value` as a better-sqlite3 parameter. */
function parameter(value) {
  switch (value.tag) {
    case 'integer':
      return value.val;
    case 'real':
      return value.val;
    case 'text':
      return value.val;
    case 'blob':
      return Buffer.from(value.val.buffer, value.val.byteOffset, value.val.byteLength);
    case 'null':
      return null;
    default:
      throw new SqliteError('io', `unknown value ${value.tag}`);
  }
}

/** A column value (integers as BigInt) as a WIT `value`. */
function witValue(value) {
  if (value === null || value === undefined) return { tag: 'null' };
  if (typeof value === 'bigint') return { tag: 'integer', val: value };
  if (typeof value === 'number') return { tag: 'real', val: value };
  if (typeof value === 'string') return { tag: 'text', val: value };
  return { tag: 'blob', val: new Uint8Array(value.buffer, value.byteOffset, value.byteLength) };
}

/** One open connection; statements run in order, one at a time. */
export class SqliteConnection {
  constructor(db, name) {
    this.db = db;
    this.name = name;
    this.version = undefined;
    this.lastRefusal = undefined;
    this.statements = new Map();
    /** What the sandbox read of each statement's text (its rules depend
     * on the text, the transaction and the version only). */
    this.checked = new Map();
    this.versionSet = false;
    this.scalars = new Map();
  }

  remember(sql) {
    const text = stripComments(sql);
    this.checked.set(sql, analyse(text));
    if (this.checked.size > STATEMENT_CACHE * 4) this.checked.delete(this.checked.keys().next().value);
  }

  live() {
    if (this.db === undefined) throw new SqliteError('invalid-connection');
    return this.db;
  }

  prepared(sql) {
    let statement = this.statements.get(sql);
    if (statement !== undefined) {
      // Most recently used last.
      this.statements.delete(sql);
      this.statements.set(sql, statement);
      return statement;
    }
    statement = this.live().prepare(sql);
    statement.safeIntegers(true);
    if (statement.reader) statement.raw(true);
    // better-sqlite3 binds `?NNN` as named parameters (named "1", "2", …):
    // such a statement gets its values as an object keyed by position.
    statement.numbered = NUMBERED.test(sql.replace(LITERALS, ' '));
    this.statements.set(sql, statement);
    if (this.statements.size > STATEMENT_CACHE) this.statements.delete(this.statements.keys().next().value);
    return statement;
  }

  scalar(sql) {
    try {
      let statement = this.scalars.get(sql);
      if (statement === undefined) {
        statement = this.live().prepare(sql).safeIntegers(true).raw(true);
        this.scalars.set(sql, statement);
      }
      return statement.get()[0];
    } catch (error) {
      throw errorFrom(error);
    }
  }

  /** Run one statement with its parameters (WIT values) bound in order:
   * `{ columns, rows: [{ values }] }` with WIT values. */
  execute(sql, parameters) {
    const db = this.live();
    if (this.version === undefined) this.version = Number(this.scalar('PRAGMA user_version'));
    const checked = this.checked.get(sql);
    this.lastRefusal = refusal(sql, db.inTransaction, this.version, checked);
    if (this.lastRefusal !== undefined) throw new SqliteError('access-denied');
    if (checked === undefined) this.remember(sql);
    if (this.checked.get(sql).setsVersion) this.versionSet = true;
    const values = parameters.map(parameter);
    let result;
    try {
      const statement = this.prepared(sql);
      const args = statement.numbered ? [Object.fromEntries(values.map((value, i) => [i + 1, value]))] : values;
      if (statement.reader) {
        const columns = statement.columns().map((column) => column.name);
        const rows = statement.all(...args).map((row) => ({ values: row.map(witValue) }));
        result = { columns, rows };
      } else {
        statement.run(...args);
        result = { columns: [], rows: [] };
      }
    } catch (error) {
      if (error instanceof RangeError && /parameter/i.test(error.message)) {
        throw new SqliteError('io', `${error.message}: ${sql}`);
      }
      throw errorFrom(error);
    } finally {
      // A raised user_version counts once no transaction is open (it may
      // have been rolled back): read it again then.
      if (this.versionSet && !db.inTransaction && this.db !== undefined) {
        this.versionSet = false;
        this.version = Number(this.scalar('PRAGMA user_version'));
      }
    }
    return result;
  }

  lastInsertRowid() {
    return this.scalar('SELECT last_insert_rowid()');
  }

  changes() {
    return BigInt.asUintN(64, this.scalar('SELECT changes()'));
  }

  /** Close the connection (idempotent); later calls are invalid-connection. */
  close() {
    if (this.db !== undefined) {
      this.statements.clear();
      this.scalars.clear();
      this.db.close();
      this.db = undefined;
    }
  }
}

/** The databases of one data directory (created on the first `create`). */
export class DataDir {
  constructor(directory) {
    this.directory = resolve(directory);
  }

  /** The file a database name maps to; access-denied for any other name. */
  pathOf(name) {
    if (name === 'personal') return join(this.directory, 'personal.sqlite');
    const prefix = 'workspace/';
    if (name.startsWith(prefix) && validWorkspaceId(name.slice(prefix.length))) {
      return join(this.directory, 'workspaces', `${name.slice(prefix.length)}.sqlite`);
    }
    throw new SqliteError('access-denied');
  }

  open(name) {
    return this.connect(name, false);
  }

  create(name) {
    return this.connect(name, true);
  }

  connect(name, create) {
    const path = this.pathOf(name);
    if (!existsSync(path)) {
      if (!create) throw new SqliteError('no-such-database');
      try {
        createPrivateDir(join(path, '..'));
        createPrivateFile(path);
      } catch (error) {
        throw new SqliteError('io', `${path}: ${error.message}`);
      }
    } else {
      report(tightenDatabase(path));
    }
    let db;
    try {
      db = new Database(path, { fileMustExist: !create, timeout: BUSY_TIMEOUT_MS });
    } catch (error) {
      throw errorFrom(error);
    }
    try {
      // Connection settings only: nothing here writes to the file.
      db.pragma('foreign_keys = ON');
      db.pragma('trusted_schema = OFF');
    } catch (error) {
      db.close();
      throw errorFrom(error);
    }
    return new SqliteConnection(db, name);
  }

  /** Create the directory owner-only, or tighten what is readable by
   * others (src/private.js). */
  secure() {
    report(secureDataDir(this.directory));
  }

  /** Delete a workspace database and its journal files. */
  remove(name) {
    if (name === 'personal') throw new SqliteError('access-denied');
    const path = this.pathOf(name);
    if (!existsSync(path)) throw new SqliteError('no-such-database');
    try {
      rmSync(path);
      for (const suffix of ['-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
    } catch (error) {
      throw new SqliteError('io', `${path}: ${error.message}`);
    }
  }

  /** `personal` first when it exists, then the workspaces sorted by name. */
  databases() {
    const names = existsSync(join(this.directory, 'personal.sqlite')) ? ['personal'] : [];
    const folder = join(this.directory, 'workspaces');
    let entries;
    try {
      entries = readdirSync(folder);
    } catch (error) {
      if (error.code === 'ENOENT') return names;
      throw new SqliteError('io', `${folder}: ${error.message}`);
    }
    const ids = entries
      .filter((entry) => entry.endsWith('.sqlite'))
      .map((entry) => entry.slice(0, -'.sqlite'.length))
      .filter(validWorkspaceId)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return names.concat(ids.map((id) => `workspace/${id}`));
  }
}

/**
 * The `hive:mind/sqlite` import over one data directory: `{ imports, close,
 * openConnections }`. Each `Connection` the guest holds wraps a
 * SqliteConnection; the guest's drop closes it, and `close()` closes what
 * the guest left open.
 */
export function sqliteImports(dataDir) {
  const open = new Set();

  class Connection {
    constructor(conn) {
      this.conn = conn;
      open.add(conn);
    }

    static open(database) {
      try {
        return new Connection(dataDir.open(database));
      } catch (error) {
        throw errorFrom(error).toWit();
      }
    }

    static create(database) {
      try {
        return new Connection(dataDir.create(database));
      } catch (error) {
        throw errorFrom(error).toWit();
      }
    }

    execute(statement, parameters) {
      try {
        return this.conn.execute(statement, parameters);
      } catch (error) {
        throw errorFrom(error).toWit();
      }
    }

    lastInsertRowid() {
      return this.conn.lastInsertRowid();
    }

    changes() {
      return this.conn.changes();
    }

    dispose() {
      this.conn.close();
      open.delete(this.conn);
    }

    [Symbol.for('dispose')]() {
      this.dispose();
    }
  }
  if (Symbol.dispose) Connection.prototype[Symbol.dispose] = Connection.prototype.dispose;

  return {
    imports: {
      Connection,
      databases() {
        try {
          return dataDir.databases();
        } catch (error) {
          throw errorFrom(error).toWit();
        }
      },
      removeDatabase(database) {
        try {
          dataDir.remove(database);
        } catch (error) {
          throw errorFrom(error).toWit();
        }
      },
    },
    get openConnections() {
      return open.size;
    },
    close() {
      for (const conn of open) conn.close();
      open.clear();
    },
  };
}
