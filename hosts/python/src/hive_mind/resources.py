"""Where the host finds what it runs: the engine component and the model
folders.

Three kinds of place, in this order:

1. what the caller configured (``$HIVE_MIND_COMPONENT``;
   ``$HIVE_MIND_MODELS_DIR``, then ``$HIVE_MIND_HOME/models``, as the Rust
   host reads them);
2. what was installed with the package: the component inside this package
   (``hive_mind/components/``, put there when the wheel is built) and the
   model folders of the companion package ``hive_mind_models`` (the wheel
   ``hive-mind-engine-models``);
3. this source tree (``target/guest/…`` and ``models/``), for a checkout.

The first place that holds the file wins; where none does, the first
candidate is returned, so that loading it names the place it looked.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

COMPONENT_FILE = "hive_mind_engine_component.wasm"

#: The component inside an installed wheel.
PACKAGED_COMPONENT = Path(__file__).resolve().parent / "components" / COMPONENT_FILE

#: This source tree's root (``hosts/python/src/hive_mind`` is four below
#: it); in an installed package it is some folder that holds none of the
#: files looked for.
SOURCE_TREE = Path(__file__).resolve().parents[4]


def component_candidates() -> list[Path]:
    """Where the engine component may be, in order."""
    configured = os.environ.get("HIVE_MIND_COMPONENT")
    if configured:
        return [Path(configured)]
    return [
        PACKAGED_COMPONENT,
        SOURCE_TREE / "target" / "guest" / "wasm32-wasip2" / "guest" / COMPONENT_FILE,
    ]


def component_path() -> Path:
    """The engine component: the first candidate that exists, else the
    first."""
    candidates = component_candidates()
    return next((path for path in candidates if path.is_file()), candidates[0])


def packaged_models_dir() -> Path | None:
    """The model folders of the installed ``hive_mind_models`` package,
    when it is installed."""
    spec = importlib.util.find_spec("hive_mind_models")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def models_dirs() -> list[Path]:
    """The folders that hold model folders, in the order they are searched."""
    folders = []
    models_dir = os.environ.get("HIVE_MIND_MODELS_DIR")
    if models_dir:
        folders.append(Path(models_dir))
    home = os.environ.get("HIVE_MIND_HOME")
    folders.append((Path(home) if home else Path.home() / ".hive-mind") / "models")
    packaged = packaged_models_dir()
    if packaged is not None:
        folders.append(packaged)
    folders.append(SOURCE_TREE / "models")
    return folders
