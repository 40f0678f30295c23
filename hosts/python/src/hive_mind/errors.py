"""The exceptions of the Python API, one per case of the engine's errors.

The engine's ``memory`` and ``admin`` interfaces answer failures with their
``error`` variants (``wit/memory.wit``, ``wit/admin.wit``). Each case maps
to a subclass of :class:`HiveMindError`, whose ``case`` is the WIT case
name and ``detail`` its message:

========================  ==========================================
WIT case                  exception
========================  ==========================================
``invalid-argument``      :class:`InvalidArgumentError`
``storage``               :class:`StorageError`, or its subclass
                          :class:`NotFoundError` for the storage cases
                          ``mind-not-found`` and ``not-found``
``embedder``              :class:`EmbedderError`
``llm``                   :class:`LlmError`
========================  ==========================================

The ``storage`` case carries a ``types.storage-error`` variant; its case
name is :attr:`StorageError.storage_case` (``busy``, ``sql``,
``newer-schema``, …) and ``detail`` says what happened. A trap inside the
engine (a limit, a bug, or a host function that raised) is
:class:`EngineTrap`: the host replaces the instance, and the next call runs.
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


class StorageError(HiveMindError):
    """A mind's storage failed; ``storage_case`` says how."""

    def __init__(self, case: str, detail: str, storage_case: str) -> None:
        super().__init__(case, detail)
        self.storage_case = storage_case


class NotFoundError(StorageError):
    """The workspace mind, frame, entity or item does not exist."""


class EmbedderError(HiveMindError):
    """The embedder failed or is not configured."""


class LlmError(HiveMindError):
    """The language model failed."""


class EngineTrap(HiveMindError):
    """The engine trapped: the host closed that instance's connections and
    started a fresh one for the next call. ``kind`` says what stopped the
    call: ``deadline-exceeded``, ``memory-limit``, ``stack-overflow``,
    ``guest-panic``, ``other-trap`` or ``host-failure`` (see
    :func:`hive_mind.engine.trap_kind`)."""

    def __init__(self, case: str, detail: str, kind: str = "other-trap") -> None:
        super().__init__(case, detail)
        self.kind = kind


_CLASSES: dict[str, type[HiveMindError]] = {
    "invalid-argument": InvalidArgumentError,
    "embedder": EmbedderError,
    "llm": LlmError,
}

_NOT_FOUND = ("mind-not-found", "not-found")


def _storage_detail(error: Variant) -> str:
    payload: Any = error.payload
    if error.tag == "dimension-mismatch":
        return (
            f"vectors of dimension {field(payload, 'actual')} offered to a mind of "
            f"dimension {field(payload, 'expected')}; run reindex"
        )
    if error.tag == "newer-schema":
        return f"the database has schema version {payload}, newer than this engine knows"
    if payload is None:
        return error.tag
    return f"{error.tag}: {payload}"


def from_variant(error: Variant) -> HiveMindError:
    """The exception for a ``memory`` or ``admin`` error value."""
    if error.tag == "storage" and isinstance(error.payload, Variant):
        storage = NotFoundError if error.payload.tag in _NOT_FOUND else StorageError
        return storage("storage", _storage_detail(error.payload), error.payload.tag)
    other = _CLASSES.get(error.tag, HiveMindError)
    return other(error.tag, "" if error.payload is None else str(error.payload))
