"""A decision model's answers for the decision judge's tests: word overlap stands in for
judging, so verdicts follow the texts."""

from __future__ import annotations

import re

from veracity.decisions import Question
from veracity.decisions.scripted import ScriptedDecisions

_WORD = re.compile(r"[a-z0-9]+")
_CLAIM = re.compile(r"<claim>\n(.*?)\n</claim>", re.DOTALL)
_PASSAGE = re.compile(r'<context index="(\d+)">\n(.*?)\n</context>', re.DOTALL)
_INDEX = re.compile(r"passage \[(\d+)\]")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 3}


def overlap(state: str, question: Question) -> dict[str, float]:
    """Claims: supported when most of their words are in the state; passages: useful
    when they share a word with the question; scores: leaning to the top level."""
    stem = question.name.rpartition("_")[0]
    if stem == "claim_support":
        claim = _words(_CLAIM.search(question.instructions).group(1))  # type: ignore[union-attr]
        share = len(claim & _words(state)) / max(1, len(claim))
        p = 0.1 + 0.8 * share
        return {"supported": p, "contradicted": 0.05, "not_enough_info": 0.95 - p}
    if stem == "chunk_useful":
        index = _INDEX.search(question.instructions).group(1)  # type: ignore[union-attr]
        passages = dict(_PASSAGE.findall(state))
        asked = _words(question.instructions.split("<question>")[1])
        p = 0.8 if asked & _words(passages[index]) else 0.2
        return {"true": p, "false": 1 - p}
    if question.kind == "choice":  # answer_class
        return {"correct": 0.7, "wrong": 0.2, "dont_know": 0.1}
    levels = question.option_values()
    top = {levels[-1]: 0.6, levels[-2]: 0.3, levels[-3]: 0.1}
    return {value: top.get(value, 0.0) for value in levels}


def overlap_model(**options: object) -> ScriptedDecisions:
    return ScriptedDecisions(overlap, **options)  # type: ignore[arg-type]
