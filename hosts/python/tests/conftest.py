"""Shared fixtures: the embedder, the engine component, the CLI.

Tests that need the engine component skip (with the reason) until a build
of it that imports ``hive:mind/sqlite`` exists at
:func:`hive_mind.engine.default_component_path`; the cross-host tests also
need the ``hive-mind`` CLI (``$HIVE_MIND_BIN``, else ``target/debug`` or
``target/release`` of this source tree). Compiled components are cached in
a temporary directory for the session, never in the user's cache.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hive_mind.embedder import InProcessEmbedder
from hive_mind.engine import default_component_path, load_component
from hive_mind.sqlite import INTERFACE as SQLITE

FIXTURES = Path(__file__).parent / "fixtures"
REPOSITORY = Path(__file__).resolve().parents[3]
ECHO_WAT = FIXTURES / "echo.wat"


@pytest.fixture(scope="session", autouse=True)
def component_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``$HIVE_MIND_CACHE_DIR`` for the session: a new folder, or
    ``$HIVE_MIND_TEST_PYTHON_CACHE_DIR`` (CI's, which the JavaScript host's
    cross-host test then finds compiled)."""
    shared = os.environ.get("HIVE_MIND_TEST_PYTHON_CACHE_DIR")
    directory = Path(shared) if shared else tmp_path_factory.mktemp("components")
    patch = pytest.MonkeyPatch()
    patch.setenv("HIVE_MIND_CACHE_DIR", str(directory))
    yield directory
    patch.undo()


@pytest.fixture(scope="session", autouse=True)
def reranker_off() -> Iterator[None]:
    """``HIVE_MIND_RERANKER=off`` for the session: the engine tests compare
    rankings with the CLI, whose debug build runs the cross-encoder slowly;
    ``test_reranker.py`` turns it back on for itself."""
    patch = pytest.MonkeyPatch()
    patch.setenv("HIVE_MIND_RERANKER", "off")
    yield
    patch.undo()


def unavailable(reason: str) -> None:
    """Skip a test whose engine or CLI is missing — or fail it, in CI
    (``HIVE_MIND_REQUIRE_CROSS_HOST=1``), where both must be there."""
    if os.environ.get("HIVE_MIND_REQUIRE_CROSS_HOST"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def engine_component(component_cache: Path) -> Path:
    """The engine component of the sqlite world; skips the test without one."""
    path = default_component_path()
    if not path.is_file():
        unavailable(f"no engine component at {path} (build it, or set HIVE_MIND_COMPONENT)")
    # Compiled as a HiveMind with the default limits compiles it (epoch
    # deadlines on), so the session compiles it once for both.
    engine, component = load_component(path, epoch_interruption=True)
    if SQLITE not in component.type.imports(engine):
        unavailable(f"the engine component at {path} predates the sqlite world (no {SQLITE} import)")
    return path


@pytest.fixture(scope="session")
def cli_binary() -> Path:
    """The ``hive-mind`` CLI to compare with; skips the test without one."""
    configured = os.environ.get("HIVE_MIND_BIN")
    candidates = [Path(configured)] if configured else []
    candidates += [REPOSITORY / "target" / profile / "hive-mind" for profile in ("debug", "release")]
    found = next((path for path in candidates if path.is_file()), None)
    if found is None:
        unavailable("no hive-mind CLI (set HIVE_MIND_BIN, or build target/debug/hive-mind)")
    return found


@pytest.fixture(scope="session")
def embedder() -> InProcessEmbedder:
    """The default model (bge-small-en-v1.5), loaded once."""
    return InProcessEmbedder()


@pytest.fixture(scope="session")
def minilm() -> InProcessEmbedder:
    """The committed model (all-MiniLM-L6-v2), loaded once."""
    return InProcessEmbedder(model=COMMITTED_MODEL)


#: The model committed to the repository (the default is fetched by
#: ``cargo xtask models``).
COMMITTED_MODEL = "all-MiniLM-L6-v2"
