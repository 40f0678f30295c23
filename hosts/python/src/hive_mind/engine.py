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
the SHA-256 of the component, the wasmtime-py version and the engine's
configuration (with or without epoch interruption: wasmtime refuses an
artefact compiled for the other, so one name for both made the two
configurations recompile over each other, 20 s a time), written to a
temporary name and renamed into place. An unusable one is simply
recompiled.

A :class:`ComponentHost` is one store with one instance: not thread-safe
(:class:`hive_mind.HiveMind` serialises calls). A host function that raises
traps the call, and the exception comes out of the export call that made
it.

Every call runs under :class:`Limits`, as in the Rust host
(``host/runtime/src/limits.rs``, which says why each default is what it
is): the store's linear memory is capped (``Store.set_limits``), and the
engine is compiled with epoch checks, a daemon thread advances the epoch
every :data:`EPOCH_TICK_S`, and each call is armed with its kind's deadline
(``Store.set_epoch_deadline``). A call that traps — a deadline, the memory
cap, a panic in the engine, a host function that raised — leaves the
instance unusable: :meth:`ComponentHost.call` then closes the instance's
SQLite connections (rolling back what it left open, releasing the write
lock), instantiates the component afresh in a new store with the same
imports, and raises :class:`hive_mind.errors.EngineTrap` naming what
happened (its ``kind``). The next call runs on the fresh instance.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import wasmtime
from wasmtime.component import Component, Func, Linker

from . import _speedups, resources
from ._wit import WIT_VERSION, interface
from .capabilities import add_unconfigured
from .embedder import Embedder, EmbedderImports
from .errors import EngineTrap
from .reranker import RerankerImports
from .sqlite import DataDir, SqliteImports

#: The engine's exported interfaces the API calls.
MEMORY = interface("memory")
ADMIN = interface("admin")
HARVEST = interface("harvest")
REVIEW = interface("review")
WIKI = interface("wiki")

#: How often the epoch advances: the resolution of a deadline.
EPOCH_TICK_S = 0.01

#: The kinds of call, which pick the deadline (as ``CallKind`` in the Rust
#: host): ``recall`` (and reads), ``save`` (and small writes), ``import``
#: (a harvest step, ``remember-exchange``), ``maintenance`` (reindex, check).
CALL_KINDS = ("recall", "save", "import", "maintenance")

#: The default deadline of each kind, in seconds (the Rust host's defaults).
DEFAULT_DEADLINES_S = {"recall": 30.0, "save": 120.0, "import": 600.0, "maintenance": 3600.0}

#: The default cap on the guest's linear memory: 2 GiB.
DEFAULT_MEMORY_BYTES = 2 << 30

#: Which kind each export is; an export not listed is ``recall``.
_KINDS = {
    "save-memory": "save",
    "save-memories": "save",
    "save-entity": "save",
    "create-relation": "save",
    "create-workspace": "save",
    "set-identity": "save",
    "add-awareness": "save",
    "remove-awareness": "save",
    "clear-awareness": "save",
    "retire-entity": "save",
    "remember-exchange": "import",
    "import-conversations": "import",
    "[static]import-job.start": "import",
    "[method]import-job.step": "import",
    "[method]import-job.report": "import",
    "reindex-step": "maintenance",
    "check": "maintenance",
    "cleanup-frames": "maintenance",
    "forget": "maintenance",
    "correct-memory": "save",
    "memory-history": "recall",
    "dedupe-entities": "maintenance",
    "export-mind": "maintenance",
    "restore-mind": "import",
    "set-metadata": "save",
    "merge": "save",
    "close-session": "save",
    "release": "save",
    "decide-pair": "save",
    "get-page": "save",
    "clean-entities": "maintenance",
    "list-flagged": "maintenance",
    "health": "maintenance",
    "delete-workspace": "maintenance",
}


@dataclass(frozen=True)
class Limits:
    """What one call may use: ``memory_bytes`` caps the guest's linear
    memory (``None``: wasm32's 4 GiB), ``deadlines_s`` the seconds a call of
    each kind may run (``None``: no deadline, and no epoch checks compiled
    in; a kind at 0 has none)."""

    memory_bytes: int | None = DEFAULT_MEMORY_BYTES
    deadlines_s: dict[str, float] | None = field(default_factory=lambda: dict(DEFAULT_DEADLINES_S))

    @staticmethod
    def from_env(environ: dict[str, str] | None = None) -> Limits:
        """The defaults, overridden by ``HIVE_MIND_MEMORY_LIMIT_MIB`` and
        ``HIVE_MIND_CALL_DEADLINE_MS`` (every kind; 0 turns a limit off), as
        the Rust host reads them."""
        env = os.environ if environ is None else environ
        memory: int | None = DEFAULT_MEMORY_BYTES
        deadlines: dict[str, float] | None = dict(DEFAULT_DEADLINES_S)
        if (mib := env.get("HIVE_MIND_MEMORY_LIMIT_MIB")) is not None:
            memory = int(mib) << 20 or None
        if (ms := env.get("HIVE_MIND_CALL_DEADLINE_MS")) is not None:
            deadlines = {kind: int(ms) / 1000 for kind in CALL_KINDS} if int(ms) > 0 else None
        return Limits(memory, deadlines)

    def deadline_ticks(self, kind: str) -> int | None:
        """The epoch deadline of a call of ``kind`` in ticks (at least one),
        or ``None`` when calls have no deadline."""
        if self.deadlines_s is None:
            return None
        seconds = self.deadlines_s.get(kind, 0.0)
        if seconds <= 0:
            return 1 << 62
        return max(1, -(-int(seconds * 1000) // int(EPOCH_TICK_S * 1000)))


def _tick(engine: weakref.ref[wasmtime.Engine], stop: threading.Event) -> None:
    """Advance the engine's epoch until the host closes or the engine is gone."""
    while not stop.wait(EPOCH_TICK_S):
        live = engine()
        if live is None:
            return
        live.increment_epoch()
        del live


#: What the guest's Rust runtime writes to its stderr before it aborts on an
#: allocation that failed (``std``'s default allocation-error hook).
ALLOCATION_FAILED = b"memory allocation of "

#: How much of a call's guest stderr is kept to classify its trap.
GUEST_STDERR_KEPT = 4096


def trap_kind(error: BaseException, guest_stderr: bytes = b"") -> str:
    """What stopped a call: ``deadline-exceeded``, ``memory-limit``,
    ``stack-overflow``, ``guest-panic``, ``other-trap`` or ``host-failure``
    (a host function raised), the Rust host's kinds. A component call's trap
    reaches wasmtime-py as a ``WasmtimeError`` whose message names the trap,
    and is read from it.

    wasmtime-py's limiter makes a refused ``memory.grow`` return -1, and the
    guest's allocator then aborts: a memory cap reached is an
    ``unreachable`` trap like a panic (the Rust host's limiter traps on the
    refusal itself). What tells them apart is what the guest wrote to its
    stderr during the call (``guest_stderr``): Rust's allocation-error hook
    says ``memory allocation of N bytes failed`` before it aborts. One case
    stays ``guest-panic``: an argument larger than the cap itself, refused
    while it is copied in, aborts in the canonical ABI's allocator, which
    says nothing."""
    if isinstance(error, wasmtime.Trap):
        code = error.trap_code
        if code == wasmtime.TrapCode.INTERRUPT:
            return "deadline-exceeded"
        if code == wasmtime.TrapCode.STACK_OVERFLOW:
            return "stack-overflow"
        if code == wasmtime.TrapCode.UNREACHABLE:
            return _panic_or_memory(guest_stderr)
        return "other-trap"
    if not isinstance(error, wasmtime.WasmtimeError):
        return "host-failure"
    message = str(error)
    if "wasm trap: interrupt" in message:
        return "deadline-exceeded"
    if "call stack exhausted" in message:
        return "stack-overflow"
    if "`unreachable` instruction executed" in message:
        return _panic_or_memory(guest_stderr)
    return "other-trap"


def _panic_or_memory(guest_stderr: bytes) -> str:
    """An abort's kind: ``memory-limit`` when the guest said an allocation
    failed, else ``guest-panic``."""
    return "memory-limit" if ALLOCATION_FAILED in guest_stderr else "guest-panic"


def default_component_path() -> Path:
    """``$HIVE_MIND_COMPONENT``, else the component installed with the
    package, else the guest build of this source tree
    (``target/guest/wasm32-wasip2/guest/hive_mind_engine_component.wasm``):
    :func:`hive_mind.resources.component_path`."""
    return resources.component_path()


def cache_dir() -> Path:
    """Where compiled components are cached: ``$HIVE_MIND_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/hive-mind/components`` (``~/.cache`` when unset)."""
    configured = os.environ.get("HIVE_MIND_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "hive-mind" / "components"


#: The interfaces the engine component exports, each
#: ``hive:mind/<name>@WIT_VERSION``.
ENGINE_EXPORTS = ("memory", "admin", "review", "harvest", "wiki")


class ComponentError(Exception):
    """The engine component is missing, unreadable, not a component, or
    not the engine of this host's WIT version; ``path`` names it."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


def check_engine(path: Path, engine: wasmtime.Engine, component: Component) -> None:
    """Raise :class:`ComponentError` unless ``component`` is the engine of
    this host's WIT version: it exports every :data:`ENGINE_EXPORTS`
    interface as ``hive:mind/<name>@WIT_VERSION`` and imports ``hive:mind``
    interfaces of that version only."""
    kind = component.type
    exported = list(kind.exports(engine))
    imported = list(kind.imports(engine))
    versions: dict[str, str] = {}
    for name in exported:
        package, _, version = name.partition("@")
        short = package.removeprefix("hive:mind/")
        if package.startswith("hive:mind/") and short in ENGINE_EXPORTS:
            versions[short] = version
    others = sorted(
        {version for version in versions.values() if version != WIT_VERSION}
        | {
            name.partition("@")[2]
            for name in imported
            if name.startswith("hive:mind/") and name.partition("@")[2] != WIT_VERSION
        }
    )
    if others:
        raise ComponentError(
            path,
            f"an engine of hive:mind@{', '.join(others)}; this host speaks hive:mind@{WIT_VERSION} "
            "(use the component this package ships, or a host of that version)",
        )
    lacking = [interface(name) for name in ENGINE_EXPORTS if name not in versions]
    if lacking:
        named = [name for name in exported if ":" in name]
        raise ComponentError(
            path,
            f"not the engine component: it does not export {', '.join(lacking)} "
            f"(it exports {', '.join(named) or 'nothing named'})",
        )


def load_component(path: Path, *, epoch_interruption: bool = False) -> tuple[wasmtime.Engine, Component]:
    """A new engine (``epoch_interruption`` on or off) and the component at
    ``path`` (a ``.wasm`` file or ``.wat`` text) compiled for it, or loaded
    from the cache when compiled before for the same configuration. Raises
    :class:`ComponentError` when it is missing, unreadable or not a
    component."""
    config = wasmtime.Config()
    config.epoch_interruption = epoch_interruption
    engine = wasmtime.Engine(config)
    try:
        source = path.read_bytes()
    except FileNotFoundError:
        raise ComponentError(
            path, "no engine component here; build it (`just build-guest`) or set HIVE_MIND_COMPONENT"
        ) from None
    except OSError as error:
        raise ComponentError(path, f"unreadable: {error.strerror or error}") from error
    digest = hashlib.sha256(source).hexdigest()[:32]
    version = importlib.metadata.version("wasmtime")
    variant = "epoch" if epoch_interruption else "plain"
    cached = cache_dir() / f"{path.stem}-python-wasmtime{version}-{variant}-{digest}.cwasm"
    if cached.is_file():
        try:
            return engine, Component.deserialize(engine, cached.read_bytes())
        except (OSError, wasmtime.WasmtimeError):
            pass
    try:
        component = Component(engine, source)
    except wasmtime.WasmtimeError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "no reason given"
        raise ComponentError(
            path, f"not a WebAssembly component, or a truncated or damaged one ({first})"
        ) from error
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
    return engine, component


def sandbox_wasi(stderr: Callable[[bytes], None] | None = None) -> wasmtime.WasiConfig:
    """The engine's WASI context: no arguments, no environment, no
    preopened directory, no stdin or stdout (``tests/test_sandbox.py`` runs
    the repository's sandbox probe under it: the probe gets nothing, network
    included). What the guest writes to stderr goes to ``stderr`` (the host
    reads it to classify a trap), else nowhere."""
    wasi = wasmtime.WasiConfig()
    if stderr is not None:
        wasi.stderr_custom = stderr
    return wasi


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
        limits: Limits | None = None,
        engine_only: bool = False,
    ) -> None:
        """Compile ``component`` (a ``.wasm`` file, or ``.wat`` text) and
        instantiate it over ``data_dir``; ``embedder`` ``None`` makes the
        embedder import answer ``unavailable`` with ``embedder_unavailable``;
        ``limits`` default to :meth:`Limits.from_env`. With ``engine_only``
        anything but the engine of this host's WIT version is refused first
        (:func:`check_engine`).
        """
        _speedups.install()
        self.limits = Limits.from_env() if limits is None else limits
        self.engine, self.component = load_component(
            Path(component), epoch_interruption=self.limits.deadlines_s is not None
        )
        if engine_only:
            check_engine(Path(component), self.engine, self.component)
        self._ticking = threading.Event()
        self._ticker: threading.Thread | None = None
        if self.limits.deadlines_s is not None:
            self._ticker = threading.Thread(
                target=_tick,
                args=(weakref.ref(self.engine), self._ticking),
                name="hive-mind-epoch",
                daemon=True,
            )
            self._ticker.start()
        self.sqlite = SqliteImports(DataDir(data_dir))
        self.embedder = EmbedderImports(embedder, embedder_unavailable)
        self._linker = build_linker(self.engine, self.sqlite, self.embedder, reranker)
        #: How many times the instance was replaced after a trap.
        self.restarts = 0
        self._instantiate()

    def _instantiate(self) -> None:
        """A fresh store with its limits, and the component in it."""
        self.store = wasmtime.Store(self.engine)
        self._guest_stderr = bytearray()
        self.store.set_wasi(sandbox_wasi(self._keep_guest_stderr))
        if self.limits.memory_bytes is not None:
            self.store.set_limits(memory_size=self.limits.memory_bytes)
        ticks = self.limits.deadline_ticks("recall")
        if ticks is not None:
            self.store.set_epoch_deadline(ticks)
        self.instance = self._linker.instantiate(self.store, self.component)
        self._funcs: dict[tuple[str | None, str], Func] = {}

    def _keep_guest_stderr(self, data: bytes) -> None:
        """The guest's stderr: the last :data:`GUEST_STDERR_KEPT` bytes."""
        self._guest_stderr += data
        del self._guest_stderr[:-GUEST_STDERR_KEPT]

    def restart(self) -> None:
        """Drop the instance and start a fresh one: the old one's connections
        are closed first (rolling back an open transaction and releasing its
        lock), its pending embeddings forgotten."""
        self.sqlite.close()
        self.embedder.forget_pending()
        self._drop_instance()
        self._instantiate()
        self.restarts += 1

    def _drop_instance(self) -> None:
        """Release the instance and its store now, in this thread (left to
        the garbage collector, they could be freed on the ticker's thread
        in the middle of a call)."""
        self._funcs.clear()
        del self.instance
        del self.store

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
        """Call an exported function under its kind's deadline; its result as
        wasmtime-py lifts it (see :mod:`hive_mind._wit`). A call that traps
        restarts the instance and raises :class:`EngineTrap`."""
        func = self.func(name, interface)
        ticks = self.limits.deadline_ticks(_KINDS.get(name, "recall"))
        if ticks is not None:
            self.store.set_epoch_deadline(ticks)
        self._guest_stderr.clear()
        try:
            result = func(self.store, *args)
            func.post_return(self.store)
        except (wasmtime.Trap, wasmtime.WasmtimeError) as error:
            kind = trap_kind(error, bytes(self._guest_stderr))
            self.restart()
            raise EngineTrap(
                "trap", f"{name} was stopped ({kind}); the engine was restarted: {error}", kind=kind
            ) from error
        except BaseException:
            # A host function raised: the exception comes out as it is, but
            # it unwound through the guest, whose instance is spent.
            self.restart()
            raise
        return result

    def close(self) -> None:
        """Close the databases the component left open, stop the embedding
        worker and the epoch ticker, and release the instance."""
        self.sqlite.close()
        self.embedder.close()
        self._ticking.set()
        if self._ticker is not None:
            self._ticker.join()
        if hasattr(self, "store"):
            self._drop_instance()
