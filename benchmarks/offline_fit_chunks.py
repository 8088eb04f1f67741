"""The chunk-relevance threshold of the offline judge, fitted on HaluEval questions.

Each HaluEval question comes with the passage it was written from (relevant). Its hard
negative is the passage of another question that is closest to it in embedding space
(topically near, but not the one that answers it). The threshold on the judge's
relevance (0–1) that best separates the two on the "fit" half is kept; the figures are
on the "test" half.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from offline_data import Row, auroc, balanced_accuracy, best_threshold
from veracity.judges.offline import OfflineJudge


async def fit_chunk_threshold(judge: OfflineJudge, rows: list[Row]) -> tuple[float, dict[str, Any]]:
    by_question: dict[str, Row] = {}
    for row in rows:
        if row.set == "halueval_qa" and row.question and row.contexts:
            by_question.setdefault(row.question, row)
    items = list(by_question.values())
    if len(items) < 4:
        return 0.5, {"t_chunk_note": "too few HaluEval questions: default 0.5"}
    passages = [r.contexts[0] for r in items]
    vectors = await judge.embed([r.question for r in items] + passages)
    n = len(items)
    similarity = vectors[:n] @ vectors[n:].T
    same = np.array([[a == b for b in passages] for a in passages])
    similarity[same] = -np.inf
    negatives = similarity.argmax(axis=1)
    relevance: dict[str, list[tuple[float, bool]]] = {"fit": [], "test": []}
    for row, k in zip(items, negatives, strict=True):
        judged = await judge.judge_chunks(row.question, [passages[items.index(row)],
                                          passages[int(k)]], None, iteration=0)  # fmt: skip
        assert judged.value is not None, judged.error
        own, other = judged.value
        relevance[row.split] += [(own.relevance / 100, True), (other.relevance / 100, False)]
    fit_scores, fit_labels = zip(*relevance["fit"], strict=True)
    threshold = best_threshold(list(fit_scores), list(fit_labels))
    test_scores, test_labels = zip(*relevance["test"], strict=True)
    predicted = [s >= threshold for s in test_scores]
    return threshold, {
        "t_chunk_fit": "HaluEval question vs its own passage / its nearest other passage",
        "chunk_test_n": len(test_scores),
        "chunk_test_auroc": round(auroc(list(test_scores), list(test_labels)), 4),
        "chunk_test_bal_acc": round(balanced_accuracy(predicted, list(test_labels)), 4),
    }
