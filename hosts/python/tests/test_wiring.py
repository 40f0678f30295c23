"""The imports through a real component boundary.

``fixtures/echo.wat`` imports the engine world's four hive:mind interfaces
with their exact types and re-exports each function unchanged, so these
calls reach the Python host as the engine's would: lowered and lifted by
wasmtime, the ``connection`` resource owned and borrowed by the guest.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import wasmtime.component as types
from conftest import ECHO_WAT, REPOSITORY
from wasmtime.component import ResourceAny

from hive_mind import capabilities, errors
from hive_mind._wit import Variant, field, record, split_result
from hive_mind.embedder import DEFAULT_MODEL, EmbedderInfo, EmbedError, InProcessEmbedder
from hive_mind.engine import ADMIN, MEMORY, ComponentHost


class FakeEmbedder:
    """Vectors that say which text they are for; fails on ``"boom"``, and
    on each text holding ``"refused"`` alone."""

    def info(self) -> EmbedderInfo:
        return EmbedderInfo("fake", "counting", 3, meaningful=False)

    def embed(self, texts: Sequence[str], kind: str = "document") -> list[list[float] | str]:
        if "boom" in texts:
            raise EmbedError("failed", "boom is not embeddable")
        # The kind crosses the boundary: queries get -1, documents +1.
        sign = -1.0 if kind == "query" else 1.0
        refused = "the model refused it"
        return [refused if "refused" in text else [float(len(text)), 0.5, sign] for text in texts]


@pytest.fixture
def echo(tmp_path: Path) -> ComponentHost:
    host = ComponentHost(ECHO_WAT, tmp_path, FakeEmbedder())
    yield host
    host.close()


def test_the_echo_imports_what_the_engine_world_imports(echo: ComponentHost) -> None:
    world = (REPOSITORY / "wit" / "worlds.wit").read_text()
    imported = set(re.findall(r"^\s*import (\w+);", world, re.MULTILINE))
    version = re.search(r"^package hive:mind@([\d.]+);", world, re.MULTILINE)
    assert version is not None
    assert {f"hive:mind/{name}@{version[1]}" for name in imported} == set(echo.imports())


def describe(ty: Any) -> str:
    """A component value type written out, WIT-like, for comparisons."""
    if isinstance(ty, types.ListType):
        return f"list<{describe(ty.element)}>"
    if isinstance(ty, types.RecordType):
        return "record{" + ", ".join(f"{name}: {describe(item)}" for name, item in ty.fields) + "}"
    if isinstance(ty, types.VariantType):
        cases = (name if item is None else f"{name}({describe(item)})" for name, item in ty.cases)
        return "variant{" + ", ".join(cases) + "}"
    if isinstance(ty, types.EnumType):
        return "enum{" + ", ".join(ty.names) + "}"
    if isinstance(ty, types.OptionType):
        return f"option<{describe(ty.payload)}>"
    if isinstance(ty, types.ResultType):
        ok = "_" if ty.ok is None else describe(ty.ok)
        err = "_" if ty.err is None else describe(ty.err)
        return f"result<{ok}, {err}>"
    if isinstance(ty, (types.OwnType, types.BorrowType)):
        return type(ty).__name__.removesuffix("Type").lower()
    return type(ty).__name__.lower()


def import_signatures(host: ComponentHost, interface: str) -> dict[str, str]:
    """Each function the component imports from ``interface``, written out."""
    instance = host.component.type.imports(host.engine)[interface].ty
    signatures = {}
    for name, item in instance.exports(host.engine).items():
        func = item.ty
        if isinstance(func, types.FuncType):
            params = ", ".join(f"{param}: {describe(ty)}" for param, ty in func.params)
            result = "()" if func.result is None else describe(func.result)
            signatures[name] = f"({params}) -> {result}"
    return signatures


def test_the_echo_imports_what_the_engine_imports(
    echo: ComponentHost, engine_component: Path, tmp_path: Path
) -> None:
    engine = ComponentHost(engine_component, tmp_path / "engine", FakeEmbedder())
    try:
        for interface in engine.imports():
            if interface.startswith("hive:mind/") and interface != "hive:mind/types@0.2.0":
                expected = import_signatures(engine, interface)
                assert expected, interface
                assert import_signatures(echo, interface) == expected, interface
    finally:
        engine.close()


def test_open_create_remove_and_errors_cross_as_variants(echo: ComponentHost, tmp_path: Path) -> None:
    assert echo.call("open", "personal") == Variant("no-such-database")
    assert echo.call("open", "workspace/../x") == Variant("access-denied")
    assert echo.call("databases") == []
    conn = echo.call("create", "personal")
    assert isinstance(conn, ResourceAny) and conn.owned
    assert echo.sqlite.open_connections == 1
    echo.call("create", "workspace/acme")
    assert echo.call("databases") == ["personal", "workspace/acme"]
    assert (tmp_path / "workspaces" / "acme.sqlite").is_file()
    assert echo.call("remove-database", "personal") == Variant("access-denied")
    assert echo.call("remove-database", "workspace/none") == Variant("no-such-database")
    assert echo.call("remove-database", "workspace/acme") is None
    assert not (tmp_path / "workspaces" / "acme.sqlite").exists()
    assert echo.call("databases") == ["personal"]


def test_values_rows_and_errors_through_the_boundary(echo: ComponentHost) -> None:
    conn = echo.call("create", "personal")
    # The schema changes in a migration step, as the engine's do (the
    # sandbox refuses any other schema change).
    echo.call("execute", conn, "BEGIN", [])
    created = echo.call("execute", conn, "CREATE TABLE t (id INTEGER PRIMARY KEY, v, u UNIQUE)", [])
    assert (created.columns, created.rows) == ([], [])
    echo.call("execute", conn, "PRAGMA user_version = 1", [])
    echo.call("execute", conn, "COMMIT", [])
    vector_blob = bytes(range(256)) * 6
    values = [2**63 - 1, -(2**63), 0.1, "é ✓ 🚀", b"", vector_blob, None]
    for value in values:
        echo.call("execute", conn, "INSERT INTO t (v) VALUES (?1)", [value])
    assert (echo.call("last-insert-rowid", conn), echo.call("changes", conn)) == (len(values), 1)
    result = echo.call("execute", conn, "SELECT id, v FROM t ORDER BY id", [])
    assert result.columns == ["id", "v"]
    assert [row.values for row in result.rows] == [[i + 1, v] for i, v in enumerate(values)]
    assert [type(row.values[1]) for row in result.rows] == [int, int, float, str, bytes, bytes, type(None)]
    echo.call("execute", conn, "INSERT INTO t (u) VALUES (?1)", ["x"])
    assert echo.call("execute", conn, "INSERT INTO t (u) VALUES (?1)", ["x"]) == Variant(
        "constraint", "UNIQUE constraint failed: t.u"
    )
    failed = echo.call("execute", conn, "SELECT ?1, ?2", [1])
    assert isinstance(failed, Variant) and failed.tag == "io" and "2 parameter(s), 1 given" in failed.payload


def test_the_guest_dropping_a_connection_closes_it(echo: ComponentHost) -> None:
    first = echo.call("create", "personal")
    second = echo.call("open", "personal")
    assert echo.sqlite.open_connections == 2
    echo.call("release", first)
    assert echo.sqlite.open_connections == 1
    second.drop(echo.store)
    assert echo.sqlite.open_connections == 0


def test_embedder_info_and_vectors(echo: ComponentHost) -> None:
    info = echo.call("info")
    assert (info.provider, info.model, info.dimensions, info.meaningful) == ("fake", "counting", 3, False)
    assert echo.call("embed", ["ab", "", "abcd"], "document") == [[2.0, 0.5, 1.0], [0.0, 0.5, 1.0], [4.0, 0.5, 1.0]]
    assert echo.call("embed", ["ab"], "query") == [[2.0, 0.5, -1.0]]
    assert echo.call("embed", [], "document") == []
    assert echo.call("embed", ["boom"], "document") == Variant("failed", "boom is not embeddable")


def test_a_text_that_fails_alone_comes_back_as_its_reason(echo: ComponentHost) -> None:
    # Each entry is a vector (ok) or the reason (err), through the boundary.
    assert echo.call("embed", ["ab", "refused x"], "document") == [[2.0, 0.5, 1.0], "the model refused it"]
    pending = echo.call("start-embed", ["refused y", "abcd"], "query")
    assert echo.call("finish", pending) == ["the model refused it", [4.0, 0.5, -1.0]]
    echo.call("release-pending", pending)
    # Every text failing is the call's error, not a list of failures.
    assert echo.call("embed", ["refused z"], "document") == Variant(
        "failed", "failed on every text: the model refused it"
    )


def test_a_started_embedding_is_finished_once(echo: ComponentHost) -> None:
    pending = echo.call("start-embed", ["ab", "abcd"], "query")
    assert isinstance(pending, ResourceAny) and pending.owned
    assert echo.call("finish", pending) == [[2.0, 0.5, -1.0], [4.0, 0.5, -1.0]]
    assert echo.call("finish", pending) == Variant("failed", "this embedding was already finished")
    echo.call("release-pending", pending)
    # The model's failure comes from finish; a dropped pending is forgotten.
    failing = echo.call("start-embed", ["boom"], "document")
    assert echo.call("finish", failing) == Variant("failed", "boom is not embeddable")
    echo.call("release-pending", failing)
    dropped = echo.call("start-embed", ["ab"], "document")
    echo.call("release-pending", dropped)
    assert not echo.embedder._pending


def test_no_embedder_is_unavailable(tmp_path: Path) -> None:
    host = ComponentHost(ECHO_WAT, tmp_path, None, "no model: tried in-process")
    try:
        assert host.call("info") == Variant("unavailable", "no model: tried in-process")
        assert host.call("embed", ["x"], "document") == Variant("unavailable", "no model: tried in-process")
        assert host.call("start-embed", ["x"], "query") == Variant("unavailable", "no model: tried in-process")
    finally:
        host.close()


def test_the_real_embedder_through_the_boundary(tmp_path: Path, embedder: InProcessEmbedder) -> None:
    host = ComponentHost(ECHO_WAT, tmp_path, embedder)
    try:
        info = host.call("info")
        assert (info.provider, info.model, info.dimensions, info.meaningful) == (
            "in-process",
            DEFAULT_MODEL,
            384,
            True,
        )
        (vector,) = host.call("embed", ["The deploy key lives in the vault."], "document")
        assert vector == pytest.approx(embedder.embed(["The deploy key lives in the vault."])[0], abs=1e-7)
    finally:
        host.close()


def test_reranker_llm_and_fetch_are_unavailable(echo: ComponentHost) -> None:
    assert echo.call("score", "query", ["a", "b"]) == Variant("unavailable", capabilities.NO_RERANKER)
    assert echo.call("rerank-info") == Variant("unavailable", capabilities.NO_RERANKER)
    request = record(tier="capable", system="be brief", prompt="hi", max_tokens=16, json=True)
    assert echo.call("complete", request) == Variant("unavailable", capabilities.NO_LLM)
    assert echo.call("complete-many", [request, request]) == [Variant("unavailable", capabilities.NO_LLM)] * 2
    assert echo.call("get", "https://example.com/") == Variant("unavailable", capabilities.NO_FETCH)


def test_record_helpers_use_kebab_case_names() -> None:
    value = record(created_at="2026-05-01", max_tokens=3)
    assert vars(value) == {"created-at": "2026-05-01", "max-tokens": 3}
    assert field(value, "created_at") == "2026-05-01"


def test_results_and_engine_errors() -> None:
    assert split_result([1]) == (True, [1])
    assert split_result(None) == (True, None)
    assert split_result(Variant("embedder", "down")) == (False, Variant("embedder", "down"))
    error = errors.from_variant(Variant("invalid-argument", "limit must be positive"))
    assert isinstance(error, errors.InvalidArgumentError)
    assert (error.case, error.detail) == ("invalid-argument", "limit must be positive")
    assert isinstance(errors.from_variant(Variant("llm", "down")), errors.LlmError)
    assert isinstance(errors.from_variant(Variant("embedder", "x")), errors.EmbedderError)
    busy = errors.from_variant(Variant("storage", Variant("busy")))
    assert type(busy) is errors.StorageError
    assert (busy.case, busy.storage_case, busy.detail) == ("storage", "busy", "busy")
    missing = errors.from_variant(Variant("storage", Variant("mind-not-found", "workspace acme")))
    assert isinstance(missing, errors.NotFoundError) and missing.detail == "mind-not-found: workspace acme"
    sql = errors.from_variant(Variant("storage", Variant("sql", "no such table: x")))
    assert sql.detail == "sql: no such table: x"
    mismatch = errors.from_variant(
        Variant("storage", Variant("dimension-mismatch", record(expected=384, actual=768)))
    )
    assert mismatch.storage_case == "dimension-mismatch" and "768" in mismatch.detail


class RefusingEmbedder:
    """Unit vectors from a hash of the text; while ``sick``, each text
    holding ``"quarantine"`` fails alone, as a provider refuses one text."""

    sick = True

    def info(self) -> EmbedderInfo:
        return EmbedderInfo("mock", "sha256-hash", 384, meaningful=False, max_tokens=256)

    def embed(self, texts: Sequence[str], kind: str = "document") -> list[list[float] | str]:
        entries: list[list[float] | str] = []
        for text in texts:
            if self.sick and "quarantine" in text.lower():
                entries.append("HTTP 500: the model refused this text")
                continue
            digest = hashlib.sha256(text.encode()).digest() * 12
            vector = [byte / 255 - 0.5 for byte in digest[:384]]
            norm = math.sqrt(sum(x * x for x in vector)) or 1.0
            entries.append([x / norm for x in vector])
        return entries


def test_a_memory_the_embedder_fails_on_is_reported_and_reindexed(
    engine_component: Path, tmp_path: Path
) -> None:
    embedder = RefusingEmbedder()
    host = ComponentHost(engine_component, tmp_path, embedder)

    def problems() -> list[str]:
        ok, reports = split_result(host.call("check", interface=ADMIN))
        assert ok, reports
        return [problem for report in reports for problem in report.problems]

    try:
        # One batch: the embedder fails on one of its texts, not on all.
        memories = [
            record(content=content, importance=None, source=None, mind=None, created_at=None, kind=None)
            for content in ("The deploy key lives in the vault.", "Quarantine the flaky build host.")
        ]
        ok, saved = split_result(host.call("save-memories", memories, interface=MEMORY))
        assert ok, saved
        (without,) = [problem for problem in problems() if "without a vector" in problem]
        assert without.startswith("1 frame(s) without a vector") and "reindex" in without
        # Once the embedder takes it, reindex embeds it.
        embedder.sick = False
        while True:
            ok, progress = split_result(host.call("reindex-step", None, 16, interface=ADMIN))
            assert ok, progress
            if progress.finished:
                break
        assert problems() == []
    finally:
        host.close()
