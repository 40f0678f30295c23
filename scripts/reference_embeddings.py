#!/usr/bin/env python3
"""Reference embeddings for hive-mind's in-process embedder, computed by an
independent implementation: onnxruntime (not tract) running the same
`models/all-MiniLM-L6-v2/model_int8.onnx` *as shipped* (without the host's
load-time rewrite), tokenized by the Python `tokenizers` package from the
same `tokenizer.json`.

The output, `tests/fixtures/embedder/reference.json`, is committed; the tests
(`tests/embedder.rs`) compare the host against it (cosine >= 0.999 for every
sentence, identical token ids). The tests never run this script.

Re-create it with:

    python3 -m venv /tmp/refenv
    /tmp/refenv/bin/pip install onnxruntime numpy tokenizers
    /tmp/refenv/bin/python scripts/reference_embeddings.py

Pipeline (the sentence-transformers recipe for this model): WordPiece with
[CLS]/[SEP], no padding for a single text, truncation at 256 tokens
(`max_seq_length` of all-MiniLM-L6-v2), token_type_ids all zero, mean-pool
`last_hidden_state` over the attention mask, L2-normalise.
"""

import hashlib
import json
import pathlib

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL_DIR = ROOT / "models" / "all-MiniLM-L6-v2"
OUT = ROOT / "tests" / "fixtures" / "embedder" / "reference.json"
MAX_TOKENS = 256

LONG = " ".join(
    "Memory consolidation moves what an agent learned in one conversation into "
    "a store it can search in the next, where frames are ranked by keyword and "
    "vector similarity, fused, reranked and scored by recency and importance."
    .split()
    * 12
)

SENTENCES = [
    "The deploy key lives in the vault.",
    "Where were we on the billing rewrite?",
    "We decided to use Postgres for the ledger because it supports serializable transactions.",
    "hi",
    "",
    LONG,  # well over 256 tokens: truncated
    "Café crème, naïve façade, Ærøskøbing — accents and ligatures.",
    "東京で会議がありました。来週また話しましょう。",
    "Привет! Встреча перенесена на пятницу. مرحبا بالعالم",
    "Shipping it 🚀🔥 — the tests are green ✅ finally 🎉",
    "fn main() { println!(\"{}\", 2 + 2); } // returns 4",
    "NUL\u0000bytes\u0000inside a sentence",
    "   leading and trailing whitespace\t\n  ",
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
    session = ort.InferenceSession(
        str(MODEL_DIR / "model_int8.onnx"), options, providers=["CPUExecutionProvider"]
    )
    cases = []
    for text in SENTENCES:
        encoding = tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        mask = np.array([encoding.attention_mask], dtype=np.int64)
        types = np.zeros_like(ids)
        (hidden,) = session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
        )
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        vector = pooled[0] / max(np.linalg.norm(pooled[0]), 1e-12)
        cases.append(
            {
                "text": text,
                "token_ids": encoding.ids,
                "truncated": len(encoding.overflowing) > 0,
                "embedding": [round(float(x), 7) for x in vector],
            }
        )
    fixture = {
        "about": "Reference embeddings by onnxruntime "
        + ort.__version__
        + " on the shipped model (no rewrite); made by scripts/reference_embeddings.py",
        "model": "all-MiniLM-L6-v2",
        "model_sha256": sha256(MODEL_DIR / "model_int8.onnx"),
        "tokenizer_sha256": sha256(MODEL_DIR / "tokenizer.json"),
        "max_tokens": MAX_TOKENS,
        "dimensions": len(cases[0]["embedding"]),
        "cases": cases,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
