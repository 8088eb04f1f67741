"""Faithfulness with the offline judge on the development sets, against the word floor.

For each set, ``veracity.aevaluate(samples, [Faithfulness()], OfflineJudge())`` scores every
answer as a user would get it (claims by segmentation, offline verdicts; an answer with
no claim scores 1.0, the metric's default). Reported per set, on the held-out "test"
half by default (``--split all`` for every row; the judge was fitted on the other half):

- AUROC and balanced accuracy of the faithfulness score (supported / claims) against the
  label on every row (BA at score ≥ ``score_threshold``, chosen on the fit half by
  ``offline_fit.py``), next to the floor's AUROC on the same rows;
- on the answers with claims (an answer with none has nothing to rank): the same for the
  metric's ``details["expected_score"]``, the mean of the claims' P(supported) (BA at
  ``expected_threshold``, chosen on the fit half), and for the floor, the share of answer
  words found in the contexts (BA at its fit-half threshold), with the AUROC gain over
  the floor and its 95 % paired bootstrap interval;
- throughput (samples per second, model load excluded) and peak memory (max RSS).

truthfulqa_pairs has no contexts: its reference answer is the context, and the label is
``correct`` (it was not used for fitting at all, so all of it is held out).

Run:  python benchmarks/offline_faithfulness.py [--data DIR] [--limit N] [--split all]
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
from veracity.judges.offline import OfflineJudge
from veracity.metrics import Faithfulness
from veracity.types import ResultRecord, Status


async def run_set(judge: OfflineJudge, rows: list[Row]) -> dict[str, Any]:
    samples = [
        {"id": r.id, "question": r.question, "contexts": list(r.contexts), "answer": r.answer}
        for r in rows
    ]
    started = time.perf_counter()
    result = await aevaluate(samples, [Faithfulness()], judge, cache=False)
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
    expected = [float(records[i].details["expected_score"]) for i in claimed]
    claimed_labels = [labels[i] for i in claimed]
    claimed_floors = [floors[i] for i in claimed]
    fit = judge.params.fit
    delta, low, high = auroc_difference(expected, claimed_floors, claimed_labels)
    return {
        "n": len(rows),
        "positives": sum(labels),
        "no_claims": len(rows) - len(claimed),
        "auroc": auroc(scores, labels),
        "bal_acc": balanced_accuracy([s >= fit["score_threshold"] for s in scores], labels),
        "floor_auroc_all": auroc(floors, labels),
        "expected_auroc": auroc(expected, claimed_labels),
        "expected_bal_acc": balanced_accuracy(
            [e >= fit["expected_threshold"] for e in expected], claimed_labels
        ),
        "floor_auroc": auroc(claimed_floors, claimed_labels),
        "floor_bal_acc": balanced_accuracy(
            [f >= fit["floor_threshold"] for f in claimed_floors], claimed_labels
        ),
        "auroc_gain": delta,
        "auroc_gain_low": low,
        "auroc_gain_high": high,
        "samples_per_s": len(rows) / wall,
        "wall_s": wall,
    }


def table(results: dict[str, dict[str, Any]], split: str) -> str:
    lines = [
        "| set | n (faithful) | no claims | faithfulness AUROC | BA | floor AUROC "
        "| expected score AUROC | BA | floor AUROC | floor BA | gain [95 % CI] | samples/s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        lines.append(
            f"| {name}{' ¹' if name == 'truthfulqa_pairs' else ''} | {r['n']} ({r['positives']}) "
            f"| {r['no_claims']} | {r['auroc']:.3f} | {r['bal_acc']:.3f} "
            f"| {r['floor_auroc_all']:.3f} | {r['expected_auroc']:.3f} "
            f"| {r['expected_bal_acc']:.3f} | {r['floor_auroc']:.3f} | {r['floor_bal_acc']:.3f} "
            f"| {r['auroc_gain']:+.3f} [{r['auroc_gain_low']:+.3f}, {r['auroc_gain_high']:+.3f}] "
            f"| {r['samples_per_s']:.1f} |"
        )
    lines.append(
        f"\nsplit: {split}. Columns 4-6 on every row (no claims scores 1.0); columns 7-11 on "
        "the answers with claims. ¹ truthfulqa_pairs: reference answer used as the context, "
        "label `correct`, never used for fitting."
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
        if args.split == "test" and name != "truthfulqa_pairs":
            rows = [r for r in rows if r.split == "test"]
        rows = rows[: args.limit] if args.limit else rows
        results[name] = await run_set(judge, rows)
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
    parser.add_argument("--split", choices=["test", "all"], default="test")
    parser.add_argument("--sets", nargs="+", default=list(ALL_SETS), choices=list(ALL_SETS))
    parser.add_argument("--concurrency", type=int, default=OfflineJudge().concurrency)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    return asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
