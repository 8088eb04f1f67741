"""Answer relevance in conversations: the offline judge on MTRAG-UN's multi-turn tasks,
with negatives constructed the ARES way, against word overlap.

``mtragun_dev.jsonl`` (507 tasks; the history in the benchmark's own ``{speaker, text}``
shape) has a reference answer in each task's ``answer`` field, and no relevance ratings.
Each answerable task's reference with its own question is relevant ("own"); negatives put
a reference beside a question it does not answer:

- ``same_conversation``: the assistant's latest answer earlier in the same conversation
  (each task is one turn of its conversation; the hard case: same topic, same
  documents, another question);
- ``other_conversation``: the reference of a task of another conversation.

Unanswerable tasks' references are abstentions ("I'm sorry, I don't have…"): the share
the judge reads as abstaining (score 0, the noncommittal rule) is reported, with the
share of answerable references it wrongly reads so.

Scores: the ``answer_relevance`` metric with the offline judge, given the history
(``with_history``: a follow-up read with its earlier turn, an answer repeating an earlier
assistant turn scored 0) and without it (``question_only``); the judge's rating with the
history but without the repeat rule (``new_words``: what an answer to an earlier question
gets when it is not a copy of that turn); the baseline, the word overlap (Jaccard of
stemmed content words) of the question as read in context and the answer. AUROC of
"own" against each negative, on one half of the conversations (``--split test``, the
default, or ``fit``; a conversation is never split across the halves).

Run:  python benchmarks/conversation_relevance.py [--data FILE] [--split test|fit] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from offline_data import DEFAULT_DATA, auroc
from veracity.dataset import read_dataset
from veracity.judges.offline import OfflineJudge
from veracity.metrics import AnswerRelevance
from veracity.metrics.base import Models, SampleWork
from veracity.prompts.abstention import abstains
from veracity.prompts.conversation import question_in_context
from veracity.text import analysis as tx
from veracity.types import Sample

DEFAULT_FILE = DEFAULT_DATA / "mtragun_dev.jsonl"
KINDS = ("same_conversation", "other_conversation")


@dataclass(frozen=True)
class Pair:
    task: Sample  # the question and its history
    answer: str
    kind: str  # "own" or one of KINDS


def conversation(sample: Sample) -> str:
    return str(sample.metadata["meta"]["conversation_id"])


def split_of(sample: Sample) -> str:
    return "test" if hashlib.sha256(conversation(sample).encode()).digest()[0] % 2 else "fit"


def answerable(sample: Sample) -> bool:
    return sample.metadata["label"]["answerability"] == "ANSWERABLE" and bool(sample.answer.strip())


def build_pairs(tasks: Sequence[Sample], seed: int = 0) -> list[Pair]:
    rng = np.random.default_rng(seed)
    by_conversation: dict[str, list[Sample]] = defaultdict(list)
    for task in tasks:
        if answerable(task):
            by_conversation[conversation(task)].append(task)
    pairs: list[Pair] = []
    for name, turns in by_conversation.items():
        others = [t for c, ts in by_conversation.items() if c != name for t in ts]
        for task in turns:
            pairs.append(Pair(task, task.answer, "own"))
            earlier = [
                turn.content for turn in task.history
                if turn.role == "assistant" and turn.content.strip() and not abstains(turn.content)
            ]  # fmt: skip
            if earlier:
                pairs.append(Pair(task, earlier[-1], "same_conversation"))
            if others:
                other = others[int(rng.integers(len(others)))]
                pairs.append(Pair(task, other.answer, "other_conversation"))
    return pairs


def jaccard(a: str, b: str) -> float:
    x, y = set(tx.content_tokens(a)), set(tx.content_tokens(b))
    return len(x & y) / len(x | y) if x | y else 0.0


async def rated(judge: OfflineJudge, pairs: Sequence[Pair], *, history: bool) -> list[float]:
    metric = AnswerRelevance()
    found = await asyncio.gather(
        *(
            metric.score(SampleWork(pair_sample(p, history=history), Models(judge), 0))
            for p in pairs
        )
    )
    scores = []
    for result in found:
        assert result.score is not None, result.reason
        scores.append(result.score)
    return scores


async def judge_rated(judge: OfflineJudge, pairs: Sequence[Pair]) -> list[float]:
    found = await asyncio.gather(
        *(
            judge.rate_relevance(p.task.question, p.answer, iteration=0, history=p.task.history)
            for p in pairs
        )
    )
    scores = []
    for outcome in found:
        assert outcome.value is not None, outcome.error
        scores.append(outcome.value.score)
    return scores


def pair_sample(pair: Pair, *, history: bool) -> Sample:
    return pair.task.model_copy(
        update={"answer": pair.answer, "history": pair.task.history if history else ()}
    )


async def abstention_shares(
    judge: OfflineJudge, tasks: Sequence[Sample]
) -> dict[str, dict[str, Any]]:
    """How many references the judge reads as abstaining: of unanswerable tasks (should
    be all) and of answerable ones (should be none)."""
    found: dict[str, dict[str, Any]] = {}
    unanswerable = [t for t in tasks if t.metadata["label"]["answerability"] == "UNANSWERABLE"]
    for name, chosen in (
        ("unanswerable", unanswerable),
        ("answerable", [t for t in tasks if answerable(t)]),
    ):
        outcomes = await asyncio.gather(
            *(judge.rate_relevance(t.question, t.answer, iteration=0) for t in chosen)
        )
        abstaining = [
            t for t, o in zip(chosen, outcomes, strict=True)
            if o.value is not None and "abstains" in o.value.reason
        ]  # fmt: skip
        found[name] = {"n": len(chosen), "read_as_abstaining": len(abstaining)}
        if name == "unanswerable":
            missed = [t.answer for t in chosen if t not in abstaining]
            found[name]["missed_examples"] = [str(m)[:120] for m in missed[:5]]
    return found


async def main_async(args: argparse.Namespace) -> dict[str, object]:
    tasks = [s for s in read_dataset(args.data) if isinstance(s, Sample)]
    tasks = [t for t in tasks if split_of(t) == args.split]
    pairs = build_pairs(tasks)
    judge = OfflineJudge()
    try:
        scores = {
            "with_history": await rated(judge, pairs, history=True),
            "question_only": await rated(judge, pairs, history=False),
            "new_words": await judge_rated(judge, pairs),
            "overlap": [
                jaccard(question_in_context(p.task.question, p.task.history), p.answer)
                for p in pairs
            ],
        }
        abstentions = await abstention_shares(judge, tasks)
    finally:
        await judge.aclose()
    kinds = np.array([p.kind for p in pairs])
    figures: dict[str, dict[str, float]] = {}
    for kind in KINDS:
        keep = (kinds == "own") | (kinds == kind)
        labels = kinds[keep] == "own"
        figures[kind] = {"n": int((kinds == kind).sum())} | {
            name: round(auroc(np.asarray(values)[keep], labels), 3)
            for name, values in scores.items()
        }
    own = int((kinds == "own").sum())
    print(f"MTRAG-UN ({args.split} half): {len(tasks)} tasks, {own} answerable with a reference")
    names = list(scores)
    print(f"{'negative':<20} {'n':>4}  " + "  ".join(f"{n:>13}" for n in names))
    for kind, row in figures.items():
        print(f"{kind:<20} {row['n']:>4}  " + "  ".join(f"{row[n]:13.3f}" for n in names))
    print("references read as abstaining:", json.dumps(abstentions, ensure_ascii=False))
    return {"split": args.split, "own": own, "kinds": figures, "abstentions": abstentions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--split", choices=("test", "fit"), default="test")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    report = asyncio.run(main_async(args))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
