"""The reranker capability (``hive:mind/reranker``): a cross-encoder, offline.

The same model and recipe as the Rust host's ``CrossEncoder``
(``host/models/src/reranker/mod.rs``), run by onnxruntime instead of tract: the
shipped cross-encoder/ms-marco-MiniLM-L-12-v2 in
``models/ms-marco-MiniLM-L-12-v2/`` (installed by ``cargo xtask models``),
found in the same ``models/`` folders as the embedder's model.

Each passage is paired with the query as ``[CLS] query [SEP] passage
[SEP]`` (``token_type_ids`` 0 then 1), the pair truncated longest-first to
:data:`MAX_TOKENS` (the Rust host's ``DEFAULT_MAX_TOKENS``); the model's
single logit per pair is the score. Reranking is on when the model is
installed, unless ``HIVE_MIND_RERANKER=off``; without it, the import
answers ``unavailable`` and recall keeps the fused order.

Both hosts run the int8 matmuls as f32 (:mod:`hive_mind.dequantize`, the
port of the Rust host's load-time rewrite), so their logits agree to float
rounding, and so do rankings (``tests/test_engine.py``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
from tokenizers import Tokenizer
from wasmtime import StoreContext
from wasmtime.component import LinkerInstance

from . import resources
from ._wit import Variant, interface, record
from .dequantize import dequantized_model_bytes
from .embedder import ModelError, read_verified

#: The interface's name in the engine world.
INTERFACE = interface("reranker")
#: The shipped cross-encoder's folder under the models folders.
DEFAULT_MODEL = "ms-marco-MiniLM-L-12-v2"
#: Its ONNX file.
MODEL_FILE = "model.onnx"
#: Query + passage tokens per pair (the Rust host's ``DEFAULT_MAX_TOKENS``).
MAX_TOKENS = 128
#: Pairs per model run (the Rust host's ``DEFAULT_BATCH_SIZE``).
BATCH_SIZE = 16
#: Characters kept per token of the window before tokenizing.
CHARS_PER_TOKEN_CAP = 16
#: The environment switch, as the Rust host reads it.
SWITCH_ENV = "HIVE_MIND_RERANKER"


class CrossEncoder:
    """A BERT-style cross-encoder run by onnxruntime."""

    def __init__(self, model_dir: Path) -> None:
        model_path = model_dir / MODEL_FILE
        tokenizer_path = model_dir / "tokenizer.json"
        self.name = model_dir.name
        #: The most tokens of a pair the model reads (``reranker.info``'s
        #: ``max-tokens``: the engine sizes its rerank budget's pairs by it).
        self.max_tokens = MAX_TOKENS
        tokenizer = Tokenizer.from_str(read_verified(tokenizer_path, None).decode("utf-8"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(self.max_tokens, strategy="longest_first")
        self._tokenizer = tokenizer
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = min(os.cpu_count() or 1, 8)
        try:
            # As the Rust host: the int8 matmuls run as f32 (see
            # :mod:`hive_mind.dequantize`).
            self._session = onnxruntime.InferenceSession(
                dequantized_model_bytes(read_verified(model_path, None)),
                options,
                providers=["CPUExecutionProvider"],
            )
        except Exception as error:  # onnxruntime raises its own types
            raise ModelError(model_path, f"not a usable ONNX model: {error}") from error
        self._inputs = {i.name for i in self._session.get_inputs()}

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """One logit per passage, in order."""
        if not passages:
            return []
        cap = self.max_tokens * CHARS_PER_TOKEN_CAP
        encodings = self._tokenizer.encode_batch([(query[:cap], p[:cap]) for p in passages])
        order = sorted(range(len(encodings)), key=lambda i: -len(encodings[i].ids))
        scores = [0.0] * len(encodings)
        for start in range(0, len(order), BATCH_SIZE):
            group = order[start : start + BATCH_SIZE]
            width = max(len(encodings[i].ids) for i in group)
            ids = np.zeros((len(group), width), dtype=np.int64)
            types = np.zeros((len(group), width), dtype=np.int64)
            mask = np.zeros((len(group), width), dtype=np.int64)
            for row, index in enumerate(group):
                encoding = encodings[index]
                n = len(encoding.ids)
                ids[row, :n] = encoding.ids
                types[row, :n] = encoding.type_ids
                mask[row, :n] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            (logits,) = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[:1]
            for row, index in enumerate(group):
                scores[index] = float(np.asarray(logits[row]).reshape(-1)[0])
        return scores


def default_reranker() -> tuple[CrossEncoder | None, str]:
    """The shipped cross-encoder when installed and not turned off, else
    ``None`` with the reason."""
    switch = os.environ.get(SWITCH_ENV, "on").strip().lower()
    if switch in ("off", "0", "false", "no", "none"):
        return None, f"reranking is turned off ({SWITCH_ENV}={switch})"
    looked = []
    for folder in resources.models_dirs():
        candidate = folder / DEFAULT_MODEL
        looked.append(str(candidate))
        if (candidate / MODEL_FILE).is_file():
            return CrossEncoder(candidate), ""
    return None, (
        f"the shipped cross-encoder ({DEFAULT_MODEL}) is not installed in any of "
        f"{', '.join(looked)}; `cargo xtask models` installs it"
    )


class RerankerImports:
    """``hive:mind/reranker`` over a :class:`CrossEncoder`, or ``unavailable``."""

    def __init__(self, reranker: CrossEncoder | None, why: str) -> None:
        self.reranker = reranker
        self.why = why

    def add_to(self, root: LinkerInstance) -> None:
        with root.add_instance(INTERFACE) as instance:
            instance.add_func("info", self._info)
            instance.add_func("score", self._score)

    def _info(self, _store: StoreContext) -> Any:
        if self.reranker is None:
            return Variant("unavailable", self.why)
        return record(model=self.reranker.name, max_tokens=self.reranker.max_tokens)

    def _score(self, _store: StoreContext, query: str, passages: list[str]) -> Variant:
        if self.reranker is None:
            return Variant("unavailable", self.why)
        try:
            return self.reranker.score(query, passages)
        except Exception as error:  # the model failing on an input
            return Variant("failed", f"the model failed: {error}")
