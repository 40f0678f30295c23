"""The enums' case names the Python host checks arguments against
(``hive_mind._wit_enums``, generated from ``wit/``) are the ones the engine
component's own types carry.

The runtime's ``wit_names`` tests compare the module with the WIT text;
this compares it with the compiled component, through wasmtime-py's type
reflection, so a stale module or a component built from another WIT fails
here too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import wasmtime
import wasmtime.component as types

from hive_mind import mind
from hive_mind.engine import load_component


def enums_in(ty: Any, found: set[tuple[str, ...]]) -> None:
    """Add the case names of every enum inside the value type ``ty``."""
    if isinstance(ty, types.EnumType):
        found.add(tuple(ty.names))
    elif isinstance(ty, types.ListType):
        enums_in(ty.element, found)
    elif isinstance(ty, types.RecordType):
        for _, item in ty.fields:
            enums_in(item, found)
    elif isinstance(ty, types.VariantType):
        for _, item in ty.cases:
            if item is not None:
                enums_in(item, found)
    elif isinstance(ty, types.OptionType):
        enums_in(ty.payload, found)
    elif isinstance(ty, types.ResultType):
        for item in (ty.ok, ty.err):
            if item is not None:
                enums_in(item, found)


def component_enums(path: Path) -> set[tuple[str, ...]]:
    """The case names of every enum in the functions the component
    imports from or exports to a hive:mind interface."""
    engine, loaded = load_component(path, epoch_interruption=True)
    component = loaded.type
    found: set[tuple[str, ...]] = set()
    for externs in (component.imports(engine), component.exports(engine)):
        for name, item in externs.items():
            if not name.startswith("hive:mind/"):
                continue
            for function in item.ty.exports(engine).values():
                if isinstance(function.ty, types.FuncType):
                    for _, param in function.ty.params:
                        enums_in(param, found)
                    if function.ty.result is not None:
                        enums_in(function.ty.result, found)
    return found


def test_the_hosts_choices_are_the_components_enums(engine_component: Path) -> None:
    found = component_enums(engine_component)
    choices = {
        "IMPORTANCE": mind.IMPORTANCE,
        "SOURCES": mind.SOURCES,
        "SCOPES": mind.SCOPES,
        "FORMATS": mind.FORMATS,
        "DISTILLATIONS": mind.DISTILLATIONS,
        "PROFILES": mind.PROFILES,
    }
    for name, cases in choices.items():
        assert cases in found, f"{name} = {cases} is no enum of the engine component"

