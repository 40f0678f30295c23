"""Bulk conversion of ``list<u8>`` and ``list<f32>`` for wasmtime-py.

wasmtime-py converts a list element by element through ctypes, about a
microsecond per element. The engine moves vectors as SQLite blobs
(``list<u8>``, 1,536 bytes for a 384-d vector) and embeddings as
``list<f32>``: loading a mind's vector index of 10,000 frames would spend
some 15 s in those loops alone. This module replaces the two conversions of
:class:`wasmtime.component.ListType` with bulk copies, for these two element
types only; every other list keeps wasmtime-py's own code.

Each element of a C-API list is a ``wasmtime_component_val_t``: a one-byte
kind, then a union at offset 8, 32 bytes in all. A ``u8``/``f32`` list is
written and read as one strided numpy array over that memory. The layout is
checked at install time against the ctypes declarations of the installed
wasmtime-py; when it differs, nothing is patched (conversions stay correct,
only slower).
"""

from __future__ import annotations

import ctypes
from typing import Any, Callable

import numpy as np
from wasmtime import _ffi as ffi
from wasmtime.component import _types as component_types

_VAL_SIZE = 32
_PAYLOAD_OFFSET = 8
_ORIGINAL: dict[str, Callable[..., Any]] = {}


def _layout_is_known() -> bool:
    val = ffi.wasmtime_component_val_t
    return (
        ctypes.sizeof(val) == _VAL_SIZE
        and val.kind.offset == 0
        and val.of.offset == _PAYLOAD_OFFSET
        and ctypes.sizeof(ffi.wasmtime_component_vallist_t) == 16
    )


def _element_kind(list_type: Any) -> tuple[int, np.dtype] | None:
    element = list_type.element
    if isinstance(element, component_types.U8):
        return ffi.WASMTIME_COMPONENT_U8.value, np.dtype(np.uint8)
    if isinstance(element, component_types.F32):
        return ffi.WASMTIME_COMPONENT_F32.value, np.dtype(np.float32)
    return None


def _convert_to_c(self: Any, store: Any, val: Any, ptr: Any) -> None:
    kind = _element_kind(self)
    if kind is None:
        _ORIGINAL["convert_to_c"](self, store, val, ptr)
        return
    code, dtype = kind
    if code == ffi.WASMTIME_COMPONENT_U8.value:
        if not isinstance(val, (bytes, bytearray)):
            raise TypeError("expected bytes value")
        payload = np.frombuffer(val, dtype=np.uint8)
    else:
        if not isinstance(val, (list, np.ndarray)):
            raise TypeError("expected list value")
        payload = np.asarray(val, dtype=dtype)
    count = len(payload)
    cells = np.zeros((count, _VAL_SIZE), dtype=np.uint8)
    cells[:, 0] = code
    cells[:, _PAYLOAD_OFFSET : _PAYLOAD_OFFSET + dtype.itemsize] = payload.view(np.uint8).reshape(
        count, dtype.itemsize
    )
    raw = ffi.wasmtime_component_vallist_t()
    ffi.wasmtime_component_vallist_new_uninit(raw, count)
    if count:
        ctypes.memmove(raw.data, cells.ctypes.data, cells.nbytes)
    ptr.contents.kind = ffi.WASMTIME_COMPONENT_LIST
    ptr.contents.of.list = raw


def _convert_from_c(self: Any, c: Any) -> Any:
    kind = _element_kind(self)
    if kind is None:
        return _ORIGINAL["convert_from_c"](self, c)
    assert c.kind == ffi.WASMTIME_COMPONENT_LIST.value
    code, dtype = kind
    try:
        count = c.of.list.size
        if count == 0:
            values = np.zeros(0, dtype=dtype)
        else:
            cells = np.frombuffer(
                ctypes.string_at(c.of.list.data, count * _VAL_SIZE), dtype=np.uint8
            ).reshape(count, _VAL_SIZE)
            if not (cells[:, 0] == code).all():
                raise TypeError("a list element is not of the list's type")
            values = (
                cells[:, _PAYLOAD_OFFSET : _PAYLOAD_OFFSET + dtype.itemsize].copy().view(dtype)
            ).reshape(count)
        if code == ffi.WASMTIME_COMPONENT_U8.value:
            return values.tobytes()
        return values.tolist()
    finally:
        ffi.wasmtime_component_vallist_delete(ctypes.byref(c.of.list))


def install() -> bool:
    """Patch :class:`wasmtime.component.ListType` (once); whether it is."""
    if _ORIGINAL:
        return True
    if not _layout_is_known():
        return False
    list_type = component_types.ListType
    _ORIGINAL["convert_to_c"] = list_type.convert_to_c
    _ORIGINAL["convert_from_c"] = list_type.convert_from_c
    list_type.convert_to_c = _convert_to_c  # type: ignore[method-assign]
    list_type.convert_from_c = _convert_from_c  # type: ignore[method-assign]
    return True
