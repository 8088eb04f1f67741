"""Faithfulness judged by a real small LLM on loopback, on stratified development items.

The judge is any OpenAI-compatible server; ``benchmarks/local_llm_server.sh`` sets one up
(llama-cpp-python's server with Qwen2.5-Coder-1.5B-Instruct, Q4_K_M). veracity runs with
its default settings (structured output json_schema, log-probabilities on: whatever the
server rejects is negotiated away), exactly as a user's ``veracity run`` would.

Items: from each set, ``--per-class`` faithful and as many unfaithful answers of one half
(``--split``: "fit" to develop on, "test" to report), picked by a hash of their id. Per set:

- unscored: the share of items without a score (judge_error and the like);
- AUROC of the faithfulness score against the label, next to the word-overlap floor (the
  share of the answer's words found in the contexts) on the same items, and of
  supported / claims (``details["supported_share"]``);
- both evidence policies from one run: the judge runs with ``unfounded_support="flag"``
  (AUROC "flag", the default: the score as given), and "downgrade" counts a supported
  verdict whose quote is not in the contexts as unsupported (P 0), each with its paired
  bootstrap difference from the other and from the floor;
- prompt and reply tokens and seconds per item (``--concurrency``, default 1: a local
  server on two cores answers one request at a time).

The response cache (``--cache``, default under ``--out``) makes a re-run free;
``--retry-errors`` asks again, past it, for the items a run left ``judge_error``.

Run:  python benchmarks/local_llm_judge.py --base-url http://127.0.0.1:8765/v1 [--judge J] \\
          [--per-class 20] [--split test] [--sets halueval_qa,wice_dev,begin_dev]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from offline_data import DEFAULT_DATA, Row, auroc, auroc_difference, floor_score, load_set
from veracity import aevaluate
from veracity.chat import OpenAIChat
from veracity.chat.modes import STRUCTURED_OUTPUT_MODES
from veracity.config import RunConfig
from veracity.judges import LLMJudge, make_judge
from veracity.types import ResultRecord, Status

SETS = ("halueval_qa", "wice_dev", "begin_dev")
SCORED = (Status.SCORED, Status.NO_CLAIMS, Status.NO_CONTEXTS)


def pick(rows: list[Row], split: str, per_class: int, skip: int = 0) -> list[Row]:
    """``per_class`` faithful and unfaithful rows of ``split``, by a hash of their id, less
    the first ``skip`` of each (judged by an earlier, smaller run)."""
    pool = sorted(
        (r for r in rows if r.split == split and r.answer.strip()),
        key=lambda r: hashlib.sha256(r.id.encode()).hexdigest(),
    )
    return [
        *[r for r in pool if r.label][skip:per_class],
        *[r for r in pool if not r.label][skip:per_class],
    ]


def without_unfounded(record: ResultRecord) -> float | None:
    """The score with every supported claim whose evidence was not found counted as
    unsupported (P 0): what downgrading such verdicts would give."""
    claims = record.details.get("claims") or []
    if record.status is not Status.SCORED or not claims:
        return record.score
    values = []
    for claim in claims:
        supported = claim.get("p_supported", float(claim["verdict"] == "supported"))
        values.append(0.0 if claim.get("evidence_not_found") else supported)
    return sum(values) / len(values)


def _difference(
    a: list[float | None], b: list[float | None], labels: list[bool]
) -> list[float] | None:
    """AUROC(a) − AUROC(b) on the items both scored, with its 95 % paired bootstrap
    interval: [difference, low, high]."""
    kept = [(x, y, lab) for x, y, lab in zip(a, b, labels, strict=True) if None not in (x, y)]
    if len({lab for _, _, lab in kept}) < 2:
        return None
    xs, ys, labs = zip(*kept, strict=True)
    return [round(v, 3) for v in auroc_difference(xs, ys, labs)]


def _auroc(pairs: list[tuple[float | None, bool]]) -> float | None:
    kept = [(s, y) for s, y in pairs if s is not None]
    if len({y for _, y in kept}) < 2:
        return None
    return round(auroc([s for s, _ in kept], [y for _, y in kept]), 3)


async def run_set(args: argparse.Namespace, name: str, rows: list[Row]) -> dict[str, Any]:
    judge = (
        make_judge(
            args.judge, base_url=args.base_url, concurrency=args.concurrency,
            timeout_s=args.timeout,
        )
        if args.judge
        else None
    )  # fmt: skip
    chat = OpenAIChat(
        args.model, base_url=args.base_url, api_key="local", concurrency=args.concurrency,
        timeout_s=args.timeout, structured_output=args.structured_output,
    )  # fmt: skip
    samples = [
        {"id": r.id, "question": r.question, "contexts": list(r.contexts), "answer": r.answer}
        for r in rows
    ]
    started = time.perf_counter()
    result = await aevaluate(
        samples,
        ["faithfulness"],
        # Flagged, not downgraded: both policies are measured from one run (see
        # ``without_unfounded``).
        judge or LLMJudge(chat, unfounded_support="flag"),
        config=RunConfig(cache=str(args.cache)),
        out=args.out / name,
        retry_errors=args.retry_errors,
    )
    elapsed = time.perf_counter() - started
    by_id = {r.sample_id: r for r in result.results}
    records = [by_id[r.id] for r in rows]
    labels = [r.label for r in rows]
    floors = [floor_score(r.answer, r.contexts) for r in rows]
    scored = [rec.status in SCORED for rec in records]
    usage = [rec.usage for rec in records]
    calls = sum(u.calls for u in usage)

    def on_scored(values: Sequence[float | None]) -> float | None:
        return _auroc([(v, y) for v, y, ok in zip(values, labels, scored, strict=True) if ok])

    with_claims = [rec.status is Status.SCORED for rec in records]
    # Unscored items are left out of the differences, as of the AUROCs.
    flagged = [rec.score if ok else None for rec, ok in zip(records, scored, strict=True)]
    downgraded = [
        without_unfounded(rec) if ok else None for rec, ok in zip(records, scored, strict=True)
    ]
    kept_floors: list[float | None] = [
        f if ok else None for f, ok in zip(floors, scored, strict=True)
    ]
    return {
        "set": name,
        "items": len(rows),
        "unscored": round(1 - sum(scored) / len(rows), 3),
        "statuses": dict(Counter(rec.status.value for rec in records)),
        "auroc_score": on_scored([rec.score for rec in records]),
        "auroc_supported_share": on_scored(
            [rec.details.get("supported_share", rec.score) for rec in records]
        ),
        "auroc_evidence_downgraded": on_scored([without_unfounded(rec) for rec in records]),
        "auroc_floor": on_scored(floors),
        # Each with its 95 % paired bootstrap interval: [difference, low, high].
        "flag_minus_downgrade": _difference(flagged, downgraded, labels),
        "downgrade_minus_floor": _difference(downgraded, kept_floors, labels),
        "flag_minus_floor": _difference(flagged, kept_floors, labels),
        "auroc_score_with_claims": _auroc(
            [(rec.score, y) for rec, y, ok in zip(records, labels, with_claims, strict=True) if ok]
        ),
        "auroc_floor_with_claims": _auroc(
            [(f, y) for f, y, ok in zip(floors, labels, with_claims, strict=True) if ok]
        ),
        "claims": sum(int(rec.details.get("n_claims", 0)) for rec in records),
        "evidence_not_found": sum(int(rec.details.get("evidence_not_found", 0)) for rec in records),
        "scored_by_p_supported": sum(
            rec.details.get("scored_by") == "p_supported" for rec in records
        ),
        "prompt_tokens_per_item": round(sum(u.input_tokens for u in usage) / len(rows)),
        "reply_tokens_per_item": round(sum(u.output_tokens for u in usage) / len(rows)),
        "calls_per_item": round(calls / len(rows), 2),
        "seconds_per_item": round(elapsed / len(rows), 1),
        # How the judge's replies were read (question -> path -> replies): issue 52 item 1.
        "reading": result.summary["metrics"]["faithfulness"]["overall"].get("reading") or {},
        "judge": result.manifest["judge"],
        # run.json says only that a cache was shared; which file holds the replies is here.
        "cache": str(args.cache),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct-q4_k_m")
    parser.add_argument(
        "--judge",
        help="another judge than the chat model at --base-url: a decision model, say "
        "(systemone/MODEL at --base-url)",
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--split", choices=("fit", "test"), default="test")
    parser.add_argument("--per-class", type=int, default=20)
    parser.add_argument(
        "--skip-per-class", type=int, default=0,
        help="leave out the first N of each class: judged already by a run of --per-class N "
        "(benchmarks/agreement.py reads several run directories together)",
    )  # fmt: skip
    parser.add_argument(
        "--structured-output", default="json_schema", choices=STRUCTURED_OUTPUT_MODES,
        help="what to ask the server for first (text: free text, what an endpoint without a "
        "JSON mode gives; the reading paths show how such replies were read)",
    )  # fmt: skip
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", type=Path, default=Path("runs/local_llm_judge"))
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument(
        "--retry-errors", action="store_true",
        help="ask the judge again for the items a run left judge_error (after a judge change)",
    )  # fmt: skip
    args = parser.parse_args()
    args.cache = args.cache or args.out / "responses.sqlite3"
    reports = []
    for name in args.sets.split(","):
        rows = pick(load_set(args.data, name), args.split, args.per_class, args.skip_per_class)
        report = asyncio.run(run_set(args, name, rows))
        reports.append(report)
        print(json.dumps({k: v for k, v in report.items() if k != "judge"}), flush=True)
    (args.out / f"report_{args.split}.json").write_text(json.dumps(reports, indent=1))
    print(
        "\n| set | items | unscored | AUROC downgrade | AUROC flag (default) | floor | "
        "supported/claims | prompt tok/item | reply tok/item | s/item |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in reports:
        print(f"| {r['set']} | {r['items']} | {r['unscored']:.1%} | "
              f"{r['auroc_evidence_downgraded']} | {r['auroc_score']} | {r['auroc_floor']} | "
              f"{r['auroc_supported_share']} | {r['prompt_tokens_per_item']} | "
              f"{r['reply_tokens_per_item']} | {r['seconds_per_item']} |")  # fmt: skip
    print("judge:", json.dumps(reports[-1]["judge"].get("negotiation", [])))


if __name__ == "__main__":
    main()
