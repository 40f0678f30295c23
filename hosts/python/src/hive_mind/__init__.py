"""hive-mind for Python: the memory engine component, hosted by wasmtime-py.

The engine (recall, save, the knowledge graph, the minds' schema) is one
WebAssembly component shared by every host; this package supplies what it
imports — SQLite databases over :mod:`sqlite3`, the bge-small-en-v1.5
embedder over onnxruntime — and wraps its exports in :class:`HiveMind`.

Modules: :mod:`~hive_mind.mind` (the API), :mod:`~hive_mind.engine` (the
wasmtime wiring), :mod:`~hive_mind.sqlite`, :mod:`~hive_mind.embedder` and
:mod:`~hive_mind.capabilities` (the imports), :mod:`~hive_mind.errors`.
"""

from .embedder import EmbedderInfo, ModelError
from .engine import ComponentError
from .errors import (
    EmbedderError,
    EngineTrap,
    HiveMindError,
    InvalidArgumentError,
    LlmError,
    NotFoundError,
    StorageError,
)
from .mind import Fingerprint, HiveMind, Memory, MindStatus, Quarantine, Recall, RecallNote, Saved, TurnOrigin
from .sqlite import Fts5MissingError

__all__ = [
    "ComponentError",
    "EmbedderError",
    "EmbedderInfo",
    "EngineTrap",
    "Fts5MissingError",
    "Fingerprint",
    "HiveMind",
    "HiveMindError",
    "InvalidArgumentError",
    "LlmError",
    "Memory",
    "MindStatus",
    "ModelError",
    "NotFoundError",
    "Quarantine",
    "Recall",
    "RecallNote",
    "Saved",
    "StorageError",
    "TurnOrigin",
]
