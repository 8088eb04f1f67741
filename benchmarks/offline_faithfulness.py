"""Faithfulness with the offline judge on the development sets, against the word floor.

For each set, ``veracity.aevaluate(samples, [Faithfulness()], OfflineJudge())`` scores every
answer as a user would get it (claims by segmentation, offline verdicts; an answer with
no claim scores 1.0, the metric's default). Reported per set, on the held-out "test"
half by default (``--split all`` for every row; the judge was fitted on the other half):

- AUROC and balanced accuracy of the faithfulness score against the label (BA at
  score ≥ ``score_threshold``, chosen on the fit half by ``offline_fit.py``);
- the same for the weakest claim's P(supported) (a continuous score from the same
  claims; BA at P ≥ t_support), which the metric's discrete score cannot show;
- the floor: the share of answer words found in the contexts (BA at its threshold, also
  chosen on the fit half);
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
    labels = [r.label for r in rows]
    scores, weakest, mismatched = [], [], 0
    for row in rows:
        record = by_id[row.id]
        assert record.score is not None, record.reason
        scores.append(record.score)
        claims = [c["claim"] for c in record.details.get("claims", [])]
        assessed = await judge.assess_claims(claims, row.contexts)
        weakest.append(min((a.probability for a in assessed), default=1.0))
        verdicts = [c["verdict"] for c in record.details.get("claims", [])]
        mismatched += verdicts != [a.verdict.value for a in assessed]
    fit = judge.params.fit
    floors = [floor_score(r.answer, r.contexts) for r in rows]
    statuses = [by_id[r.id].status for r in rows]
    claimed = [i for i, s in enumerate(statuses) if s is not Status.NO_CLAIMS]
    return {
        "n": len(rows),
        "positives": sum(labels),
        "no_claims": sum(s is Status.NO_CLAIMS for s in statuses),
        "auroc": auroc(scores, labels),
        "bal_acc": balanced_accuracy([s >= fit["score_threshold"] for s in scores], labels),
        "p_auroc": auroc(weakest, labels),
        "p_bal_acc": balanced_accuracy([p >= judge.params.t_support for p in weakest], labels),
        "floor_auroc": auroc(floors, labels),
        "floor_bal_acc": balanced_accuracy([f >= fit["floor_threshold"] for f in floors], labels),
        "auroc_with_claims": auroc([scores[i] for i in claimed], [labels[i] for i in claimed]),
        "floor_auroc_with_claims": auroc(
            [floors[i] for i in claimed], [labels[i] for i in claimed]
        ),
        "samples_per_s": len(rows) / wall,
        "wall_s": wall,
        "verdict_mismatches": mismatched,
    }


def table(results: dict[str, dict[str, Any]], split: str) -> str:
    head = (
        "| set | n (faithful) | no claims | faithfulness AUROC | BA | weakest-claim P AUROC "
        "| BA | floor AUROC | floor BA | beats floor (score / P) | samples/s |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for name, r in results.items():
        beats = f"{_yes(r['auroc'] > r['floor_auroc'])} / {_yes(r['p_auroc'] > r['floor_auroc'])}"
        lines.append(
            f"| {name}{' ¹' if name == 'truthfulqa_pairs' else ''} | {r['n']} ({r['positives']}) "
            f"| {r['no_claims']} | {r['auroc']:.3f} | {r['bal_acc']:.3f} | {r['p_auroc']:.3f} "
            f"| {r['p_bal_acc']:.3f} | {r['floor_auroc']:.3f} | {r['floor_bal_acc']:.3f} "
            f"| {beats} | {r['samples_per_s']:.1f} |"
        )
    lines.append(
        f"\nsplit: {split}. ¹ truthfulqa_pairs: reference answer used as the context, "
        "label `correct`, never used for fitting."
    )
    return "\n".join(lines)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


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
