// The model worker thread: loads the embedder (and the cross-encoder, when
// on) and runs them with onnxruntime-node, whose API is asynchronous, while
// the engine's imports, which are synchronous, wait for the answers on the
// thread that asked (src/bridge.js). Each thread asks over a connection of
// its own (`{ port, signal }`: the first in workerData, more sent by the
// owner); each request is `{ id, op, args }`, each answer
// `{ id, ok, value | error }` goes back on the same port, after which the
// worker bumps the connection's counter and wakes its thread. The models
// are loaded once and serve every connection, one request at a time.

import { parentPort, workerData } from 'node:worker_threads';

import { describeError } from './errors.js';
import { CrossEncoder, InProcessEmbedder } from './models.js';

let embedder;
let reranker;

const ops = {
  async 'load-embedder'({ folder }) {
    embedder = await InProcessEmbedder.load(folder);
    return embedder.info;
  },
  async 'load-reranker'({ folder }) {
    reranker = await CrossEncoder.load(folder);
    return { model: reranker.name, maxTokens: reranker.maxTokens };
  },
  async embed({ texts, kind }) {
    return embedder.embed(texts, kind);
  },
  async tokenize({ texts, kind }) {
    return embedder.tokenize(texts, kind);
  },
  async idle() {
    return null;
  },
  async score({ query, passages }) {
    return reranker.score(query, passages);
  },
};

// Requests run one at a time, in order, whichever connection sent them.
let queue = Promise.resolve();

function serve({ port, signal }) {
  const counter = new Int32Array(signal);
  const answer = (message, transfer = []) => {
    port.postMessage(message, transfer);
    Atomics.add(counter, 0, 1);
    Atomics.notify(counter, 0);
  };
  port.on('message', ({ id, op, args }) => {
    queue = queue.then(async () => {
      try {
        const value = await ops[op](args);
        const transfer = Array.isArray(value) ? value.filter((v) => v instanceof Float32Array).map((v) => v.buffer) : [];
        answer({ id, ok: true, value }, transfer);
      } catch (error) {
        answer({ id, ok: false, error: describeError(error) });
      }
    });
  });
  // A thread that ended (an engine thread past its deadline) closes its end.
  port.on('close', () => port.close());
}

serve(workerData.connection);
parentPort.on('message', ({ connection }) => serve(connection));
