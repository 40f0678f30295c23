// The `hive:mind/embedder` and `hive:mind/reranker` imports over the model
// worker (src/bridge.js): synchronous, as jco calls them, while the models
// run on the worker thread.
//
// `start-embed` sends the batch to the worker and returns at once; its
// `pending-embedding` resource keeps the request's id, and `finish` blocks
// until the worker has answered it. Meanwhile the engine goes on with its
// full-text search and listings on the main thread (recall embeds its
// question that way), so the model's time and the database's overlap, as
// in the Python host's thread pool.

import { witError } from './capabilities.js';
import { EmbedError } from './models.js';

/** One entry per text (an embedder that never fails one text alone). */
function entries(vectors, texts) {
  if (vectors.length !== texts.length) {
    throw new EmbedError('failed', `asked for ${texts.length} vectors, got ${vectors.length}`);
  }
  return vectors.map((vector) => ({ tag: 'ok', val: vector }));
}

function asWit(error) {
  if (error instanceof EmbedError) return witError(error.case, error.detail);
  return witError('failed', `the embedding failed: ${error?.message ?? error}`);
}

/**
 * The embedder import: over `worker` whose embedder answered `info` when
 * loaded, or, with `worker` undefined, `unavailable` with `why`.
 */
export function embedderImports(worker, info, why = 'no embedder is configured') {
  const pending = new Set();

  class PendingEmbedding {
    constructor(id, texts) {
      this.id = id;
      this.texts = texts;
      this.done = false;
      pending.add(this);
    }

    finish() {
      if (this.done) throw witError('failed', 'this embedding was already finished');
      this.done = true;
      pending.delete(this);
      try {
        return entries(worker.waitSync(this.id), this.texts);
      } catch (error) {
        throw asWit(error);
      }
    }

    dispose() {
      // A running batch finishes on the worker; its vectors are discarded.
      if (!this.done) {
        this.done = true;
        pending.delete(this);
        worker.forget(this.id);
      }
    }

    [Symbol.for('dispose')]() {
      this.dispose();
    }
  }
  if (Symbol.dispose) PendingEmbedding.prototype[Symbol.dispose] = PendingEmbedding.prototype.dispose;

  return {
    imports: {
      PendingEmbedding,
      info() {
        if (worker === undefined) throw witError('unavailable', why);
        return { ...info };
      },
      embed(texts, kind) {
        if (worker === undefined) throw witError('unavailable', why);
        if (!texts.length) return [];
        try {
          return entries(worker.callSync('embed', { texts, kind }), texts);
        } catch (error) {
          throw asWit(error);
        }
      },
      startEmbed(texts, kind) {
        if (worker === undefined) throw witError('unavailable', why);
        return new PendingEmbedding(worker.send('embed', { texts, kind }), texts);
      },
    },
    /** Forget the pending embeddings of an instance that is gone. */
    forgetPending() {
      for (const item of pending) item.dispose();
    },
  };
}

/** The reranker import over `worker` whose cross-encoder answered `info`,
 * or `unavailable` with `why`. */
export function rerankerImports(worker, info, why) {
  return {
    info() {
      if (info === undefined) throw witError('unavailable', why);
      return { ...info };
    },
    score(query, passages) {
      if (info === undefined) throw witError('unavailable', why);
      try {
        return worker.callSync('score', { query, passages });
      } catch (error) {
        throw witError('failed', `the model failed: ${error?.message ?? error}`);
      }
    },
  };
}
