"""The in-process embedder gives the Rust host's vectors.

``fixtures/rust_vectors_bge.json`` (the default, bge-small-en-v1.5, as
documents and as queries) and ``fixtures/rust_vectors.json`` (the committed
all-MiniLM-L6-v2) were produced by the Rust host itself (``hive-mind embed
--json``, its in-process tract embedder); the repository's
``tests/fixtures/embedder/reference.json`` holds independent onnxruntime
references for MiniLM, with token ids, that the Rust tests compare against.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import COMMITTED_MODEL, FIXTURES, REPOSITORY

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


def test_the_default_is_bge_small_with_the_rust_hosts_fingerprint(embedder: InProcessEmbedder) -> None:
    fixture = json.loads((FIXTURES / "rust_vectors_bge.json").read_text(encoding="utf-8"))
    assert embedder.info() == EmbedderInfo(fixture["provider"], fixture["model"], fixture["dimensions"])
    assert embedder.info() == EmbedderInfo("in-process", "bge-small-en-v1.5", 384)
    assert DEFAULT_MODEL == "bge-small-en-v1.5"
    assert embedder.info().max_tokens == 512


def test_bge_vectors_match_the_rust_host_as_documents_and_queries(embedder: InProcessEmbedder) -> None:
    # Both hosts run bge's int8 matmuls as f32 (hive_mind.dequantize), so
    # they agree to float rounding, not just to 0.999.
    fixture = json.loads((FIXTURES / "rust_vectors_bge.json").read_text(encoding="utf-8"))
    kinds = {case["kind"] for case in fixture["cases"]}
    assert kinds == {"document", "query"}
    for kind in sorted(kinds):
        cases = [case for case in fixture["cases"] if case["kind"] == kind]
        vectors = embedder.embed([case["text"] for case in cases], kind)
        cosines = [cosine(case["vector"], vector) for case, vector in zip(cases, vectors, strict=True)]
        assert min(cosines) >= 0.99999, (kind, cosines)
    # A query carries bge's instruction: not the document's vector.
    text = fixture["cases"][0]["text"]
    assert cosine(embedder.embed([text], "query")[0], embedder.embed([text])[0]) < 0.99


def test_minilm_vectors_match_the_rust_host(minilm: InProcessEmbedder) -> None:
    fixture = json.loads((FIXTURES / "rust_vectors.json").read_text(encoding="utf-8"))
    assert minilm.info() == EmbedderInfo(fixture["provider"], fixture["model"], fixture["dimensions"])
    texts = [case["text"] for case in fixture["cases"]]
    vectors = minilm.embed(texts)
    cosines = [cosine(case["vector"], vector) for case, vector in zip(fixture["cases"], vectors, strict=True)]
    assert min(cosines) >= MIN_COSINE, list(zip(texts, cosines, strict=True))
    assert all(len(vector) == 384 for vector in vectors)
    assert all(abs(np.linalg.norm(vector) - 1.0) < 1e-5 for vector in vectors)


def test_vectors_and_tokens_match_the_onnxruntime_references(minilm: InProcessEmbedder) -> None:
    path = REPOSITORY / "tests" / "fixtures" / "embedder" / "reference.json"
    if not path.is_file():
        pytest.skip(f"no {path}")
    cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
    texts = [case["text"] for case in cases]
    assert minilm.tokenize(texts) == [case["token_ids"] for case in cases]
    for case, vector in zip(cases, minilm.embed(texts), strict=True):
        assert cosine(case["embedding"], vector) >= MIN_COSINE, case["text"]


@pytest.mark.parametrize("model", ["embedder", "minilm"])
def test_a_batch_gives_each_text_its_own_vector(model: str, request: pytest.FixtureRequest) -> None:
    embedder: InProcessEmbedder = request.getfixturevalue(model)
    texts = ["short", "a somewhat longer sentence about the ledger and Postgres", "", "short"]
    batched = embedder.embed(texts)
    for text, vector in zip(texts, batched, strict=True):
        assert cosine(embedder.embed([text])[0], vector) > 0.99999
    assert batched[0] == batched[3]
    assert embedder.embed([]) == []


def test_long_texts_are_cut_at_the_models_window(embedder: InProcessEmbedder, minilm: InProcessEmbedder) -> None:
    for model, window in ((minilm, 256), (embedder, 512)):
        (ids,) = model.tokenize(["word " * 1000])
        assert len(ids) == window and ids[0] == 101 and ids[-1] == 102
        assert model.tokenize([""]) == [[101, 102]]


def copy_model(tmp_path: Path, model: str = COMMITTED_MODEL) -> Path:
    folder = tmp_path / model
    shutil.copytree(default_model_dir(model), folder)
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
    copy_model(tmp_path, DEFAULT_MODEL)
    monkeypatch.setenv("HIVE_MIND_MODELS_DIR", str(tmp_path))
    assert default_model_dir() == tmp_path / DEFAULT_MODEL
