"""Read the generated questions (and the noncommittal flag) out of an answer-relevance reply."""

from __future__ import annotations

import re

from veracity.judges.parsing._coerce import NO_WORDS, YES_WORDS, drive, flag_table, read_label
from veracity.judges.parsing._text import (
    LIST_MARKER,
    REASON_KEYS,
    as_text,
    describe_json,
    field_of,
    preview,
)
from veracity.judges.parsing.outcomes import ParseFailure
from veracity.judges.parsing.parsed import ParsedValue
from veracity.types.judgements import GeneratedQuestions

__all__ = ["read_questions_reply"]

QUESTION_KEYS = ("questions", "generated_questions", "question", "generated_question", "queries")
ITEM_KEYS = ("question", "text", "query")
NONCOMMITTAL_KEYS = ("noncommittal", "non_committal", "is_noncommittal", "noncommital", "evasive")
COMMITTAL_KEYS = ("committal", "is_committal", "commital")
FLAGS = flag_table(
    (*YES_WORDS, "noncommittal", "non committal", "evasive"),
    (*NO_WORDS, "committal", "not noncommittal"),
)
_EXPECTED = (
    "expected a JSON object with 'reason', 'noncommittal' (true or false) and 'questions' "
    "(an array of question strings)"
)
_FLAG_LINE = re.compile(r"^\W*(?P<key>non[\s_-]?commit?tal|commit?tal)\W*[:=]\s*(?P<v>.+)$", re.I)
_REASON_LINE = re.compile(r"^\W*(?:reason|reasoning|explanation)\s*[:=]\s*(?P<v>.+)$", re.I)
_QUESTION_LINE = re.compile(r"^\W*question\s*\d{0,2}\s*[:=.)]\s*(?P<v>.+)$", re.I)

_Read = tuple[list[str], list[str]]


def _questions(value: object, where: str, notes: list[str]) -> list[str]:
    items = [value] if isinstance(value, str | dict) else value
    if not isinstance(items, list):
        notes.append(f"ignored {where}: {describe_json(value)}, not questions")
        return []
    found: list[str] = []
    for n, item in enumerate(items, 1):
        text = field_of(item, ITEM_KEYS) if isinstance(item, dict) else ("", item)
        question = text[1] if text is not None else None
        if not isinstance(question, str) or not question.strip():
            notes.append(f"skipped item {n} of {where}: not a question string")
        elif question.strip() in found:
            notes.append(f"dropped duplicate question {preview(question)}")
        else:
            found.append(question.strip())
    return found


def _flag(obj: dict[str, object], notes: list[str]) -> bool | ParseFailure:
    for keys, inverted in ((NONCOMMITTAL_KEYS, False), (COMMITTAL_KEYS, True)):
        found = field_of(obj, keys)
        if found is None:
            continue
        flag = read_label(found[1], FLAGS)
        if flag is None:
            what = preview(as_text(found[1]))
            return ParseFailure("schema", f"{_EXPECTED}; '{found[0]}' is {what}, not true/false")
        if inverted:
            notes.append(f"read {found[0]!r}={as_text(found[1])} as noncommittal={not flag}")
        return flag != inverted
    notes.append("no noncommittal flag; took it as false")
    return False


def _build(
    questions: list[str], flag: bool, reason: str, method: str, notes: list[str]
) -> ParsedValue[GeneratedQuestions] | ParseFailure:
    if not questions and not flag:
        return ParseFailure("schema", f"{_EXPECTED}; got no questions")
    value = GeneratedQuestions(questions=tuple(questions), noncommittal=flag, reason=reason)
    return ParsedValue(value, method, tuple(notes))


def _from_json(value: object, method: str) -> ParsedValue[GeneratedQuestions] | ParseFailure:
    notes: list[str] = []
    if isinstance(value, list | str):
        questions = _questions(value, "the reply", notes)
        flags = (
            [_flag(v, []) for v in value if isinstance(v, dict)] if isinstance(value, list) else []
        )
        any_flag = any(f is True for f in flags)
        source = "from the items' flags" if flags else "no flag given"
        notes.append(f"a bare list of questions: noncommittal={any_flag} ({source})")
        return _build(questions, any_flag, "", method, notes)
    if not isinstance(value, dict):
        return ParseFailure("schema", f"{_EXPECTED}; got {describe_json(value)}")
    found = field_of(value, QUESTION_KEYS)
    flag = _flag(value, notes)
    if isinstance(flag, ParseFailure):
        return flag
    if found is None and not flag:
        return ParseFailure("schema", f"{_EXPECTED}; got {describe_json(value)}")
    questions = [] if found is None else _questions(found[1], repr(found[0]), notes)
    reason = field_of(value, REASON_KEYS)
    return _build(questions, flag, as_text(reason and reason[1]), method, notes)


def _from_text(text: str) -> ParsedValue[GeneratedQuestions] | ParseFailure | None:
    questions: list[str] = []
    flag: bool | None = None
    reason = ""
    for line in text.splitlines():
        if (m := _FLAG_LINE.match(line)) is not None:
            value = read_label(m.group("v"), FLAGS)
            if value is not None:
                flag = value if m.group("key").casefold().startswith("non") else not value
        elif (m := _REASON_LINE.match(line)) is not None:
            reason = m.group("v").strip()
        elif (m := _QUESTION_LINE.match(line) or LIST_MARKER.match(line)) is not None:
            question = (m.group("v") if "v" in m.groupdict() else line[m.end() :]).strip()
            if question and question not in questions:
                questions.append(question)
        elif line.strip().endswith("?") and line.strip() not in questions:
            questions.append(line.strip())
    if not questions and flag is None:
        return None
    notes = ["read the questions from text lines, not JSON"]
    if flag is None:
        notes.append("no noncommittal flag; took it as false")
    return _build(questions, bool(flag), reason, "legacy_lines", notes)


def read_questions_reply(text: str) -> ParsedValue[GeneratedQuestions] | ParseFailure:
    """Read the generated questions and the noncommittal flag from a reply.

    Questions under ``questions``/``generated_questions``/``question`` (a string is one
    question; items may be objects with a ``question``), the flag as ``noncommittal``/
    ``non_committal`` or the inverted ``committal``, given as a boolean, 0/1 or yes/no
    (missing: false, noted). Legacy text: numbered or ``Question:`` lines and lines
    ending in "?", with an optional ``Noncommittal: 1`` line. No questions and not
    noncommittal is a ``"schema"`` failure.
    """
    return drive(text, _from_json, _from_text, _EXPECTED)
