#!/usr/bin/env python3
"""Reference embeddings for bge-small-en-v1.5 as the in-process embedder
runs it, computed by an independent implementation: onnxruntime (not tract)
running `models/bge-small-en-v1.5/model.onnx` as fetched (no load-time
rewrite), tokenized by the Python `tokenizers` package from the same
`tokenizer.json`, with BAAI's published recipe written out here rather than
read from the folder's sentence-transformers files (so a misread file shows
up as a difference):

- queries get the instruction "Represent this sentence for searching
  relevant passages: " prepended, documents nothing;
- WordPiece with [CLS]/[SEP], truncation at 512 tokens, token_type_ids zero;
- CLS pooling (the first token's `last_hidden_state`), L2-normalised.

The output, `tests/fixtures/embedder/bge_reference.json`, is committed;
`tests/embedder.rs` compares the host against it. Re-create it (after
`cargo xtask models`) with the Python host's environment:

    bash hosts/python/setup-venv.sh
    hosts/python/.venv/bin/python scripts/reference_embeddings_bge.py
"""

import hashlib
import json
import pathlib

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL_DIR = ROOT / "models" / "bge-small-en-v1.5"
OUT = ROOT / "tests" / "fixtures" / "embedder" / "bge_reference.json"
MAX_TOKENS = 512
QUERY_PROMPT = "Represent this sentence for searching relevant passages: "

SENTENCES = [
    "The deploy key lives in the vault.",
    "Where were we on the billing rewrite?",
    "We decided to use Postgres for the ledger because it supports serializable transactions.",
    "hi",
    "Café crème, naïve façade — accents.",
    "Remind me: Sam prefers short answers and dark mode.",
]


def sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> None:
    tokenizer = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(MODEL_DIR / "model.onnx"), options, providers=["CPUExecutionProvider"])
    cases = []
    for kind, prompt in (("query", QUERY_PROMPT), ("document", "")):
        for text in SENTENCES:
            encoding = tokenizer.encode(prompt + text)
            ids = np.array([encoding.ids], dtype=np.int64)
            feed = {
                "input_ids": ids,
                "attention_mask": np.ones_like(ids),
                "token_type_ids": np.zeros_like(ids),
            }
            hidden = session.run(None, feed)[0][0]
            vector = hidden[0] / np.linalg.norm(hidden[0])
            cases.append(
                {
                    "text": text,
                    "kind": kind,
                    "token_ids": encoding.ids,
                    "embedding": [round(float(x), 6) for x in vector],
                }
            )
    OUT.write_text(
        json.dumps(
            {
                "about": "bge-small-en-v1.5 by onnxruntime: CLS pooling, query prompt; scripts/reference_embeddings_bge.py",
                "model_sha256": sha256(MODEL_DIR / "model.onnx"),
                "tokenizer_sha256": sha256(MODEL_DIR / "tokenizer.json"),
                "query_prompt": QUERY_PROMPT,
                "cases": cases,
            },
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
