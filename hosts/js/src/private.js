// Owner-only permissions for the data directory, as the Rust host keeps
// them (`host/sqlite/src/private.rs`): the minds hold everything an agent
// remembered, so on Unix the data directory and its folders are 0700, the
// minds, their -wal, -shm and -journal files and every other file in it
// 0600.
//
// - At creation, whatever the umask: folders are made 0700 and a new mind's
//   file is created empty at 0600 before SQLite opens it (SQLite gives its
//   -wal and -shm files the database file's bits).
// - On open, what an older version or another tool left readable is
//   tightened (the group and other bits removed; links left alone): the
//   directory, its entries and the entries of its folders (`secureDataDir`,
//   when a HiveMind opens), and each mind's file and journals when a
//   connection opens it. What changed is said once, in one warning line on
//   stderr. Tightening is best effort: what cannot be changed is warned
//   about and left.
//
// Elsewhere (Windows) nothing here changes anything.

import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, existsSync, constants } from 'node:fs';
import { join } from 'node:path';

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;
const UNIX = process.platform !== 'win32';

/** Say what was tightened, once, on stderr. */
export function report(tightened) {
  if (!tightened.length) return;
  const list = tightened.map(({ path, from, to }) => `${path} (${from.toString(8).padStart(4, '0')} -> ${to.toString(8).padStart(4, '0')})`);
  process.emitWarning(`tightened permissions that let other local users read the memories: ${list.join(', ')}`, 'HiveMindWarning');
}

export function createPrivateDir(dir) {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  if (UNIX) chmodSync(dir, DIR_MODE);
}

/** Create `path` empty at 0600 unless it exists. */
export function createPrivateFile(path) {
  let fd;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, FILE_MODE);
  } catch (error) {
    if (error.code === 'EEXIST') return;
    throw error;
  }
  try {
    if (UNIX) chmodSync(path, FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

function tighten(path, tightened) {
  if (!UNIX) return;
  let stat;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if (error.code !== 'ENOENT') process.emitWarning(`${path}: could not be made readable by its owner only: ${error.message}`, 'HiveMindWarning');
    return;
  }
  if (!stat.isFile() && !stat.isDirectory()) return;
  const from = stat.mode & 0o7777;
  const to = from & ~0o077;
  if (from === to) return;
  try {
    chmodSync(path, to);
    tightened.push({ path, from, to });
  } catch (error) {
    process.emitWarning(`${path}: could not be made readable by its owner only: ${error.message}`, 'HiveMindWarning');
  }
}

/** Create the data directory (0700) or tighten it, its entries and the
 * entries of its folders; the list of what was tightened. */
export function secureDataDir(dir) {
  createPrivateDir(dir);
  const tightened = [];
  tighten(dir, tightened);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    tighten(path, tightened);
    if (entry.isDirectory()) {
      for (const inner of readdirSync(path)) tighten(join(path, inner), tightened);
    }
  }
  return tightened;
}

/** Tighten a mind's file and its journals. */
export function tightenDatabase(path) {
  const tightened = [];
  for (const suffix of ['', '-wal', '-shm', '-journal']) tighten(path + suffix, tightened);
  return tightened;
}
