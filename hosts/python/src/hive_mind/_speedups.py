"""Two speed-ups of wasmtime-py's value conversion (same values, less time).

wasmtime-py converts every value by walking its type through the C API, and
the engine's SQLite traffic makes that walk the Python host's main cost.
:func:`install` patches :mod:`wasmtime.component` (written against 50.0.1) twice:

1. **Type facts are remembered per type object.** A record's fields, a
   variant's cases (and whether it is tagged), a list's element type, an
   option's or result's payloads are read through the C API afresh on every
   access, so a query result of 100 rows re-reads the ``value`` variant's
   five cases for each of its values, twice. Types are immutable: the
   patched accessors read them once per type object (a call's types are
   built anew per call, so nothing outlives it).
2. **Bulk ``list<u8>`` and ``list<f32>``.** A list is converted element by
   element through ctypes, about a microsecond per element; the engine
   moves vectors as SQLite blobs (1,536 bytes for a 384-d vector) and
   embeddings as ``list<f32>``, so loading the vector index of a mind of
   10,000 frames would spend some 15 s in that loop. These two element
   types are copied in bulk instead: each element of a C-API list is a
   ``wasmtime_component_val_t`` (a one-byte kind, then a union at offset 8,
   32 bytes in all), written and read as one strided numpy array. Every
   other list keeps wasmtime-py's own code.

The value layout is checked against the installed wasmtime-py's ctypes
declarations first, and every private name patched is looked up before
anything is changed; when the layout differs or a name is gone (another
wasmtime-py), nothing is patched: conversions stay correct, only slower.
The host runs under two wasmtime-py releases: the suite under
``requirements.txt``'s 50.0.1, and the installed wheel's quick start in
``cargo xtask test`` under the newest ``pyproject.toml`` allows (51.0.0,
where these names are all there and both speed-ups apply).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    from wasmtime import _ffi as ffi
    from wasmtime.component import _types as component_types
except ImportError:  # another wasmtime-py's private layout: no speed-ups
    ffi = None
    component_types = None

_VAL_SIZE = 32
_PAYLOAD_OFFSET = 8
_ORIGINAL: dict[str, Callable[..., Any]] = {}


def _layout_is_known() -> bool:
    """Whether every private name patched or read is there, and the value
    layout is the one the bulk conversions write."""
    if ffi is None or component_types is None:
        return False
    names = (
        "wasmtime_component_val_t",
        "wasmtime_component_vallist_t",
        "wasmtime_component_vallist_new_uninit",
        "wasmtime_component_vallist_delete",
        "WASMTIME_COMPONENT_U8",
        "WASMTIME_COMPONENT_F32",
        "WASMTIME_COMPONENT_LIST",
    )
    if not all(hasattr(ffi, name) for name in names):
        return False
    classes = dict(_REMEMBERED_PROPERTIES)
    classes["VariantLikeType"] = ("_tagged",)
    for cls_name, attributes in classes.items():
        cls = getattr(component_types, cls_name, None)
        if cls is None or not all(hasattr(cls, name) for name in attributes):
            return False
    for cls_name in ("U8", "F32"):
        if not hasattr(component_types, cls_name):
            return False
    list_type = component_types.ListType
    if not (hasattr(list_type, "convert_to_c") and hasattr(list_type, "convert_from_c")):
        return False
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


def _remember_property(cls: type, name: str) -> None:
    read = getattr(cls, name).fget
    slot = f"_hive_mind_{name}"

    def remembered(self: Any) -> Any:
        try:
            return self.__dict__[slot]
        except KeyError:
            value = self.__dict__[slot] = read(self)
            return value

    setattr(cls, name, property(remembered, doc=read.__doc__))


def _remember_method(cls: type, name: str) -> None:
    compute = getattr(cls, name)
    slot = f"_hive_mind_{name}"

    def remembered(self: Any) -> Any:
        try:
            return self.__dict__[slot]
        except KeyError:
            value = self.__dict__[slot] = compute(self)
            return value

    setattr(cls, name, remembered)


_REMEMBERED_PROPERTIES = {
    "ListType": ("element",),
    "RecordType": ("fields",),
    "TupleType": ("elements",),
    "VariantType": ("cases",),
    "EnumType": ("names",),
    "OptionType": ("payload",),
    "ResultType": ("ok", "err"),
    "FlagsType": ("names",),
}


def install() -> bool:
    """Patch :mod:`wasmtime.component` (once); whether it is patched."""
    if _ORIGINAL:
        return True
    if not _layout_is_known():
        return False
    for cls_name, names in _REMEMBERED_PROPERTIES.items():
        for name in names:
            _remember_property(getattr(component_types, cls_name), name)
    _remember_method(component_types.VariantLikeType, "_tagged")
    list_type = component_types.ListType
    _ORIGINAL["convert_to_c"] = list_type.convert_to_c
    _ORIGINAL["convert_from_c"] = list_type.convert_from_c
    list_type.convert_to_c = _convert_to_c  # type: ignore[method-assign]
    list_type.convert_from_c = _convert_from_c  # type: ignore[method-assign]
    return True
