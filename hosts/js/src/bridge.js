// The main thread's side of the model worker (src/worker.js): requests go
// out as messages; answers come back on a MessagePort that the main thread
// reads with `receiveMessageOnPort`, so it can wait for one synchronously,
// blocked in `Atomics.wait` on a shared counter the worker bumps after each
// answer. That is how the engine's synchronous `embed`, `finish` and
// `score` imports get what onnxruntime-node computes asynchronously, and
// how `start-embed` overlaps the model's time with the engine's SQL: the
// worker runs the batch while the main thread goes on, and `finish` waits
// only for what is left.

import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';

import { rebuildError } from './errors.js';
import { EmbedError, ModelError } from './models.js';

export class ModelWorker {
  constructor() {
    this.signal = new SharedArrayBuffer(4);
    this.counter = new Int32Array(this.signal);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(new URL('./worker.js', import.meta.url), {
      workerData: { port: port2, signal: this.signal },
      transferList: [port2],
    });
    // An unclosed mind must not keep the process alive.
    this.worker.unref();
    this.port.unref();
    this.nextId = 1;
    this.answers = new Map();
    this.exited = undefined;
    this.worker.on('error', (error) => {
      this.exited = error;
      Atomics.add(this.counter, 0, 1);
      Atomics.notify(this.counter, 0);
    });
    this.worker.on('exit', (code) => {
      this.exited ??= new Error(`the model worker exited (code ${code})`);
      Atomics.add(this.counter, 0, 1);
      Atomics.notify(this.counter, 0);
    });
  }

  /** Send a request; its id. */
  send(op, args) {
    if (this.exited) throw this.exited;
    const id = this.nextId++;
    this.worker.postMessage({ id, op, args });
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
      const seen = Atomics.load(this.counter, 0);
      this.drain();
      if (this.answers.has(id)) return this.take(id);
      if (this.exited) throw this.exited;
      Atomics.wait(this.counter, 0, seen);
    }
  }

  /** Wait for request `id` without blocking the event loop. */
  async wait(id) {
    // A pending Atomics.waitAsync does not keep Node's event loop alive:
    // the worker is held while an answer is awaited.
    this.worker.ref();
    try {
      for (;;) {
        const seen = Atomics.load(this.counter, 0);
        this.drain();
        if (this.answers.has(id)) return this.take(id);
        if (this.exited) throw this.exited;
        const waiting = Atomics.waitAsync(this.counter, 0, seen);
        if (waiting.async) await waiting.value;
      }
    } finally {
      this.worker.unref();
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

  /** Stop the worker once what it runs is done: terminating it in the
   * middle of a model run aborts the process (onnxruntime-node throws into
   * the torn-down thread). */
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
