// The errors of the JavaScript API, one class per case of the engine's
// errors (`wit/memory.wit`, `wit/admin.wit`), as the Python host's
// `hive_mind/errors.py`:
//
//   WIT case            class
//   invalid-argument    InvalidArgumentError
//   storage             StorageError, or its subclasses NotFoundError (the
//                       storage cases mind-not-found and not-found) and
//                       NewerSchemaError (newer-schema)
//   embedder            EmbedderError
//   llm                 LlmError
//
// Each has `.case` (the WIT case name) and `.detail` (its message); a
// StorageError also `.storageCase`. A trap inside the engine is EngineTrap:
// the host replaced the instance, and the next call runs.

export class HiveMindError extends Error {
  constructor(kase, detail = '') {
    super(detail ? `${kase}: ${detail}` : kase);
    this.name = new.target.name;
    this.case = kase;
    this.detail = detail;
  }
}

/** An argument was malformed; `detail` says which and why. */
export class InvalidArgumentError extends HiveMindError {}

/** A mind's storage failed; `storageCase` says how. */
export class StorageError extends HiveMindError {
  constructor(kase, detail, storageCase) {
    super(kase, detail);
    this.storageCase = storageCase;
  }
}

/** The workspace mind, frame, entity or item does not exist. */
export class NotFoundError extends StorageError {}

/** The mind was written by a newer engine: `schemaVersion` is its
 * version; this engine does not open it. */
export class NewerSchemaError extends StorageError {
  constructor(kase, detail, storageCase, schemaVersion) {
    super(kase, detail, storageCase);
    this.schemaVersion = schemaVersion;
  }
}

/** The embedder failed or is not configured. */
export class EmbedderError extends HiveMindError {}

/** The language model failed. */
export class LlmError extends HiveMindError {}

/** The engine trapped: the host closed that instance's connections and
 * started a fresh one for the next call. `kind`: `stack-overflow`,
 * `memory-limit`, `guest-panic`, `other-trap` or `host-failure`. */
export class EngineTrap extends HiveMindError {
  constructor(kase, detail, kind = 'other-trap') {
    super(kase, detail);
    this.kind = kind;
  }
}

const CLASSES = {
  'invalid-argument': InvalidArgumentError,
  embedder: EmbedderError,
  llm: LlmError,
};

const NOT_FOUND = new Set(['mind-not-found', 'not-found']);

function storageDetail(error) {
  const payload = error.val;
  if (error.tag === 'dimension-mismatch') {
    return `vectors of dimension ${payload.actual} offered to a mind of dimension ${payload.expected}; run reindex`;
  }
  if (error.tag === 'newer-schema') {
    return `the database has schema version ${payload}, newer than this engine knows; open it with a newer hive-mind`;
  }
  if (payload === undefined) return error.tag;
  return `${error.tag}: ${payload}`;
}

/** The error for a `memory` or `admin` error value (`{ tag, val }`). */
export function fromVariant(error) {
  if (error.tag === 'storage' && error.val && typeof error.val === 'object') {
    const storage = error.val;
    const detail = storageDetail(storage);
    if (storage.tag === 'newer-schema') return new NewerSchemaError('storage', detail, storage.tag, storage.val);
    const Class = NOT_FOUND.has(storage.tag) ? NotFoundError : StorageError;
    return new Class('storage', detail, storage.tag);
  }
  const Class = CLASSES[error.tag] ?? HiveMindError;
  return new Class(error.tag, error.val === undefined ? '' : String(error.val));
}

/** The fields an error carries across a thread beside its message. */
const CARRIED = ['path', 'case', 'detail', 'kind'];

/**
 * An error as a message another thread can rebuild (`rebuildError`): its
 * class's name, its message and the fields of CARRIED it has. The model
 * worker and the engine thread answer failures this way.
 */
export function describeError(error) {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const described = { name: error.name, message: error.message };
  for (const field of CARRIED) if (error[field] !== undefined) described[field] = error[field];
  return described;
}

/** The error `describeError` described, as an instance of `classes[name]`
 * (TypeError, RangeError and Error are known without it) with the same
 * message and fields. */
export function rebuildError(described, classes = {}) {
  const known = { TypeError, RangeError, ...classes };
  const Class = Object.hasOwn(known, described.name) ? known[described.name] : Error;
  const error = new Error(described.message);
  Object.setPrototypeOf(error, Class.prototype);
  error.name = described.name;
  for (const field of CARRIED) if (described[field] !== undefined) error[field] = described[field];
  return error;
}
