"""Labels given in memory (a list of dicts, a DataFrame) and labels sitting in a dataset."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.labels.conftest import WriteFile, WriteRows
from veracity.dataset import RowError, read_dataset
from veracity.labels import LabelError, labels_from_samples, parse_scales, read_labels
from veracity.types import Sample


def test_list_of_dicts_is_located_by_row() -> None:
    labels = read_labels([{"id": "a", "faithfulness": 1}, {"id": "b", "faithfulness": "?"}])
    assert [i.sample_id for i in labels.items] == ["a"]
    assert labels.source == "labels"
    assert labels.bad_rows[0].location == "labels row 1"


def test_dataframe() -> None:
    frame = pd.DataFrame(
        {
            "id": [1, 2, 3, 4],
            "annotator": ["x", "x", None, "x"],
            "faithfulness": [1.0, 0.0, np.nan, "maybe"],
            "correctness": pd.array([True, None, False, True], dtype="boolean"),
            "stars": np.array([1, 2, 3, 4], dtype=np.int64),
        }
    )
    labels = read_labels(frame, scales=parse_scales(["stars=1:4"]))
    assert labels.source == "DataFrame"
    assert {(i.sample_id, i.target): i.value for i in labels.items} == {
        ("1", "faithfulness"): 1.0,
        ("1", "correctness"): 1.0,
        ("1", "stars"): 1.0,
        ("2", "faithfulness"): 0.0,
        ("2", "stars"): 2.0,
        ("3", "correctness"): 0.0,
        ("3", "stars"): 3.0,
    }
    (bad,) = labels.bad_rows
    assert str(bad) == (
        "DataFrame row 3: field 'faithfulness': 'maybe' is not a label "
        "(expected true/false, yes/no, pass/fail, a number, or empty for no label)"
    )
    assert labels.items[0].votes == (("x", 1.0),)
    assert isinstance(labels.items[0].votes[0][1], float)


def test_dataframe_with_a_column_twice() -> None:
    frame = pd.DataFrame([[1, 1, 0]], columns=["id", "faithfulness", "faithfulness"])
    with pytest.raises(LabelError, match="more than one column named faithfulness"):
        read_labels(frame)


def test_neither_a_file_nor_rows() -> None:
    with pytest.raises(TypeError, match="labels must be a file path"):
        read_labels(3)
    with pytest.raises(TypeError, match="not dict"):
        read_labels({"id": "a"})


def test_labels_from_samples_of_a_dataset(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {"id": "a", "question": "q", "answer": "x", "human_faithfulness": True},
        {"id": "b", "question": "q", "answer": "y", "label": {"faithful": False, "correct": 1}},
        {"id": "c", "question": "q", "answer": "z", "label": 0, "annotator": "p"},
        {"id": "d", "question": "q", "answer": "w", "helpfulness": 1, "meta": {"label": 1}},
        {"id": "e", "question": "q", "answer": "v", "label": "maybe"},
        {"question": "no answer"},
        {"answers": {"s1": "one", "s2": "two"}, "id": "f", "question": "q", "label": 1},
        name="data.jsonl",
    )
    read = list(read_dataset(path))
    samples = [s for s in read if isinstance(s, Sample)]
    assert any(isinstance(s, RowError) for s in read)
    labels = labels_from_samples(samples)
    assert [(i.sample_id, i.system, i.target, i.value) for i in labels.items] == [
        ("a", None, "faithfulness", 1.0),
        ("b", None, "faithfulness", 0.0),
        ("b", None, "correctness", 1.0),
        ("c", None, "faithfulness", 0.0),
        ("f", "s1", "faithfulness", 1.0),
        ("f", "s2", "faithfulness", 1.0),
    ]
    assert labels.items[3].votes == (("p", 0.0),)
    (bad,) = labels.bad_rows
    assert bad.location == "samples row 4"
    assert "'maybe' is not a label" in bad.message
    assert labels.rows == len(samples)
    assert labels.unlabelled == 1


def test_samples_in_a_list_are_dataset_rows() -> None:
    sample = Sample(
        id="a", question="q", answer="x", metadata={"label": 1, "stars": 1, "id": "other"}
    )
    labels = read_labels([sample])
    assert [(i.sample_id, i.target) for i in labels.items] == [("a", "faithfulness")]


def test_labels_from_samples_with_no_label() -> None:
    with pytest.raises(LabelError, match="no label in samples"):
        labels_from_samples([Sample(id="a", question="q", answer="x")])


def test_dataset_csv_fields(write_file: WriteFile) -> None:
    path = write_file(
        "data.csv",
        "id,question,answer,contexts,human_faithfulness,label\n"
        f'a,q,x,"{json.dumps(["c"]).replace(chr(34), chr(34) * 2)}",yes,\n'
        'b,q,y,,,"{""correct"": false}"\n',
    )
    samples = [s for s in read_dataset(path) if isinstance(s, Sample)]
    labels = labels_from_samples(samples, source=str(path))
    assert [(i.sample_id, i.target, i.value) for i in labels.items] == [
        ("a", "faithfulness", 1.0),
        ("b", "correctness", 0.0),
    ]
    assert labels.source == str(path)
    # The same file read as labels gives the same.
    assert [(i.sample_id, i.target) for i in read_labels(path).items] == [
        ("a", "faithfulness"),
        ("b", "correctness"),
    ]
