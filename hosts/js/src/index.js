// hive-mind for JavaScript: the memory engine component, transpiled by jco
// and hosted by Node. See README.md.

export { HiveMind } from './mind.js';
export {
  EmbedderError,
  EngineTrap,
  HiveMindError,
  InvalidArgumentError,
  LlmError,
  NewerSchemaError,
  NotFoundError,
  StorageError,
} from './errors.js';
export { ComponentError, defaultComponentPath } from './component.js';
export { ModelError, defaultModelDir } from './models.js';
export { Fts5MissingError } from './sqlite.js';
export {
  DISTILLATIONS,
  ENTITY_RULES,
  IMPORTANCE,
  LOGS,
  PAIR_VERDICTS,
  PROFILES,
  SCOPES,
  SOURCE_FORMATS,
  SOURCES,
} from './enums.js';
