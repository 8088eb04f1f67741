"""What a server's refusal of a too-large request says of its limits, and how a request is
split to fit them."""

from __future__ import annotations

import pytest

from veracity.decisions import Option, Question, ServerLimits
from veracity.decisions.limits import LimitRefusal, limit_refusal, question_limit_after, split


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        (413, "Request Entity Too Large", LimitRefusal("questions", None)),
        (413, "too many questions: at most 32 per request", LimitRefusal("questions", 32)),
        (400, "questions: Ask 1–400 questions about the input", LimitRefusal("questions", 400)),
        (422, "questions: ensure this value has at most 64 items", LimitRefusal("questions", 64)),
        (400, "a choice question may have at most 26 options", LimitRefusal("options", 26)),
        (
            422,
            "a score question needs criteria: a list of 2-10 levels",
            LimitRefusal("options", 10),
        ),
        (400, "choices: Provide between 2 and 255 choices", LimitRefusal("options", 255)),
        (422, "state: string too long", None),  # a limit, of nothing it splits
        (400, "unknown question type 'noul'", None),
        # The fake llama-server's and OpenAI's words (veracity.testing's decision server).
        (
            413,
            'The request has 150 questions, the maximum is 64. Give fewer "questions".',
            LimitRefusal("questions", 64),
        ),
        (
            422,
            "questions.claim_0: too many options (30), at most 26 are supported",
            LimitRefusal("options", 26),
        ),
        (
            400,
            "Invalid 'questions': array too long. Expected an array with maximum length 400, "
            "but got an array with length 401 instead.",
            LimitRefusal("questions", 400),
        ),
        (
            400,
            "Invalid 'questions[2].choices': array too long. Expected an array with maximum "
            "length 255, but got an array with length 300 instead.",
            LimitRefusal("options", 255),
        ),
        (413, "too many options", LimitRefusal("options", None)),
        (500, "too many questions", None),
    ],
)
def test_limit_refusals_are_read(status: int, message: str, expected: LimitRefusal | None) -> None:
    assert limit_refusal(status, message) == expected


def test_what_a_question_limit_teaches() -> None:
    assert question_limit_after(LimitRefusal("questions", 32), 100) == 32
    assert question_limit_after(LimitRefusal("questions", 400), 100) == 50  # no news: halve
    assert question_limit_after(LimitRefusal("questions", None), 7) == 3
    assert question_limit_after(LimitRefusal("questions", None), 1) is None


def test_split_is_even_and_keeps_too_wide_questions_apart() -> None:
    questions = [Question(f"q_{i}", "predicate", "?") for i in range(130)]
    wide = Question("wide", "choice", "?", tuple(Option(str(i)) for i in range(30)))
    requests, too_wide = split([*questions, wide], ServerLimits(64, 26))
    assert [len(r) for r in requests] == [44, 43, 43]
    assert [q.name for r in requests for q in r] == [q.name for q in questions]
    assert too_wide == [wide]
    assert split([wide], ServerLimits(64, 26)) == ([], [wide])
