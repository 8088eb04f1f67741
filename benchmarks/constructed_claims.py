"""Contradictions and paraphrases on constructed claims: does a judge's claim verification
put a contradicted claim far below a faithful paraphrase (issue 50 item 2)?

``benchmarks/data/constructed_claims.jsonl`` holds about a hundred hand-written items,
each one sentence (the claim) with 2 to 4 short contexts, distractors among them, in
varied domains. Categories:

- ``contradicted_name``, ``contradicted_number``, ``contradicted_negation``,
  ``contradicted_role``: a context states the opposite (another entity, another number,
  the negation, the roles swapped: "Acme sued Paris" against "Paris sued Acme");
- ``paraphrase``: faithful, reworded, often with a word no context has ("refunds arrive
  within 5 business days" against "credited within five working days");
- ``two_passage``: supported only by two contexts together, each holding half;
- ``unrelated``: the contexts say nothing about it;
- ``short_reply_right``, ``short_reply_wrong``: a short reply ("Canberra.", "It's your
  line manager.") to the item's ``question``, which the contexts answer; a wrong one
  names a thing that another context speaks of ("Sydney." beside "Sydney is Australia's
  largest city"), so every word of it is in the contexts.

Each claim is the answer of a sample scored by ``veracity.evaluate(..., ["faithfulness"],
judge)``, the path a user takes. An item's P(supported) is the ``p_supported`` of its
claim in ``details["claims"]`` (the mean when the judge drew several claims from the
sentence); a judge whose verdicts carry no ``p_supported`` (an LLM judge) counts 1 for a
supported claim and 0 otherwise, and the report says so. Printed per category: n, mean P,
the share of items all of whose claims are ``supported``, the share with a claim
``contradicted``; then the goals as PASS/FAIL lines: the issue's (mean P of all
contradicted items ≤ 0.15, paraphrases ≥ 0.65, two-passage ≥ 0.6) and ours (wrong short
replies ≤ 0.15, right ones ≥ 0.65). An item the judge could not score
is counted apart, with its status, and is in no mean.

Judge: the offline judge by default (well under a minute); ``--judge openai/MODEL
--base-url URL`` for an LLM.

Run:  python benchmarks/constructed_claims.py [--judge offline|openai/M] [--base-url URL]
                                              [--data FILE] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from statistics import mean
from typing import Any

from veracity import JudgeFatalError, evaluate
from veracity.judges import make_judge
from veracity.types import Status

DEFAULT_FILE = Path(__file__).resolve().parent / "data" / "constructed_claims.jsonl"
CATEGORIES = (
    "contradicted_name",
    "contradicted_number",
    "contradicted_negation",
    "contradicted_role",
    "paraphrase",
    "two_passage",
    "unrelated",
    "short_reply_right",
    "short_reply_wrong",
)
# Goals on mean P, the then ours: (group, its categories, "max" or "min", bound).
GOALS = (
    ("contradicted (all four)", tuple(c for c in CATEGORIES if c.startswith("contradicted")),
     "max", 0.15),
    ("paraphrase", ("paraphrase",), "min", 0.65),
    ("two_passage", ("two_passage",), "min", 0.6),
    # Ours: a wrong answer read from a trace never scores near perfect.
    ("short replies, wrong", ("short_reply_wrong",), "max", 0.15),
    ("short replies, right", ("short_reply_right",), "min", 0.65),
)  # fmt: skip


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def claim_probability(claims: list[dict[str, Any]]) -> tuple[float, bool]:
    """The mean P(supported) of an item's claims, and whether it came from verdicts only
    (no ``p_supported``: 1 for supported, 0 otherwise)."""
    from_verdicts = any(c.get("p_supported") is None for c in claims)
    if from_verdicts:
        return mean(1.0 if c["verdict"] == "supported" else 0.0 for c in claims), True
    return mean(float(c["p_supported"]) for c in claims), False


def summarise(items: list[dict[str, Any]], scored: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per category: n, mean P, the shares of items all supported / with a contradiction."""
    table: dict[str, Any] = {}
    for category in CATEGORIES:
        rows = [scored[i["id"]] for i in items if i["category"] == category and i["id"] in scored]
        table[category] = {
            "n": len(rows),
            "mean_p": round(mean(r["p"] for r in rows), 3) if rows else None,
            "supported_share": round(mean(r["supported"] for r in rows), 3) if rows else None,
            "contradicted_share": (
                round(mean(r["contradicted"] for r in rows), 3) if rows else None
            ),
        }
    return table


def goals(scored: dict[str, dict[str, Any]], items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    checked = []
    for name, categories, side, bound in GOALS:
        ps = [
            scored[i["id"]]["p"] for i in items if i["category"] in categories and i["id"] in scored
        ]
        value = mean(ps) if ps else None
        met = value is not None and (value <= bound if side == "max" else value >= bound)
        checked.append({"goal": name, "mean_p": None if value is None else round(value, 3),
                        "bound": bound, "side": side, "met": met})  # fmt: skip
    return checked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--judge", default="offline")
    parser.add_argument("--base-url")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    items = load(args.data)
    rows = [{"id": i["id"], "question": i.get("question", ""), "answer": i["claim"],
             "contexts": i["contexts"]} for i in items]  # fmt: skip
    judge = make_judge(
        args.judge, base_url=args.base_url, concurrency=args.concurrency, timeout_s=args.timeout
    )
    started = time.perf_counter()
    try:
        result = evaluate(rows, ["faithfulness"], judge, progress=False)
    except JudgeFatalError as error:
        # No figure without a judge: say why and stop (SPEC's exit code 3, judge errors).
        print(f"constructed_claims: the judge failed: {error}", file=sys.stderr)
        raise SystemExit(3) from None
    elapsed = time.perf_counter() - started
    scored: dict[str, dict[str, Any]] = {}
    failed: dict[str, str] = {}
    from_verdicts = False
    for record in result.results:
        claims = record.details.get("claims") or []
        if record.status is not Status.SCORED or not claims:
            failed[record.sample_id] = f"{record.status}: {record.reason}"
            continue
        p, by_verdicts = claim_probability(claims)
        from_verdicts = from_verdicts or by_verdicts
        scored[record.sample_id] = {
            "p": p,
            "supported": all(c["verdict"] == "supported" for c in claims),
            "contradicted": any(c["verdict"] == "contradicted" for c in claims),
            "claims": claims,
        }
    table = summarise(items, scored)
    checked = goals(scored, items)
    print(f"{len(items)} items, judge {args.judge}, {elapsed:.1f} s")
    if from_verdicts:
        print(
            "P(supported) from verdicts (1 supported, 0 otherwise): the judge gives no p_supported"
        )
    print(f"{'category':<22} {'n':>3} {'mean P':>7} {'supported':>10} {'contradicted':>13}")
    for category, row in table.items():
        if row["n"]:
            shares = f"{row['supported_share']:>10.1%} {row['contradicted_share']:>13.1%}"
            print(f"{category:<22} {row['n']:>3} {row['mean_p']:>7.3f} {shares}")
    for goal in checked:
        sign = "≤" if goal["side"] == "max" else "≥"
        shown = "none scored" if goal["mean_p"] is None else f"{goal['mean_p']:.3f}"
        verdict = "PASS" if goal["met"] else "FAIL"
        print(f"{verdict} {goal['goal']}: mean P {shown} (goal {sign} {goal['bound']})")
    if failed:
        print(
            f"{len(failed)} items not scored: " + "; ".join(f"{k} {v}" for k, v in failed.items())
        )
    if args.json is not None:
        report = {
            "judge": args.judge,
            "items": len(items),
            "seconds": round(elapsed, 1),
            "p_from_verdicts": from_verdicts,
            "categories": table,
            "goals": checked,
            "not_scored": failed,
            # Each item's claims as the judge saw them: what to read when a category misses.
            "per_item": {
                i["id"]: {"category": i["category"], **scored[i["id"]]}
                for i in items
                if i["id"] in scored
            },
        }
        args.json.write_text(
            json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )


if __name__ == "__main__":
    main()
