#!/usr/bin/env python3
"""The final held-out source: texts the detector is never trained, calibrated or tuned on, scored once at the end.

PyRIT (Microsoft's red-teaming toolkit, MIT) ships in its wheel on the Python package index:
- its jailbreak templates (`pyrit/datasets/jailbreak/templates/**/*.yaml`), each with its `{{ prompt }}` filled by a
  harmless question: hostile texts (jailbreakchat / DAN-family prompts, the family the corpus leaves out by rule);
- the assistant answers of its scorer evaluation sets (`pyrit/datasets/scorer_evals/**/*.csv`, column
  `assistant_response`, 200+ characters): long answers written by chat models to red-teaming requests (refusals,
  advice, and some harmful text), none of them a prompt injection, so benign for this detector.

Usage:
    pip download --no-deps pyrit==1.1.0 -d PACKAGE_DIR
    python3 final_heldout.py --package-dir PACKAGE_DIR --out pyrit.jsonl
    cargo run --release -p hive-mind-detector-training -- --out /tmp/detector --measure pyrit.jsonl

The output holds one labelled text a line ({"text", "label", "kind", "lang"}: kind `jailbreak-template`, label 1, or
`assistant-answer`, label 0), deduplicated, in a fixed order.
"""
import argparse
import csv
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import assemble  # noqa: E402  (the pinned-package reader and the YAML loader)

FINAL = {"pyrit": ("pypi", "pyrit", "1.1.0", "pyrit-1.1.0-py3-none-any.whl",
                   "84581036bace7ff2aa92712e1e3f472a3a3bccc77567d5fbe642540c0ba20b0a")}
QUESTION = "What is the capital of France?"


def one_line(text):
    return re.sub(r"\s+", " ", text).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--package-dir", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    assemble.PACKAGES.update(FINAL)
    wh = assemble.Packages(args.package_dir)
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
    rows = [(1, "jailbreak-template", t) for t in dict.fromkeys(templates) if t]
    rows += [(0, "assistant-answer", t) for t in dict.fromkeys(answers) if t]
    with open(args.out, "w", encoding="utf-8") as f:
        for label, kind, text in rows:
            f.write(json.dumps({"text": text, "label": label, "kind": kind, "lang": "en"}, ensure_ascii=False) + "\n")
    print(f"{args.out}: {sum(r[0] for r in rows)} hostile, {sum(1 - r[0] for r in rows)} benign")

if __name__ == "__main__":
    main()
