"""Read the generated questions (and the noncommittal flag) out of an answer-relevance reply."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BeforeValidator, Field, ValidationInfo, model_validator

from veracity.judges.parsing._coerce import NO_WORDS, YES_WORDS, flag_table, read_label
from veracity.judges.parsing._text import (
    LIST_MARKER,
    REASON_LINE,
    as_text,
    describe_json,
    preview,
)
from veracity.judges.parsing.outcomes import ParseFailure
from veracity.judges.parsing.parsed import ParsedValue
from veracity.judges.parsing.reader import (
    Reading,
    Reason,
    ReplyModel,
    describe_output,
    note,
    synonyms,
    written,
)
from veracity.prompts.answer_relevance import QuestionGenerationOutput
from veracity.types.judgements import GeneratedQuestions

__all__ = ["read_questions_reply"]

NONCOMMITTAL = "noncommittal non_committal is_noncommittal noncommital evasive"
COMMITTAL = "committal is_committal commital"
FLAGS = flag_table(
    (*YES_WORDS, "noncommittal", "non committal", "evasive"),
    (*NO_WORDS, "committal", "not noncommittal"),
)
_FLAG_LINE = re.compile(r"^\W*(?P<key>non[\s_-]?commit?tal|commit?tal)\W*[:=]\s*(?P<v>.+)$", re.I)
_QUESTION_LINE = re.compile(r"^\W*question\s*\d{0,2}\s*[:=.)]\s*(?P<v>.+)$", re.I)


class _Item(ReplyModel):
    """A question written as an object, as ragas' ``{question, noncommittal}``."""

    question: object = written("question text query")
    noncommittal: object = written(NONCOMMITTAL)
    committal: object = written(COMMITTAL)


def _questions(value: object, info: ValidationInfo) -> tuple[str, ...]:
    items = [value] if isinstance(value, str | dict) else value
    if not isinstance(items, list):
        note(info, f"ignored the questions: {describe_json(value)}, not questions")
        return ()
    found: list[str] = []
    for n, item in enumerate(items, 1):
        question = _Item.model_validate(item).question if isinstance(item, dict) else item
        if not isinstance(question, str) or not question.strip():
            note(info, f"skipped item {n} of the questions: not a question string")
        elif question.strip() in found:
            note(info, f"dropped duplicate question {preview(question)}")
        else:
            found.append(question.strip())
    return tuple(found)


def _flag(raw: object) -> bool:
    flag = read_label(raw, FLAGS)
    if flag is None:
        raise ValueError(f"{preview(as_text(raw))} is not true/false")
    return flag


Flag = Annotated[bool | None, BeforeValidator(_flag)]


class _Questions(ReplyModel):
    reason: Reason = ""
    noncommittal: Annotated[Flag, Field(validation_alias=synonyms(NONCOMMITTAL))] = None
    committal: Annotated[Flag, Field(validation_alias=synonyms(COMMITTAL))] = None
    questions: Annotated[
        tuple[str, ...] | None,
        BeforeValidator(_questions),
        Field(
            validation_alias=synonyms(
                "questions generated_questions question generated_question queries"
            )
        ),
    ] = None

    @model_validator(mode="after")
    def _committed(self, info: ValidationInfo) -> _Questions:
        if self.noncommittal is None and self.committal is not None:
            note(info, f"read committal={self.committal} as noncommittal={not self.committal}")
        elif self.noncommittal is None:
            note(info, "no noncommittal flag; took it as false")
        if not self.questions and not self.flag:
            raise ValueError("got no questions")
        return self

    @property
    def flag(self) -> bool:
        if self.noncommittal is not None:
            return self.noncommittal
        return self.committal is False


def _item_flag(item: dict[str, object]) -> bool | None:
    read = _Item.model_validate(item)
    for raw, inverted in ((read.noncommittal, False), (read.committal, True)):
        flag = read_label(raw, FLAGS)
        if flag is not None:
            return flag != inverted
    return None


def _bare_list(value: object, notes: list[str]) -> object:
    """A bare list of questions (or of ragas-style ``{question, noncommittal}`` objects)."""
    if not isinstance(value, list | str):
        return value
    items = value if isinstance(value, list) else []
    flags = [_item_flag(v) for v in items if isinstance(v, dict)]
    any_flag = any(f is True for f in flags)
    source = "from the items' flags" if flags else "no flag given"
    notes.append(f"a bare list of questions: noncommittal={any_flag} ({source})")
    return {"questions": value, "noncommittal": any_flag}


def _from_text(text: str) -> ParsedValue[GeneratedQuestions] | ParseFailure | None:
    questions: list[str] = []
    flag: bool | None = None
    reason = ""
    for line in text.splitlines():
        if (m := _FLAG_LINE.match(line)) is not None:
            value = read_label(m.group("v"), FLAGS)
            if value is not None:
                flag = value if m.group("key").casefold().startswith("non") else not value
        elif (m := REASON_LINE.match(line)) is not None:
            reason = m.group("v").strip()
        elif (m := _QUESTION_LINE.match(line) or LIST_MARKER.match(line)) is not None:
            question = (m.group("v") if "v" in m.groupdict() else line[m.end() :]).strip()
            if question and question not in questions:
                questions.append(question)
        elif line.strip().endswith("?") and line.strip() not in questions:
            questions.append(line.strip())
    if not questions and flag is None:
        return None
    data = {"questions": questions, "reason": reason, "noncommittal": flag}
    return READING.validated(
        {k: v for k, v in data.items() if v is not None},
        "legacy_lines",
        ["read the questions from text lines, not JSON"],
    )


READING = Reading(
    _Questions,
    lambda read: GeneratedQuestions(
        questions=read.questions or (), noncommittal=read.flag, reason=read.reason
    ),
    describe_output(QuestionGenerationOutput),
    shape=_bare_list,
    text=_from_text,
)


def read_questions_reply(text: str) -> ParsedValue[GeneratedQuestions] | ParseFailure:
    """Read the generated questions and the noncommittal flag from a reply.

    Questions under ``questions``/``generated_questions``/``question`` (a string is one
    question; items may be objects with a ``question``), the flag as ``noncommittal``/
    ``non_committal`` or the inverted ``committal``, given as a boolean, 0/1 or yes/no
    (missing: false, noted). Legacy text: numbered or ``Question:`` lines and lines
    ending in "?", with an optional ``Noncommittal: 1`` line. No questions and not
    noncommittal is a ``"schema"`` failure.
    """
    return READING(text)
