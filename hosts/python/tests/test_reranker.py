"""The Python host's cross-encoder: the shipped ms-marco-MiniLM-L-12-v2 on
onnxruntime, scoring as the Rust host's does, and the engine using it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hive_mind import HiveMind
from hive_mind.reranker import DEFAULT_MODEL, CrossEncoder, default_reranker
from hive_mind.resources import models_dirs

pytestmark = pytest.mark.usefixtures("engine_component")

QUERY = "Which database did we choose for the ledger?"
PASSAGES = [
    "We decided to use Postgres for the ledger because it supports serializable transactions.",
    "Lunch on Friday was pizza at the corner place.",
    "The deploy key lives in the vault, not in the repository.",
    "Postgres was considered for the analytics warehouse but rejected.",
]
#: The logits tests/reranker.rs checks the Rust host's tract run against.
REFERENCE = [5.1358, -10.9782, -10.9769, -9.3846]


def shipped() -> Path:
    for folder in models_dirs():
        if (folder / DEFAULT_MODEL / "model.onnx").is_file():
            return folder / DEFAULT_MODEL
    pytest.fail(f"the shipped cross-encoder is not installed: run `cargo xtask models` ({DEFAULT_MODEL})")


def test_the_cross_encoder_scores_the_answer_first() -> None:
    scores = CrossEncoder(shipped()).score(QUERY, PASSAGES)
    assert max(range(len(scores)), key=scores.__getitem__) == 0
    for got, expected in zip(scores, REFERENCE, strict=True):
        assert abs(got - expected) < 0.5, (scores, REFERENCE)
    assert CrossEncoder(shipped()).score(QUERY, []) == []


def test_on_by_default_and_off_by_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    shipped()
    monkeypatch.delenv("HIVE_MIND_RERANKER")
    encoder, why = default_reranker()
    assert encoder is not None and why == ""
    monkeypatch.setenv("HIVE_MIND_RERANKER", "off")
    encoder, why = default_reranker()
    assert encoder is None and "turned off" in why


def test_recall_reranks_with_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shipped()
    monkeypatch.delenv("HIVE_MIND_RERANKER")
    with HiveMind(tmp_path / "data") as mind:
        for passage in PASSAGES:
            mind.save(passage)
        recall = mind.recall(QUERY, limit=4)
        assert recall.memories[0].content.startswith("We decided to use Postgres")
        assert any("reranked #1" in memory.why for memory in recall.memories), [m.why for m in recall.memories]
        plain = mind.recall(QUERY, limit=4, rerank_pool=0)
        assert not any("reranked" in memory.why for memory in plain.memories)


class WindowedReranker:
    """A stand-in cross-encoder reporting ``max_tokens`` as its pair window
    and recording how many passages each call reads."""

    name = "windowed"

    def __init__(self, max_tokens: int) -> None:
        self.max_tokens = max_tokens
        self.calls: list[int] = []

    def score(self, query: str, passages: list[str]) -> list[float]:
        self.calls.append(len(passages))
        return [0.0] * len(passages)


def test_the_engine_sizes_its_rerank_pool_by_the_window_the_host_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Twelve memories of some 300 tokens each: under the shipped window
    # (128) every pair counts 128 and the engine's budget (896 pair tokens)
    # holds seven; under a 512 window each counts in full, so it holds
    # fewer. The engine learns the window from ``reranker.info``.
    long = "the ledger database decision was long and careful " * 35
    calls = {}
    for window in (128, 512):
        reranker = WindowedReranker(window)
        monkeypatch.setattr("hive_mind.mind.default_reranker", lambda r=reranker: (r, ""))
        with HiveMind(tmp_path / f"data-{window}") as mind:
            for i in range(12):
                mind.save(f"note {i}: {long}")
            mind.recall("ledger database decision", limit=10)
        calls[window] = reranker.calls
    assert calls[128] == [7], calls
    assert len(calls[512]) == 1 and 1 <= calls[512][0] < 7, calls
