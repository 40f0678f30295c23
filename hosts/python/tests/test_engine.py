"""The Python host runs the engine component, and agrees with the Rust host.

Skipped until a build of the engine component that imports
``hive:mind/sqlite`` exists (see ``conftest.py``). The cross-host tests
also need the ``hive-mind`` CLI built from the same engine: a data
directory written by one host is recalled by both, each on its own copy
(recall counts accesses, which later recalls score), and both must return
the same frames in the same order.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import cli_binary, needs_engine

from hive_mind import HiveMind, HiveMindError, MindStatus, Recall, Saved
from hive_mind.embedder import EmbedderInfo

pytestmark = needs_engine

NOW = "2026-06-01T12:00:00Z"

#: (content, importance, workspace, created_at)
MEMORIES = [
    (
        "We decided to use Postgres for the ledger because it supports serializable transactions.",
        "important",
        None,
        "2026-05-02T10:00:00Z",
    ),
    ("The deploy key lives in the vault, not in the repository.", None, None, "2026-05-03T09:00:00Z"),
    ("Sam prefers short answers and dark mode.", "important", None, "2026-04-20T08:00:00Z"),
    ("Lunch on Friday was pizza at the corner place.", "temporary", None, "2026-05-01T12:00:00Z"),
    ("The billing rewrite is blocked on the tax service.", None, "acme", "2026-05-10T12:00:00Z"),
    ("Acme's staging cluster runs Kubernetes 1.30 on three nodes.", None, "acme", "2026-05-11T12:00:00Z"),
    ("Acme wants the quarterly report as a PDF by June 3.", "critical", "acme", "2026-05-12T12:00:00Z"),
]

#: (query, workspace, scope)
QUERIES = [
    ("which database does the ledger use?", None, "personal"),
    ("where is the deploy key", None, "all"),
    ("what does Sam prefer", "acme", "all"),
    ("billing rewrite status", "acme", "current"),
    ("what happened in May 2026?", "acme", "all"),
    ("catch me up", "acme", "all"),
    ("kubernetes nodes", "acme", "personal"),
]


def cli(*args: str, home: Path) -> str:
    binary = cli_binary()
    if binary is None:
        pytest.skip("no hive-mind CLI (set HIVE_MIND_BIN, or build target/debug/hive-mind)")
    env = {key: value for key, value in os.environ.items() if not key.startswith("HIVE_MIND_")}
    env["HIVE_MIND_HOME"] = str(home)
    done = subprocess.run([str(binary), *args], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def cli_save(data: Path, home: Path, content: str, importance: str | None, workspace: str | None, created_at: str) -> dict:
    args = ["save", "--data-dir", str(data), "--created-at", created_at]
    if importance:
        args += ["--importance", importance]
    if workspace:
        args += ["--workspace", workspace]
    return json.loads(cli(*args, content, home=home))


def cli_recall_refs(data: Path, home: Path, query: str, workspace: str | None, scope: str) -> list[str]:
    args = ["recall", "--data-dir", str(data), "--json", "--limit", "10", "--scope", scope, "--now", NOW]
    if workspace:
        args += ["--workspace", workspace]
    return [memory["ref"] for memory in json.loads(cli(*args, query, home=home))["memories"]]


def python_recall_refs(data: Path) -> list[list[str]]:
    with HiveMind(data) as mind:
        return [
            [memory.ref for memory in mind.recall(query, limit=10, workspace=workspace, scope=scope, now=NOW).memories]
            for query, workspace, scope in QUERIES
        ]


def twin_copies(data: Path, tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "first", tmp_path / "second"
    shutil.copytree(data, first)
    shutil.copytree(data, second)
    return first, second


def test_save_recall_and_status(tmp_path: Path) -> None:
    with HiveMind(tmp_path / "data") as mind:
        saved = [mind.save(content, importance, workspace, created_at) for content, importance, workspace, created_at in MEMORIES]
        assert all(isinstance(item, Saved) and not item.duplicate for item in saved)
        assert saved[0].ref == "personal:1" and saved[0].importance == "important"
        assert saved[4].ref == "workspace:acme:1"
        assert mind.save(MEMORIES[1][0]).duplicate

        recall = mind.recall("which database does the ledger use?", scope="personal", now=NOW)
        assert isinstance(recall, Recall)
        assert recall.memories[0].ref == "personal:1"
        assert "Postgres" in recall.memories[0].content and "Postgres" in recall.text
        assert recall.memories[0].lane and recall.memories[0].why

        statuses = mind.status()
        assert [status.mind for status in statuses] == ["personal", "workspace:acme"]
        personal = statuses[0]
        assert isinstance(personal, MindStatus) and personal.database == "personal"
        assert personal.frames == 4
        assert personal.embedder == EmbedderInfo("in-process", "all-MiniLM-L6-v2", 384)


def test_remember_exchange_keeps_what_matters(tmp_path: Path) -> None:
    with HiveMind(tmp_path / "data") as mind:
        saved = mind.remember_exchange(
            "From now on, I prefer short answers in bullet points.", "Got it, I will keep answers short."
        )
        assert any("bullet points" in item.content for item in saved)
        assert mind.remember_exchange("hi", "hello!") == []


def test_errors_and_closing(tmp_path: Path) -> None:
    mind = HiveMind(tmp_path / "data")
    with pytest.raises(ValueError):
        mind.save("x", importance="urgent")
    with pytest.raises(HiveMindError) as raised:
        mind.save("x", workspace="../escape")
    assert raised.value.case and raised.value.detail
    mind.close()
    mind.close()
    with pytest.raises(HiveMindError) as closed:
        mind.recall("x")
    assert closed.value.case == "closed"


def test_python_recalls_what_the_cli_wrote_as_the_cli_does(tmp_path: Path) -> None:
    home, data = tmp_path / "home", tmp_path / "data"
    for content, importance, workspace, created_at in MEMORIES:
        cli_save(data, home, content, importance, workspace, created_at)
    for_cli, for_python = twin_copies(data, tmp_path)
    expected = [cli_recall_refs(for_cli, home, *query) for query in QUERIES]
    assert any(expected), "the CLI recalled nothing"
    assert python_recall_refs(for_python) == expected


def test_the_cli_recalls_what_python_wrote_as_python_does(tmp_path: Path) -> None:
    home, data = tmp_path / "home", tmp_path / "data"
    with HiveMind(data) as mind:
        for content, importance, workspace, created_at in MEMORIES:
            mind.save(content, importance, workspace, created_at)
    assert cli_save(data, home, MEMORIES[0][0], None, None, NOW)["duplicate"]
    for_cli, for_python = twin_copies(data, tmp_path)
    expected = python_recall_refs(for_python)
    assert any(expected), "Python recalled nothing"
    assert [cli_recall_refs(for_cli, home, *query) for query in QUERIES] == expected
