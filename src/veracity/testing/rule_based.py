"""A deterministic stand-in for an LLM judge that understands veracity's own prompts.

It reads the tagged blocks of the first user message (the task; later turns of a re-ask
conversation are ignored) and answers with word overlap instead of understanding:

- a ``<claims>`` block → claim verification against the ``<context>`` blocks;
- else an ``<answer>`` block → claim extraction by sentence splitting;
- else ``{"error": "unknown task"}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from veracity.testing._request import ChatRequest
from veracity.testing._words import (
    ANSWER_RE,
    CLAIM_RE,
    CLAIMS_BLOCK_RE,
    CONTEXT_RE,
    CONTEXTS_BLOCK_RE,
    WORD_RE,
    block_text,
    content_words,
    has_negation,
    is_refusal,
    sentences,
)
from veracity.testing.rule_based_metrics import other_task


@dataclass(frozen=True)
class RuleBasedResponder:
    """The default responder of :class:`~veracity.testing.FakeLLMServer`.

    A claim is ``supported`` when at least ``support_threshold`` of its content words appear
    in the contexts, ``contradicted`` when that holds but the claim and the context sentence
    closest to it disagree on a negation (``not``/``never``/``no``), ``not_enough_info``
    otherwise.
    """

    support_threshold: float = 0.6

    def __call__(self, request: ChatRequest) -> str:
        task = request.first_user
        other = other_task(request.system, task)
        if other is not None:
            return json.dumps(other, ensure_ascii=False)
        claims_block = CLAIMS_BLOCK_RE.search(task)
        if claims_block is not None:
            claims = [block_text(m.group(1)) for m in CLAIM_RE.finditer(claims_block.group(1))]
            contexts_block = CONTEXTS_BLOCK_RE.search(task)
            inner = contexts_block.group(1) if contexts_block else ""
            contexts = [block_text(m.group(1)) for m in CONTEXT_RE.finditer(inner)]
            return json.dumps({"verdicts": self.verify(claims, contexts)}, ensure_ascii=False)
        answer = ANSWER_RE.search(task)
        if answer is not None:
            claims = self.extract(block_text(answer.group(1)))
            return json.dumps({"claims": claims}, ensure_ascii=False)
        return json.dumps({"error": "unknown task"})

    def extract(self, answer: str) -> list[str]:
        """The answer's sentences, minus refusals and sentences without any word."""
        return [s for s in sentences(answer) if WORD_RE.search(s.lower()) and not is_refusal(s)]

    def verify(self, claims: list[str], contexts: list[str]) -> list[dict[str, Any]]:
        """One verdict object (the claim's number, evidence, reason, verdict) per claim, in
        order, as veracity's prompt shows."""
        context_words: set[str] = set()
        for context in contexts:
            context_words |= content_words(context)
        candidates = [s for context in contexts for s in sentences(context)]
        return [
            {"claim": n, **self._judge(claim, context_words, candidates)}
            for n, claim in enumerate(claims, 1)
        ]

    def _judge(self, claim: str, context_words: set[str], candidates: list[str]) -> dict[str, Any]:
        claim_words = content_words(claim)
        if not candidates:
            return _verdict("No contexts were given.", "", "not_enough_info")
        if not claim_words:
            return _verdict("The claim has no content words.", "", "not_enough_info")
        best, best_overlap = "", 0
        for sentence in candidates:
            overlap = len(claim_words & content_words(sentence))
            if overlap > best_overlap:
                best, best_overlap = sentence, overlap
        covered = len(claim_words & context_words)
        coverage = f"{covered} of {len(claim_words)} content words of the claim"
        if covered / len(claim_words) < self.support_threshold:
            return _verdict(f"Only {coverage} appear in the contexts.", best, "not_enough_info")
        if has_negation(claim) != has_negation(best):
            reason = f"{coverage} appear in the contexts, but the negation differs."
            return _verdict(reason, best, "contradicted")
        return _verdict(f"{coverage} appear in the contexts.", best, "supported")


def _verdict(reason: str, evidence: str, verdict: str) -> dict[str, Any]:
    return {"evidence": evidence, "reason": reason, "verdict": verdict}
