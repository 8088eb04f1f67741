"""A deterministic stand-in for an LLM judge that understands veracity's own prompts.

It reads the tagged blocks of the first user message (the task; later turns of a re-ask
conversation are ignored) and answers with word overlap instead of understanding:

- a ``<claims>`` block → claim verification against the ``<context>`` blocks;
- else an ``<answer>`` block → claim extraction by sentence splitting;
- else ``{"error": "unknown task"}``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from veracity.testing._request import ChatRequest

_STOPWORDS_TEXT = """
    the and for are was were with that this these those from has have had its his her
    their they them but you your our into onto than then also been being which who whom
    what when where why how all any can could would should will may might does did done
    there here over under about after before between more most such only other some very
    just each per via not never
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
NEGATIONS = frozenset({"not", "never", "no"})

_CLAIMS_BLOCK = re.compile(r"<claims>(.*?)</claims>", re.DOTALL)
_CLAIM = re.compile(r"<claim(?:\s[^>]*)?>(.*?)</claim>", re.DOTALL)
_CONTEXTS_BLOCK = re.compile(r"<contexts>(.*?)</contexts>", re.DOTALL)
_CONTEXT = re.compile(r"<context(?:\s[^>]*)?>(.*?)</context>", re.DOTALL)
_ANSWER = re.compile(r"<answer(?:\s[^>]*)?>(.*?)</answer>", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[a-z0-9]+")
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:do\s+not|don't|don’t|cannot|can't|can’t)\s+(?:know|say|tell|answer)"
    r"|i\s*(?:am|'m|’m)\s+not\s+sure"
    r"|(?:cannot|can't|can’t|unable\s+to)\s+(?:determine|answer|say)"
    r"|no\s+information|(?:not\s+enough|insufficient)\s+information)\b",
    re.IGNORECASE,
)


def _block_text(raw: str) -> str:
    """The text of a tagged block, without the newlines ``untrusted`` puts around it."""
    return raw.removeprefix("\n").removesuffix("\n")


def words(text: str) -> list[str]:
    """Lowercase alphanumeric tokens; ``n't`` counts as ``not``."""
    lowered = text.lower().replace("n't", " not").replace("n’t", " not")
    return _WORD.findall(lowered)


def content_words(text: str) -> set[str]:
    """Tokens of three or more characters that are not stopwords."""
    return {word for word in words(text) if len(word) >= 3 and word not in STOPWORDS}


def has_negation(text: str) -> bool:
    return any(word in NEGATIONS for word in words(text))


def sentences(text: str) -> list[str]:
    """Sentences split on ``.``, ``!`` or ``?`` followed by whitespace, and on newlines."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def is_refusal(sentence: str) -> bool:
    return _REFUSAL.search(sentence) is not None


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
        claims_block = _CLAIMS_BLOCK.search(task)
        if claims_block is not None:
            claims = [_block_text(m.group(1)) for m in _CLAIM.finditer(claims_block.group(1))]
            contexts_block = _CONTEXTS_BLOCK.search(task)
            inner = contexts_block.group(1) if contexts_block else ""
            contexts = [_block_text(m.group(1)) for m in _CONTEXT.finditer(inner)]
            return json.dumps({"verdicts": self.verify(claims, contexts)}, ensure_ascii=False)
        answer = _ANSWER.search(task)
        if answer is not None:
            claims = self.extract(_block_text(answer.group(1)))
            return json.dumps({"claims": claims}, ensure_ascii=False)
        return json.dumps({"error": "unknown task"})

    def extract(self, answer: str) -> list[str]:
        """The answer's sentences, minus refusals and sentences without any word."""
        return [s for s in sentences(answer) if _WORD.search(s.lower()) and not is_refusal(s)]

    def verify(self, claims: list[str], contexts: list[str]) -> list[dict[str, Any]]:
        """One verdict object (claim, reason, evidence, verdict) per claim, in order."""
        context_words: set[str] = set()
        for context in contexts:
            context_words |= content_words(context)
        candidates = [s for context in contexts for s in sentences(context)]
        return [self._judge(claim, context_words, candidates) for claim in claims]

    def _judge(self, claim: str, context_words: set[str], candidates: list[str]) -> dict[str, Any]:
        claim_words = content_words(claim)
        if not candidates:
            return _verdict(claim, "No contexts were given.", "", "not_enough_info")
        if not claim_words:
            return _verdict(claim, "The claim has no content words.", "", "not_enough_info")
        best, best_overlap = "", 0
        for sentence in candidates:
            overlap = len(claim_words & content_words(sentence))
            if overlap > best_overlap:
                best, best_overlap = sentence, overlap
        covered = len(claim_words & context_words)
        coverage = f"{covered} of {len(claim_words)} content words of the claim"
        if covered / len(claim_words) < self.support_threshold:
            return _verdict(
                claim, f"Only {coverage} appear in the contexts.", best, "not_enough_info"
            )
        if has_negation(claim) != has_negation(best):
            reason = f"{coverage} appear in the contexts, but the negation differs."
            return _verdict(claim, reason, best, "contradicted")
        return _verdict(claim, f"{coverage} appear in the contexts.", best, "supported")


def _verdict(claim: str, reason: str, evidence: str, verdict: str) -> dict[str, Any]:
    return {"claim": claim, "reason": reason, "evidence": evidence, "verdict": verdict}
