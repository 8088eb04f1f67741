"""Claim drawing: does the judge draw the claims the answer makes, or answer the question?

Answers from the citation benchmark's items (``citation_manipulation.py``: two plain
sentences of two retrieved passages of an MTRAG-UN task, without their markers). The
sentences come from passages retrieved for the question but often do not answer it, which
is where a small judge draws a claim from the question instead ("What is the name of our
galaxy?" + "A galaxy is a huge collection of gas, dust, and billions of stars …" → "The
name of our galaxy is the Milky Way."). Only the claims are asked for: the samples go to
faithfulness without contexts, which asks no verification (every claim is then
``not_enough_info`` without a call).

Counted, per claim (content words stemmed, stopwords left out):

- ``from_question``: holds a word of the question that the answer does not have;
- ``outside``: more than a third of its words are not the answer's.

Both are proxies: a pronoun the judge resolves from the question rightly brings the
question's words into a claim ("It was finished in 1889" → "The Eiffel Tower was
finished in 1889"). The claims counted are printed with ``--show``.

Run:  python benchmarks/claim_drawing.py [--limit 135] [--judge openai/M --base-url URL]
                                         [--show] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from citation_manipulation import DEFAULT_FILE, items
from veracity import evaluate
from veracity.judges import make_judge
from veracity.text.analysis import content_tokens


def drawn(claim: str, question: str, answer: str) -> dict[str, Any]:
    """What of ``claim`` is not the answer's: the question's words, and the share outside."""
    words = set(content_tokens(claim))
    asked, said = set(content_tokens(question)), set(content_tokens(answer))
    outside = words - said
    return {
        "claim": claim,
        "from_question": sorted(words & asked - said),
        "outside": len(outside) / len(words) > 1 / 3 if words else False,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--limit", type=int, default=135)
    parser.add_argument("--judge", default="openai/qwen")
    parser.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = [
        {"id": item["id"], "question": item["question"], "contexts": [],
         "answer": f"{item['first']}. {item['second']}."}
        for item in items(args.data, args.limit)
    ]  # fmt: skip
    judge = make_judge(
        args.judge, base_url=args.base_url, concurrency=args.concurrency, timeout_s=args.timeout
    )
    started = time.perf_counter()
    result = evaluate(rows, ["faithfulness"], judge, progress=False)
    elapsed = time.perf_counter() - started
    asked = {row["id"]: (row["question"], row["answer"]) for row in rows}
    claims = [
        drawn(claim["claim"], *asked[r.sample_id])
        for r in result.results
        for claim in r.details.get("claims", [])
    ]
    unread = [r.sample_id for r in result.results if "claims" not in r.details]
    from_question = [c for c in claims if c["from_question"]]
    outside = [c for c in claims if c["outside"]]
    either = [c for c in claims if c["from_question"] or c["outside"]]
    print(f"{len(rows)} answers, judge {args.judge}, {elapsed:.0f} s; {len(claims)} claims")
    for label, found in (("from the question", from_question), ("a third outside", outside),
                         ("either", either)):  # fmt: skip
        print(f"  {label:<18} {len(found):>4} ({len(found) / max(len(claims), 1):.1%})")
    if unread:
        print(f"  no claims read for {len(unread)} answer(s): {unread[:5]}")
    if args.show:
        for c in either:
            print(f"  {c['from_question']} {'outside ' if c['outside'] else ''}| {c['claim']}")
    if args.json is not None:
        report = {"judge": args.judge, "answers": len(rows), "claims": len(claims),
                  "from_question": len(from_question), "outside": len(outside),
                  "either": len(either), "unread": unread, "counted": either}  # fmt: skip
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
