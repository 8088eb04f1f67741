"""Fit the offline judge's logistic model and thresholds on the development sets.

Claim features come from the judge itself (same claim extraction, same features). The
labels are per response ("is the whole answer faithful"), so the fit is multiple-instance
with min-pooling: a response is faithful when its weakest claim is supported. It starts
from the claim with the lowest cosine, fits an L2-regularised logistic regression (IRLS,
numpy) on one claim per response, re-picks each response's weakest claim under the new
weights, and repeats until the picks settle. Each set counts equally and, within a set,
each label equally. The L2 strength is chosen by 4-fold cross-validation inside the fit
halves (folds by a hash of the contexts), maximising the mean AUROC of the expected score
(the mean of the claims' P(supported), which the metric reports as ``expected_score``)
over the three sets. t_support maximises the mean AUROC of the faithfulness score itself
(supported / claims, as the metric computes it from the verdicts) over the three sets;
t_align is chosen (see T_ALIGN); t_chunk comes from offline_fit_chunks.py. For the
benchmark's balanced accuracy, each response-level score (and the floor) gets the threshold
with the best balanced accuracy on each set's fit half, and one pooled over the three for a
set that was not fitted.

Only the "fit" half of each set is used (rows split by a hash of their contexts); the
figures written to params.json and printed are on the held-out "test" half.

Run:  python benchmarks/offline_fit.py [--data DIR] [--cache emb.npz] [--out PARAMS]
                                      [--keep-t-chunk]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from offline_data import (
    DEFAULT_DATA,
    FIT_SETS,
    DiskCachedEmbedder,
    Floats,
    Row,
    auroc,
    balanced_accuracy,
    best_threshold,
    context_digest,
    floor_score,
    load_set,
)
from offline_fit_chunks import fit_chunk_threshold
from veracity.embeddings import LocalEmbedder
from veracity.judges.offline import FEATURES, OfflineJudge, OfflineParams
from veracity.judges.offline.features import ClaimFeatures
from veracity.judges.offline.params import load_params, write_params
from veracity.judges.offline.verdicts import decide, probability
from veracity.metrics.faithfulness import grounded_share
from veracity.types import Verdict

PACKAGE_PARAMS = Path(__file__).resolve().parent.parent / "src/veracity/judges/offline/params.json"
L2_GRID = (1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
FOLDS = 4
T_SUPPORT_GRID = [round(t, 2) for t in np.arange(0.05, 0.96, 0.05)]
# Chosen, not fitted: the sets have no contradiction labels, and the faithfulness score does
# not depend on it (contradicted and not_enough_info both count as not supported). Pairs
# that differ in one number, name or negation have cosines of about 0.7-0.85 with MiniLM.
T_ALIGN = 0.65
VERSION = "v9"


@dataclass
class Features:
    row: Row
    texts: tuple[str, ...]  # the claims
    x: Floats  # (claims, features)
    claims: tuple[ClaimFeatures, ...]
    cosine: Floats
    floor: float


async def collect(judge: OfflineJudge, rows: list[Row], parallel: int = 8) -> list[Features]:
    gate = asyncio.Semaphore(parallel)

    async def one(row: Row) -> Features:
        async with gate:
            claims = (await judge.extract_claims(row.question, row.answer, iteration=0)).value
            found = await judge.claim_features(claims or (), row.contexts)
        x = np.array([f.values for f in found], dtype=np.float64)
        return Features(
            row,
            tuple(claims or ()),
            x.reshape(len(found), len(FEATURES)),
            found,
            np.array([f.cosine for f in found]),
            floor_score(row.answer, row.contexts),
        )

    return list(await asyncio.gather(*(one(r) for r in rows)))


def irls(x: Floats, y: Floats, w: Floats, l2: float, iterations: int = 50) -> Floats:
    """Weighted logistic regression with an L2 penalty (bias unpenalised): Newton steps."""
    a = np.hstack([np.ones((len(x), 1)), x])
    beta = np.zeros(a.shape[1])
    penalty = np.eye(a.shape[1]) * l2
    penalty[0, 0] = 0.0
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-np.clip(a @ beta, -30, 30)))
        gradient = a.T @ (w * (y - p)) - penalty @ beta
        hessian = (a * (w * p * (1 - p))[:, None]).T @ a + penalty
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if np.abs(step).max() < 1e-8:
            break
    return beta


def scores(items: list[Features], params: OfflineParams) -> list[float]:
    """The faithfulness score as the metric computes it from the judge's verdicts
    (supported / claims; no claims: 1.0)."""
    out = []
    for item in items:
        if not item.claims:
            out.append(1.0)
            continue
        verdicts = [decide(probability(f, params), f, params) for f in item.claims]
        out.append(sum(v is Verdict.SUPPORTED for v in verdicts) / len(verdicts))
    return out


def expected(items: list[Features], params: OfflineParams) -> list[float]:
    """The expected score: the mean of the claims' P(supported) (answers with claims)."""
    return [float(np.mean([probability(c, params) for c in f.claims])) for f in items]


def grounded(items: list[Features], params: OfflineParams) -> list[float]:
    """The expected grounded share: the answer's words in claims, weighed by P(supported)."""
    return [
        grounded_share(f.row.answer, f.texts, [probability(c, params) for c in f.claims])
        for f in items
    ]


def fold_of(item: Features) -> int:
    return context_digest(item.row.contexts)[1] % FOLDS


def mean_auroc(items: list[Features], values: list[float]) -> float:
    """The mean over the sets of the AUROC of ``values`` (one per item)."""
    return float(np.mean([
        auroc([v for f, v in zip(items, values, strict=True) if f.row.set == name],
              [f.row.label for f in items if f.row.set == name])
        for name in FIT_SETS
    ]))  # fmt: skip


def choose_l2(items: list[Features]) -> tuple[float, dict[str, float]]:
    """The L2 strength with the best cross-validated mean AUROC of the expected score."""
    found = {}
    for l2 in L2_GRID:
        tested: list[Features] = []
        held: list[float] = []
        for k in range(FOLDS):
            params, _ = fit_model([f for f in items if fold_of(f) != k], l2)
            fold = [f for f in items if fold_of(f) == k and len(f.x)]
            tested += fold
            held += expected(fold, params)
        found[str(l2)] = round(mean_auroc(tested, held), 4)
    return float(max(found, key=lambda k: found[k])), found


def fit(items: list[Features]) -> tuple[OfflineParams, dict[str, Any]]:
    l2, cv = choose_l2(items)
    model, rounds = fit_model(items, l2)
    best_auc, t_support = max(
        (mean_auroc(items, scores(items, replace(model, t_support=t))), t) for t in T_SUPPORT_GRID
    )
    chosen = replace(model, t_support=t_support)
    per_set = {name: thresholds([f for f in items if f.row.set == name], chosen)
               for name in FIT_SETS}  # fmt: skip
    info = {"l2": l2, "l2_cv_mean_auroc": cv, "mil_rounds": rounds,
            "fit_mean_auroc": round(best_auc, 4),
            "thresholds": {"pooled": thresholds(items, chosen), **per_set}}  # fmt: skip
    return chosen, info


def response_scores(
    items: list[Features], params: OfflineParams
) -> dict[str, tuple[list[float], list[bool]]]:
    """Each response-level score with its labels: the faithfulness score on every answer;
    the expected score, the expected grounded share and the floor on answers with claims."""
    claimed = [f for f in items if len(f.x)]
    labels = [f.row.label for f in claimed]
    return {
        "score": (scores(items, params), [f.row.label for f in items]),
        "expected": (expected(claimed, params), labels),
        "grounded": (grounded(claimed, params), labels),
        "floor": ([f.floor for f in claimed], labels),
    }


def thresholds(items: list[Features], params: OfflineParams) -> dict[str, float]:
    """Each response-level score's threshold with the best balanced accuracy on ``items``."""
    return {
        name: round(best_threshold(values, labels), 4)
        for name, (values, labels) in response_scores(items, params).items()
    }


def fit_model(items: list[Features], l2: float) -> tuple[OfflineParams, int]:
    """The multiple-instance logistic fit (t_support left at 0.5), and its rounds."""
    train = [f for f in items if len(f.x)]
    stacked = np.vstack([f.x for f in train])
    mean, scale = stacked.mean(axis=0), stacked.std(axis=0) + 1e-6
    y = np.array([float(f.row.label) for f in train])
    cells: dict[tuple[str, bool], int] = {}
    for f in train:
        cells[(f.row.set, f.row.label)] = cells.get((f.row.set, f.row.label), 0) + 1
    weight = np.array([len(train) / (len(cells) * cells[(f.row.set, f.row.label)]) for f in train])
    picks = [int(np.argmin(f.cosine)) for f in train]
    beta = np.zeros(len(FEATURES) + 1)
    rounds = 0
    for rounds in range(1, 21):  # noqa: B007
        x = np.array([(f.x[k] - mean) / scale for f, k in zip(train, picks, strict=True)])
        beta = irls(x, y, weight, l2)
        new = [int(np.argmin(((f.x - mean) / scale) @ beta[1:])) for f in train]
        if new == picks:
            break
        picks = new
    params = OfflineParams(VERSION, FEATURES, tuple(mean), tuple(scale), tuple(beta[1:]),
                           float(beta[0]), 0.5, T_ALIGN, 0.5)  # fmt: skip
    return params, rounds


def report(items: list[Features], params: OfflineParams, info: dict[str, Any]) -> dict[str, Any]:
    """AUROC and balanced accuracy of each response-level score per set, at the set's own
    fit-half threshold (the pooled one for a set that was not fitted)."""
    out: dict[str, Any] = {}
    for name in sorted({f.row.set for f in items}):
        subset = [f for f in items if f.row.set == name]
        cut = info["thresholds"].get(name, info["thresholds"]["pooled"])
        out[name] = {"n": len(subset), "no_claims": sum(not len(f.x) for f in subset)}
        for score, (values, labels) in response_scores(subset, params).items():
            out[name][f"{score}_auroc"] = round(auroc(values, labels), 4)
            out[name][f"{score}_bal_acc"] = round(
                balanced_accuracy([v >= cut[score] for v in values], labels), 4
            )
    return out


async def main_async(args: argparse.Namespace) -> int:
    rows = [r for name in FIT_SETS for r in load_set(args.data, name, args.limit)]
    base = LocalEmbedder()
    embedder = DiskCachedEmbedder(base, args.cache) if args.cache else base
    judge = OfflineJudge(embedder, OfflineParams.untrained(FEATURES))
    try:
        items = await collect(judge, rows)
    finally:
        if isinstance(embedder, DiskCachedEmbedder):
            embedder.save()
        await embedder.aclose()
    fitted, info = fit([f for f in items if f.row.split == "fit"])
    if args.keep_t_chunk:
        # A refit of the claim model alone: context precision's threshold stays as shipped.
        shipped = load_params(args.out)
        chunk_keys = ("t_chunk_fit", "chunk_test_n", "chunk_test_auroc", "chunk_test_bal_acc")
        t_chunk, chunk_info = shipped.t_chunk, {k: shipped.fit[k] for k in chunk_keys}
    else:
        t_chunk, chunk_info = await fit_chunk_threshold(judge, rows)
    held_out = report([f for f in items if f.row.split == "test"], fitted, info)
    summary = {"date": date.today().isoformat(), **info, **chunk_info,
               "split": "fit on the 'fit' half of each set; figures on the 'test' half",
               "held_out": held_out}  # fmt: skip
    final = replace(fitted, t_chunk=t_chunk, fit=summary)
    write_params(final, args.out)
    print(json.dumps(final.to_json(), indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=Path, help="keep embeddings in this .npz file")
    parser.add_argument("--out", type=Path, default=PACKAGE_PARAMS)
    parser.add_argument("--limit", type=int, help="rows per set (for a quick try)")
    parser.add_argument(
        "--keep-t-chunk",
        action="store_true",
        help="keep the chunk-relevance threshold of the parameters in --out (refit claims only)",
    )
    return asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
