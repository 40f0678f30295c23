"""The Python host's cross-encoder: the shipped ms-marco-MiniLM-L-12-v2 on
onnxruntime, scoring as the Rust host's does, and the engine using it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hive_mind import HiveMind
from hive_mind.reranker import DEFAULT_MODEL, CrossEncoder, default_reranker, models_dirs

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
