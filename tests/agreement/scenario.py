"""A run whose judge people disagree with in a known way, for the agreement tests.

Thirty answers about one context: ten right ("in Paris"), ten the scripted judge finds
contradicted ("WRONG: … green"), and ten with the city swapped ("in Lyon") that the judge
calls supported although no context names Lyon: people label those unfaithful. The raw
score cannot tell the swapped answers from the right ones (AUROC 0.75); the local
signal "a name missing from the contexts" can.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.helpers import claims_reply, verdicts_reply
from veracity import EvaluationResult, LLMJudge, ScriptedChat, evaluate
from veracity.config import RunConfig

CONTEXT = "The grey tower is in Paris. It was built in 1889."
KINDS = ("right", "wrong", "swapped")
ANSWERS = {
    "right": "The tower is in Paris.",
    "wrong": "WRONG: the tower is green.",
    "swapped": "The tower is in Lyon.",
}


def kind_of(index: int) -> str:
    return KINDS[index % 3]


def respond(messages: Sequence[Any], output: Any) -> str:
    prompt = messages[-1].content
    answer = next(a for a in ANSWERS.values() if a in prompt)
    if getattr(output, "name", "") == "claim_extraction":
        return claims_reply(answer)
    verdict = "contradicted" if answer.startswith("WRONG") else "supported"
    return verdicts_reply((answer, verdict, "scripted", ""))


def rows(n: int = 30) -> list[dict[str, Any]]:
    return [
        {
            "id": f"s{i}",
            "question": "Where is the tower?",
            "contexts": [CONTEXT],
            "answer": ANSWERS[kind_of(i)],
        }
        for i in range(n)
    ]


def labels(n: int = 30) -> list[dict[str, Any]]:
    return [{"id": f"s{i}", "faithfulness": kind_of(i) == "right"} for i in range(n)]


def run(out: Path | None = None, n: int = 30, **settings: Any) -> EvaluationResult:
    """``settings``: the run's (``RunConfig``'s), e.g. ``calibration=``."""
    judge = LLMJudge(ScriptedChat(responder=respond), unfounded_support="flag")
    config = RunConfig(**settings)
    return evaluate(rows(n), "faithfulness", judge, config=config, out=out, progress=False)
