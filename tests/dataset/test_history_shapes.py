"""History in the shapes people have it: OpenAI, MTRAG, LangChain, ragas, ShareGPT,
plain strings, a nested column; anything else a bad row naming the shapes accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veracity.dataset import RowError, read_dataset
from veracity.dataset.turns import SHAPES
from veracity.evaluation.inputs import items_from
from veracity.types import Sample, Turn

ROW: dict[str, object] = {
    "question": "And the second one?",
    "answer": "It is blue.",
    "contexts": ["c"],
}
WANTED = (
    Turn(role="user", content="Which cars are there?"),
    Turn(role="assistant", content="A red one and a blue one."),
)


def _one(row: dict[str, object], column_map: dict[str, str] | None = None) -> Sample | RowError:
    found = list(items_from([row], column_map)[0])
    assert len(found) == 1
    return found[0]


def _history(row: dict[str, object]) -> tuple[Turn, ...]:
    sample = _one(row)
    assert isinstance(sample, Sample), sample
    return sample.history


@pytest.mark.parametrize(
    "turns",
    [
        # OpenAI chat messages, content as a string or as text parts (an image part ignored)
        [{"role": "user", "content": "Which cars are there?"},
         {"role": "assistant", "content": [{"type": "text", "text": "A red one and a blue one."},
                                           {"type": "image_url", "image_url": {"url": "x"}}]}],
        # MTRAG
        [{"speaker": "user", "text": "Which cars are there?"},
         {"speaker": "agent", "text": "A red one and a blue one."}],
        # LangChain / ragas messages, and LangChain's serialised form
        [{"type": "human", "content": "Which cars are there?"},
         {"type": "ai", "content": "A red one and a blue one."}],
        [{"type": "human", "data": {"content": "Which cars are there?", "type": "human"}},
         {"type": "ai", "data": {"content": "A red one and a blue one.", "type": "ai"}}],
        # ShareGPT
        [{"from": "human", "value": "Which cars are there?"},
         {"from": "gpt", "value": "A red one and a blue one."}],
        # role names by what they mean, in any case
        [{"role": "Human", "content": "Which cars are there?"},
         {"role": "BOT", "content": "A red one and a blue one."}],
    ],
)  # fmt: skip
def test_each_shape_reads_as_the_same_turns(turns: list[object]) -> None:
    assert _history(ROW | {"history": turns}) == WANTED


def test_plain_strings_alternate_user_and_assistant() -> None:
    history = _history(ROW | {"history": ["Which cars are there?", "A red one and a blue one."]})
    assert [(turn.role, turn.content) for turn in history] == [
        ("user", "Which cars are there?"),
        ("assistant", "A red one and a blue one."),
    ]
    assert [t.role for t in _history(ROW | {"history": ["a", "b", "c"]})] == [
        "user", "assistant", "user",
    ]  # fmt: skip
    # One string is one turn of no known role; a string among objects has none either.
    assert [t.role for t in _history(ROW | {"history": "Earlier, we spoke of cars."})] == [None]
    mixed = _history(ROW | {"history": [{"role": "user", "content": "Hi"}, "Hello!"]})
    assert [t.role for t in mixed] == ["user", None]


def test_a_conversation_of_plain_strings_given_as_the_question() -> None:
    conversation = ["Which cars are there?", "A red one and a blue one.", "Which is faster?"]
    sample = _one({"user_input": conversation, "response": "The red one.", "contexts": ["c"]})
    assert isinstance(sample, Sample), sample
    assert sample.question == "Which is faster?"
    assert [t.role for t in sample.history] == ["user", "assistant"]


def test_system_tool_and_tool_calling_turns() -> None:
    history = _history(
        ROW
        | {
            "messages": [
                {"role": "developer", "content": "Be brief."},
                {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]},
                {"role": "tool", "content": '{"cars": 2}', "tool_call_id": "1"},
            ]
        }
    )
    assert [(t.role, t.content) for t in history] == [
        ("system", "Be brief."),
        ("assistant", ""),
        ("tool", '{"cars": 2}'),
    ]


def test_a_ragas_multi_turn_input_unfolds_into_history_question_and_answer() -> None:
    sample = _one(
        {
            "user_input": [
                {"type": "human", "content": "Which cars are there?"},
                {"type": "ai", "content": "A red one and a blue one."},
                {"type": "human", "content": "And the second one?"},
                {"type": "ai", "content": "It is blue."},
            ],
            "retrieved_contexts": ["The second car is blue."],
            "reference": "Blue.",
        }
    )
    assert isinstance(sample, Sample), sample
    assert (sample.question, sample.answer, sample.history) == (
        "And the second one?",
        "It is blue.",
        WANTED,
    )


def test_a_conversation_as_the_question_keeps_an_answer_given_beside_it() -> None:
    conversation = [*({"role": t.role, "content": t.content} for t in WANTED)]
    conversation.append({"role": "user", "content": "And the second one?"})
    sample = _one({"question": conversation, "answer": "Blue.", "contexts": []})
    assert isinstance(sample, Sample) and sample.answer == "Blue." and sample.history == WANTED


def test_a_conversation_as_the_question_and_a_history_too_is_a_bad_row() -> None:
    turns = [{"role": "user", "content": "q"}]
    found = _one({"question": turns, "history": turns, "answer": "a"})
    assert isinstance(found, RowError)
    assert "'question' is a whole conversation and 'history' gives its history too" in str(found)


def test_column_map_reaches_a_nested_key(tmp_path: Path) -> None:
    row = ROW | {"meta": {"conversation": {"turns": [t.model_dump() for t in WANTED]}}}
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (sample,) = read_dataset(path, {"history": "meta.conversation.turns"})
    assert isinstance(sample, Sample) and sample.history == WANTED
    # A key that is not there: no history, not an error.
    (plain,) = read_dataset(path, {"history": "meta.nothing.here"})
    assert isinstance(plain, Sample) and plain.history == ()


@pytest.mark.parametrize(
    ("turns", "message"),
    [
        ([{"speaker": "narrator", "text": "x"}], "item 1 has an unknown speaker 'narrator'"),
        ([{"role": ["user"], "content": "x"}], "item 1 has an unknown role an array"),
        ([{"role": "user\x1b[31m", "content": "x"}], "unknown role 'user\\x1b[31m'"),
        ([{"role": "user", "content": [[["deep"]]]}], "must be a string or a list of text parts"),
        ([{"role": "user", "content": {"text": "x"}}], "must be a string or a list of text parts"),
        ([{"who": "user", "what": "x"}], f"item 1 has no text (keys 'who', 'what'); a turn is "
         f"one of: {SHAPES}"),
        ([3.5], f"item 1 is a number; a turn is one of: {SHAPES}"),
    ],
)  # fmt: skip
def test_a_turn_of_no_known_shape_is_a_bad_row_naming_the_shapes(
    turns: list[object], message: str
) -> None:
    found = _one(ROW | {"id": "x", "history": turns})
    assert isinstance(found, RowError)
    assert message in str(found) and str(found).startswith("samples row 0: field 'history'")


def test_a_long_conversation_loads_whole() -> None:
    turns = [{"speaker": "user" if n % 2 else "agent", "text": f"turn {n}"} for n in range(10_000)]
    history = _history(ROW | {"history": turns})
    assert len(history) == 10_000 and history[-1] == Turn(role="user", content="turn 9999")
