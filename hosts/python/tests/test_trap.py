"""Trap recovery in the Python host: a call stopped by its deadline in the
middle of a write transaction raises :class:`EngineTrap` naming the limit,
the database's write lock is released at once (the ``hive-mind`` CLI, another
process, saves), and the same host keeps serving on a fresh instance.
"""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
import wasmtime
from test_engine import Cli

from hive_mind._wit import field, record, split_result
from hive_mind.embedder import EmbedderInfo
from hive_mind.engine import ADMIN, DEFAULT_DEADLINES_S, HARVEST, MEMORY, ComponentHost, Limits, trap_kind
from hive_mind.errors import EngineTrap

pytestmark = pytest.mark.usefixtures("engine_component")

#: How long a batch takes while the embedder is slow: past the deadline.
SLOW_BATCH_S = 1.5


class SlowMockEmbedder:
    """Unit vectors from a hash of the text, under the fingerprint of the
    CLI's ``HIVE_MIND_EMBEDDER=mock`` (so the CLI may write the same mind);
    each batch sleeps while ``slow`` is set."""

    slow = False

    def info(self) -> EmbedderInfo:
        return EmbedderInfo("mock", "sha256-hash", 384, meaningful=False, max_tokens=256)

    def embed(self, texts: Sequence[str], kind: str = "document") -> list[list[float]]:
        if self.slow:
            time.sleep(SLOW_BATCH_S)
        vectors = []
        for text in texts:
            digest = hashlib.sha256(text.encode()).digest() * 12
            vector = [byte / 255 - 0.5 for byte in digest[:384]]
            norm = math.sqrt(sum(x * x for x in vector)) or 1.0
            vectors.append([x / norm for x in vector])
        return vectors


def save(host: ComponentHost, content: str) -> None:
    ok, saved = split_result(
        host.call(
            "save-memory",
            record(
                content=content, importance=None, source=None, mind=None, created_at=None, kind=None
            ),
            interface=MEMORY,
        )
    )
    assert ok, saved


def test_a_deadline_inside_a_write_transaction_releases_the_lock_and_the_host_keeps_serving(
    cli_binary: Path, engine_component: Path, tmp_path: Path
) -> None:
    cli = Cli(cli_binary, tmp_path / "home")
    data = tmp_path / "data"
    embedder = SlowMockEmbedder()
    limits = Limits(deadlines_s={**DEFAULT_DEADLINES_S, "maintenance": 0.2})
    host = ComponentHost(engine_component, data, embedder, limits=limits)
    try:
        for content in (
            "The ledger service stores invoices in Postgres.",
            "Deploys go out on Tuesdays after the standup.",
        ):
            save(host, content)

        # A reindex step opens BEGIN IMMEDIATE and re-embeds inside it: the
        # slow embedder keeps it there past the 200 ms deadline.
        embedder.slow = True
        with pytest.raises(EngineTrap) as trapped:
            host.call("reindex-step", None, 16, interface=ADMIN)
        embedder.slow = False
        assert trapped.value.kind == "deadline-exceeded", trapped.value
        assert "reindex-step" in str(trapped.value)
        assert host.restarts == 1
        assert host.sqlite.open_connections == 0

        # At once, another process saves to the same mind (held, the lock
        # would make it fail with `busy` after SQLite's busy timeout).
        env = dict(cli.env, HIVE_MIND_EMBEDDER="mock")
        done = subprocess.run(
            [str(cli.binary), "save", "--data-dir", str(data), "Saved by a second process after the trap."],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr

        # The host keeps serving on its fresh instance.
        save(host, "The first process saves again after its trap.")
        while True:
            ok, progress = split_result(host.call("reindex-step", None, 16, interface=ADMIN))
            assert ok, progress
            if field(progress, "finished"):
                break
    finally:
        host.close()

    done = subprocess.run(
        [str(cli.binary), "check", "--json", "--data-dir", str(data)],
        capture_output=True,
        text=True,
        env=dict(cli.env, HIVE_MIND_EMBEDDER="mock"),
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["ok"] is True


def test_the_memory_cap_stops_a_call_and_the_next_call_runs(engine_component: Path, tmp_path: Path) -> None:
    limits = Limits(memory_bytes=64 << 20)
    host = ComponentHost(engine_component, tmp_path / "data", SlowMockEmbedder(), limits=limits)
    try:
        save(host, "A small memory fits under the cap.")
        with pytest.raises(EngineTrap) as trapped:
            # A 30 MiB document (a memory is bounded far below the cap):
            # copied in under the cap, then the engine's own allocations
            # pass it.
            document = record(name="notes.md", bytes=b"word " * (6 << 20))
            options = record(source="markdown", mind=None, distillation="auto", dry_run=False)
            host.call("[static]import-job.start", [document], options, interface=HARVEST)
        # wasmtime-py refuses the growth, the guest says so and aborts.
        assert trapped.value.kind == "memory-limit", trapped.value
        assert host.restarts == 1
        save(host, "Another small memory after the trap.")
    finally:
        host.close()


def test_limits_from_the_environment() -> None:
    assert Limits.from_env({}) == Limits()
    limits = Limits.from_env({"HIVE_MIND_MEMORY_LIMIT_MIB": "64", "HIVE_MIND_CALL_DEADLINE_MS": "250"})
    assert limits.memory_bytes == 64 << 20
    assert limits.deadline_ticks("recall") == 25
    assert limits.deadline_ticks("maintenance") == 25
    off = Limits.from_env({"HIVE_MIND_MEMORY_LIMIT_MIB": "0", "HIVE_MIND_CALL_DEADLINE_MS": "0"})
    assert off == Limits(memory_bytes=None, deadlines_s=None)
    assert off.deadline_ticks("save") is None


def test_each_trap_maps_to_its_kind() -> None:
    def error(message: str) -> wasmtime.WasmtimeError:
        return wasmtime.WasmtimeError(f"error while executing at wasm backtrace:\n\nCaused by:\n    {message}")

    assert trap_kind(error("wasm trap: interrupt")) == "deadline-exceeded"
    assert trap_kind(error("wasm trap: call stack exhausted")) == "stack-overflow"
    assert trap_kind(error("wasm trap: wasm `unreachable` instruction executed")) == "guest-panic"
    aborted = error("wasm trap: wasm `unreachable` instruction executed")
    assert trap_kind(aborted, b"memory allocation of 33554432 bytes failed\n") == "memory-limit"
    assert trap_kind(aborted, b"panicked at src/lib.rs:1:1") == "guest-panic"
    assert trap_kind(error("wasm trap: out of bounds memory access")) == "other-trap"
    assert trap_kind(RuntimeError("the embedder thread died")) == "host-failure"
