"""Faithfulness with the offline judge on the development sets, against the word floor.

For each set, ``veracity.aevaluate(samples, [Faithfulness()], OfflineJudge())`` scores every
answer as a user would get it (claims by segmentation, offline verdicts; an answer with
no claim scores 1.0, the metric's default). Reported per set, on the held-out "test"
half by default (``--split fit`` for the half the judge was fitted on, ``--split all`` for
every row):

- the faithfulness score (the mean of the claims' P(supported), the expected share of
  supported claims) on every row: AUROC and balanced accuracy against the label, next to
  the floor's AUROC on the same rows, with the gain over the floor and its 95 % paired
  bootstrap interval;
- on the answers with claims (an answer with none has nothing to rank), the metric's two
  continuous response-level scores: the score itself ("expected score") and
  ``details["expected_grounded_share"]`` (the share of the answer's
  words inside claims, each claim's words weighed by its P(supported); what the answer
  says beyond its claims counts as not grounded), next to the floor, the share of the
  answer's words found in the contexts; with the AUROC gain over the floor and its 95 %
  paired bootstrap interval;
- throughput (samples per second, model load excluded) and peak memory (max RSS).

Balanced accuracy uses, for every score and the floor alike, the threshold that
``offline_fit.py`` found best on the set's fit half (pooled over the fit sets for
truthfulqa_pairs). truthfulqa_pairs has no contexts: its reference answer is the context,
and the label is ``correct`` (it was not used for fitting at all, so all of it is held out).

Run:  python benchmarks/offline_faithfulness.py [--data DIR] [--limit N] [--split fit|all]

The default embedding model's precision is the machine's (bfloat16 products where the CPU
has them natively); ``VERACITY_EMBEDDING_PRECISION=float32`` runs it in float32.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

from offline_data import (
    ALL_SETS,
    DEFAULT_DATA,
    Row,
    auroc,
    auroc_difference,
    balanced_accuracy,
    floor_score,
    load_set,
)
from veracity import aevaluate
from veracity.config import RunConfig
from veracity.judges.offline import OfflineJudge
from veracity.metrics import Faithfulness
from veracity.types import ResultRecord, Status


async def run_set(
    judge: OfflineJudge, name: str, rows: list[Row], question_as_turn: str | None = None
) -> dict[str, Any]:
    samples: list[dict[str, Any]] = [
        {"id": r.id, "question": r.question, "contexts": list(r.contexts), "answer": r.answer}
        for r in rows
    ]
    metric = Faithfulness()
    if question_as_turn is not None:
        # The question is the user's last turn (BEGIN's dialogues): what the answer takes
        # from it can be supported by the conversation, counted or not.
        for sample in samples:
            sample["history"] = [{"role": "user", "content": sample["question"]}]
        metric = Faithfulness(conversation_support_counts=question_as_turn == "counted")
    started = time.perf_counter()
    result = await aevaluate(samples, [metric], judge, config=RunConfig(cache=False))
    wall = time.perf_counter() - started
    by_id: dict[str, ResultRecord] = {r.sample_id: r for r in result.results}
    records = [by_id[row.id] for row in rows]
    labels = [r.label for r in rows]
    scores = []
    for record in records:
        assert record.score is not None, record.reason
        scores.append(record.score)
    floors = [floor_score(r.answer, r.contexts) for r in rows]
    claimed = [i for i, r in enumerate(records) if r.status is not Status.NO_CLAIMS]
    claimed_labels = [labels[i] for i in claimed]
    ranked = {
        "expected": [scores[i] for i in claimed],
        "grounded": [float(records[i].details["expected_grounded_share"]) for i in claimed],
        "floor": [floors[i] for i in claimed],
    }
    cuts = judge.params.fit["thresholds"]
    cut = cuts.get(name, cuts["pooled"])
    out: dict[str, Any] = {
        "n": len(rows),
        "positives": sum(labels),
        "no_claims": len(rows) - len(claimed),
        "score_auroc": auroc(scores, labels),
        "score_bal_acc": balanced_accuracy([s >= cut["expected"] for s in scores], labels),
        "floor_auroc_all": auroc(floors, labels),
    }
    out["score_gain"], out["score_gain_low"], out["score_gain_high"] = auroc_difference(
        scores, floors, labels
    )
    for key, values in ranked.items():
        out[f"{key}_auroc"] = auroc(values, claimed_labels)
        out[f"{key}_bal_acc"] = balanced_accuracy([v >= cut[key] for v in values], claimed_labels)
        if key != "floor":
            gain = auroc_difference(values, ranked["floor"], claimed_labels)
            out[f"{key}_gain"], out[f"{key}_gain_low"], out[f"{key}_gain_high"] = gain
    return out | {"samples_per_s": len(rows) / wall, "wall_s": wall}


def _gain(r: dict[str, Any], key: str) -> str:
    return f"{r[key + '_gain']:+.3f} [{r[key + '_gain_low']:+.3f}, {r[key + '_gain_high']:+.3f}]"


def table(results: dict[str, dict[str, Any]], split: str) -> str:
    mark = {name: " ¹" if name == "truthfulqa_pairs" else "" for name in results}
    lines = [
        "Every answer (no claims scores 1.0):\n",
        "| set | n (faithful) | no claims | faithfulness AUROC | BA | floor AUROC "
        "| gain [95 % CI] | samples/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        lines.append(
            f"| {name}{mark[name]} | {r['n']} ({r['positives']}) | {r['no_claims']} "
            f"| {r['score_auroc']:.3f} | {r['score_bal_acc']:.3f} | {r['floor_auroc_all']:.3f} "
            f"| {_gain(r, 'score')} | {r['samples_per_s']:.1f} |"
        )
    lines += [
        "\nAnswers with claims, AUROC / BA:\n",
        "| set | expected score | expected grounded share | floor "
        "| gain of expected score [95 % CI] | gain of grounded share [95 % CI] |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        lines.append(
            f"| {name}{mark[name]} | {r['expected_auroc']:.3f} / {r['expected_bal_acc']:.3f} "
            f"| {r['grounded_auroc']:.3f} / {r['grounded_bal_acc']:.3f} "
            f"| {r['floor_auroc']:.3f} / {r['floor_bal_acc']:.3f} "
            f"| {_gain(r, 'expected')} | {_gain(r, 'grounded')} |"
        )
    lines.append(
        f"\nsplit: {split}. ¹ truthfulqa_pairs: reference answer used as the context, "
        "label `correct`, never used for fitting (pooled thresholds)."
    )
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> int:
    judge = OfflineJudge(concurrency=args.concurrency)
    load_started = time.perf_counter()
    await judge.embed(["warm up"])  # load and verify the model outside the timings
    load_s = time.perf_counter() - load_started
    results: dict[str, dict[str, Any]] = {}
    for name in args.sets:
        rows = load_set(args.data, name)
        if args.split != "all" and name != "truthfulqa_pairs":
            rows = [r for r in rows if r.split == args.split]
        rows = rows[: args.limit] if args.limit else rows
        results[name] = await run_set(judge, name, rows, args.question_as_turn)
        results[name]["load_average"] = os.getloadavg()[0]
        print(name, json.dumps({k: round(v, 4) for k, v in results[name].items()}), flush=True)
    await judge.aclose()
    total_n = sum(r["n"] for r in results.values())
    total_s = sum(r["wall_s"] for r in results.values())
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print()
    print(table(results, args.split))
    print(
        f"\njudge {judge.name} (params {judge.params.fingerprint}); model load {load_s:.1f} s; "
        f"{total_n} samples in {total_s:.1f} s = {total_n / total_s:.1f} samples/s; "
        f"peak memory (max RSS) {peak_mib:.0f} MiB; 1-minute load average after each set: "
        + ", ".join(f"{r['load_average']:.1f}" for r in results.values())
        + f" on {os.cpu_count()} cores"
    )
    if args.json:
        payload = {"results": results, "load_s": load_s, "peak_rss_mib": peak_mib,
                   "split": args.split, "params": judge.params.fingerprint}  # fmt: skip
        args.json.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, help="at most N rows per set")
    parser.add_argument("--split", choices=["test", "fit", "all"], default="test")
    parser.add_argument("--sets", nargs="+", default=list(ALL_SETS), choices=list(ALL_SETS))
    parser.add_argument("--concurrency", type=int, default=OfflineJudge().concurrency)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--question-as-turn",
        choices=["counted", "not-counted"],
        help="give each sample its question as a user turn of history; conversation "
        "support counted as supported, or not",
    )
    return asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
