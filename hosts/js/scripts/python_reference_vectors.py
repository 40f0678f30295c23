"""Writes test/fixtures/python-vectors.json: the Python host's vectors (and
word-piece ids) for a few texts, and its cross-encoder's scores for them,
which test/embedder.test.js and test/reranker.test.js compare with this
host's. Run once with the Python host's interpreter:

    PYTHONPATH=hosts/python/src HIVE_MIND_MODELS_DIR=/path/to/models \
        hosts/python/.venv/bin/python hosts/js/scripts/python_reference_vectors.py
"""

import base64
import json
from pathlib import Path

import numpy as np

from hive_mind.embedder import InProcessEmbedder
from hive_mind.reranker import CrossEncoder, models_dirs

TEXTS = [
    "We decided to use Postgres for the ledger.",
    "which database for the ledger?",
    "Hello, WORLD!! naïve café résumé Ångström",
    "中文字符 and 日本語のテキスト, 한국어 emoji 😀👍🏽",
    "   leading   and trailing\tspaces\n\nnewlines  ",
    "The quarterly report is due on Friday; Maria owns the numbers.",
    "x",
    "word " * 700,
    "a" * 150 + " short " + "Ω" * 120,
    "مرحبا بالعالم and שלום עולם, ideographic\u3000space, ﬀ ligature, Ⅻ, ①, x²",
    "tabs\tand\u00a0no-break\u2003em space; C0\u0001 and C1\u0085 controls; \ufeffBOM",
]

out = {"texts": TEXTS, "models": {}}
for model, kinds in (("bge-small-en-v1.5", ("document", "query")), ("all-MiniLM-L6-v2", ("document",))):
    embedder = InProcessEmbedder(model=model)
    entry = {"info": {"model": embedder.info().model, "dimensions": embedder.info().dimensions}}
    for kind in kinds:
        vectors = embedder.embed(TEXTS, kind)
        entry[kind] = {
            "ids": embedder.tokenize(TEXTS, kind),
            "vectors": [base64.b64encode(np.asarray(v, dtype="<f4").tobytes()).decode() for v in vectors],
        }
    out["models"][model] = entry
# The cross-encoder's logits for one query and the texts as passages.
QUERY = "which database does the ledger use?"
folder = next(d / "ms-marco-MiniLM-L-12-v2" for d in models_dirs() if (d / "ms-marco-MiniLM-L-12-v2" / "model.onnx").is_file())
out["reranker"] = {"query": QUERY, "scores": CrossEncoder(folder).score(QUERY, TEXTS)}
path = Path(__file__).resolve().parents[1] / "test" / "fixtures" / "python-vectors.json"
path.write_text(json.dumps(out) + "\n")
print(f"wrote {path}")
