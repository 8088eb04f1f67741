"""Word-level text helpers of the rule-based fake judge: tags, sentences, content words."""

from __future__ import annotations

import re

_STOPWORDS_TEXT = """
    the and for are was were with that this these those from has have had its his her
    their they them but you your our into onto than then also been being which who whom
    what when where why how all any can could would should will may might does did done
    there here over under about after before between more most such only other some very
    just each per via not never
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
NEGATIONS = frozenset({"not", "never", "no"})

CLAIMS_BLOCK_RE = re.compile(r"<claims>(.*?)</claims>", re.DOTALL)
CLAIM_RE = re.compile(r"<claim(?:\s[^>]*)?>(.*?)</claim>", re.DOTALL)
CONTEXTS_BLOCK_RE = re.compile(r"<contexts>(.*?)</contexts>", re.DOTALL)
CONTEXT_RE = re.compile(r"<context(?:\s[^>]*)?>(.*?)</context>", re.DOTALL)
ANSWER_RE = re.compile(r"<answer(?:\s[^>]*)?>(.*?)</answer>", re.DOTALL)
SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+|\n+")
WORD_RE = re.compile(r"[a-z0-9]+")
REFUSAL_RE = re.compile(
    r"\b(?:i\s+(?:do\s+not|don't|don’t|cannot|can't|can’t)\s+(?:know|say|tell|answer)"
    r"|i\s*(?:am|'m|’m)\s+not\s+sure"
    r"|(?:cannot|can't|can’t|unable\s+to)\s+(?:determine|answer|say)"
    r"|no\s+information|(?:not\s+enough|insufficient)\s+information)\b",
    re.IGNORECASE,
)


def block_text(raw: str) -> str:
    """The text of a tagged block, without the newlines ``untrusted`` puts around it."""
    return raw.removeprefix("\n").removesuffix("\n")


def words(text: str) -> list[str]:
    """Lowercase alphanumeric tokens; ``n't`` counts as ``not``."""
    lowered = text.lower().replace("n't", " not").replace("n’t", " not")
    return WORD_RE.findall(lowered)


def content_words(text: str) -> set[str]:
    """Tokens of three or more characters that are not stopwords."""
    return {word for word in words(text) if len(word) >= 3 and word not in STOPWORDS}


def has_negation(text: str) -> bool:
    return any(word in NEGATIONS for word in words(text))


def sentences(text: str) -> list[str]:
    """Sentences split on ``.``, ``!`` or ``?`` followed by whitespace, and on newlines."""
    return [part.strip() for part in SENTENCE_END_RE.split(text) if part.strip()]


def is_refusal(sentence: str) -> bool:
    return REFUSAL_RE.search(sentence) is not None


QUESTION_RE = re.compile(r"<question(?:\s[^>]*)?>(.*?)</question>", re.DOTALL)
REFERENCE_RE = re.compile(r"<reference(?:\s[^>]*)?>(.*?)</reference>", re.DOTALL)


def tag_text(pattern: re.Pattern[str], task: str) -> str:
    found = pattern.search(task)
    return block_text(found.group(1)) if found else ""
