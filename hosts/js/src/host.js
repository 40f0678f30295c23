// The wiring: the engine component, transpiled by jco, instantiated with
// this host's imports, and its exports called.
//
//   hive:mind/sqlite     src/sqlite.js over a data directory
//   hive:mind/embedder   src/embedder.js over the model worker
//   hive:mind/reranker   src/embedder.js, or `unavailable`
//   hive:mind/llm, fetch src/capabilities.js: `unavailable`
//   WASI 0.2             src/wasi.js: an empty sandbox
//
// A ComponentHost is one instance; calls run on the thread that makes them
// (the engine's own thread, src/engine-thread.js), one at a time. A call
// that traps —
// a panic in the engine, a stack overflow, an import that threw — leaves
// the instance unusable: `call` then closes the instance's SQLite
// connections (rolling back what it left open, releasing the write lock),
// instantiates the component afresh with the same imports, and throws
// EngineTrap naming what happened (its `kind`). The next call runs on the
// fresh instance. A deadline cannot be enforced from the thread that runs
// the WebAssembly; the main thread enforces it by ending this one
// (src/thread.js). The memory cap is compiled into the component
// (src/component.js): past it, the guest's allocation fails and it aborts,
// a `memory-limit` trap.

import { unavailableReranker, unconfigured } from './capabilities.js';
import { embedderImports, rerankerImports } from './embedder.js';
import { EngineTrap } from './errors.js';
import { DataDir, sqliteImports } from './sqlite.js';
import { sandboxWasi } from './wasi.js';

/** What the guest's Rust runtime writes to its stderr before it aborts on
 * an allocation that failed. */
const ALLOCATION_FAILED = 'memory allocation of ';
/** How much of a call's guest stderr is kept to classify its trap. */
const GUEST_STDERR_KEPT = 4096;

/** What stopped a call: `stack-overflow`, `memory-limit`, `guest-panic`,
 * `other-trap` or `host-failure` (an import threw). */
export function trapKind(error, guestStderr = '') {
  if (error instanceof WebAssembly.RuntimeError) {
    if (/unreachable/i.test(error.message)) {
      return guestStderr.includes(ALLOCATION_FAILED) ? 'memory-limit' : 'guest-panic';
    }
    return 'other-trap';
  }
  if (error instanceof RangeError && /call stack/i.test(error.message)) return 'stack-overflow';
  return 'host-failure';
}

/** The error value an export threw for its `result`'s `err`, or undefined
 * when what it threw is a trap. */
function resultError(thrown) {
  if (thrown instanceof Error) {
    return Object.prototype.hasOwnProperty.call(thrown, 'payload') ? thrown.payload : undefined;
  }
  return thrown !== null && typeof thrown === 'object' && 'tag' in thrown ? thrown : undefined;
}

export class ComponentHost {
  /**
   * `component`: loaded by src/component.js; `dataDir`: the minds' folder;
   * `worker` and `embedderInfo`: the model worker and its embedder's info
   * (`worker` undefined: the embedder answers `unavailable` with
   * `embedderWhy`); `rerankerInfo`: the cross-encoder's info when it is
   * loaded on the worker, else `rerankerWhy` says why not.
   */
  constructor({ component, dataDir, worker, embedderInfo, embedderWhy, rerankerInfo, rerankerWhy }) {
    this.component = component;
    const minds = new DataDir(dataDir);
    minds.secure();
    this.sqlite = sqliteImports(minds);
    this.embedder = embedderImports(worker, embedderInfo, embedderWhy);
    this.reranker = rerankerInfo ? rerankerImports(worker, rerankerInfo) : unavailableReranker(rerankerWhy);
    /** How many times the instance was replaced after a trap. */
    this.restarts = 0;
    this.instantiate();
  }

  instantiate() {
    this.guestStderr = '';
    const decoder = new TextDecoder();
    this.instance = this.component.instantiate({
      ...sandboxWasi({
        stderr: (bytes) => {
          this.guestStderr = (this.guestStderr + decoder.decode(bytes)).slice(-GUEST_STDERR_KEPT);
        },
      }),
      ...unconfigured(),
      'hive:mind/reranker': this.reranker,
      'hive:mind/sqlite': this.sqlite.imports,
      'hive:mind/embedder': this.embedder.imports,
      'hive:mind/types': {},
    });
  }

  /** Drop the instance and start a fresh one: the old one's connections
   * are closed first, its pending embeddings forgotten. */
  restart() {
    this.sqlite.close();
    this.embedder.forgetPending();
    this.instance = undefined;
    this.instantiate();
    this.restarts += 1;
  }

  /**
   * Call `iface.name(...args)` (`iface`: memory, admin, review, harvest,
   * wiki): `{ ok: true, value }`, or `{ ok: false, error }` with the WIT
   * error value of a function that returns a result. A trap restarts the
   * instance and throws EngineTrap.
   */
  call(iface, name, ...args) {
    const exports = this.instance[iface];
    if (exports === undefined || typeof exports[name] !== 'function') {
      throw new TypeError(`the component exports no ${iface}.${name}`);
    }
    return this.run(name, () => exports[name](...args));
  }

  /** Run `fn`, which calls into the instance (`name` says what, for a
   * trap's message), as `call` runs an export. */
  run(name, fn) {
    this.guestStderr = '';
    try {
      return { ok: true, value: fn() };
    } catch (thrown) {
      const error = resultError(thrown);
      if (error !== undefined) return { ok: false, error };
      const kind = trapKind(thrown, this.guestStderr);
      this.restart();
      const trap = new EngineTrap(
        'trap',
        `${name} was stopped (${kind}); the engine was restarted: ${thrown?.message ?? thrown}`,
        kind,
      );
      trap.cause = thrown;
      throw trap;
    }
  }

  /** Close the databases the component left open and drop the instance. */
  close() {
    this.sqlite.close();
    this.embedder.forgetPending();
    this.instance = undefined;
  }
}
