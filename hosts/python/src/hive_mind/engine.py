"""The wiring: the engine component in wasmtime-py, its imports from Python.

The engine is one WebAssembly component (world ``engine`` in
``wit/worlds.wit``). This module compiles it, defines every import it may
ask for in a component :class:`~wasmtime.component.Linker`, instantiates it
in a :class:`~wasmtime.Store`, and calls its exports:

- ``hive:mind/sqlite@0.2.0``: :class:`hive_mind.sqlite.SqliteImports` over
  a data directory;
- ``hive:mind/embedder@0.2.0``: :class:`hive_mind.embedder.EmbedderImports`
  over an embedder (the in-process model by default);
- ``hive:mind/reranker@0.2.0``, ``hive:mind/llm@0.2.0`` and
  ``hive:mind/fetch@0.2.0``: all ``unavailable``
  (:mod:`hive_mind.capabilities`);
- WASI 0.2 (``add_wasip2``), as a sandbox: no arguments, no environment
  variables, no preopened directory, no inherited stdio. The engine reads
  the clocks and the random seed through it and nothing else; its storage
  is the ``sqlite`` import only.

``hive:mind/types`` declares types only and needs no definition.

Compiling the engine takes seconds; the compiled artefact is cached on disk
as the Rust host caches its own (``host/runtime/src/cache.rs``): in
``$HIVE_MIND_CACHE_DIR``, else ``~/.cache/hive-mind/components``, named by
the SHA-256 of the component and the wasmtime-py version, written to a
temporary name and renamed into place. wasmtime refuses an artefact from
another engine configuration, and an unusable one is simply recompiled.

A :class:`ComponentHost` is one store with one instance: not thread-safe
(:class:`hive_mind.HiveMind` serialises calls). A host function that raises
traps the call, and the exception comes out of the export call that made
it.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import tempfile
from pathlib import Path
from typing import Any

import wasmtime
from wasmtime.component import Component, Func, Linker

from . import _speedups
from .capabilities import add_unconfigured
from .embedder import Embedder, EmbedderImports
from .reranker import RerankerImports
from .sqlite import DataDir, SqliteImports

#: The engine's exported interfaces the API calls.
MEMORY = "hive:mind/memory@0.2.0"
ADMIN = "hive:mind/admin@0.2.0"
HARVEST = "hive:mind/harvest@0.2.0"

#: The engine component's file name in a guest build.
COMPONENT_FILE = "hive_mind_engine_component.wasm"


def default_component_path() -> Path:
    """``$HIVE_MIND_COMPONENT``, else the guest build of this source tree
    (``target/guest/wasm32-wasip2/guest/hive_mind_engine_component.wasm``)."""
    configured = os.environ.get("HIVE_MIND_COMPONENT")
    if configured:
        return Path(configured)
    repository = Path(__file__).resolve().parents[4]
    return repository / "target" / "guest" / "wasm32-wasip2" / "guest" / COMPONENT_FILE


def cache_dir() -> Path:
    """Where compiled components are cached: ``$HIVE_MIND_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/hive-mind/components`` (``~/.cache`` when unset)."""
    configured = os.environ.get("HIVE_MIND_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "hive-mind" / "components"


def load_component(engine: wasmtime.Engine, path: Path) -> Component:
    """The component at ``path`` (a ``.wasm`` file or ``.wat`` text),
    compiled, or loaded from the cache when compiled before."""
    source = path.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:32]
    version = importlib.metadata.version("wasmtime")
    cached = cache_dir() / f"{path.stem}-python-wasmtime{version}-{digest}.cwasm"
    if cached.is_file():
        try:
            return Component.deserialize(engine, cached.read_bytes())
        except (OSError, wasmtime.WasmtimeError):
            pass
    component = Component(engine, source)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=cached.parent, suffix=".tmp")
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(component.serialize())
            os.replace(temporary, cached)
        finally:
            Path(temporary).unlink(missing_ok=True)
    except OSError:
        pass  # No cache: the next load compiles again.
    return component


def sandbox_wasi() -> wasmtime.WasiConfig:
    """The engine's WASI context: no arguments, no environment, no
    preopened directory, no stdio (``tests/test_sandbox.py`` runs the
    repository's sandbox probe under it: the probe gets nothing, network
    included)."""
    return wasmtime.WasiConfig()


def build_linker(
    engine: wasmtime.Engine,
    sqlite: SqliteImports,
    embedder: EmbedderImports,
    reranker: RerankerImports | None = None,
) -> Linker:
    """A linker defining every import of the engine world, and WASI
    (``reranker`` ``None``: the reranker answers ``unavailable``)."""
    linker = Linker(engine)
    linker.add_wasip2()
    with linker.root() as root:
        sqlite.add_to(root)
        embedder.add_to(root)
        if reranker is not None:
            reranker.add_to(root)
        add_unconfigured(root, reranker=reranker is None)
    return linker


class ComponentHost:
    """A component instantiated with the Python host's imports."""

    def __init__(
        self,
        component: str | Path,
        data_dir: str | Path,
        embedder: Embedder | None,
        embedder_unavailable: str = "no embedder is configured",
        reranker: RerankerImports | None = None,
    ) -> None:
        """Compile ``component`` (a ``.wasm`` file, or ``.wat`` text) and
        instantiate it over ``data_dir``; ``embedder`` ``None`` makes the
        embedder import answer ``unavailable`` with ``embedder_unavailable``.
        """
        _speedups.install()
        self.engine = wasmtime.Engine()
        self.component = load_component(self.engine, Path(component))
        self.sqlite = SqliteImports(DataDir(data_dir))
        self.embedder = EmbedderImports(embedder, embedder_unavailable)
        linker = build_linker(self.engine, self.sqlite, self.embedder, reranker)
        self.store = wasmtime.Store(self.engine)
        self.store.set_wasi(sandbox_wasi())
        self.instance = linker.instantiate(self.store, self.component)
        self._funcs: dict[tuple[str | None, str], Func] = {}

    def imports(self) -> list[str]:
        """The names the component imports."""
        return list(self.component.type.imports(self.engine))

    def func(self, name: str, interface: str | None = None) -> Func:
        """The exported function ``name``, of ``interface`` or at the root."""
        key = (interface, name)
        if key not in self._funcs:
            scope = None
            if interface is not None:
                scope = self.instance.get_export_index(self.store, interface)
                if scope is None:
                    raise LookupError(f"the component exports no {interface}")
            index = self.instance.get_export_index(self.store, name, scope)
            func = self.instance.get_func(self.store, index) if index is not None else None
            if func is None:
                where = f"{interface} exports" if interface else "the component exports"
                raise LookupError(f"{where} no function {name}")
            self._funcs[key] = func
        return self._funcs[key]

    def call(self, name: str, *args: Any, interface: str | None = None) -> Any:
        """Call an exported function; its result as wasmtime-py lifts it
        (see :mod:`hive_mind._wit`)."""
        func = self.func(name, interface)
        result = func(self.store, *args)
        func.post_return(self.store)
        return result

    def close(self) -> None:
        """Close the databases the component left open and stop the
        embedding worker."""
        self.sqlite.close()
        self.embedder.close()
