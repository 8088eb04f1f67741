"""Citation recall and precision under manipulated citations: does each manipulation move
the metric the right way?

Constructed items from MTRAG-UN's retrieved passages (``mtragun_dev.jsonl``; real
passages of real retrieval, in their order): for a task with at least two passages, the
answer is the first plain sentence (6 to 60 words ending in a full stop after a word, no
quotes, brackets or pipes, found in no other passage of the task) of two different
passages, each citing its own passage: ``"S1 [1]. S2 [3]."``. The sentences are the
passages' own words, so a judge that reads the passages supports each; what is measured
is whether the citation metrics follow the citations. Manipulations, each against the
same item as it was:

- ``shuffled``: the two citations swapped — recall and precision must fall;
- ``dropped``: the second citation taken out — recall must fall;
- ``added``: a citation of a passage neither sentence comes from added to the first —
  precision must fall (items with only two passages are left out of this one).

The share of items where the metric moved the right way (strictly), per manipulation.
Judge: the offline judge by default; ``--judge openai/MODEL --base-url URL`` for an LLM
(the 1.5B benchmark judge: ``bash benchmarks/local_llm_server.sh qwen``).

Run:  python benchmarks/citation_manipulation.py [--limit 100] [--judge offline|openai/M]
                                                 [--base-url URL] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import Any

from offline_data import DEFAULT_DATA
from veracity import evaluate
from veracity.judges import make_judge
from veracity.judges.llm.evidence import contexts_quoting

DEFAULT_FILE = DEFAULT_DATA / "mtragun_dev.jsonl"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
MANIPULATIONS = {
    "shuffled": ("recall", "precision"),
    "dropped": ("recall",),
    "added": ("precision",),
}


def first_sentence(passage: str, contexts: list[str]) -> str | None:
    """The passage's first plain sentence that no other passage holds too (a shared page
    title would make either citation right)."""
    for sentence in _SENTENCE.split(" ".join(passage.split())):
        words = sentence.split()
        plain = not any(mark in sentence for mark in '"|[]()')
        # Ends a sentence, not an abbreviation ("U.S.") or an ellipsis.
        ended = re.search(r"[a-z0-9]{2}\.$", sentence) is not None
        if (
            6 <= len(words) <= 60
            and ended
            and plain
            and len(contexts_quoting(sentence, contexts)) == 1
        ):
            return sentence.removesuffix(".")
    return None


def items(path: Path, limit: int) -> list[dict[str, Any]]:
    """The constructed items: two sentences, each from its own passage, cited rightly."""
    found = []
    for line in path.open(encoding="utf-8"):
        row = json.loads(line)
        contexts = [c for c in row.get("contexts") or [] if isinstance(c, str)]
        picked = [
            (i, s) for i, c in enumerate(contexts) if (s := first_sentence(c, contexts)) is not None
        ]
        if len(picked) < 2 or picked[0][1] == picked[1][1]:
            continue
        (a, first), (b, second) = picked[:2]
        spare = next((i for i in range(len(contexts)) if i not in (a, b)), None)
        found.append(
            {"id": row["id"], "question": row["question"], "contexts": contexts,
             "first": first, "second": second, "a": a + 1, "b": b + 1,
             "spare": None if spare is None else spare + 1}
        )  # fmt: skip
        if len(found) == limit:
            break
    return found


def answers(item: dict[str, Any]) -> dict[str, str]:
    first, second, a, b = item["first"], item["second"], item["a"], item["b"]
    made = {
        "original": f"{first} [{a}]. {second} [{b}].",
        "shuffled": f"{first} [{b}]. {second} [{a}].",
        "dropped": f"{first} [{a}]. {second}.",
    }
    if item["spare"] is not None:
        made["added"] = f"{first} [{a}][{item['spare']}]. {second} [{b}]."
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--judge", default="offline")
    parser.add_argument("--base-url")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    built = items(args.data, args.limit)
    rows = [
        {"id": item["id"], "question": item["question"], "contexts": item["contexts"],
         "answers": answers(item)}
        for item in built
    ]  # fmt: skip
    judge = make_judge(
        args.judge, base_url=args.base_url, concurrency=args.concurrency, timeout_s=args.timeout
    )
    started = time.perf_counter()
    result = evaluate(rows, ["citation_recall", "citation_precision"], judge, progress=False)
    elapsed = time.perf_counter() - started
    score = {(r.sample_id, r.system, r.metric): r.score for r in result.results}
    claims = {(r.sample_id, r.system, r.metric): r.details.get("claims") for r in result.results}
    report: dict[str, Any] = {"judge": args.judge, "items": len(built), "seconds": round(elapsed)}
    print(f"{len(built)} items, judge {args.judge}, {elapsed:.0f} s")
    for manipulation, measures in MANIPULATIONS.items():
        for measure in measures:
            metric = f"citation_{measure}"
            pairs = [
                (
                    i["id"],
                    score.get((i["id"], "original", metric)),
                    score.get((i["id"], manipulation, metric)),
                )
                for i in built
                if (i["id"], manipulation, metric) in score
            ]
            judged = [(i, o, m) for i, o, m in pairs if o is not None and m is not None]
            right = sum(m < o for _, o, m in judged)
            share = right / len(judged) if judged else float("nan")
            report[f"{manipulation}/{measure}"] = {
                "n": len(judged),
                "right_way": right,
                "share": round(share, 3),
                # What the judge made of each item the metric did not move the right way.
                "misses": [
                    {"id": i, "original": claims[(i, "original", metric)],
                     manipulation: claims[(i, manipulation, metric)]}
                    for i, o, m in judged
                    if not m < o
                ],
            }  # fmt: skip
            moved = f"{right:>4} of {len(judged):>4} moved the right way ({share:.1%})"
            print(f"{manipulation:<9} {measure:<10} {moved}")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
