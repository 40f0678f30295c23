"""The embedder capability (``hive:mind/embedder``): all-MiniLM-L6-v2, offline.

The same model and recipe as the Rust host's in-process embedder
(``host/src/embedder/in_process.rs``), run by onnxruntime instead of tract,
so that both hosts give a mind the same vectors (cosine >= 0.999, checked by
``tests/test_embedder.py`` against vectors the Rust host produced):

1. **Verify** ``model_int8.onnx`` and ``tokenizer.json`` against their
   SHA-256 (``models/all-MiniLM-L6-v2/PROVENANCE.md``); a missing or
   different file is a :class:`ModelError` naming it.
2. **Cap** each text at 16 x 256 characters before tokenizing.
3. **Tokenize**: uncased WordPiece with ``[CLS] ... [SEP]``, truncated at 256
   tokens (the model's ``max_seq_length``); the file's own fixed padding to
   128 is dropped.
4. **Batch**: texts sorted longest first, in runs of at most 64 texts and
   1,024 padded tokens, each run padded to its longest text.
5. **Run** the graph on ``input_ids``, ``attention_mask`` and
   ``token_type_ids`` (int64, ``[batch, sequence]``), output
   ``[batch, sequence, 384]``.
6. **Pool**: average the token vectors where the attention mask is 1, then
   L2-normalise.

The fingerprint the engine locks a mind's vectors to is provider
``in-process``, model ``all-MiniLM-L6-v2``, 384 dimensions: the Rust host's,
so minds move between hosts without a reindex.

:class:`EmbedderImports` puts any :class:`Embedder` behind the interface in
a component linker.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import onnxruntime
from tokenizers import Encoding, Tokenizer
from wasmtime import StoreContext
from wasmtime.component import LinkerInstance

from ._wit import Variant, record

#: The interface's name in the engine world.
INTERFACE = "hive:mind/embedder@0.1.0"

#: The provider name in fingerprints.
PROVIDER = "in-process"
#: The default model's name.
DEFAULT_MODEL = "all-MiniLM-L6-v2"
#: The ONNX file inside the model folder.
MODEL_FILE = "model_int8.onnx"
#: The tokenizer inside the model folder.
TOKENIZER_FILE = "tokenizer.json"
#: SHA-256 of the shipped ``model_int8.onnx``.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: SHA-256 of the shipped ``tokenizer.json``.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
#: The token window (the model's trained ``max_seq_length``).
MAX_TOKENS = 256
#: Characters kept per token of the window before tokenizing.
CHARS_PER_TOKEN_CAP = 16
#: Texts per model run, at most.
BATCH_SIZE = 64
#: Padded tokens (texts x longest text) per model run, at most.
TOKEN_BUDGET = 1024

#: How to get the model when it is missing or corrupt.
MODEL_HINT = (
    "The default embedding model ships in the repository's models/all-MiniLM-L6-v2/ "
    "(see PROVENANCE.md there). Pass model_dir, point HIVE_MIND_MODELS_DIR at the "
    "repository's models/ folder, or copy all-MiniLM-L6-v2/ into $HIVE_MIND_HOME/models/."
)

_BERT_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class ModelError(Exception):
    """A model file is missing, unreadable, not what it should be, or not a
    model this embedder can run; ``path`` names it."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


class EmbedError(Exception):
    """Embedding failed: ``case`` is the WIT ``embedder.error`` case
    (``unavailable`` or ``failed``)."""

    def __init__(self, case: str, message: str) -> None:
        super().__init__(f"{case}: {message}")
        self.case = case
        self.message = message


@dataclass(frozen=True)
class EmbedderInfo:
    """The identity of an embedder (the fingerprint a mind's vectors carry:
    provider, model, dimensions), and whether its vectors carry meaning
    (false only for a test embedder whose cosines say nothing)."""

    provider: str
    model: str
    dimensions: int
    meaningful: bool = True


class Embedder(Protocol):
    """What the engine's ``embedder`` import needs of a provider."""

    def info(self) -> EmbedderInfo:
        """The active embedder's fingerprint."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in order; raises
        :class:`EmbedError`."""
        ...


def default_model_dir() -> Path:
    """Where the default model is found, as the Rust host looks: the first of
    ``$HIVE_MIND_MODELS_DIR/all-MiniLM-L6-v2``,
    ``$HIVE_MIND_HOME/models/all-MiniLM-L6-v2`` (``~/.hive-mind`` when unset)
    and this source tree's ``models/all-MiniLM-L6-v2`` that holds the model
    file; the first candidate when none does (loading it then says so)."""
    candidates = []
    models_dir = os.environ.get("HIVE_MIND_MODELS_DIR")
    if models_dir:
        candidates.append(Path(models_dir) / DEFAULT_MODEL)
    home = os.environ.get("HIVE_MIND_HOME")
    candidates.append((Path(home) if home else Path.home() / ".hive-mind") / "models" / DEFAULT_MODEL)
    candidates.append(Path(__file__).resolve().parents[4] / "models" / DEFAULT_MODEL)
    for candidate in candidates:
        if (candidate / MODEL_FILE).is_file():
            return candidate
    return candidates[0]


def read_verified(path: Path, sha256: str) -> bytes:
    """The bytes of a model file, checked against its SHA-256."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ModelError(path, f"the file is missing. {MODEL_HINT}") from None
    except OSError as exception:
        raise ModelError(path, f"unreadable: {exception}") from exception
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise ModelError(
            path, f"SHA-256 is {actual}, expected {sha256}: the file is not the shipped one. {MODEL_HINT}"
        )
    return data


def _budget_groups(order: list[int], lengths: list[int], max_texts: int) -> list[list[int]]:
    groups = []
    start = 0
    while start < len(order):
        longest = max(lengths[order[start]], 1)
        fit = min(max(TOKEN_BUDGET // longest, 1), max(max_texts, 1))
        groups.append(order[start : start + fit])
        start += fit
    return groups


class InProcessEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) run by onnxruntime in this process."""

    def __init__(self, model_dir: str | Path | None = None) -> None:
        """Load and verify the model in ``model_dir`` (default:
        :func:`default_model_dir`); raises :class:`ModelError`."""
        folder = Path(model_dir) if model_dir is not None else default_model_dir()
        tokenizer_path = folder / TOKENIZER_FILE
        model_path = folder / MODEL_FILE
        tokenizer_json = read_verified(tokenizer_path, TOKENIZER_SHA256)
        try:
            tokenizer = Tokenizer.from_str(tokenizer_json.decode("utf-8"))
        except Exception as exception:
            raise ModelError(tokenizer_path, f"not a tokenizer.json: {exception}") from exception
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        model = read_verified(model_path, MODEL_SHA256)
        try:
            session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
        except Exception as exception:
            raise ModelError(model_path, f"not an ONNX model: {exception}") from exception
        inputs = [item.name for item in session.get_inputs()]
        unexpected = [name for name in inputs if name not in _BERT_INPUTS]
        if unexpected or "input_ids" not in inputs:
            raise ModelError(
                model_path,
                f"inputs {inputs}: a BERT-style model takes input_ids, attention_mask and "
                "token_type_ids (int64, [batch, sequence])",
            )
        shape = session.get_outputs()[0].shape
        if len(shape) != 3 or not isinstance(shape[2], int) or shape[2] <= 0:
            raise ModelError(
                model_path,
                f"expected a first output of shape [batch, sequence, dimensions], found {shape}",
            )
        self._tokenizer = tokenizer
        self._session = session
        self._inputs = inputs
        self._info = EmbedderInfo(PROVIDER, DEFAULT_MODEL, shape[2])

    def info(self) -> EmbedderInfo:
        """Provider ``in-process``, model ``all-MiniLM-L6-v2``, 384
        dimensions, meaningful."""
        return self._info

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """The word-piece ids ``embed`` runs the model on, one list per text."""
        return [encoding.ids for encoding in self._encode(texts)]

    def _encode(self, texts: Sequence[str]) -> list[Encoding]:
        max_chars = MAX_TOKENS * CHARS_PER_TOKEN_CAP
        capped = [text[:max_chars] for text in texts]
        try:
            return self._tokenizer.encode_batch(capped, add_special_tokens=True)
        except Exception as exception:
            raise EmbedError("failed", f"tokenizing failed: {exception}") from exception

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in order."""
        if not texts:
            return []
        encodings = self._encode(texts)
        lengths = [len(encoding.ids) for encoding in encodings]
        order = sorted(range(len(encodings)), key=lambda index: -lengths[index])
        vectors: list[list[float]] = [[] for _ in encodings]
        for group in _budget_groups(order, lengths, BATCH_SIZE):
            pooled = self._run([encodings[index] for index in group])
            for index, vector in zip(group, pooled, strict=True):
                vectors[index] = vector.tolist()
        return vectors

    def _run(self, group: list[Encoding]) -> np.ndarray:
        sequence = max(len(encoding.ids) for encoding in group)
        batch = {name: np.zeros((len(group), sequence), dtype=np.int64) for name in _BERT_INPUTS}
        for row, encoding in enumerate(group):
            width = len(encoding.ids)
            batch["input_ids"][row, :width] = encoding.ids
            batch["attention_mask"][row, :width] = encoding.attention_mask
            batch["token_type_ids"][row, :width] = encoding.type_ids
        try:
            hidden: np.ndarray = self._session.run(None, {name: batch[name] for name in self._inputs})[0]
        except Exception as exception:
            raise EmbedError("failed", f"the model failed: {exception}") from exception
        expected = (len(group), sequence, self._info.dimensions)
        if hidden.shape != expected:
            raise EmbedError(
                "failed", f"the model returned shape {list(hidden.shape)}, expected {list(expected)}"
            )
        mask = batch["attention_mask"].astype(np.float32)[:, :, None]
        pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        # As `l2_normalize`: a (near-)zero vector is left as it is.
        normalised: np.ndarray = pooled / np.where(norms > np.finfo(np.float32).eps, norms, 1.0)
        return normalised.astype(np.float32)


class EmbedderImports:
    """The ``hive:mind/embedder`` import over an :class:`Embedder`, or over
    none: every call then answers ``unavailable`` with ``why``."""

    def __init__(self, embedder: Embedder | None, why: str = "no embedder is configured") -> None:
        self.embedder = embedder
        self.why = why

    def add_to(self, root: LinkerInstance) -> None:
        """Define the interface's functions in ``root``."""
        with root.add_instance(INTERFACE) as instance:
            instance.add_func("info", self._info)
            instance.add_func("embed", self._embed)

    def _info(self, _store: StoreContext) -> Any:
        if self.embedder is None:
            return Variant("unavailable", self.why)
        try:
            info = self.embedder.info()
        except EmbedError as error:
            return Variant(error.case, error.message)
        return record(
            provider=info.provider,
            model=info.model,
            dimensions=info.dimensions,
            meaningful=info.meaningful,
        )

    def _embed(self, _store: StoreContext, texts: list[str]) -> Any:
        if self.embedder is None:
            return Variant("unavailable", self.why)
        try:
            return self.embedder.embed(texts)
        except EmbedError as error:
            return Variant(error.case, error.message)
