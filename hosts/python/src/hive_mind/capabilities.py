"""The optional capabilities: ``hive:mind/reranker`` and ``hive:mind/llm``.

The engine world imports both, and either may answer ``unavailable``; the
engine then degrades (recall keeps the fused order; harvest distillation is
off). This host configures neither, so both answer ``unavailable``.
"""

from __future__ import annotations

from wasmtime import StoreContext
from wasmtime.component import LinkerInstance, Record

from ._wit import Variant

#: The reranker interface's name in the engine world.
RERANKER = "hive:mind/reranker@0.1.0"
#: The llm interface's name in the engine world.
LLM = "hive:mind/llm@0.1.0"

#: What the reranker import answers while no cross-encoder is configured.
NO_RERANKER = "no cross-encoder is configured in the Python host; recall keeps the fused order"
#: What the llm import answers while no language model is configured.
NO_LLM = "no language model is configured; recall and save do not need one"


def _score(_store: StoreContext, query: str, passages: list[str]) -> Variant:
    return Variant("unavailable", NO_RERANKER)


def _complete(_store: StoreContext, request: Record) -> Variant:
    return Variant("unavailable", NO_LLM)


def add_unconfigured(root: LinkerInstance) -> None:
    """Define ``reranker`` and ``llm`` in ``root``, both ``unavailable``."""
    with root.add_instance(RERANKER) as reranker:
        reranker.add_func("score", _score)
    with root.add_instance(LLM) as llm:
        llm.add_func("complete", _complete)
