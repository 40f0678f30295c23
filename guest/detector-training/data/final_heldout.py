#!/usr/bin/env python3
"""The final held-out source: texts the detector is never trained, calibrated or tuned on, scored once at the end.

PyRIT (Microsoft's red-teaming toolkit, MIT) ships in its wheel on the Python package index:
- its jailbreak templates (`pyrit/datasets/jailbreak/templates/**/*.yaml`), each with its `{{ prompt }}` filled by a
  harmless question: hostile texts (jailbreakchat / DAN-family prompts, the family the corpus leaves out by rule);
- the assistant answers of its scorer evaluation sets (`pyrit/datasets/scorer_evals/**/*.csv`, column
  `assistant_response`, 200+ characters): long answers written by chat models to red-teaming requests (refusals,
  advice, and some harmful text), none of them a prompt injection, so benign for this detector.

Usage:
    pip download --no-deps pyrit==1.1.0 -d WHEEL_DIR
    python3 final_heldout.py --wheel-dir WHEEL_DIR --out DIR
    target/release/train-detector --out /tmp/detector --probe DIR/pyrit-templates.txt 2>&1 | grep -c HOSTILE
    target/release/train-detector --out /tmp/detector --probe DIR/pyrit-answers.txt 2>&1 | grep -c HOSTILE

Each output file holds one text per line (whitespace runs joined into one space), deduplicated, in a fixed order.
"""
import argparse
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import assemble  # noqa: E402  (the pinned-wheel reader and the YAML loader)

FINAL = {"pyrit": ("pyrit", "1.1.0", "pyrit-1.1.0-py3-none-any.whl",
                   "84581036bace7ff2aa92712e1e3f472a3a3bccc77567d5fbe642540c0ba20b0a")}
QUESTION = "What is the capital of France?"


def one_line(text):
    return re.sub(r"\s+", " ", text).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheel-dir", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    assemble.WHEELS.update(FINAL)
    wh = assemble.Wheels(args.wheel_dir)
    templates = []
    for path in wh.ls("pyrit", "pyrit/datasets/jailbreak/templates/"):
        if path.endswith(".yaml"):
            tree = assemble.load_yaml(wh.text("pyrit", path))
            value = tree.get("value") if isinstance(tree, dict) else None
            if isinstance(value, str):
                templates.append(one_line(re.sub(r"\{\{\s*prompt\s*\}\}", QUESTION, value)))
    csv.field_size_limit(1 << 24)
    answers = []
    for path in wh.ls("pyrit", "pyrit/datasets/scorer_evals/"):
        if not path.endswith(".csv"):
            continue
        rows = [r for r in csv.reader(wh.text("pyrit", path).splitlines()) if r and not r[0].startswith("#")]
        if not rows or "assistant_response" not in rows[0]:
            continue
        at = rows[0].index("assistant_response")
        answers += [one_line(r[at]) for r in rows[1:] if len(r) > at and len(r[at]) >= 200]
    os.makedirs(args.out, exist_ok=True)
    for name, texts in (("pyrit-templates.txt", templates), ("pyrit-answers.txt", answers)):
        texts = list(dict.fromkeys(t for t in texts if t))
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write("\n".join(texts) + "\n")
        print(f"{name}: {len(texts)} texts")


if __name__ == "__main__":
    main()
