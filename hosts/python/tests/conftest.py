"""Shared fixtures: the echo component, the embedder, the engine and CLI.

Tests that need the engine component skip (with the reason) until a build
of it that imports ``hive:mind/sqlite`` exists at
:func:`hive_mind.engine.default_component_path`; the cross-host tests also
need the ``hive-mind`` CLI (``$HIVE_MIND_BIN``, else ``target/debug`` or
``target/release`` of this source tree).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest
from wasmtime import Engine
from wasmtime.component import Component

from hive_mind.embedder import InProcessEmbedder
from hive_mind.engine import default_component_path
from hive_mind.sqlite import INTERFACE as SQLITE

FIXTURES = Path(__file__).parent / "fixtures"
REPOSITORY = Path(__file__).resolve().parents[3]
ECHO_WAT = FIXTURES / "echo.wat"


@functools.cache
def engine_component_problem() -> str | None:
    """Why the engine component cannot be tested, or ``None``."""
    path = default_component_path()
    if not path.is_file():
        return f"no engine component at {path} (build it, or set HIVE_MIND_COMPONENT)"
    engine = Engine()
    imports = Component.from_file(engine, path).type.imports(engine)
    if SQLITE not in imports:
        return f"the engine component at {path} predates the sqlite world (it imports no {SQLITE})"
    return None


@functools.cache
def cli_binary() -> Path | None:
    """The ``hive-mind`` CLI to compare with, if there is one."""
    configured = os.environ.get("HIVE_MIND_BIN")
    candidates = [Path(configured)] if configured else []
    candidates += [REPOSITORY / "target" / profile / "hive-mind" for profile in ("debug", "release")]
    return next((path for path in candidates if path.is_file()), None)


needs_engine = pytest.mark.skipif(
    engine_component_problem() is not None, reason=engine_component_problem() or ""
)


@pytest.fixture(scope="session")
def embedder() -> InProcessEmbedder:
    """The shipped model, loaded once."""
    return InProcessEmbedder()
