"""The exceptions of the Python API, one per case of the engine's errors.

The engine's ``memory`` and ``admin`` interfaces answer failures with their
``error`` variants (``wit/memory.wit``, ``wit/admin.wit``). Each case maps
to a subclass of :class:`HiveMindError`, whose ``case`` is the WIT case
name and ``detail`` its message:

===================================  =========================
WIT case                             exception
===================================  =========================
``invalid-argument``                 :class:`InvalidArgumentError`
``not-found`` (admin)                :class:`NotFoundError`
``unsupported`` (memory)             :class:`UnsupportedError`
``store`` (memory), ``storage``      :class:`StorageError`
(admin)
``embedder``                         :class:`EmbedderError`
``llm`` (memory)                     :class:`LlmError`
===================================  =========================

``admin``'s ``storage`` case carries a nested ``storage-error`` variant; its
case name is :attr:`StorageError.storage_case` (``busy``, ``sql``, …) and
``detail`` reads like the Rust host's message. A trap inside the engine
(a bug, or a host function that raised) is :class:`EngineTrap`: the
instance cannot be used after it.
"""

from __future__ import annotations

from typing import Any

from ._wit import Variant, field


class HiveMindError(Exception):
    """A failure reported by the engine: ``case`` and ``detail``."""

    def __init__(self, case: str, detail: str) -> None:
        super().__init__(f"{case}: {detail}" if detail else case)
        self.case = case
        self.detail = detail


class InvalidArgumentError(HiveMindError):
    """An argument was malformed; ``detail`` says which and why."""


class NotFoundError(HiveMindError):
    """The named workspace mind, frame or item does not exist."""


class UnsupportedError(HiveMindError):
    """The engine does not implement the operation (yet)."""


class StorageError(HiveMindError):
    """A mind's storage failed."""

    def __init__(self, case: str, detail: str, storage_case: str | None = None) -> None:
        super().__init__(case, detail)
        self.storage_case = storage_case


class EmbedderError(HiveMindError):
    """The embedder failed."""


class LlmError(HiveMindError):
    """The language model failed."""


class EngineTrap(HiveMindError):
    """The engine trapped; the instance is unusable afterwards."""


_CLASSES: dict[str, type[HiveMindError]] = {
    "invalid-argument": InvalidArgumentError,
    "not-found": NotFoundError,
    "unsupported": UnsupportedError,
    "store": StorageError,
    "storage": StorageError,
    "embedder": EmbedderError,
    "llm": LlmError,
}


def _storage_detail(error: Variant) -> str:
    payload: Any = error.payload
    if error.tag == "dimension-mismatch":
        return (
            f"vectors of dimension {field(payload, 'actual')} offered to a mind of "
            f"dimension {field(payload, 'expected')}; run reindex"
        )
    if payload is None:
        return error.tag
    return f"{error.tag}: {payload}"


def from_variant(error: Variant) -> HiveMindError:
    """The exception for a ``memory`` or ``admin`` error value."""
    if error.tag == "storage" and isinstance(error.payload, Variant):
        return StorageError("storage", _storage_detail(error.payload), error.payload.tag)
    cls = _CLASSES.get(error.tag, HiveMindError)
    return cls(error.tag, "" if error.payload is None else str(error.payload))
