"""Bad input is named as the problem, in Python's idiom: a component that is
missing, damaged, of another version or not the engine at all is a
:class:`ComponentError` naming the file, a SQLite without FTS5 is a
:class:`Fts5MissingError`, both before anything is written; a mind a newer
engine wrote is a :class:`StorageError` naming its schema version, and is
left as it was. (Model files: ``test_models.py``.)"""

from __future__ import annotations

import functools
import re
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import hive_mind.mind
from hive_mind import ComponentError, Fts5MissingError, HiveMind, StorageError
from hive_mind.engine import WIT_VERSION, ComponentHost, check_engine, load_component
from hive_mind.sqlite import require_fts5

from conftest import COMMITTED_MODEL, REPOSITORY


def test_a_missing_unreadable_or_damaged_file_is_named(engine_component: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.wasm"
    with pytest.raises(ComponentError, match="no engine component here") as raised:
        ComponentHost(missing, tmp_path / "data", None, engine_only=True)
    assert raised.value.path == missing
    text = tmp_path / "text.wasm"
    text.write_text("not a component")
    with pytest.raises(ComponentError, match="not a WebAssembly component") as raised:
        load_component(text)
    assert raised.value.path == text
    truncated = tmp_path / "truncated.wasm"
    truncated.write_bytes(engine_component.read_bytes()[: engine_component.stat().st_size // 2])
    with pytest.raises(ComponentError, match="truncated or damaged") as raised:
        load_component(truncated)
    assert raised.value.path == truncated
    assert not (tmp_path / "data").exists(), "nothing was created for a component that never loaded"


def test_another_component_is_not_taken_for_the_engine(engine_component: Path, tmp_path: Path) -> None:
    logic = engine_component.parent / "hive_mind_logic_component.wasm"
    if not logic.is_file():
        pytest.skip(f"no logic component at {logic}")
    with pytest.raises(ComponentError) as raised:
        HiveMind(tmp_path / "data", component=logic, model=COMMITTED_MODEL)
    assert raised.value.path == logic
    message = str(raised.value)
    assert f"not the engine component: it does not export hive:mind/memory@{WIT_VERSION}" in message
    assert f"it exports hive:mind/logic@{WIT_VERSION}" in message


def test_an_engine_of_another_version_is_named_with_both_versions(engine_component: Path) -> None:
    engine, component = load_component(engine_component)
    check_engine(engine_component, engine, component)  # this host's own

    exports = [name.replace(f"@{WIT_VERSION}", "@0.1.0") for name in component.type.exports(engine)]
    imports = list(component.type.imports(engine))
    kind = SimpleNamespace(exports=lambda _engine: exports, imports=lambda _engine: imports)
    older = SimpleNamespace(type=kind)
    expected = rf"an engine of hive:mind@0\.1\.0; this host speaks hive:mind@{re.escape(WIT_VERSION)}"
    with pytest.raises(ComponentError, match=expected):
        check_engine(engine_component, engine, older)  # type: ignore[arg-type]


def test_the_wit_version_is_the_source_trees() -> None:
    wit = REPOSITORY / "wit" / "types.wit"
    if not wit.is_file():
        pytest.skip("no wit/ folder (not in the source tree)")
    found = re.search(r"package hive:mind@([^;]+);", wit.read_text())
    assert found is not None
    assert found.group(1) == WIT_VERSION


class _NoFts5:
    """A connection to a SQLite built without FTS5."""

    def __init__(self, path: str) -> None:
        self._connection = sqlite3.connect(path)

    def execute(self, sql: str) -> Any:
        if "fts5" in sql.lower():
            raise sqlite3.OperationalError("no such module: fts5")
        return self._connection.execute(sql)

    def close(self) -> None:
        self._connection.close()


def test_a_sqlite_without_fts5_is_named_before_anything_is_written(
    engine_component: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_fts5()  # this Python's has it
    version = re.escape(sqlite3.sqlite_version)
    with pytest.raises(Fts5MissingError, match=rf"SQLite \({version}\) was built without FTS5"):
        require_fts5(_NoFts5)
    monkeypatch.setattr(hive_mind.mind, "require_fts5", functools.partial(require_fts5, _NoFts5))
    with pytest.raises(Fts5MissingError):
        HiveMind(tmp_path / "data", component=engine_component, model=COMMITTED_MODEL)
    assert not (tmp_path / "data").exists()


def test_a_mind_of_a_newer_schema_is_refused_and_left_as_it_was(
    engine_component: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    with HiveMind(data, component=engine_component, model=COMMITTED_MODEL) as mind:
        mind.save("Written by this engine.")
    database = data / "personal.sqlite"
    with sqlite3.connect(database) as connection:
        connection.execute("PRAGMA user_version = 999")
    before = database.read_bytes()
    with HiveMind(data, component=engine_component, model=COMMITTED_MODEL) as mind:
        with pytest.raises(StorageError) as raised:
            mind.recall("anything", scope="personal")
        assert raised.value.storage_case == "newer-schema"
        assert "schema version 999, newer than this engine knows" in str(raised.value)
        with pytest.raises(StorageError):
            mind.save("Never written.")
    assert database.read_bytes() == before
