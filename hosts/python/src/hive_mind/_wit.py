"""Component-model values as wasmtime-py 50 represents them, and helpers.

wasmtime-py converts every value crossing the component boundary by its WIT
type, in both directions (host functions the component imports, and exports
the host calls):

- ``bool``, integers, floats, ``char``, ``string``: ``bool``, ``int``,
  ``float`` (exactly ``float`` for ``f32``/``f64``: an ``int`` or a numpy
  scalar is refused), ``str``.
- ``list<u8>``: ``bytes``; any other ``list<T>``: a Python ``list``.
- ``record``: a :class:`wasmtime.component.Record` whose attributes are the
  WIT field names *as written*, kebab-case (``getattr(r, "created-at")``).
  Going in, any object with those attributes will do; :func:`record` builds
  one from snake_case keywords.
- ``enum``: the case name as a ``str`` (``%flag`` is ``"flag"``).
- ``flags``: a ``set`` of ``str``.
- ``own<R>`` / ``borrow<R>``: a :class:`~wasmtime.component.ResourceAny`
  coming in; going out a ``ResourceAny`` or a
  :class:`~wasmtime.component.ResourceHost` (``ResourceHost.own(rep, type)``).
- ``variant``, ``option``, ``result``: **it depends on the cases.** When the
  Python classes of the cases' payloads are pairwise disjoint (a case
  without payload counts as ``object``), the value is *untagged*: just the
  payload (``None`` for a payload-less case), and the case is recognised by
  its class. Otherwise it is *tagged*: ``Variant(tag, payload)``.

The last rule shapes every interface of hive-mind:

=================================================  ==========================
WIT type                                           Python value
=================================================  ==========================
``sqlite.value`` (s64/f64/string/list<u8>/none)    ``int | float | str | bytes
                                                   | None`` (untagged)
``types.mind`` (personal / workspace(string))      ``None`` or ``"acme"``
``option<T>`` (``T`` not an option)                ``None`` or the value
hive-mind's error variants (two cases or more      ``Variant("io", "msg")``,
share a payload class)                             ``Variant("busy")``
``logic.error`` (one case)                         just its payload (a ``str``)
``result<T, E>``, ``E`` tagged, ``T`` not          the ok value itself, or the
                                                   ``Variant`` of the error
``result<_, E>``, ``E`` tagged                     ``None`` or the ``Variant``
``result`` (no payloads, ``wasi:cli/run``)         ``Variant("ok")``
=================================================  ==========================

So a host function returning ``result<connection, error>`` returns either a
``ResourceHost`` or a ``Variant`` of the error, and an export returning
``result<recall, error>`` gives back a ``Record`` or a ``Variant``; every
result of the engine's ``memory`` and ``admin`` interfaces is of that shape
(their ok types are never tagged variants), which :func:`split_result`
relies on.
"""

from __future__ import annotations

from typing import Any

from wasmtime.component import Record, Variant

__all__ = ["WIT_VERSION", "Record", "Variant", "interface", "record", "field", "split_result"]


#: The version of the WIT package ``hive:mind`` this host implements
#: (``tests/test_bad_input.py`` compares it with ``wit/``).
WIT_VERSION = "0.2.0"


def interface(name: str) -> str:
    """The full name of the ``hive:mind`` interface ``name`` at this
    host's version (``hive:mind/sqlite@0.2.0``)."""
    return f"hive:mind/{name}@{WIT_VERSION}"


def record(**fields: Any) -> Record:
    """A record with the given fields, snake_case names written kebab-case."""
    value = Record()
    for name, item in fields.items():
        setattr(value, name.replace("_", "-"), item)
    return value


def field(value: Any, name: str) -> Any:
    """The field ``name`` (snake_case) of a record lifted from the component."""
    return getattr(value, name.replace("_", "-"))


def split_result(value: Any) -> tuple[bool, Any]:
    """``(True, ok)`` or ``(False, error)`` for a lifted untagged ``result``
    whose error is a tagged variant (see the module docs)."""
    if isinstance(value, Variant):
        return False, value
    return True, value
