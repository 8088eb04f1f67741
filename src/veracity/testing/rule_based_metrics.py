"""Word-overlap answers to veracity's prompts beyond faithfulness, for the fake server.

Each function takes the task's tagged blocks and returns the reply object; none of them
understands anything: they give a deterministic, plausible reply of the right shape.
"""

from __future__ import annotations

import re
from typing import Any

from veracity.prompts import (
    ANSWER_CLASSIFICATION,
    CHUNK_RELEVANCE,
    DEFAULT_RUBRIC_TEMPLATE,
    FACTUAL_ACCURACY,
    QUESTION_GENERATION,
    RELEVANCE_RATING,
)
from veracity.testing._words import (
    ANSWER_RE,
    CONTEXT_RE,
    CONTEXTS_BLOCK_RE,
    QUESTION_RE,
    REFERENCE_RE,
    block_text,
    content_words,
    has_negation,
    is_refusal,
    sentences,
    tag_text,
)

_DIMENSION = re.compile(r"^## ([A-Za-z_][A-Za-z0-9_]*):", re.MULTILINE)


def _coverage(words: set[str], within: set[str]) -> float:
    return len(words & within) / len(words) if words else 0.0


def chunk_relevance(question: str, reference: str | None, contexts: list[str]) -> dict[str, Any]:
    wanted = content_words(question) | content_words(reference or "")
    chunks = []
    for index, context in enumerate(contexts, start=1):
        overlap = len(wanted & content_words(context))
        relevance = min(100, 25 * overlap)
        needed = 1 if len(wanted) <= 2 else 2
        chunks.append(
            {
                "index": index,
                "reason": f"{overlap} content word(s) in common with the question",
                "relevance": relevance,
                "relevant": overlap >= needed,
            }
        )
    return {"chunks": chunks}


def question_generation(answer: str, n: int = 3) -> dict[str, Any]:
    parts = [s for s in sentences(answer) if not is_refusal(s)]
    if not parts:
        return {"reason": "the answer abstains", "noncommittal": True, "questions": []}
    questions = [f"What do we know about this: {parts[i % len(parts)].rstrip('.!?')}?"
                 for i in range(n)]  # fmt: skip
    return {"reason": "questions from the answer's sentences", "noncommittal": False,
            "questions": questions}  # fmt: skip


def relevance_rating(question: str, answer: str) -> dict[str, Any]:
    score = round(100 * _coverage(content_words(question), content_words(answer)))
    return {"reason": "share of the question's words the answer uses", "score": score}


def factual_accuracy(answer: str, reference: str) -> dict[str, Any]:
    covered = _coverage(content_words(reference), content_words(answer))
    consistent = has_negation(answer) == has_negation(reference)
    return {
        "correctness": {"reasoning": "reference words found", "score": round(100 * covered)},
        "completeness": {"reasoning": "reference words found", "score": round(100 * covered)},
        "consistency": {"reasoning": "negation agrees" if consistent else "negation differs",
                        "score": 100 if consistent else 30},
    }  # fmt: skip


def classification(answer: str, reference: str) -> dict[str, Any]:
    if not answer.strip() or is_refusal(answer):
        return {"reason": "the answer abstains", "classification": "dont_know"}
    covered = _coverage(content_words(reference), content_words(answer))
    label = "correct" if covered >= 0.6 else "wrong"
    return {"reason": f"{covered:.0%} of the reference's words in the answer",
            "classification": label}  # fmt: skip


def rubric(system: str, answer: str, contexts: list[str]) -> dict[str, Any]:
    context_words: set[str] = set()
    for context in contexts:
        context_words |= content_words(context)
    grounded = _coverage(content_words(answer), context_words)
    length = len(answer.split())
    scores = []
    for name in _DIMENSION.findall(system):
        if "faith" in name or "ground" in name or "accura" in name:
            level = 1 + min(4, int(grounded * 5))
            why = f"{grounded:.0%} of the answer's words are in the contexts"
        else:
            level = 4 if length >= 25 else 3 if length >= 12 else 2
            why = f"the answer has {length} words"
        scores.append({"dimension": name, "reasoning": why, "score": level})
    return {"scores": scores}


def other_task(system: str, task: str) -> dict[str, Any] | None:
    """The reply to a prompt other than claim extraction or verification, found by the
    start of its system text (so it works in every structured-output mode)."""

    def starts(template_system: str) -> bool:
        return system.startswith(template_system[:60])

    question, answer = tag_text(QUESTION_RE, task), tag_text(ANSWER_RE, task)
    reference = tag_text(REFERENCE_RE, task)
    contexts_block = CONTEXTS_BLOCK_RE.search(task)
    contexts = [
        block_text(m.group(1)) for m in CONTEXT_RE.finditer(contexts_block.group(1))
    ] if contexts_block else []  # fmt: skip
    if starts(CHUNK_RELEVANCE.system):
        has_reference = reference and reference != "(no reference answer)"
        return chunk_relevance(question, reference if has_reference else None, contexts)
    if starts(QUESTION_GENERATION.system):
        return question_generation(answer)
    if starts(RELEVANCE_RATING.system):
        return relevance_rating(question, answer)
    if starts(FACTUAL_ACCURACY.system):
        return factual_accuracy(answer, reference)
    if starts(ANSWER_CLASSIFICATION.system):
        return classification(answer, reference)
    if starts(DEFAULT_RUBRIC_TEMPLATE.system):
        return rubric(system, answer, contexts)
    return None
