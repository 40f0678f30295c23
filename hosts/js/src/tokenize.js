// WordPiece tokenization from a model folder's tokenizer.json, as the Rust
// and Python hosts run it with the `tokenizers` library: the file's own
// normalizer, pre-tokenizer and vocabulary (@huggingface/tokenizers, a
// JavaScript implementation of the same pipeline), `[CLS] … [SEP]` (and
// `[CLS] a [SEP] b [SEP]` for a pair, token types 0 then 1), truncated to
// the window the way `tokenizers` truncates (the special tokens count
// against it; a pair is cut longest first). test/tokenize.test.js checks
// the ids against the Python host's.

import { Tokenizer } from '@huggingface/tokenizers';

/** The first `count` code points of `text` (Python's `text[:count]`). */
export function capCodePoints(text, count) {
  if (text.length <= count) return text;
  let units = 0;
  let points = 0;
  while (units < text.length && points < count) {
    const code = text.codePointAt(units);
    units += code > 0xffff ? 2 : 1;
    points++;
  }
  return text.slice(0, units);
}

export class BertEncoder {
  /** `tokenizerJson`: the parsed tokenizer.json; `maxTokens`: the window,
   * special tokens included. */
  constructor(tokenizerJson, maxTokens) {
    this.tokenizer = new Tokenizer(tokenizerJson, {});
    this.maxTokens = maxTokens;
    const id = (token) => {
      const found = this.tokenizer.token_to_id(token);
      if (found === undefined) throw new Error(`the vocabulary has no ${token}`);
      return found;
    };
    this.cls = id('[CLS]');
    this.sep = id('[SEP]');
  }

  /** The word-piece ids of one text, without special tokens. */
  pieces(text) {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /** `{ ids, typeIds }` of one text: `[CLS] text [SEP]`, truncated. */
  encode(text) {
    const ids = this.pieces(text).slice(0, Math.max(this.maxTokens - 2, 0));
    const all = [this.cls, ...ids, this.sep];
    return { ids: all, typeIds: new Array(all.length).fill(0) };
  }

  /** `{ ids, typeIds }` of a pair: `[CLS] a [SEP] b [SEP]`, truncated
   * longest first as `tokenizers` does. */
  encodePair(first, second) {
    let a = this.pieces(first);
    let b = this.pieces(second);
    const max = Math.max(this.maxTokens - 3, 0);
    if (a.length + b.length > max) {
      let n1 = a.length;
      let n2 = b.length;
      const swap = n1 > n2;
      if (swap) [n1, n2] = [n2, n1];
      if (n1 > max) n2 = n1;
      else n2 = Math.max(n1, max - n1);
      if (n1 + n2 > max) {
        n1 = Math.floor(max / 2);
        n2 = n1 + (max % 2);
      }
      if (swap) [n1, n2] = [n2, n1];
      a = a.slice(0, n1);
      b = b.slice(0, n2);
    }
    const ids = [this.cls, ...a, this.sep, ...b, this.sep];
    const typeIds = [...new Array(a.length + 2).fill(0), ...new Array(b.length + 1).fill(1)];
    return { ids, typeIds };
  }
}
