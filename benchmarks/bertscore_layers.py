"""Which layer of all-MiniLM-L6-v2 makes the best BERTScore for answer correctness?

For each ``num_layers`` in ``--layers``, computes BERTScore F1 of ``answer`` against
``ground_truth`` on the first ``--rows`` rows of a JSONL file of answer pairs (TruthfulQA
style: ``label.correct`` true or false), and prints the AUROC of F1 as a detector of
correct answers (the Mann-Whitney rank statistic, ties counted half).

Run:  python benchmarks/bertscore_layers.py PAIRS.jsonl [--rows 400] [--layers 1-6]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from veracity.embeddings import BertScorer


def auroc(scores: npt.ArrayLike, positive: npt.ArrayLike) -> float:
    """P(score of a random positive > score of a random negative), ties counting 1/2."""
    values = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(labels.sum()), int((~labels).sum())
    if n_pos == 0 or n_neg == 0:
        raise ValueError("AUROC needs both positive and negative examples")
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(len(values), dtype=np.float64)
    ranks[order] = np.arange(1, len(values) + 1)
    # Tied values share the mean of their ranks.
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    rank_sums = np.bincount(inverse, weights=ranks)
    ranks = (rank_sums / counts)[inverse]
    u = ranks[labels].sum() - n_pos * (n_pos + 1) / 2
    return float(u / (n_pos * n_neg))


def parse_layers(text: str) -> list[int]:
    if "-" in text:
        low, high = (int(part) for part in text.split("-", 1))
        return list(range(low, high + 1))
    return [int(part) for part in text.split(",")]


def read_pairs(path: Path, rows: int) -> tuple[list[str], list[str], list[bool]]:
    answers: list[str] = []
    references: list[str] = []
    correct: list[bool] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if len(answers) >= rows:
                break
            if not line.strip():
                continue
            row = json.loads(line)
            answers.append(row["answer"])
            references.append(row["ground_truth"])
            correct.append(bool(row["label"]["correct"]))
    return answers, references, correct


async def score_layer(layer: int, answers: list[str], references: list[str]) -> list[float]:
    scorer = BertScorer(num_layers=layer)
    try:
        scores = await scorer.score(answers, references)
    finally:
        await scorer.aclose()
    return [s.f1 for s in scores]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", type=Path, help="JSONL with answer, ground_truth, label.correct")
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("--layers", default="1-6", help="e.g. 1-6 or 2,4,6")
    args = parser.parse_args()
    answers, references, correct = read_pairs(args.pairs, args.rows)
    print(f"{len(answers)} pairs, {sum(correct)} correct, {len(correct) - sum(correct)} wrong")
    print(f"{'layers':>6}  {'AUROC':>6}  {'mean F1 correct':>15}  {'mean F1 wrong':>13}  {'s':>5}")
    labels = np.asarray(correct)
    for layer in parse_layers(args.layers):
        started = time.perf_counter()
        f1 = np.asarray(asyncio.run(score_layer(layer, answers, references)))
        elapsed = time.perf_counter() - started
        print(
            f"{layer:>6}  {auroc(f1, labels):6.3f}  {f1[labels].mean():15.3f}  "
            f"{f1[~labels].mean():13.3f}  {elapsed:5.1f}"
        )


if __name__ == "__main__":
    main()
