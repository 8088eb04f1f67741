"""Samples in memory (issue 17 item 1): a list of dicts, a pandas DataFrame and a Hugging
Face ``datasets.Dataset`` go through the file readers' rules, with an optional column
mapping, bad rows named by their index, and a row read at a time."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")  # nothing here may reach the network

import datasets

from veracity import evaluate
from veracity.dataset import RowError, read_dataset
from veracity.evaluation.inputs import items_from, row_count
from veracity.types import Sample, Status, Turn

RAGAS_ROWS: list[dict[str, Any]] = [
    {
        "user_input": "What is the capital of France?",
        "retrieved_contexts": ["Paris is the capital and largest city of France."],
        "response": "Paris is the capital of France.",
        "reference": "Paris",
    },
    {
        "user_input": "Who wrote Hamlet?",
        "retrieved_contexts": ["Hamlet is a tragedy by William Shakespeare.", "It is long."],
        "response": "William Shakespeare wrote Hamlet.",
        "reference": None,
    },
]


def split(
    entries: Iterator[Sample | RowError],
) -> tuple[list[Sample], list[str]]:
    found = list(entries)
    return [e for e in found if isinstance(e, Sample)], [
        str(e) for e in found if isinstance(e, RowError)
    ]


def samples_of(given: object, column_map: dict[str, str] | None = None) -> list[Sample]:
    samples, errors = split(items_from(given, column_map)[0])  # type: ignore[arg-type]
    assert errors == []
    return samples


def test_a_ragas_style_dataframe_gives_the_samples_a_list_of_dicts_gives() -> None:
    frame = pd.DataFrame(RAGAS_ROWS)
    # Parquet gives a contexts column of numpy arrays, and NaN for a missing reference.
    frame["retrieved_contexts"] = [np.array(c, dtype=object) for c in frame.retrieved_contexts]
    frame.loc[1, "reference"] = np.nan
    assert np.isnan(frame.loc[1, "reference"])
    from_frame = samples_of(frame)
    assert from_frame == samples_of(RAGAS_ROWS)
    assert from_frame[1].contexts == (
        "Hamlet is a tragedy by William Shakespeare.",
        "It is long.",
    )
    assert from_frame[1].reference is None and from_frame[0].reference == "Paris"


def test_a_dataset_gives_the_samples_a_list_of_dicts_gives() -> None:
    dataset = datasets.Dataset.from_list(RAGAS_ROWS)
    assert samples_of(dataset) == samples_of(RAGAS_ROWS)
    # In numpy format a row's lists are arrays.
    assert samples_of(dataset.with_format("numpy")) == samples_of(RAGAS_ROWS)
    assert samples_of(dataset.to_iterable_dataset()) == samples_of(RAGAS_ROWS)


def test_the_issue_dataframe_evaluates_with_the_offline_judge() -> None:
    """Issue 17: ``evaluate(pandas.DataFrame([...ragas-style...]), ["faithfulness"],
    "offline")`` crashed."""
    result = evaluate(pd.DataFrame(RAGAS_ROWS), ["faithfulness"], "offline")
    assert [(r.sample_id, r.status) for r in result] == [
        (s.id, Status.SCORED) for s in samples_of(RAGAS_ROWS)
    ]
    assert result.bad_rows == ()
    assert result.samples[0].question == "What is the capital of France?"


ROWS_WITH_BAD: list[dict[str, Any]] = [
    {"id": "a", "question": "q1", "answer": "x", "contexts": ["c"]},
    {"id": "b", "question": "q2", "answer": None, "contexts": ["c"]},
    {"id": "c", "question": "q3", "answer": "z", "contexts": ["c"]},
    {"id": "a", "question": "q4", "answer": "w", "contexts": ["c"]},
]


@pytest.mark.parametrize(
    ("make", "name"),
    [(list, "samples"), (pd.DataFrame, "DataFrame"), (datasets.Dataset.from_list, "Dataset")],
)
def test_bad_rows_are_named_by_their_index(make: Any, name: str) -> None:
    samples, errors = split(items_from(make(ROWS_WITH_BAD))[0])
    assert [s.id for s in samples] == ["a", "c"]
    assert errors == [
        f"{name} row 1: missing required field 'answer'",
        f"{name} row 3: duplicate sample (id 'a') first seen at row 0",
    ]


def test_a_dataframe_row_index_is_its_iloc_position_whatever_its_label() -> None:
    frame = pd.DataFrame(ROWS_WITH_BAD[:3], index=["x", "y", "z"])
    _, errors = split(items_from(frame)[0])
    assert errors == ["DataFrame row 1: missing required field 'answer'"]
    assert frame.iloc[1]["id"] == "b"


def test_answers_per_system_history_and_metadata_come_from_cells() -> None:
    frame = pd.DataFrame(
        [
            {
                "query": "Where is it?",
                "contexts": np.array(["It is in Paris."], dtype=object),
                "answers": {"A": "Paris.", "B": "Lyon."},
                "chat_history": [{"role": "user", "content": "The tower?"}],
                "team": "search",
                "rank": np.int64(3),
            }
        ]
    )
    samples = samples_of(frame)
    assert [(s.system, s.answer) for s in samples] == [("A", "Paris."), ("B", "Lyon.")]
    assert samples[0].history == (Turn(role="user", content="The tower?"),)
    assert samples[0].metadata == {"team": "search", "rank": 3}
    assert type(samples[0].metadata["rank"]) is int


def test_empty_cells_are_absent_fields() -> None:
    frame = pd.DataFrame(
        {
            "question": ["q1", "q2", "q3"],
            "answer": ["a1", "a2", "a3"],
            "reference": pd.array(["r1", pd.NA, None], dtype="string"),
            "question_type": [None, "simple", np.nan],
        }
    )
    samples = samples_of(frame)
    assert [s.reference for s in samples] == ["r1", None, None]
    assert [s.question_type for s in samples] == [None, "simple", None]


def test_a_column_map_names_the_columns() -> None:
    rows = [
        {"prompt": "Who wrote Hamlet?", "docs": ["By Shakespeare."], "output": "Shakespeare.",
         "question": "raw question"},
    ]  # fmt: skip
    column_map = {"question": "prompt", "contexts": "docs", "answer": "output"}
    for given in (rows, pd.DataFrame(rows), datasets.Dataset.from_list(rows)):
        [sample] = samples_of(given, column_map)
        assert (sample.question, sample.contexts, sample.answer) == (
            "Who wrote Hamlet?",
            ("By Shakespeare.",),
            "Shakespeare.",
        )
        # The field's own name, once it is mapped elsewhere, is an extra column.
        assert sample.metadata == {"question": "raw question"}


def test_a_mapped_column_that_is_missing_is_named() -> None:
    _, errors = split(items_from([{"question": "q", "answer": "a"}], {"question": "prompt"})[0])
    assert errors == ["samples row 0: missing required field 'question' (column 'prompt')"]


def test_a_column_map_applies_to_files_too(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    # The CSV reader reads a contexts cell as a JSON array only if it knows it is one.
    path.write_text('prompt,docs,output\nWho?,"[""By him."", ""Long ago.""]",Him.\n')
    [sample] = list(
        read_dataset(path, {"question": "prompt", "contexts": "docs", "answer": "output"})
    )
    assert isinstance(sample, Sample)
    assert sample.contexts == ("By him.", "Long ago.") and sample.question == "Who?"


@pytest.mark.parametrize(
    ("column_map", "message"),
    [
        ({"prompt": "question"}, "'prompt' is not a field .* e.g. {'question': 'query'}"),
        ({"question": "q", "answer": "q"}, "column 'q' is given for both 'question' and 'answer'"),
        ({"question": ""}, "the column of 'question' must be a non-empty string"),
        ({"question": 1}, "the column of 'question' must be a non-empty string"),
    ],
)
def test_a_column_map_that_is_not_one_is_an_error(column_map: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        items_from(RAGAS_ROWS, column_map)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            datasets.DatasetDict({"test": datasets.Dataset.from_list(RAGAS_ROWS)}),
            r"DatasetDict of splits \('test'\): pass one split, e.g. dataset\['test'\]",
        ),
        (RAGAS_ROWS[0], "samples is one dict: pass a list of dicts"),
        (42, "samples must be a dataset path, .* not int"),
        (pd.Series(["q"]), "samples is a pandas Series: pass a DataFrame"),
    ],
)
def test_samples_of_no_usable_kind_fail_before_any_judging(given: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        evaluate(given, "faithfulness", "offline")


def test_a_dataframe_with_two_columns_of_one_name_is_an_error() -> None:
    frame = pd.DataFrame([["q", "a", "b"]], columns=["question", "answer", "answer"])
    with pytest.raises(ValueError, match="more than one column named answer"):
        items_from(frame)


def test_rows_are_read_one_at_a_time() -> None:
    pulled: list[int] = []

    def rows() -> Iterator[dict[str, str]]:
        for i in range(1_000):
            pulled.append(i)
            yield {"question": f"q{i}", "answer": "a"}

    entries = items_from(rows())[0]
    assert pulled == []
    next(entries)
    assert pulled == [0]


def test_a_dataframe_is_not_copied_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its rows come from ``itertuples``, a row at a time, never from a whole-table copy."""
    frame = pd.DataFrame([{"question": f"q{i}", "answer": "a"} for i in range(1_000)])
    for copy in ("to_dict", "to_numpy", "copy"):
        monkeypatch.setattr(pd.DataFrame, copy, lambda *_a, **_k: pytest.fail("copied"))
    entries = items_from(frame)[0]
    first = next(entries)
    assert isinstance(first, Sample) and first.question == "q0"
    assert sum(1 for _ in entries) == 999


def test_the_row_count_is_known_without_reading() -> None:
    assert row_count(pd.DataFrame(RAGAS_ROWS)) == 2
    assert row_count(datasets.Dataset.from_list(RAGAS_ROWS)) == 2
    assert row_count(RAGAS_ROWS) == 2
    assert row_count(iter(RAGAS_ROWS)) is None
    assert row_count("data.jsonl") is None
