// The main thread's side of the engine thread (src/engine-thread.js).
//
// Requests go out one at a time, in the order they were made (each waits
// for the one before: the engine serves one call at a time, as in the
// other hosts). Each call of an export gets its kind's deadline
// (src/limits.js): when it passes, the engine thread is terminated —
// stopping the WebAssembly it runs, its SQLite connections closed with it
// and an unfinished transaction rolled back — the call rejects with
// EngineTrap (`kind` `deadline-exceeded`), and a fresh engine thread is
// opened with the same settings before the next request runs. The model
// worker is this thread's, loaded once and connected to each engine thread
// in turn: ending an engine thread never ends a model run (which would
// abort the process; see src/bridge.js). The thread
// keeps the process alive only while a request is in flight, so a mind
// that is never closed does not hold the process open.

import { Worker } from 'node:worker_threads';

import { ModelWorker } from './bridge.js';
import { ComponentError } from './component.js';
import { EngineTrap, HiveMindError, rebuildError } from './errors.js';
import { deadlineOf } from './limits.js';
import { ModelError, findReranker } from './models.js';
import { Fts5MissingError } from './sqlite.js';

/** The classes an engine thread's failure is rebuilt as (`rebuildError`). */
const CLASSES = { ComponentError, EngineTrap, Fts5MissingError, ModelError };

/** A WIT export's name from jco's camelCase one (`saveMemory` →
 * `save-memory`), as the deadline table names it. */
function witName(name) {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

export class EngineThread {
  /** Start the engine thread and open the engine with `settings` (see
   * engine-thread.js's `open`); rejects as the opening failed. */
  static async start({ modelDir, reranker, ...settings }, limits) {
    const models = new ModelWorker();
    try {
      const embedderInfo = await models.call('load-embedder', { folder: modelDir });
      let rerankerInfo;
      let rerankerWhy;
      if (reranker === false) {
        rerankerWhy = 'reranking is turned off (reranker: false)';
      } else {
        const found = findReranker();
        if (found.folder) rerankerInfo = await models.call('load-reranker', { folder: found.folder });
        else rerankerWhy = found.why;
      }
      const thread = new EngineThread({ ...settings, embedderInfo, rerankerInfo, rerankerWhy }, limits, models);
      await thread.spawn();
      return thread;
    } catch (error) {
      await models.close();
      throw error;
    }
  }

  constructor(settings, limits, models) {
    /** The model worker: this thread's, shared by every engine thread. */
    this.models = models;
    this.settings = { ...settings, memoryBytes: limits.memoryBytes };
    this.limits = limits;
    /** How many times the engine thread was replaced after a deadline. */
    this.restarts = 0;
    this.queue = Promise.resolve();
    this.nextId = 1;
    /** The running thread: `{ worker, pending }`, or undefined. */
    this.current = undefined;
  }

  /** A new engine thread, opened. */
  async spawn() {
    const worker = new Worker(new URL('./engine-thread.js', import.meta.url));
    worker.unref();
    // Each thread answers its own requests; one that ends fails them.
    const thread = { worker, pending: new Map() };
    worker.on('message', ({ id, ok, value, error }) => {
      const waiting = thread.pending.get(id);
      if (waiting === undefined) return;
      thread.pending.delete(id);
      if (ok) waiting.resolve(value);
      else waiting.reject(rebuildError(error, CLASSES));
    });
    const failed = (error) => {
      for (const waiting of thread.pending.values()) waiting.reject(error);
      thread.pending.clear();
    };
    worker.on('error', failed);
    worker.on('exit', (code) => {
      if (this.current === thread) this.current = undefined;
      failed(new EngineTrap('trap', `the engine thread exited (code ${code})`, 'host-failure'));
    });
    try {
      const models = this.models.connect();
      await this.send(thread, { op: 'open', ...this.settings, models }, [models.port]);
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    this.current = thread;
  }

  /** Send one request to `thread` and wait for its answer. */
  send(thread, request, transfer = []) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.ref();
      thread.worker.postMessage({ id, ...request }, transfer);
    }).finally(() => {
      if (thread.pending.size === 0) thread.worker.unref();
    });
  }

  /**
   * Run `request` after every request before it, with the deadline of the
   * export `name` (camelCase) when `name` is given. A deadline passed
   * rejects with EngineTrap and replaces the thread first.
   */
  request(request, name) {
    if (this.closed) return Promise.reject(new HiveMindError('closed', 'this HiveMind is closed'));
    const run = async () => {
      if (this.current === undefined) {
        await this.spawn();
        this.restarts += 1;
      }
      const thread = this.current;
      const deadline = name === undefined ? undefined : deadlineOf(this.limits, witName(name));
      if (deadline === undefined) return this.send(thread, request);
      let timer;
      const expired = new Promise((_, reject) => {
        timer = setTimeout(() => {
          // Rejected first: the thread's exit then fails the request too,
          // but this is what the caller sees.
          reject(
            new EngineTrap(
              'trap',
              `${witName(name)} ran past its deadline of ${deadline} ms and was stopped; the engine was restarted`,
              'deadline-exceeded',
            ),
          );
          if (this.current === thread) this.current = undefined;
          thread.worker.terminate();
        }, deadline);
      });
      try {
        return await Promise.race([this.send(thread, request), expired]);
      } finally {
        clearTimeout(timer);
      }
    };
    const result = this.queue.then(run);
    this.queue = result.catch(() => {});
    return result;
  }

  /** Call `iface.name(...args)` on the engine: its `{ ok, value | error }`. */
  call(iface, name, args) {
    return this.request({ op: 'call', iface, name, args }, name);
  }

  /** Close the engine and end its thread (idempotent). */
  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    const thread = this.current;
    this.current = undefined;
    try {
      if (thread !== undefined) {
        try {
          await this.send(thread, { op: 'close' });
        } finally {
          await thread.worker.terminate();
        }
      }
    } finally {
      // After any run an ended engine thread left it: see bridge.js.
      await this.models.close();
    }
  }
}
