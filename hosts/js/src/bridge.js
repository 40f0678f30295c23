// The other threads' side of the model worker (src/worker.js): requests go
// out and answers come back on a MessagePort that the waiting thread reads
// with `receiveMessageOnPort`, so it can wait for one synchronously,
// blocked in `Atomics.wait` on a shared counter the worker bumps after each
// answer. That is how the engine's synchronous `embed`, `finish` and
// `score` imports get what onnxruntime-node computes asynchronously, and
// how `start-embed` overlaps the model's time with the engine's SQL: the
// worker runs the batch while the engine goes on, and `finish` waits
// only for what is left.

import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';

import { rebuildError } from './errors.js';
import { EmbedError, ModelError } from './models.js';

// The slots of a connection's shared signal: a counter the worker bumps
// after each answer, and a flag its owner sets when the worker is gone.
const ANSWERS = 0;
const GONE = 1;

/**
 * One connection to the model worker, usable from any thread: requests go
 * out on its MessagePort and answers come back on it. The engine thread
 * holds one (`ModelWorker.connect`); a `ModelWorker` is one itself.
 */
export class ModelClient {
  /** Over `endpoint` (`{ port, signal }`, from `ModelWorker.connect`). */
  constructor({ port, signal }) {
    this.port = port;
    this.counter = new Int32Array(signal);
    // An unclosed mind must not keep the process alive.
    this.port.unref();
    this.nextId = 1;
    this.answers = new Map();
  }

  /** The worker's end, when it stopped. */
  get exited() {
    return Atomics.load(this.counter, GONE) === 1 ? new Error('the model worker exited') : undefined;
  }

  /** Send a request; its id. */
  send(op, args) {
    if (this.exited) throw this.exited;
    const id = this.nextId++;
    this.port.postMessage({ id, op, args });
    return id;
  }

  drain() {
    for (;;) {
      const received = receiveMessageOnPort(this.port);
      if (received === undefined) return;
      if (this.forgotten?.delete(received.message.id)) continue;
      this.answers.set(received.message.id, received.message);
    }
  }

  take(id) {
    const message = this.answers.get(id);
    this.answers.delete(id);
    if (message.ok) return message.value;
    throw rebuildError(message.error, { EmbedError, ModelError });
  }

  /** Block this thread until request `id` is answered; its value. */
  waitSync(id) {
    for (;;) {
      const seen = Atomics.load(this.counter, ANSWERS);
      this.drain();
      if (this.answers.has(id)) return this.take(id);
      if (this.exited) throw this.exited;
      Atomics.wait(this.counter, ANSWERS, seen);
    }
  }

  /** Wait for request `id` without blocking the event loop. */
  async wait(id) {
    // A pending Atomics.waitAsync does not keep Node's event loop alive:
    // the port is held while an answer is awaited.
    this.port.ref();
    try {
      for (;;) {
        const seen = Atomics.load(this.counter, ANSWERS);
        this.drain();
        if (this.answers.has(id)) return this.take(id);
        if (this.exited) throw this.exited;
        const waiting = Atomics.waitAsync(this.counter, ANSWERS, seen);
        if (waiting.async) await waiting.value;
      }
    } finally {
      this.port.unref();
    }
  }

  /** Forget the answer to `id` when it comes (a dropped pending embedding). */
  forget(id) {
    this.drain();
    if (!this.answers.delete(id)) (this.forgotten ??= new Set()).add(id);
  }

  callSync(op, args) {
    return this.waitSync(this.send(op, args));
  }

  call(op, args) {
    return this.wait(this.send(op, args));
  }
}

/** A new connection's two ends: `mine` for the worker, `theirs` for a
 * client. */
function channel() {
  const signal = new SharedArrayBuffer(8);
  const { port1, port2 } = new MessageChannel();
  return { mine: { port: port2, signal }, theirs: { port: port1, signal } };
}

/**
 * The model worker thread itself, and its owner's connection to it. It
 * outlives the engine threads that connect to it (`connect`): ending an
 * engine thread never ends a model run, since terminating a thread in the
 * middle of one aborts the process (onnxruntime-node throws into the
 * torn-down thread).
 */
export class ModelWorker extends ModelClient {
  constructor() {
    const { mine, theirs } = channel();
    super(theirs);
    this.signals = [theirs.signal];
    this.worker = new Worker(new URL('./worker.js', import.meta.url), {
      workerData: { connection: mine },
      transferList: [mine.port],
    });
    this.worker.unref();
    const gone = () => {
      for (const signal of this.signals) {
        const counter = new Int32Array(signal);
        Atomics.store(counter, GONE, 1);
        Atomics.add(counter, ANSWERS, 1);
        Atomics.notify(counter, ANSWERS);
      }
    };
    this.worker.on('error', gone);
    this.worker.on('exit', gone);
  }

  /** A new connection for another thread: `{ port, signal }`, to be
   * transferred there (its `port` in the transfer list) and opened with
   * `new ModelClient(...)`. */
  connect() {
    const { mine, theirs } = channel();
    this.signals.push(theirs.signal);
    this.worker.postMessage({ connection: mine }, [mine.port]);
    return theirs;
  }

  /** Stop the worker once what it runs is done. */
  async close() {
    if (!this.exited) {
      try {
        await this.call('idle', {});
      } catch {
        // It is gone already.
      }
    }
    this.port.close();
    await this.worker.terminate();
  }
}
