"""The engine gets no ambient authority from the Python host's WASI.

The repository's sandbox probe (``tests/sandbox-probe``, built with the
guest components) tries the environment, the arguments, the file system
and the network, and prints a bit mask of what worked. Under the context
the host gives the engine it must print 0; as a control, a permissive
context must be seen, so the test would fail if the probe saw nothing
ever. This is the Rust host's ``tests/sandbox.rs``, for this host.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPOSITORY
from wasmtime import Store, WasiConfig
from wasmtime.component import Linker, Variant

from hive_mind.engine import load_component, sandbox_wasi

PROBE = REPOSITORY / "target" / "guest" / "wasm32-wasip2" / "guest" / "hive-mind-sandbox-probe.wasm"
ENV_VISIBLE, FILES_VISIBLE, ARGS_VISIBLE = 1, 2, 32


def probe(wasi: WasiConfig) -> int:
    printed: list[bytes] = []
    wasi.stdout_custom = printed.append
    engine, component = load_component(PROBE)
    linker = Linker(engine)
    linker.add_wasip2()
    store = Store(engine)
    store.set_wasi(wasi)
    instance = linker.instantiate(store, component)
    run = instance.get_export_index(store, "wasi:cli/run@0.2.0")
    func = instance.get_func(store, instance.get_export_index(store, "run", run))
    assert func(store) == Variant("ok"), "the probe failed"
    return int(b"".join(printed).decode().strip())


@pytest.fixture(autouse=True)
def probe_component() -> None:
    if not PROBE.is_file():
        pytest.skip(f"no sandbox probe at {PROBE} (it is built with the guest components)")


def test_the_sandbox_grants_nothing() -> None:
    assert probe(sandbox_wasi()) == 0


def test_the_probe_detects_authority_when_it_is_granted(tmp_path: Path) -> None:
    permissive = WasiConfig()
    permissive.env = [("HIVE_MIND_PROBE", "1")]
    permissive.argv = ["probe", "--flag"]
    permissive.preopen_dir(str(tmp_path), "/tmp")
    found = probe(permissive)
    assert found & ENV_VISIBLE and found & ARGS_VISIBLE and found & FILES_VISIBLE, found
