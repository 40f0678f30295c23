// The case names of the WIT enums the API checks its arguments against
// (test/enums.test.js compares them with wit/*.wit).

/** types.importance, most important first. */
export const IMPORTANCE = ['critical', 'important', 'normal', 'temporary', 'deprecated'];
/** types.source. */
export const SOURCES = ['user-stated', 'tool-verified', 'agent-inferred', 'import', 'system'];
/** memory.recall-scope. */
export const SCOPES = ['personal', 'current', 'all'];
/** types.scoring-profile. */
export const PROFILES = ['balanced', 'recent', 'important', 'connected'];
/** harvest.source-format. */
export const SOURCE_FORMATS = ['chatgpt', 'claude', 'gemini', 'perplexity', 'claude-code', 'markdown', 'plain-text', 'pdf', 'html', 'universal'];
/** harvest.distillation. */
export const DISTILLATIONS = ['auto', 'heuristic', 'llm'];
/** review.pair-verdict. */
export const PAIR_VERDICTS = ['replaces', 'both-stand'];
/** review.log-kind. */
export const LOGS = ['reviews', 'erasures', 'installs', 'ai-interactions'];
/** review.entity-rule. */
export const ENTITY_RULES = ['orphans', 'noise'];
