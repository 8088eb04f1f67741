"""Answer relevance with the offline judge (``rate_relevance``), on pairs built from the
development sets, against word overlap.

The sets with questions (halueval_qa, truthfulqa_pairs, begin_dev) give labelled pairs
without any human rating of relevance: each answer with its own question is relevant
("own"); the same answer with another question of the same set and half is not. Kinds of
negative, each scored against the same answers' "own" pairs:

- ``random``: a random other question;
- ``near_embedding``: the other question closest to the answer's own by MiniLM cosine
  (the method's own embedding: hard for it on purpose);
- ``near_words``: the other question with most content words in common (Jaccard; hard
  for the word baseline);
- ``abstention_listed``: a noncommittal reply to the question in phrasings that
  veracity's abstention list covers ("I don't know.", "I cannot answer that.", and the
  question repeated, then "I'm not sure.");
- ``noncommittal_short``: short replies it does not cover: "I have no comment."
  (TruthfulQA's own non-answer; the natural ones in truthfulqa_pairs are added with
  their own question) and "That is a good question.";
- ``noncommittal_echo``: the question repeated, then "That is hard to say." (not
  covered either; a reply that echoes the question shares its topic).

Answers without a content word (a bare "yes", "no") are kept as "own" pairs but never
paired with another question: they would answer any yes/no question. Each pair is scored
by ``OfflineJudge().rate_relevance`` exactly as the ``answer_relevance`` metric calls it
without generated questions, and by the baseline, the word overlap of question and answer
(Jaccard of their stemmed content words). AUROC of "own" against each kind, per set, on
the held-out ("test") half (``--split fit`` for the other half; the split is
``offline_data.split_of``, the same as every offline benchmark). Neither score has a
fitted parameter; the alternatives tried (docs/offline_judge.md) were compared on the fit
half only.

Run:  python benchmarks/offline_answer_relevance.py [--data DIR] [--split test|fit]
                                                  [--sets a,b] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from offline_data import DEFAULT_DATA, Row, auroc, load_set
from veracity.judges.offline import OfflineJudge
from veracity.text import analysis as tx

SETS = ("halueval_qa", "truthfulqa_pairs", "begin_dev")
NO_COMMENT = "I have no comment"  # TruthfulQA's canonical non-answer
# Replies to a question (shown with its "?"), by kind.
NONCOMMITTAL: dict[str, tuple[Callable[[str], str], ...]] = {
    "abstention_listed": (
        lambda q: "I don't know.",
        lambda q: "I cannot answer that.",
        lambda q: f"{q} I'm not sure.",
    ),
    "noncommittal_short": (lambda q: f"{NO_COMMENT}.", lambda q: "That is a good question."),
    "noncommittal_echo": (lambda q: f"{q} That is hard to say.",),
}
KINDS = ("random", "near_embedding", "near_words", *NONCOMMITTAL)


@dataclass(frozen=True)
class Pair:
    question: str
    answer: str
    kind: str  # "own" or one of KINDS


def jaccard(a: str, b: str) -> float:
    x, y = set(tx.content_tokens(a)), set(tx.content_tokens(b))
    return len(x & y) / len(x | y) if x | y else 0.0


def question_text(question: str) -> str:
    """The question as it is repeated in a noncommittal reply: a closing "?"."""
    question = question.strip()
    return question if question.endswith("?") else f"{question}?"


async def build_pairs(judge: OfflineJudge, rows: Sequence[Row], seed: int = 0) -> list[Pair]:
    """Every kind of pair for one set and half (see the module's docstring)."""
    answers: dict[tuple[str, str], None] = {}
    for row in rows:
        if row.question.strip() and row.answer.strip():
            answers.setdefault((row.question.strip(), row.answer.strip()))
    questions = sorted({q for q, _ in answers})
    index = {q: i for i, q in enumerate(questions)}
    vectors = await judge.embed(questions)
    similar = vectors @ vectors.T
    np.fill_diagonal(similar, -np.inf)
    tokens = [set(tx.content_tokens(q)) for q in questions]
    near_words = [
        max(
            (i for i in range(len(questions)) if i != own),
            key=lambda i: len(tokens[own] & tokens[i]) / max(1, len(tokens[own] | tokens[i])),
            default=own,
        )
        for own in range(len(questions))
    ]
    rng = np.random.default_rng(seed)
    pairs: list[Pair] = []
    for question, answer in answers:
        own = index[question]
        if answer.rstrip(".").casefold() == NO_COMMENT.casefold():
            pairs.append(Pair(question, answer, "noncommittal_short"))
            continue
        pairs.append(Pair(question, answer, "own"))
        if not tx.content_tokens(answer) or len(questions) < 2:
            continue
        other = int(rng.integers(len(questions) - 1))
        pairs.append(Pair(questions[other + (other >= own)], answer, "random"))
        pairs.append(Pair(questions[int(similar[own].argmax())], answer, "near_embedding"))
        pairs.append(Pair(questions[near_words[own]], answer, "near_words"))
    for question in questions:
        shown = question_text(question)
        for kind, replies in NONCOMMITTAL.items():
            pairs += [Pair(question, reply(shown), kind) for reply in replies]
    return pairs


async def offline_scores(judge: OfflineJudge, pairs: Sequence[Pair]) -> list[float]:
    """``rate_relevance`` of every pair, as the answer_relevance metric asks for it."""
    rated = await asyncio.gather(
        *(judge.rate_relevance(p.question, p.answer, iteration=0) for p in pairs)
    )
    scores = []
    for outcome in rated:
        assert outcome.value is not None, outcome.error
        scores.append(outcome.value.score)
    return scores


def table(
    pairs: Sequence[Pair], scores: Mapping[str, Sequence[float]]
) -> dict[str, dict[str, float]]:
    """AUROC of "own" against each kind, for every score."""
    kinds = np.array([p.kind for p in pairs])
    out: dict[str, dict[str, float]] = {}
    for kind in KINDS:
        keep = (kinds == "own") | (kinds == kind)
        if not (kinds == kind).any():
            continue
        labels = kinds[keep] == "own"
        out[kind] = {"n": int((kinds == kind).sum())} | {
            name: round(auroc(np.asarray(values)[keep], labels), 3)
            for name, values in scores.items()
        }
    return out


async def main_async(args: argparse.Namespace) -> dict[str, object]:
    judge = OfflineJudge()
    report: dict[str, object] = {"split": args.split}
    try:
        for name in args.sets.split(","):
            rows = [r for r in load_set(args.data, name) if r.split == args.split]
            pairs = await build_pairs(judge, rows)
            started = time.perf_counter()
            scores = {
                "offline": await offline_scores(judge, pairs),
                "overlap": [jaccard(p.question, p.answer) for p in pairs],
            }
            elapsed = time.perf_counter() - started
            own = sum(p.kind == "own" for p in pairs)
            figures = table(pairs, scores)
            report[name] = {"own": own, "kinds": figures}
            print(f"\n{name} ({args.split} half): {own} answers with their own question, "
                  f"{len(pairs)} pairs scored in {elapsed:.1f} s")  # fmt: skip
            print(f"{'negative kind':<22} {'n':>5}  {'offline':>7}  {'overlap':>7}")
            for kind, row in figures.items():
                print(f"{kind:<22} {row['n']:>5}  {row['offline']:7.3f}  {row['overlap']:7.3f}")
    finally:
        await judge.aclose()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--split", choices=("test", "fit"), default="test")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    report = asyncio.run(main_async(args))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
