// The in-process models: the sentence-transformers embedder and the
// cross-encoder, run by onnxruntime-node. These classes are asynchronous
// and run on the model worker thread (src/worker.js); src/embedder.js puts
// them behind the engine's synchronous imports.
//
// The same models and recipe as the Rust host's in-process embedder
// (`host/models/src/embedder/in_process.rs`) and the Python host's
// (`hive_mind/embedder.py`), so that every host gives a mind the same
// vectors:
//
// 1. Verify the ONNX file and tokenizer.json against the folder's
//    SHA256SUMS; a missing or different file is a ModelError naming it.
// 2. Prompt: texts of a kind with a prompt get it prepended (bge-small's
//    query instruction; MiniLM has none).
// 3. Cap each text at 16 x the window in characters before tokenizing.
// 4. Tokenize: WordPiece with [CLS] … [SEP], truncated at max_seq_length.
// 5. Batch: texts sorted longest first, in runs of at most 64 texts and
//    1,024 padded tokens, each run padded to its longest text.
// 6. Run the graph (dynamically quantized matmuls rewritten to f32 first,
//    src/dequantize.js) on input_ids, attention_mask, token_type_ids.
// 7. Pool (mean over the mask, the [CLS] vector, or the maximum), then
//    L2-normalise.

import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';

import { dequantizedModelBytes } from './dequantize.js';
import { BertEncoder, capCodePoints } from './tokenize.js';
import { REPOSITORY } from './component.js';

const require = createRequire(import.meta.url);

/** The provider name in fingerprints. */
export const PROVIDER = 'in-process';
/** The default model (a folder under the models folders). */
export const DEFAULT_MODEL = 'bge-small-en-v1.5';
/** The environment variable naming the model, as the Rust host reads it. */
export const MODEL_ENV = 'HIVE_MIND_IN_PROCESS_MODEL';
/** The ONNX file names tried, in order (as the Rust host). */
export const ONNX_CANDIDATES = ['model_int8.onnx', 'model.onnx', 'onnx/model.onnx'];
export const TOKENIZER_FILE = 'tokenizer.json';
export const CHECKSUMS_FILE = 'SHA256SUMS';
/** Characters kept per token of the window before tokenizing. */
export const CHARS_PER_TOKEN_CAP = 16;
/** Texts per model run, at most. */
export const BATCH_SIZE = 64;
/** Padded tokens (texts x longest text) per model run, at most. */
export const TOKEN_BUDGET = 1024;

/** The shipped cross-encoder's folder. */
export const RERANKER_MODEL = 'ms-marco-MiniLM-L-12-v2';
/** Query + passage tokens per pair (the Rust host's DEFAULT_MAX_TOKENS). */
export const RERANKER_MAX_TOKENS = 128;
/** Pairs per model run (the Rust host's DEFAULT_BATCH_SIZE). */
export const RERANKER_BATCH_SIZE = 16;
/** The environment switch, as the Rust host reads it. */
export const RERANKER_SWITCH_ENV = 'HIVE_MIND_RERANKER';

/** How to get the model when it is missing or corrupt. */
export const MODEL_HINT =
  'The default embedding model, bge-small-en-v1.5, is fetched by `cargo xtask models`; ' +
  "all-MiniLM-L6-v2 ships in the repository's models/all-MiniLM-L6-v2/. Pass modelDir, point " +
  "HIVE_MIND_MODELS_DIR at the repository's models/ folder, or copy the model's folder into " +
  '$HIVE_MIND_HOME/models/.';

const BERT_INPUTS = ['input_ids', 'attention_mask', 'token_type_ids'];

/** A model file is missing, unreadable, not what it should be, or not a
 * model this host can run; `path` names it. */
export class ModelError extends Error {
  constructor(path, message) {
    super(`${path}: ${message}`);
    this.name = 'ModelError';
    this.path = path;
  }
}

/** Embedding failed: `case` is the WIT embedder.error case. */
export class EmbedError extends Error {
  constructor(kase, message) {
    super(`${kase}: ${message}`);
    this.name = 'EmbedError';
    this.case = kase;
    this.detail = message;
  }
}

/** The model asked for: `model`, else $HIVE_MIND_IN_PROCESS_MODEL, else the default. */
export function modelName(model) {
  const name = model ?? ((process.env[MODEL_ENV] ?? '').trim() || DEFAULT_MODEL);
  if (!name || name.includes('/') || name.includes('\\') || name === '.' || name === '..') {
    throw new TypeError(`${JSON.stringify(name)}: expected a model folder's name (all-MiniLM-L6-v2, bge-small-en-v1.5), not a path`);
  }
  return name;
}

/** The model folders of the installed `hive-mind-engine-models` package, if any. */
export function packagedModelsDir() {
  try {
    return dirname(require.resolve('hive-mind-engine-models/package.json'));
  } catch {
    return undefined;
  }
}

/**
 * The models folders, searched in the Rust host's order: $HIVE_MIND_MODELS_DIR,
 * $HIVE_MIND_HOME/models, the installed `hive-mind-engine-models` package,
 * this source tree's models/.
 */
export function modelsDirs() {
  const folders = [];
  if (process.env.HIVE_MIND_MODELS_DIR) folders.push(process.env.HIVE_MIND_MODELS_DIR);
  folders.push(join(process.env.HIVE_MIND_HOME || join(homedir(), '.hive-mind'), 'models'));
  const packaged = packagedModelsDir();
  if (packaged !== undefined) folders.push(packaged);
  folders.push(join(REPOSITORY, 'models'));
  return folders;
}

/** Where the model is found: the first models folder whose <model> holds
 * a tokenizer.json; the first candidate when none does. */
export function defaultModelDir(model) {
  const name = modelName(model);
  const candidates = modelsDirs().map((folder) => join(folder, name));
  return candidates.find((candidate) => existsSync(join(candidate, TOKENIZER_FILE))) ?? candidates[0];
}

/** The bytes of a model file, checked against its SHA-256 when given. */
export async function readVerified(path, sha256) {
  let data;
  try {
    data = await readFile(path);
  } catch (error) {
    if (error.code === 'ENOENT') throw new ModelError(path, `the file is missing. ${MODEL_HINT}`);
    throw new ModelError(path, `unreadable: ${error.message}`);
  }
  const actual = createHash('sha256').update(data).digest('hex');
  if (sha256 !== undefined && actual !== sha256) {
    throw new ModelError(path, `SHA-256 is ${actual}, expected ${sha256}: the file is not the shipped one. ${MODEL_HINT}`);
  }
  return data;
}

async function readJson(path, required) {
  let text;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') {
      if (!required) return undefined;
      throw new ModelError(path, `the file is missing; a sentence-transformers model folder needs it. ${MODEL_HINT}`);
    }
    throw new ModelError(path, `unreadable: ${error.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ModelError(path, `not valid JSON: ${error.message}`);
  }
}

const POOLING_MODES = { cls_token: 'cls', mean_tokens: 'mean', max_tokens: 'max' };

export function parsePooling(path, config) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new ModelError(path, 'expected a JSON object of pooling_mode_* flags');
  }
  const on = [];
  for (const [key, value] of Object.entries(config)) {
    if (!key.startsWith('pooling_mode_')) continue;
    if (value === true) on.push(key.slice('pooling_mode_'.length));
    else if (value !== false && value !== null) throw new ModelError(path, `${key} must be true or false, found ${JSON.stringify(value)}`);
  }
  if (!on.length) throw new ModelError(path, 'no pooling_mode_* is true: expected exactly one of cls_token, mean_tokens, max_tokens');
  if (on.length > 1) throw new ModelError(path, `several pooling modes are on (${on.join(', ')}): expected exactly one`);
  if (!(on[0] in POOLING_MODES)) {
    throw new ModelError(path, `pooling_mode_${on[0]} is not supported (supported: cls_token, mean_tokens, max_tokens)`);
  }
  return POOLING_MODES[on[0]];
}

export function parseChecksums(path, text) {
  const sums = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const match = /^(\S+)\s+(.+)$/.exec(line);
    if (!match || !/^[0-9a-fA-F]{64}$/.test(match[1])) {
      throw new ModelError(path, `line ${index + 1}: expected \`<sha256>  <file>\`, found ${JSON.stringify(line)}`);
    }
    sums[match[2].replace(/^\*/, '')] = match[1].toLowerCase();
  });
  return sums;
}

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A model folder's self-description (`host/models/src/embedder/model_folder.rs`). */
export async function readModelFolder(folder) {
  const tokenizerPath = join(folder, TOKENIZER_FILE);
  if (!isFile(tokenizerPath)) throw new ModelError(tokenizerPath, `the file is missing. ${MODEL_HINT}`);
  const candidate = ONNX_CANDIDATES.find((name) => isFile(join(folder, name)));
  if (candidate === undefined) {
    throw new ModelError(join(folder, ONNX_CANDIDATES[0]), `the file is missing (no ${ONNX_CANDIDATES.join(', ')}). ${MODEL_HINT}`);
  }
  const modulesPath = join(folder, 'modules.json');
  const modules = await readJson(modulesPath, true);
  if (!Array.isArray(modules)) throw new ModelError(modulesPath, 'expected a JSON list of modules');
  let poolingDir;
  let normalize = false;
  for (const module of modules) {
    const kind = module && typeof module === 'object' && typeof module.type === 'string' ? module.type : '';
    if (kind === 'Pooling' || kind.endsWith('.Pooling')) {
      poolingDir = module.path;
      if (typeof poolingDir !== 'string') throw new ModelError(modulesPath, 'the Pooling module has no "path" (its folder)');
    } else if (kind === 'Normalize' || kind.endsWith('.Normalize')) {
      normalize = true;
    }
  }
  if (poolingDir === undefined) throw new ModelError(modulesPath, 'lists no sentence_transformers.models.Pooling module');
  const poolingPath = join(folder, poolingDir, 'config.json');
  const pooling = parsePooling(poolingPath, await readJson(poolingPath, true));
  const windowPath = join(folder, 'sentence_bert_config.json');
  const window = await readJson(windowPath, true);
  const maxTokens = window && typeof window === 'object' ? window.max_seq_length : undefined;
  if (!Number.isInteger(maxTokens) || maxTokens < 2) {
    throw new ModelError(windowPath, `max_seq_length must be a whole number of at least 2, found ${JSON.stringify(maxTokens)}`);
  }
  const promptsPath = join(folder, 'config_sentence_transformers.json');
  const config = await readJson(promptsPath, false);
  if (config !== undefined && (config === null || typeof config !== 'object' || Array.isArray(config))) {
    throw new ModelError(promptsPath, 'expected a JSON object');
  }
  const prompts = (config && config.prompts) || {};
  if (typeof prompts !== 'object' || Array.isArray(prompts) || Object.values(prompts).some((v) => typeof v !== 'string')) {
    throw new ModelError(promptsPath, 'prompts must be an object of name -> text');
  }
  const sumsPath = join(folder, CHECKSUMS_FILE);
  const checksums = isFile(sumsPath) ? parseChecksums(sumsPath, await readFile(sumsPath, 'utf8')) : {};
  return {
    name: basename(folder),
    modelPath: join(folder, candidate),
    tokenizerPath,
    pooling,
    maxTokens,
    queryPrompt: prompts.query ?? '',
    documentPrompt: prompts.document ?? prompts.passage ?? '',
    normalize,
    checksums,
  };
}

function budgetGroups(order, lengths, maxTexts) {
  const groups = [];
  let start = 0;
  while (start < order.length) {
    const longest = Math.max(lengths[order[start]], 1);
    const fit = Math.min(Math.max(Math.floor(TOKEN_BUDGET / longest), 1), Math.max(maxTexts, 1));
    groups.push(order.slice(start, start + fit));
    start += fit;
  }
  return groups;
}

async function onnxSession(ort, modelPath, bytes, threads) {
  try {
    // onnxruntime's pool threads spin for a while after each run by
    // default: on a small machine they then take the cores the engine's
    // SQL (on the main thread) and the next run need. Measured on 2 cores
    // (scripts/bench.js): one query embedded in 11 ms instead of 35, recall
    // p50 20 ms instead of 33, saves 41/s instead of 23.
    const options = {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
    };
    if (threads) options.intraOpNumThreads = threads;
    return await ort.InferenceSession.create(bytes, options);
  } catch (error) {
    throw new ModelError(modelPath, `not an ONNX model: ${error.message ?? error}`);
  }
}

/** A sentence-transformers model run by onnxruntime-node. */
export class InProcessEmbedder {
  /** Load and verify the model in `folder`; throws ModelError. */
  static async load(folder) {
    const ort = await import('onnxruntime-node');
    const spec = await readModelFolder(folder);
    const tokenizerJson = await readVerified(spec.tokenizerPath, spec.checksums[TOKENIZER_FILE]);
    let encoder;
    try {
      encoder = new BertEncoder(JSON.parse(tokenizerJson.toString('utf8')), spec.maxTokens);
    } catch (error) {
      throw new ModelError(spec.tokenizerPath, `not a tokenizer.json: ${error.message}`);
    }
    const relativeModel = relative(folder, spec.modelPath).split('\\').join('/');
    const raw = await readVerified(spec.modelPath, spec.checksums[relativeModel]);
    let bytes;
    try {
      bytes = dequantizedModelBytes(raw).bytes;
    } catch (error) {
      throw new ModelError(spec.modelPath, `not an ONNX model: ${error.message}`);
    }
    const session = await onnxSession(ort, spec.modelPath, bytes);
    const inputs = session.inputNames;
    const unexpected = inputs.filter((name) => !BERT_INPUTS.includes(name));
    if (unexpected.length || !inputs.includes('input_ids')) {
      throw new ModelError(
        spec.modelPath,
        `inputs ${JSON.stringify(inputs)}: a BERT-style model takes input_ids, attention_mask and token_type_ids (int64, [batch, sequence])`,
      );
    }
    const shape = session.outputMetadata?.[0]?.shape;
    const dimensions = Array.isArray(shape) ? shape[2] : undefined;
    if (!Array.isArray(shape) || shape.length !== 3 || !Number.isInteger(dimensions) || dimensions <= 0) {
      throw new ModelError(spec.modelPath, `expected a first output of shape [batch, sequence, dimensions], found ${JSON.stringify(shape)}`);
    }
    const embedder = new InProcessEmbedder();
    embedder.ort = ort;
    embedder.spec = spec;
    embedder.encoder = encoder;
    embedder.session = session;
    embedder.inputs = inputs;
    // As the Rust host: a graph that still quantizes activations at run
    // time would make a text's vector depend on its batch; it runs one text
    // at a time.
    embedder.batchSize = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).includes('DynamicQuantizeLinear') ? 1 : BATCH_SIZE;
    embedder.info = { provider: PROVIDER, model: spec.name, dimensions, meaningful: true, maxTokens: spec.maxTokens };
    return embedder;
  }

  /** The word-piece ids `embed` runs the model on, one list per text. */
  tokenize(texts, kind = 'document') {
    return this.encode(texts, kind).map((encoding) => encoding.ids);
  }

  encode(texts, kind) {
    if (kind !== 'query' && kind !== 'document') {
      throw new EmbedError('failed', `unknown input kind ${JSON.stringify(kind)}: expected query or document`);
    }
    const maxChars = this.spec.maxTokens * CHARS_PER_TOKEN_CAP;
    const prompt = kind === 'query' ? this.spec.queryPrompt : this.spec.documentPrompt;
    try {
      return texts.map((text) => this.encoder.encode(prompt + capCodePoints(text, maxChars)));
    } catch (error) {
      throw new EmbedError('failed', `tokenizing failed: ${error.message}`);
    }
  }

  /** One L2-normalised Float32Array per text of `kind`, in order. */
  async embed(texts, kind = 'document') {
    if (!texts.length) return [];
    const encodings = this.encode(texts, kind);
    const lengths = encodings.map((encoding) => encoding.ids.length);
    const order = [...lengths.keys()].sort((a, b) => lengths[b] - lengths[a] || a - b);
    const vectors = new Array(texts.length);
    for (const group of budgetGroups(order, lengths, this.batchSize)) {
      const pooled = await this.run(group.map((index) => encodings[index]));
      group.forEach((index, row) => {
        vectors[index] = pooled[row];
      });
    }
    return vectors;
  }

  async run(group) {
    const { ort } = this;
    const rows = group.length;
    const sequence = Math.max(...group.map((encoding) => encoding.ids.length));
    const ids = new BigInt64Array(rows * sequence);
    const mask = new BigInt64Array(rows * sequence);
    const types = new BigInt64Array(rows * sequence);
    group.forEach((encoding, row) => {
      encoding.ids.forEach((id, i) => {
        ids[row * sequence + i] = BigInt(id);
        mask[row * sequence + i] = 1n;
        types[row * sequence + i] = BigInt(encoding.typeIds[i]);
      });
    });
    const feed = {
      input_ids: new ort.Tensor('int64', ids, [rows, sequence]),
      attention_mask: new ort.Tensor('int64', mask, [rows, sequence]),
      token_type_ids: new ort.Tensor('int64', types, [rows, sequence]),
    };
    let hidden;
    try {
      const outputs = await this.session.run(Object.fromEntries(this.inputs.map((name) => [name, feed[name]])));
      hidden = outputs[this.session.outputNames[0]];
    } catch (error) {
      throw new EmbedError('failed', `the model failed: ${error.message ?? error}`);
    }
    const dimensions = this.info.dimensions;
    const expected = [rows, sequence, dimensions];
    if (hidden.dims.length !== 3 || hidden.dims.some((d, i) => Number(d) !== expected[i])) {
      throw new EmbedError('failed', `the model returned shape ${JSON.stringify(hidden.dims)}, expected ${JSON.stringify(expected)}`);
    }
    const data = hidden.data;
    const out = [];
    for (let row = 0; row < rows; row++) {
      const width = group[row].ids.length;
      const base = row * sequence * dimensions;
      const pooled = new Float32Array(dimensions);
      if (this.spec.pooling === 'cls') {
        pooled.set(data.subarray(base, base + dimensions));
      } else if (this.spec.pooling === 'max') {
        pooled.fill(-Infinity);
        for (let t = 0; t < width; t++) {
          for (let d = 0; d < dimensions; d++) pooled[d] = Math.max(pooled[d], data[base + t * dimensions + d]);
        }
        for (let d = 0; d < dimensions; d++) if (!Number.isFinite(pooled[d])) pooled[d] = 0;
      } else {
        // As numpy's f32 sum over the masked tokens, then the division.
        for (let t = 0; t < width; t++) {
          for (let d = 0; d < dimensions; d++) pooled[d] += data[base + t * dimensions + d];
        }
        const count = Math.fround(Math.max(width, 1));
        for (let d = 0; d < dimensions; d++) pooled[d] = pooled[d] / count;
      }
      let norm = 0;
      for (let d = 0; d < dimensions; d++) norm += pooled[d] * pooled[d];
      norm = Math.fround(Math.sqrt(norm));
      // As `l2_normalize`: a (near-)zero vector is left as it is.
      const divisor = norm > 1.1920928955078125e-7 ? norm : 1;
      for (let d = 0; d < dimensions; d++) pooled[d] = pooled[d] / divisor;
      out.push(pooled);
    }
    return out;
  }
}

/** Whether the reranker is on: the model installed and not turned off.
 * `{ folder }` or `{ why }`. */
export function findReranker(env = process.env) {
  const switched = (env[RERANKER_SWITCH_ENV] ?? 'on').trim().toLowerCase();
  if (['off', '0', 'false', 'no', 'none'].includes(switched)) {
    return { why: `reranking is turned off (${RERANKER_SWITCH_ENV}=${switched})` };
  }
  const looked = [];
  for (const folder of modelsDirs()) {
    const candidate = join(folder, RERANKER_MODEL);
    looked.push(candidate);
    if (isFile(join(candidate, 'model.onnx'))) return { folder: candidate };
  }
  return {
    why: `the shipped cross-encoder (${RERANKER_MODEL}) is not installed in any of ${looked.join(', ')}; \`cargo xtask models\` installs it`,
  };
}

/** A BERT-style cross-encoder run by onnxruntime-node. */
export class CrossEncoder {
  static async load(folder) {
    const ort = await import('onnxruntime-node');
    const modelPath = join(folder, 'model.onnx');
    const tokenizerPath = join(folder, TOKENIZER_FILE);
    const encoder = new BertEncoder(JSON.parse((await readVerified(tokenizerPath, undefined)).toString('utf8')), RERANKER_MAX_TOKENS);
    let bytes;
    try {
      bytes = dequantizedModelBytes(await readVerified(modelPath, undefined)).bytes;
    } catch (error) {
      if (error instanceof ModelError) throw error;
      throw new ModelError(modelPath, `not a usable ONNX model: ${error.message}`);
    }
    const reranker = new CrossEncoder();
    reranker.ort = ort;
    reranker.name = basename(folder);
    reranker.maxTokens = RERANKER_MAX_TOKENS;
    reranker.encoder = encoder;
    reranker.session = await onnxSession(ort, modelPath, bytes);
    reranker.inputs = new Set(reranker.session.inputNames);
    return reranker;
  }

  /** One logit per passage, in order. */
  async score(query, passages) {
    if (!passages.length) return new Float32Array(0);
    const { ort } = this;
    const cap = this.maxTokens * CHARS_PER_TOKEN_CAP;
    const q = capCodePoints(query, cap);
    const encodings = passages.map((passage) => this.encoder.encodePair(q, capCodePoints(passage, cap)));
    const order = [...encodings.keys()].sort((a, b) => encodings[b].ids.length - encodings[a].ids.length || a - b);
    const scores = new Float32Array(passages.length);
    for (let start = 0; start < order.length; start += RERANKER_BATCH_SIZE) {
      const group = order.slice(start, start + RERANKER_BATCH_SIZE);
      const width = Math.max(...group.map((i) => encodings[i].ids.length));
      const ids = new BigInt64Array(group.length * width);
      const types = new BigInt64Array(group.length * width);
      const mask = new BigInt64Array(group.length * width);
      group.forEach((index, row) => {
        const encoding = encodings[index];
        encoding.ids.forEach((id, i) => {
          ids[row * width + i] = BigInt(id);
          types[row * width + i] = BigInt(encoding.typeIds[i]);
          mask[row * width + i] = 1n;
        });
      });
      const feed = {
        input_ids: new ort.Tensor('int64', ids, [group.length, width]),
        attention_mask: new ort.Tensor('int64', mask, [group.length, width]),
        token_type_ids: new ort.Tensor('int64', types, [group.length, width]),
      };
      const outputs = await this.session.run(Object.fromEntries([...this.inputs].map((name) => [name, feed[name]])));
      const logits = outputs[this.session.outputNames[0]];
      const perRow = logits.data.length / group.length;
      group.forEach((index, row) => {
        scores[index] = logits.data[row * perRow];
      });
    }
    return scores;
  }
}
