"""Conversation support on constructed claims: does faithfulness' second look at the
conversation mark a claim ``supported_by_conversation`` when an earlier turn holds it, and
leave it open when no turn does?

Constructed from MTRAG-UN's multi-turn tasks (``mtragun_dev.jsonl``): for a task whose
history has an assistant turn with a plain sentence (6 to 40 words, ending in a full stop
after a word), the claim ``said`` is that sentence, word for word (an earlier assistant
turn gave it); the claim ``unsaid`` is a plain sentence of one of the task's retrieved
passages of which the turns hold at most a third of the content words (a fact of the same
topic that nobody said). Both go to ``with_conversation_support`` as the contexts left
them, ``not_enough_info``: the path a real run takes, the judge's call and veracity's
guard (a name or number of the claim in no turn) together. Printed: the share of each
kind marked ``supported_by_conversation``; a judge that reads the turns marks ``said``
claims and leaves ``unsaid`` ones.

Run:  python benchmarks/conversation_support.py [--limit 40] [--judge offline|openai/M]
                                                [--base-url URL] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

from offline_data import DEFAULT_DATA
from veracity.chat.stack import open_cache, stack_chat
from veracity.judges import make_judge
from veracity.judges.rechat import rechat
from veracity.metrics import Models, SampleWork
from veracity.metrics.conversation_support import with_conversation_support
from veracity.text.analysis import content_tokens
from veracity.types import ClaimVerdict, Sample, Turn, Verdict

DEFAULT_FILE = DEFAULT_DATA / "mtragun_dev.jsonl"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
ROLES = {"user": "user", "agent": "assistant"}


def plain_sentences(text: str) -> list[str]:
    """Sentences of 6 to 40 words that end a sentence (not "U.S."), without quotes,
    brackets or pipes."""
    found = []
    for sentence in _SENTENCE.split(" ".join(text.split())):
        words = sentence.split()
        if (
            6 <= len(words) <= 40
            and re.search(r"[a-z0-9]{2}\.$", sentence) is not None
            and not any(mark in sentence for mark in '"|[]()')
        ):
            found.append(sentence)
    return found


def items(path: Path, limit: int) -> list[dict[str, Any]]:
    """Tasks with a said and an unsaid claim, as the module's docstring says."""
    found = []
    for line in path.open(encoding="utf-8"):
        row = json.loads(line)
        turns = [
            Turn(role=ROLES[t["speaker"]], content=t["text"])
            for t in row.get("history") or []
            if t.get("speaker") in ROLES and t.get("text")
        ]
        said = next(
            (s for t in turns if t.role == "assistant" for s in plain_sentences(t.content)),
            None,
        )
        spoken = set(content_tokens(" ".join(t.content for t in turns)))
        unsaid = next(
            (
                s
                for context in row.get("contexts") or []
                for s in plain_sentences(context)
                if (words := set(content_tokens(s))) and len(words & spoken) <= len(words) / 3
            ),
            None,
        )
        if said is None or unsaid is None:
            continue
        found.append({"row": row, "turns": tuple(turns), "said": said, "unsaid": unsaid})
        if len(found) == limit:
            break
    return found


async def judge_items(
    built: list[dict[str, Any]], judge_name: str, args: Any
) -> list[dict[str, Any]]:
    # Behind the response cache, as a run is: a second run asks nothing again.
    judge = rechat(
        make_judge(
            judge_name, base_url=args.base_url, concurrency=args.concurrency, timeout_s=args.timeout
        ),
        lambda chat: stack_chat(chat, cache=open_cache(True)),
    )
    limit = asyncio.Semaphore(args.concurrency)

    async def one(item: dict[str, Any]) -> dict[str, Any]:
        row = item["row"]
        sample = Sample(
            id=row["id"], question=row["question"], answer="",
            contexts=tuple(row["contexts"]), history=item["turns"],
        )  # fmt: skip
        work = SampleWork(sample, Models(judge), 0)
        open_claims = tuple(
            ClaimVerdict(claim=item[kind], verdict=Verdict.NOT_ENOUGH_INFO)
            for kind in ("said", "unsaid")
        )
        async with limit:
            marked, checked = await with_conversation_support(work, open_claims)
            # The judge's own verdicts, before veracity's guard: the same call, cached.
            asked = await judge.verify_claims(
                [item["said"], item["unsaid"]], [t.content for t in item["turns"]], iteration=0
            )
        said_so = {v.claim: v.verdict is Verdict.SUPPORTED for v in asked.value or ()}
        kinds = ("said", "unsaid")
        # Either call failing, or a claim without a verdict, leaves the item out: never
        # counted as "not supported".
        failed = any("could not be checked" in note for note in checked.notes) or any(
            item[kind] not in said_so for kind in kinds
        )
        return {
            "id": row["id"],
            **{
                kind: v.verdict is Verdict.SUPPORTED_BY_CONVERSATION
                for kind, v in zip(kinds, marked, strict=True)
            },
            **{f"judge_{kind}": said_so.get(item[kind]) is True for kind in kinds},
            "failed": failed,
        }

    try:
        return list(await asyncio.gather(*(one(item) for item in built)))
    finally:
        await judge.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--judge", default="offline")
    parser.add_argument("--base-url")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    built = items(args.data, args.limit)
    started = time.perf_counter()
    found = asyncio.run(judge_items(built, args.judge, args))
    elapsed = time.perf_counter() - started
    answered = [f for f in found if not f["failed"]]
    report: dict[str, Any] = {
        "judge": args.judge, "items": len(built), "failed": len(found) - len(answered),
        "seconds": round(elapsed),
    }  # fmt: skip
    print(f"{len(built)} items, judge {args.judge}, {elapsed:.0f} s, {report['failed']} failed")
    for kind, want in (("said", "marked"), ("unsaid", "left open")):
        marked = sum(f[kind] for f in answered)
        judged = sum(f[f"judge_{kind}"] for f in answered)
        report[kind] = {"n": len(answered), "marked": marked, "judge_said_supported": judged}
        share = marked / len(answered) if answered else float("nan")
        print(f"{kind:<7} marked supported_by_conversation: {marked} of {len(answered)} "
              f"({share:.1%}; want {want}); the judge said supported: {judged}")  # fmt: skip
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
