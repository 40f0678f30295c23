"""The in-process embedder gives the Rust host's vectors.

``fixtures/rust_vectors.json`` was produced by the Rust host itself
(``hive-mind embed --json``, its in-process tract embedder); the repository's
``tests/fixtures/embedder/reference.json`` holds independent onnxruntime
references, with token ids, that the Rust tests compare against.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, REPOSITORY

from hive_mind.embedder import (
    DEFAULT_MODEL,
    MODEL_FILE,
    TOKENIZER_FILE,
    EmbedderInfo,
    InProcessEmbedder,
    ModelError,
    default_model_dir,
)

MIN_COSINE = 0.999


def cosine(a: list[float], b: list[float]) -> float:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


def test_the_fingerprint_is_the_rust_hosts(embedder: InProcessEmbedder) -> None:
    fixture = json.loads((FIXTURES / "rust_vectors.json").read_text(encoding="utf-8"))
    assert embedder.info() == EmbedderInfo(fixture["provider"], fixture["model"], fixture["dimensions"])
    assert embedder.info() == EmbedderInfo("in-process", "all-MiniLM-L6-v2", 384)


def test_vectors_match_the_rust_host(embedder: InProcessEmbedder) -> None:
    fixture = json.loads((FIXTURES / "rust_vectors.json").read_text(encoding="utf-8"))
    texts = [case["text"] for case in fixture["cases"]]
    vectors = embedder.embed(texts)
    cosines = [cosine(case["vector"], vector) for case, vector in zip(fixture["cases"], vectors, strict=True)]
    assert min(cosines) >= MIN_COSINE, list(zip(texts, cosines, strict=True))
    assert all(len(vector) == 384 for vector in vectors)
    assert all(abs(np.linalg.norm(vector) - 1.0) < 1e-5 for vector in vectors)


def test_vectors_and_tokens_match_the_onnxruntime_references(embedder: InProcessEmbedder) -> None:
    path = REPOSITORY / "tests" / "fixtures" / "embedder" / "reference.json"
    if not path.is_file():
        pytest.skip(f"no {path}")
    cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
    texts = [case["text"] for case in cases]
    assert embedder.tokenize(texts) == [case["token_ids"] for case in cases]
    for case, vector in zip(cases, embedder.embed(texts), strict=True):
        assert cosine(case["embedding"], vector) >= MIN_COSINE, case["text"]


def test_a_batch_gives_each_text_its_own_vector(embedder: InProcessEmbedder) -> None:
    texts = ["short", "a somewhat longer sentence about the ledger and Postgres", "", "short"]
    batched = embedder.embed(texts)
    for text, vector in zip(texts, batched, strict=True):
        assert cosine(embedder.embed([text])[0], vector) > 0.99999
    assert batched[0] == batched[3]
    assert embedder.embed([]) == []


def test_long_texts_are_cut_at_256_tokens(embedder: InProcessEmbedder) -> None:
    (ids,) = embedder.tokenize(["word " * 1000])
    assert len(ids) == 256 and ids[0] == 101 and ids[-1] == 102
    assert embedder.tokenize([""]) == [[101, 102]]


def copy_model(tmp_path: Path) -> Path:
    folder = tmp_path / DEFAULT_MODEL
    shutil.copytree(default_model_dir(DEFAULT_MODEL), folder)
    return folder


def test_a_changed_file_is_refused_by_name(tmp_path: Path) -> None:
    folder = copy_model(tmp_path)
    with (folder / TOKENIZER_FILE).open("ab") as file:
        file.write(b" ")
    with pytest.raises(ModelError) as raised:
        InProcessEmbedder(folder)
    assert raised.value.path == folder / TOKENIZER_FILE
    assert "SHA-256" in str(raised.value) and TOKENIZER_FILE in str(raised.value)


def test_a_missing_file_is_refused_by_name(tmp_path: Path) -> None:
    folder = copy_model(tmp_path)
    (folder / MODEL_FILE).unlink()
    with pytest.raises(ModelError) as raised:
        InProcessEmbedder(folder)
    assert raised.value.path == folder / MODEL_FILE
    assert "missing" in str(raised.value)


def test_the_model_is_found_as_the_rust_host_looks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HIVE_MIND_MODELS_DIR", raising=False)
    monkeypatch.setenv("HIVE_MIND_HOME", str(tmp_path / "home"))
    assert default_model_dir() == REPOSITORY / "models" / DEFAULT_MODEL
    copy_model(tmp_path)
    monkeypatch.setenv("HIVE_MIND_MODELS_DIR", str(tmp_path))
    assert default_model_dir() == tmp_path / DEFAULT_MODEL
