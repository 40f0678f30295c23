// The optional capabilities this host leaves unconfigured: `hive:mind/llm`
// and `hive:mind/fetch` always answer `unavailable`, and so does
// `hive:mind/reranker` when no cross-encoder is installed (or it is turned
// off). The engine then degrades: recall keeps the fused order, harvest
// distills heuristically, URL sources cannot be imported.

/** What the reranker import answers while no cross-encoder is configured. */
export const NO_RERANKER = 'no cross-encoder is configured in the JavaScript host; recall keeps the fused order';
/** What the llm import answers: no language model is configured. */
export const NO_LLM = 'no language model is configured; recall and save do not need one';
/** What the fetch import answers: this host offers no web access. */
export const NO_FETCH = "the JavaScript host offers no web access; import the page's file instead";

/** A thrown value jco lowers as a result's `err` payload. */
export function witError(tag, val) {
  return { payload: val === undefined ? { tag } : { tag, val } };
}

/** The reranker import answering `unavailable` with `why`. */
export function unavailableReranker(why = NO_RERANKER) {
  return {
    info() {
      throw witError('unavailable', why);
    },
    score() {
      throw witError('unavailable', why);
    },
  };
}

/** The llm and fetch imports, both `unavailable`. */
export function unconfigured() {
  return {
    'hive:mind/llm': {
      complete() {
        throw witError('unavailable', NO_LLM);
      },
      completeMany: (requests) => requests.map(() => ({ tag: 'err', val: { tag: 'unavailable', val: NO_LLM } })),
    },
    'hive:mind/fetch': {
      get() {
        throw witError('unavailable', NO_FETCH);
      },
    },
  };
}
