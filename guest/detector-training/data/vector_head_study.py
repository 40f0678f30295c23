"""Would a head over the embedder's vectors screen better than the n-gram model?

The study behind `models/injection-detector/VECTOR-HEAD.md`. It measures
classifiers over bge-small-en-v1.5's vectors (the default in-process
embedder), read two ways: the vector of the whole text, which the engine
already computes for every memory, and the vector of the one sentence the
n-gram model scores highest (what a hostile verdict quotes), which would
cost one more embedding of a sentence per write. Each alone and beside the
shipped n-gram model, measured the way `train-detector --by-source`
measures the n-gram model: each public origin left out of the fit and the
threshold in turn, then scored; the threshold read where the held-out
origins' benign rows are flagged at 1 % averaged over the origins; and the
sets kept apart from training scored at that threshold.

    hosts/python/setup-venv.sh
    cargo run --release -p hive-mind-detector-training -- --out /tmp/detector --by-source \\
        --measure guest/detector-training/data/written-apart.jsonl --measure /tmp/pyrit.jsonl \\
        --scores-out /tmp/ngram-scores.jsonl
    hosts/python/.venv/bin/python guest/detector-training/data/vector_head_study.py \\
        --ngram-scores /tmp/ngram-scores.jsonl \\
        --measure guest/detector-training/data/written-apart.jsonl --measure /tmp/pyrit.jsonl \\
        --cache /tmp/vector-study --out models/injection-detector/VECTOR-HEAD.md

(`/tmp/pyrit.jsonl` as `final_heldout.py` writes it.) The vectors are the
Python host's in-process embedder's, the same as the engine's in every host;
embedding the corpus and its loudest sentences takes about 50 minutes on two
cores and is cached.

Two heads are measured, both on standardised vectors, classes weighed to
count equally: a logistic regression (Newton's method, a small L2 penalty)
and a small network (one hidden layer of 128 ReLU units, Adam, 8 passes,
seeded). Beside the n-gram model, a text's two scores are read in log-odds
above their own fold's calibration threshold and combined: weighted sums and
the larger of the two.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

CALIBRATION_ONE_IN = 7  # main.rs
TARGET_FALSE_ALARMS = 0.0025  # main.rs: the calibration rows' budget
HELD_OUT_FALSE_ALARMS = 0.01  # by_source.rs
LINEAR_L2 = 1e-4
HIDDEN = 128
EPOCHS = 8
SEED = 26


def fnv(data: bytes) -> int:
    """FNV-1a, 64-bit (`corpus.rs`)."""
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def text_key(text: str) -> str:
    return f"{fnv(text.encode()):016x}"


def from_origin(source: str, origin: str) -> bool:
    return any(
        part == origin or (origin.endswith("-") and part.startswith(origin)) for part in source.split("+")
    )


def threshold_at_mean_false_alarms(groups: list[np.ndarray], rate: float) -> float:
    """The lowest threshold flagging at most `rate` of each group's benign
    scores, averaged over the groups (`report.rs`)."""
    weighted = sorted(
        ((float(score), 1.0 / (len(groups) * len(group))) for group in groups for score in group),
        key=lambda pair: -pair[0],
    )
    flagged = 0.0
    for score, weight in weighted:
        if flagged + weight > rate + 1e-12:
            return score + 1e-9
        flagged += weight
    return -1e9


def embed(texts: list[str], cache: Path, name: str) -> np.ndarray:
    """The in-process embedder's document vectors, cached by content."""
    digest = hashlib.sha256("\0".join(texts).encode()).hexdigest()[:16]
    path = cache / f"{name}-{digest}.npy"
    if path.exists():
        return np.load(path)
    root = Path(__file__).resolve().parents[3]
    sys.path.insert(0, str(root / "hosts" / "python" / "src"))
    from hive_mind.embedder import InProcessEmbedder

    embedder = InProcessEmbedder(model_dir=root / "models" / "bge-small-en-v1.5")
    vectors: list[list[float]] = []
    for start in range(0, len(texts), 256):
        vectors.extend(embedder.embed(texts[start : start + 256]))
        print(f"embedded {len(vectors)} of {len(texts)} ({name})", file=sys.stderr, flush=True)
    array = np.asarray(vectors, dtype=np.float32)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, array)
    return array


class Linear:
    """Logistic regression, Newton's method from zero weights."""

    def fit(self, x: np.ndarray, y: np.ndarray) -> Linear:
        x = np.hstack([x, np.ones((len(x), 1), np.float32)]).astype(np.float64)
        positives = y.sum()
        weights = np.where(y == 1, 0.5 / positives, 0.5 / (len(y) - positives))
        penalty = np.full(x.shape[1], LINEAR_L2)
        penalty[-1] = 0.0
        w = np.zeros(x.shape[1])
        for _ in range(30):
            p = 1.0 / (1.0 + np.exp(-(x @ w)))
            gradient = x.T @ (weights * (p - y)) + penalty * w
            hessian = (x * (weights * p * (1 - p))[:, None]).T @ x + np.diag(penalty)
            step = np.linalg.solve(hessian, gradient)
            w -= step
            if np.abs(step).max() < 1e-6:
                break
        self.w = w
        return self

    def score(self, x: np.ndarray) -> np.ndarray:
        return x.astype(np.float64) @ self.w[:-1] + self.w[-1]


class Network:
    """One hidden layer of ReLU units, Adam on shuffled batches (seeded)."""

    def fit(self, x: np.ndarray, y: np.ndarray) -> Network:
        rng = np.random.default_rng(SEED)
        dims = x.shape[1]
        params = [
            (rng.standard_normal((dims, HIDDEN)) * np.sqrt(2 / dims)).astype(np.float32),
            np.zeros(HIDDEN, np.float32),
            (rng.standard_normal(HIDDEN) * np.sqrt(1 / HIDDEN)).astype(np.float32),
            np.zeros(1, np.float32),
        ]
        first = [np.zeros_like(p) for p in params]
        second = [np.zeros_like(p) for p in params]
        labels = y.astype(np.float32)
        positives = labels.sum()
        class_weight = np.where(
            labels == 1, len(labels) / (2 * positives), len(labels) / (2 * (len(labels) - positives))
        ).astype(np.float32)
        step = 0
        for _ in range(EPOCHS):
            order = rng.permutation(len(x))
            for start in range(0, len(x), 256):
                batch = order[start : start + 256]
                xb, yb = x[batch], labels[batch]
                hidden = np.maximum(xb @ params[0] + params[1], 0)
                p = 1 / (1 + np.exp(-(hidden @ params[2] + params[3][0])))
                delta = (p - yb) * class_weight[batch] / len(batch)
                back = np.outer(delta, params[2]) * (hidden > 0)
                grads = [
                    xb.T @ back + 1e-4 * params[0],
                    back.sum(0),
                    hidden.T @ delta + 1e-4 * params[2],
                    np.array([delta.sum()], np.float32),
                ]
                step += 1
                for k, (param, grad) in enumerate(zip(params, grads, strict=True)):
                    first[k] = 0.9 * first[k] + 0.1 * grad
                    second[k] = 0.999 * second[k] + 0.001 * grad * grad
                    param -= (
                        1e-3
                        * (first[k] / (1 - 0.9**step))
                        / (np.sqrt(second[k] / (1 - 0.999**step)) + 1e-8)
                    )
        self.params = params
        return self

    def score(self, x: np.ndarray) -> np.ndarray:
        hidden = np.maximum(x @ self.params[0] + self.params[1], 0)
        return (hidden @ self.params[2] + self.params[3][0]).astype(np.float64)


class Scores:
    """`train-detector --scores-out`: the n-gram model's score of each row
    (log-odds above the threshold it met) and its loudest sentence, per
    held-out fold, per measured set and over the corpus."""

    def __init__(self, path: str) -> None:
        # The public origins `--by-source` held out, in its order.
        self.origins: list[str] = []
        self.held: dict[tuple[str, str], tuple[float, str]] = {}
        self.benign: dict[str, list[float]] = collections.defaultdict(list)
        self.measured: dict[str, tuple[float, str]] = {}
        self.corpus: dict[str, str] = {}
        with open(path) as lines:
            for line in lines:
                score = json.loads(line)
                entry = (score["above_threshold"], score["loudest"])
                if score["set"].startswith("held-out:"):
                    origin = score["set"][len("held-out:") :]
                    if origin not in self.origins:
                        self.origins.append(origin)
                    self.held[(origin, score["text_fnv"])] = entry
                    if score["label"] == 0:
                        self.benign[origin].append(score["above_threshold"])
                elif score["set"] == "corpus":
                    self.corpus[score["text_fnv"]] = score["loudest"]
                else:
                    self.measured[score["text_fnv"]] = entry
        # The shipped threshold is the calibrated one moved by this margin
        # (`by_source.rs`), so a measured row's score is brought back to
        # its calibration threshold's scale by adding it.
        self.margin = threshold_at_mean_false_alarms(
            [np.array(scores) for scores in self.benign.values()], HELD_OUT_FALSE_ALARMS
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="guest/detector-training/data/corpus.jsonl.gz")
    parser.add_argument("--ngram-scores", required=True, help="train-detector --scores-out")
    parser.add_argument("--measure", action="append", default=[])
    parser.add_argument("--cache", default="/tmp/vector-study")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    cache = Path(args.cache)

    with gzip.open(args.corpus, "rt") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    keys = [text_key(row["text"]) for row in rows]
    labels = np.array([row["label"] for row in rows])
    benign_languages = {row["lang"] for row in rows if row["label"] == 0}
    part = np.array(
        [
            "out"
            if row["lang"] not in benign_languages
            else "val"
            if row["split"] == "val"
            else "cal"
            if fnv(row["group"].encode()) % CALIBRATION_ONE_IN == 0
            else "train"
            for row in rows
        ]
    )
    conversation = np.array([row["label"] == 0 and row["slice"].startswith("chat") for row in rows])
    ngram = Scores(args.ngram_scores)
    print(f"the n-gram model's held-out margin: {ngram.margin:+.3f} log-odds", file=sys.stderr)
    measured = {}
    for path in args.measure:
        with open(path) as lines:
            measured[path] = [json.loads(line) for line in lines if line.strip()]

    # The two readings: a text's vector (the memory's, which the engine
    # stores), and the vector of the sentence the n-gram model scores
    # highest (for a held-out row, its fold's model's choice; for a training
    # row and a measured one, the shipped model's).
    whole = embed([row["text"] for row in rows], cache, "corpus")
    whole_measured = {path: embed([i["text"] for i in items], cache, Path(path).stem) for path, items in measured.items()}
    sentences = sorted(
        {ngram.corpus.get(key, "") for key in keys}
        | {loudest for _, loudest in ngram.held.values()}
        | {loudest for _, loudest in ngram.measured.values()}
    )
    sentence_vectors = embed(sentences, cache, "loudest")
    at = {sentence: index for index, sentence in enumerate(sentences)}

    def of_sentences(texts: list[str]) -> np.ndarray:
        return sentence_vectors[[at[text] for text in texts]]

    readings = {
        "memory vector": (
            whole,
            lambda origin, index: whole[index],
            {path: whole_measured[path] for path in measured},
        ),
        "loudest sentence": (
            of_sentences([ngram.corpus.get(key, "") for key in keys]),
            lambda origin, index: sentence_vectors[at[ngram.held[(origin, keys[index])][1]]],
            {
                path: of_sentences([ngram.measured[text_key(item["text"])][1] for item in items])
                for path, items in measured.items()
            },
        ),
    }
    everything = np.arange(len(rows))
    heads = {"linear": Linear, "network": Network}
    combinations = {
        "alone": lambda v, n: v,
        "¼ head + ¾ n-gram": lambda v, n: 0.25 * v + 0.75 * n,
        "½ head + ½ n-gram": lambda v, n: 0.5 * v + 0.5 * n,
        "the larger of the two": lambda v, n: max(v, n),
    }
    report = [
        "# Injection detector: heads over the embedder's vectors, measured\n",
        "Written by `guest/detector-training/data/vector_head_study.py` (do not edit by hand; the "
        "command is in its docs). Vectors: bge-small-en-v1.5, as the engine computes them, of the whole "
        "text (the memory's vector) or of the sentence the n-gram model scores highest in its worst "
        "window (the sentence a hostile verdict quotes). Each public origin is left out of the head's "
        "fit and threshold in turn, as `BY-SOURCE.md` does for the n-gram model; *held out* is the "
        "share of hostile rows caught where the held-out origins' benign rows are flagged at 1 % "
        "averaged over the origins (a row mixed from two origins counts in both folds, as there). "
        "A head beside the n-gram model adds the two scores' log-odds above their own fold's "
        "threshold, weighed, or takes the larger. The sets kept apart are scored at the same "
        "threshold.\n",
    ]
    header = "| reading | head | with the n-gram model | held out: caught | worst benign origin flagged |"
    divider = "|---|---|---|---:|---:|"
    for path in measured:
        header += f" {Path(path).name}: caught | flagged |"
        divider += "---:|---:|"
    report += [header, divider]
    first = True
    for reading, (vectors, held_vector, measured_vectors) in readings.items():
        mean = vectors[part == "train"].mean(0)
        spread = vectors[part == "train"].std(0) + 1e-6

        def standard(x: np.ndarray, mean=mean, spread=spread) -> np.ndarray:
            return ((x - mean) / spread).astype(np.float32)

        features = standard(vectors)
        for name, head in heads.items():
            held: list[tuple[str, int, float, float]] = []
            for origin in ngram.origins:
                in_origin = np.array([from_origin(row["source"], origin) for row in rows])
                train = everything[(part == "train") & ~in_origin]
                model = head().fit(features[train], labels[train])
                threshold = calibration_threshold(
                    model.score(features), labels, conversation, everything[(part == "cal") & ~in_origin]
                )
                indices = everything[in_origin & (part != "out")]
                scores = model.score(standard(np.stack([held_vector(origin, i) for i in indices])))
                held += [
                    (origin, int(labels[i]), float(score - threshold), ngram.held[(origin, keys[i])][0])
                    for i, score in zip(indices, scores, strict=True)
                ]
                print(f"{reading}, {name}: held out {origin}", file=sys.stderr, flush=True)
            train = everything[part == "train"]
            model = head().fit(features[train], labels[train])
            threshold = calibration_threshold(
                model.score(features), labels, conversation, everything[part == "cal"]
            )
            kept_apart = {
                path: [
                    (int(item["label"]), float(score - threshold), ngram.measured[text_key(item["text"])][0] + ngram.margin)
                    for item, score in zip(items, model.score(standard(measured_vectors[path])), strict=True)
                ]
                for path, items in measured.items()
            }
            rows_out = list(combinations.items())
            if first:
                rows_out.insert(0, ("n-gram model alone (shipped)", lambda v, n: n))
                first = False
            for label, combine in rows_out:
                report.append(line_of(reading, name, label, combine, held, kept_apart))
    text = "\n".join(report) + "\n"
    Path(args.out).write_text(text)
    print(text)


def line_of(reading, name, label, combine, held, kept_apart) -> str:
    """One line of the table: caught held out at 1 % false alarms averaged
    over the origins, and the sets kept apart at that threshold."""
    benign = collections.defaultdict(list)
    hostile = []
    for origin, label_of, head_score, ngram_score in held:
        (benign[origin] if label_of == 0 else hostile).append(combine(head_score, ngram_score))
    bar = threshold_at_mean_false_alarms([np.array(v) for v in benign.values()], HELD_OUT_FALSE_ALARMS)
    worst = max(benign, key=lambda origin: np.mean(np.array(benign[origin]) >= bar))
    shipped = label.startswith("n-gram")
    line = (
        f"| {'–' if shipped else reading} | {'–' if shipped else name} | {label} | "
        f"{share(sum(s >= bar for s in hostile), len(hostile))} | "
        f"{worst} {100 * np.mean(np.array(benign[worst]) >= bar):.2f} % |"
    )
    for scored in kept_apart.values():
        caught = sum(1 for lab, v, n in scored if lab == 1 and combine(v, n) >= bar)
        flagged = sum(1 for lab, v, n in scored if lab == 0 and combine(v, n) >= bar)
        hostile_count = sum(1 for item in scored if item[0] == 1)
        line += f" {share(caught, hostile_count)} | {share(flagged, len(scored) - hostile_count)} |"
    return line


def calibration_threshold(
    scores: np.ndarray, labels: np.ndarray, conversation: np.ndarray, calibration: np.ndarray
) -> float:
    """`report.rs`'s choose_threshold: at most TARGET_FALSE_ALARMS of the
    benign calibration rows flagged, and above every conversation turn."""
    benign = scores[calibration][labels[calibration] == 0]
    turns = scores[calibration][conversation[calibration]]
    return max(threshold_at_mean_false_alarms([benign], TARGET_FALSE_ALARMS), float(turns.max()) + 1e-9)


def share(part: int, whole: int) -> str:
    return "–" if whole == 0 else f"{part} of {whole} ({100 * part / whole:.1f} %)"


if __name__ == "__main__":
    main()
