"""The optional capabilities: ``hive:mind/reranker``, ``hive:mind/llm`` and
``hive:mind/fetch``.

The engine world imports all three, and each may answer ``unavailable``;
the engine then degrades (recall keeps the fused order; harvest distills
heuristically; URL sources cannot be imported). This host configures none
of the last two, so they answer ``unavailable``; the reranker is
:mod:`hive_mind.reranker`'s cross-encoder when it is installed.
"""

from __future__ import annotations

from wasmtime import StoreContext
from wasmtime.component import LinkerInstance, Record

from ._wit import Variant, interface

#: The reranker interface's name in the engine world.
RERANKER = interface("reranker")
#: The llm interface's name in the engine world.
LLM = interface("llm")

#: The fetch interface's name in the engine world.
FETCH = interface("fetch")

#: What the reranker import answers while no cross-encoder is configured.
NO_RERANKER = "no cross-encoder is configured in the Python host; recall keeps the fused order"
#: What the llm import answers while no language model is configured.
NO_LLM = "no language model is configured; recall and save do not need one"


def _reranker_info(_store: StoreContext) -> Variant:
    return Variant("unavailable", NO_RERANKER)


def _score(_store: StoreContext, query: str, passages: list[str]) -> Variant:
    return Variant("unavailable", NO_RERANKER)


def _complete(_store: StoreContext, request: Record) -> Variant:
    return Variant("unavailable", NO_LLM)


#: What the fetch import answers: this host offers no web access.
NO_FETCH = "the Python host offers no web access; import the page's file instead"


def _complete_many(_store: StoreContext, requests: list[Record]) -> list[Variant]:
    return [Variant("unavailable", NO_LLM) for _ in requests]


def _get(_store: StoreContext, url: str) -> Variant:
    return Variant("unavailable", NO_FETCH)


def add_unconfigured(root: LinkerInstance, reranker: bool = True) -> None:
    """Define ``llm`` and ``fetch`` in ``root``, and ``reranker`` unless
    ``reranker`` is false (the host defines its own), all ``unavailable``."""
    if reranker:
        with root.add_instance(RERANKER) as instance:
            instance.add_func("info", _reranker_info)
            instance.add_func("score", _score)
    with root.add_instance(LLM) as llm:
        llm.add_func("complete", _complete)
        llm.add_func("complete-many", _complete_many)
    with root.add_instance(FETCH) as fetch:
        fetch.add_func("get", _get)
