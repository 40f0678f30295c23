"""The embedder capability (``hive:mind/embedder``): a sentence-transformers
model, offline.

The same models and recipe as the Rust host's in-process embedder
(``host/models/src/embedder/in_process.rs``), run by onnxruntime instead of tract,
so that both hosts give a mind the same vectors (cosine >= 0.999, checked by
``tests/test_embedder.py`` against vectors the Rust host produced). The
model is a folder under ``models/`` chosen by name (``bge-small-en-v1.5``, the
default, fetched by ``cargo xtask models``; ``all-MiniLM-L6-v2``, committed):
the ``model`` argument, else
``HIVE_MIND_IN_PROCESS_MODEL``, as the Rust host reads it. What differs
between models is read from the folder's own sentence-transformers files
(:func:`read_model_folder`, the port of ``host/models/src/embedder/model_folder.rs``):
the pooling mode (``1_Pooling/config.json``), the window
(``sentence_bert_config.json``), the prompts per input kind
(``config_sentence_transformers.json``) and the checksums (``SHA256SUMS``).

1. **Verify** the ONNX file and ``tokenizer.json`` against the folder's
   ``SHA256SUMS``; a missing or different file is a :class:`ModelError`
   naming it.
2. **Prompt**: texts of a kind with a prompt get it prepended (bge-small's
   query instruction; MiniLM has none).
3. **Cap** each text at 16 x the window in characters before tokenizing.
4. **Tokenize**: WordPiece with ``[CLS] ... [SEP]``, truncated at the
   model's ``max_seq_length``; the file's own padding is dropped.
5. **Batch**: texts sorted longest first, in runs of at most 64 texts and
   1,024 padded tokens, each run padded to its longest text.
6. **Run** the graph on ``input_ids``, ``attention_mask`` and
   ``token_type_ids`` (int64, ``[batch, sequence]``), output
   ``[batch, sequence, 384]``.
7. **Pool** (mean over the attention mask, the ``[CLS]`` vector, or the
   maximum), then L2-normalise.

The fingerprint the engine locks a mind's vectors to is provider
``in-process``, the model folder's name, and the dimension: the Rust host's,
so minds move between hosts without a reindex.

:class:`EmbedderImports` puts any :class:`Embedder` behind the interface in
a component linker. An embedder may answer a string in place of a vector for
a text it failed on alone (the WIT ``result<list<f32>, string>`` entry): the
engine stores no vector for that text, ``check`` reports it and ``reindex``
embeds it later. Failing on every text of a batch is an :class:`EmbedError`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import onnxruntime
from tokenizers import Encoding, Tokenizer
from wasmtime import StoreContext
from wasmtime.component import LinkerInstance, ResourceAny, ResourceHost, ResourceType

from . import resources
from ._wit import Variant, interface, record
from .dequantize import dequantized_model_bytes

#: The interface's name in the engine world.
INTERFACE = interface("embedder")
#: The host resource type id of ``pending-embedding`` (``connection`` of the
#: sqlite import is 1).
PENDING_TYPE = 2

#: The provider name in fingerprints.
PROVIDER = "in-process"
#: The default model (a folder under the models folders); the Rust host's
#: ``DEFAULT_MODEL`` in ``host/models/src/embedder/in_process.rs`` must say the same.
DEFAULT_MODEL = "bge-small-en-v1.5"
#: The environment variable naming the model, as the Rust host reads it.
MODEL_ENV = "HIVE_MIND_IN_PROCESS_MODEL"
#: The ONNX file of the committed default model.
MODEL_FILE = "model_int8.onnx"
#: The ONNX file names tried, in order (as the Rust host).
ONNX_CANDIDATES = (MODEL_FILE, "model.onnx", "onnx/model.onnx")
#: The tokenizer inside the model folder.
TOKENIZER_FILE = "tokenizer.json"
#: The checksum list inside the model folder (``sha256sum`` format).
CHECKSUMS_FILE = "SHA256SUMS"
#: The default model's token window (its ``sentence_bert_config.json``).
MAX_TOKENS = 256
#: Characters kept per token of the window before tokenizing.
CHARS_PER_TOKEN_CAP = 16
#: Texts per model run, at most.
BATCH_SIZE = 64
#: Padded tokens (texts x longest text) per model run, at most.
TOKEN_BUDGET = 1024

#: How to get the model when it is missing or corrupt.
MODEL_HINT = (
    "The default embedding model, bge-small-en-v1.5, is fetched by `cargo xtask models`; "
    "all-MiniLM-L6-v2 ships in the repository's models/all-MiniLM-L6-v2/ (see PROVENANCE.md "
    "there). Pass model_dir, point HIVE_MIND_MODELS_DIR at the "
    "repository's models/ folder, or copy the model's folder into $HIVE_MIND_HOME/models/."
)

#: Input kinds (the WIT enum ``embedder.input-kind``).
QUERY = "query"
DOCUMENT = "document"

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
    #: The token window the model reads, special tokens included; 0 when
    #: unknown. The engine plans chunks to fit it. Not part of the
    #: fingerprint (vectors of one model stay comparable whatever it reads),
    #: so it is left out of equality.
    max_tokens: int = field(default=0, compare=False)


#: One text's outcome from :meth:`Embedder.embed`: its vector, or why the
#: provider failed on it (the WIT ``result<list<f32>, string>``, which
#: wasmtime-py passes untagged: a ``list`` is ``ok``, a ``str`` is ``err``).
TextVector = list[float] | str


def checked_entries(entries: Sequence[TextVector], texts: Sequence[str]) -> list[TextVector]:
    """An embedder's answer as the ``embed`` import returns it: one entry
    per text, each a vector or a failure's reason; an :class:`EmbedError`
    when the count is wrong or every text failed (a batch of failures would
    be worse than an error)."""
    entries = list(entries)
    if len(entries) != len(texts):
        raise EmbedError("failed", f"asked for {len(texts)} vectors, got {len(entries)}")
    failures = [entry for entry in entries if isinstance(entry, str)]
    if texts and len(failures) == len(texts):
        raise EmbedError("failed", f"failed on every text: {failures[0]}")
    return entries


class Embedder(Protocol):
    """What the engine's ``embedder`` import needs of a provider."""

    def info(self) -> EmbedderInfo:
        """The active embedder's fingerprint."""
        ...

    def embed(self, texts: Sequence[str], kind: str = DOCUMENT) -> Sequence[TextVector]:
        """One entry per text, in order: its L2-normalised vector, or a
        string saying why that text alone failed; ``kind`` is ``"query"`` or
        ``"document"`` (providers without prompts ignore it); raises
        :class:`EmbedError` when nothing could be embedded."""
        ...


def model_name(model: str | None = None) -> str:
    """The model asked for: ``model``, else ``$HIVE_MIND_IN_PROCESS_MODEL``,
    else :data:`DEFAULT_MODEL`."""
    name = model if model is not None else os.environ.get(MODEL_ENV, "").strip() or DEFAULT_MODEL
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise ValueError(f"{name!r}: expected a model folder's name (all-MiniLM-L6-v2, bge-small-en-v1.5), not a path")
    return name


def default_model_dir(model: str | None = None) -> Path:
    """Where the model (default: :func:`model_name`) is found, as the Rust
    host looks: the first folder of :func:`hive_mind.resources.models_dirs`
    (``$HIVE_MIND_MODELS_DIR``, ``$HIVE_MIND_HOME/models`` — ``~/.hive-mind``
    when unset —, the installed ``hive-mind-engine-models`` package, this
    source tree's ``models/``) whose ``<model>`` folder holds a
    ``tokenizer.json``; the first candidate when none does (loading it then
    says so)."""
    name = model_name(model)
    candidates = [folder / name for folder in resources.models_dirs()]
    for candidate in candidates:
        if (candidate / TOKENIZER_FILE).is_file():
            return candidate
    return candidates[0]


def read_verified(path: Path, sha256: str | None) -> bytes:
    """The bytes of a model file, checked against its SHA-256 when given."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ModelError(path, f"the file is missing. {MODEL_HINT}") from None
    except OSError as exception:
        raise ModelError(path, f"unreadable: {exception}") from exception
    actual = hashlib.sha256(data).hexdigest()
    if sha256 is not None and actual != sha256:
        raise ModelError(
            path, f"SHA-256 is {actual}, expected {sha256}: the file is not the shipped one. {MODEL_HINT}"
        )
    return data


@dataclass(frozen=True)
class ModelFolder:
    """A model folder's self-description (``host/models/src/embedder/model_folder.rs``)."""

    name: str
    model_path: Path
    tokenizer_path: Path
    #: ``"cls"``, ``"mean"`` or ``"max"``.
    pooling: str
    max_tokens: int
    query_prompt: str
    document_prompt: str
    normalize: bool
    #: SHA-256 per file name relative to the folder, from ``SHA256SUMS``.
    checksums: dict[str, str]


def _read_json(path: Path, required: bool) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if not required:
            return None
        raise ModelError(
            path, f"the file is missing; a sentence-transformers model folder needs it. {MODEL_HINT}"
        ) from None
    except OSError as exception:
        raise ModelError(path, f"unreadable: {exception}") from exception
    try:
        return json.loads(text)
    except ValueError as exception:
        raise ModelError(path, f"not valid JSON: {exception}") from exception


_POOLING_MODES = {"cls_token": "cls", "mean_tokens": "mean", "max_tokens": "max"}


def parse_pooling(path: Path, config: Any) -> str:
    """The pooling mode of a ``1_Pooling/config.json`` value."""
    if not isinstance(config, dict):
        raise ModelError(path, "expected a JSON object of pooling_mode_* flags")
    on = []
    for key, value in config.items():
        if not key.startswith("pooling_mode_"):
            continue
        if value is True:
            on.append(key.removeprefix("pooling_mode_"))
        elif value not in (False, None):
            raise ModelError(path, f"{key} must be true or false, found {value!r}")
    if not on:
        raise ModelError(path, "no pooling_mode_* is true: expected exactly one of cls_token, mean_tokens, max_tokens")
    if len(on) > 1:
        raise ModelError(path, f"several pooling modes are on ({', '.join(on)}): expected exactly one")
    if on[0] not in _POOLING_MODES:
        raise ModelError(path, f"pooling_mode_{on[0]} is not supported (supported: cls_token, mean_tokens, max_tokens)")
    return _POOLING_MODES[on[0]]


def parse_checksums(path: Path, text: str) -> dict[str, str]:
    """``sha256sum`` lines: file name -> SHA-256."""
    sums = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(maxsplit=1)
        if len(parts) != 2 or len(parts[0]) != 64 or any(c not in "0123456789abcdefABCDEF" for c in parts[0]):
            raise ModelError(path, f"line {number}: expected `<sha256>  <file>`, found {line!r}")
        sums[parts[1].lstrip("*")] = parts[0].lower()
    return sums


def read_model_folder(folder: Path) -> ModelFolder:
    """Read a model folder's sentence-transformers files; raises
    :class:`ModelError` naming the file that is missing or malformed."""
    tokenizer_path = folder / TOKENIZER_FILE
    if not tokenizer_path.is_file():
        raise ModelError(tokenizer_path, f"the file is missing. {MODEL_HINT}")
    model_path = next((folder / name for name in ONNX_CANDIDATES if (folder / name).is_file()), None)
    if model_path is None:
        raise ModelError(folder / MODEL_FILE, f"the file is missing (no {', '.join(ONNX_CANDIDATES)}). {MODEL_HINT}")
    modules_path = folder / "modules.json"
    modules = _read_json(modules_path, required=True)
    if not isinstance(modules, list):
        raise ModelError(modules_path, "expected a JSON list of modules")
    pooling_dir = None
    normalize = False
    for module in modules:
        kind = module.get("type", "") if isinstance(module, dict) else ""
        if kind == "Pooling" or kind.endswith(".Pooling"):
            pooling_dir = module.get("path")
            if not isinstance(pooling_dir, str):
                raise ModelError(modules_path, 'the Pooling module has no "path" (its folder)')
        elif kind == "Normalize" or kind.endswith(".Normalize"):
            normalize = True
    if pooling_dir is None:
        raise ModelError(modules_path, "lists no sentence_transformers.models.Pooling module")
    pooling_path = folder / pooling_dir / "config.json"
    pooling = parse_pooling(pooling_path, _read_json(pooling_path, required=True))
    window_path = folder / "sentence_bert_config.json"
    window = _read_json(window_path, required=True)
    max_tokens = window.get("max_seq_length") if isinstance(window, dict) else None
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 2:
        raise ModelError(window_path, f"max_seq_length must be a whole number of at least 2, found {max_tokens!r}")
    prompts_path = folder / "config_sentence_transformers.json"
    config = _read_json(prompts_path, required=False)
    if config is not None and not isinstance(config, dict):
        raise ModelError(prompts_path, "expected a JSON object")
    prompts = (config or {}).get("prompts") or {}
    if not isinstance(prompts, dict) or any(not isinstance(v, str) for v in prompts.values()):
        raise ModelError(prompts_path, "prompts must be an object of name -> text")
    sums_path = folder / CHECKSUMS_FILE
    checksums = parse_checksums(sums_path, sums_path.read_text(encoding="utf-8")) if sums_path.is_file() else {}
    return ModelFolder(
        name=folder.name,
        model_path=model_path,
        tokenizer_path=tokenizer_path,
        pooling=pooling,
        max_tokens=max_tokens,
        query_prompt=prompts.get("query", ""),
        document_prompt=prompts.get("document", prompts.get("passage", "")),
        normalize=normalize,
        checksums=checksums,
    )


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
    """A sentence-transformers model (int8 ONNX) run by onnxruntime in this
    process."""

    def __init__(self, model_dir: str | Path | None = None, model: str | None = None) -> None:
        """Load and verify the model in ``model_dir``, else the folder of
        the model named ``model`` (default: :func:`default_model_dir`);
        raises :class:`ModelError`."""
        folder = Path(model_dir) if model_dir is not None else default_model_dir(model)
        spec = read_model_folder(folder)
        tokenizer_path = spec.tokenizer_path
        model_path = spec.model_path
        tokenizer_json = read_verified(tokenizer_path, spec.checksums.get(TOKENIZER_FILE))
        try:
            tokenizer = Tokenizer.from_str(tokenizer_json.decode("utf-8"))
        except Exception as exception:
            raise ModelError(tokenizer_path, f"not a tokenizer.json: {exception}") from exception
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=spec.max_tokens)
        model_bytes = read_verified(model_path, spec.checksums.get(model_path.relative_to(folder).as_posix()))
        try:
            # As the Rust host: dynamically quantized matmuls run as f32
            # (see :mod:`hive_mind.dequantize`), so both hosts give a mind
            # the same vectors.
            model_bytes = dequantized_model_bytes(model_bytes)
            session = onnxruntime.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
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
        self._spec = spec
        # As the Rust host: a graph that quantizes activations at run time
        # (DynamicQuantizeLinear, scaled by the whole tensor's range) would
        # make a text's vector depend on the rest of its batch, so such a
        # model runs one text at a time. onnxruntime does not expose the
        # graph's nodes; an op type is stored as its plain name in the
        # protobuf, so the name's presence in the file is the test.
        self._batch_size = 1 if b"DynamicQuantizeLinear" in model_bytes else BATCH_SIZE
        self._info = EmbedderInfo(PROVIDER, spec.name, shape[2], max_tokens=spec.max_tokens)

    @property
    def folder(self) -> ModelFolder:
        """The model folder's self-description (pooling, window, prompts)."""
        return self._spec

    def info(self) -> EmbedderInfo:
        """Provider ``in-process``, the model folder's name, its dimension,
        meaningful."""
        return self._info

    def tokenize(self, texts: Sequence[str], kind: str = DOCUMENT) -> list[list[int]]:
        """The word-piece ids ``embed`` runs the model on, one list per text."""
        return [encoding.ids for encoding in self._encode(texts, kind)]

    def _encode(self, texts: Sequence[str], kind: str = DOCUMENT) -> list[Encoding]:
        if kind not in (QUERY, DOCUMENT):
            raise EmbedError("failed", f"unknown input kind {kind!r}: expected query or document")
        max_chars = self._spec.max_tokens * CHARS_PER_TOKEN_CAP
        prompt = self._spec.query_prompt if kind == QUERY else self._spec.document_prompt
        # The cap is on the text; the prompt (a few words) comes on top.
        capped = [prompt + text[:max_chars] for text in texts]
        try:
            return self._tokenizer.encode_batch(capped, add_special_tokens=True)
        except Exception as exception:
            raise EmbedError("failed", f"tokenizing failed: {exception}") from exception

    def embed(self, texts: Sequence[str], kind: str = DOCUMENT) -> list[list[float]]:
        """One L2-normalised vector per text of ``kind``, in order."""
        if not texts:
            return []
        encodings = self._encode(texts, kind)
        lengths = [len(encoding.ids) for encoding in encodings]
        order = sorted(range(len(encodings)), key=lambda index: -lengths[index])
        vectors: list[list[float]] = [[] for _ in encodings]
        for group in _budget_groups(order, lengths, self._batch_size):
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
        if self._spec.pooling == "cls":
            # ``[CLS]`` is the first token of every encoding.
            pooled = hidden[:, 0, :]
        elif self._spec.pooling == "max":
            pooled = np.where(mask > 0, hidden, -np.inf).max(axis=1)
            pooled = np.where(np.isfinite(pooled), pooled, 0.0)
        else:
            pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        # As `l2_normalize`: a (near-)zero vector is left as it is.
        normalised: np.ndarray = pooled / np.where(norms > np.finfo(np.float32).eps, norms, 1.0)
        return normalised.astype(np.float32)


class EmbedderImports:
    """The ``hive:mind/embedder`` import over an :class:`Embedder`, or over
    none: every call then answers ``unavailable`` with ``why``.

    ``start-embed`` runs the batch on a worker thread (onnxruntime releases
    the GIL while the model runs, so recall's SQL, served by this thread,
    goes on meanwhile); its ``pending-embedding`` resource keys a table of
    futures that ``finish`` waits on.
    """

    def __init__(self, embedder: Embedder | None, why: str = "no embedder is configured") -> None:
        self.embedder = embedder
        self.why = why
        self._pending: dict[int, Future[list[TextVector]] | None] = {}
        self._next_rep = 1
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hive-mind-embed")

    def add_to(self, root: LinkerInstance) -> None:
        """Define the interface's functions and its resource in ``root``."""
        with root.add_instance(INTERFACE) as instance:
            instance.add_func("info", self._info)
            instance.add_func("embed", self._embed)
            instance.add_resource("pending-embedding", ResourceType.host(PENDING_TYPE), self._drop)
            instance.add_func("start-embed", self._start_embed)
            instance.add_func("[method]pending-embedding.finish", self._finish)

    def forget_pending(self) -> None:
        """Forget the pending embeddings of an instance that trapped."""
        self._pending.clear()

    def close(self) -> None:
        """Stop the worker thread (waiting for a batch it is running)."""
        self._pending.clear()
        self._worker.shutdown(wait=True)

    def _start_embed(self, _store: StoreContext, texts: list[str], kind: str) -> Any:
        if self.embedder is None:
            return Variant("unavailable", self.why)
        rep = self._next_rep
        self._next_rep += 1
        self._pending[rep] = self._worker.submit(self._entries, list(texts), kind)
        return ResourceHost.own(rep, PENDING_TYPE)

    def _finish(self, store: StoreContext, handle: ResourceAny) -> Any:
        host = handle.to_host(store)
        if host.type != PENDING_TYPE or host.rep not in self._pending:
            return Variant("failed", "no such pending embedding")
        future = self._pending[host.rep]
        if future is None:
            return Variant("failed", "this embedding was already finished")
        self._pending[host.rep] = None
        try:
            return future.result()
        except EmbedError as error:
            return Variant(error.case, error.message)
        except Exception as error:  # noqa: BLE001 - a model failure is the guest's `failed`
            return Variant("failed", f"the embedding failed: {error}")

    def _drop(self, _store: StoreContext, rep: int) -> None:
        # A running batch finishes on the worker; its vectors are discarded.
        self._pending.pop(rep, None)

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
            max_tokens=info.max_tokens,
        )

    def _entries(self, texts: list[str], kind: str) -> list[TextVector]:
        if self.embedder is None:
            raise EmbedError("unavailable", self.why)
        return checked_entries(self.embedder.embed(texts, kind), texts)

    def _embed(self, _store: StoreContext, texts: list[str], kind: str) -> Any:
        if self.embedder is None:
            return Variant("unavailable", self.why)
        try:
            return self._entries(texts, kind)
        except EmbedError as error:
            return Variant(error.case, error.message)
