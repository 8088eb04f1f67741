"""Every shape labels come in: wide columns, human_<target>, a label value or object, long
form, the dev sets' rows, JSON arrays and objects, CSV."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.labels.conftest import WriteFile, WriteRows
from veracity.labels import ItemLabel, LabelError, LabelKind, LabelSet, Scale, read_labels


def values(labels: LabelSet, target: str) -> dict[str, float]:
    return {item.sample_id: item.value for item in labels.for_target(target)}


def test_wide_columns_named_after_targets(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {"id": "a", "faithfulness": True, "answer_relevance": 0.25, "rubric:clarity": 1},
        {"id": "b", "faithfulness": False, "answer_relevance": 1, "rubric:clarity": 0},
    )
    labels = read_labels(path)
    assert labels.targets() == ("faithfulness", "answer_relevance", "rubric:clarity")
    assert values(labels, "faithfulness") == {"a": 1.0, "b": 0.0}
    assert values(labels, "answer_relevance") == {"a": 0.25, "b": 1.0}
    assert labels.scales == {
        "faithfulness": Scale(LabelKind.BINARY),
        "answer_relevance": Scale(LabelKind.PROBABILITY),
        "rubric:clarity": Scale(LabelKind.BINARY),
    }
    assert labels.rows == 2
    assert labels.bad_rows == ()
    assert labels.source == str(path)


def test_human_columns_and_aliases(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {"sample_id": "a", "human_faithful": "yes", "human_correct": "no"},
        {"queryLogId": 7, "human_faithfulness": "pass", "human_relevance": "1"},
        {"query_id": "c", "Human_Faithfulness": "Unsupported"},
    )
    labels = read_labels(path)
    assert values(labels, "faithfulness") == {"a": 1.0, "7": 1.0, "c": 0.0}
    assert values(labels, "correctness") == {"a": 0.0}
    assert values(labels, "answer_relevance") == {"7": 1.0}


def test_label_scalar_goes_to_the_default_target(write_jsonl: WriteRows) -> None:
    path = write_jsonl({"id": "a", "label": True}, {"id": "b", "label": "incorrect"})
    assert values(read_labels(path), "faithfulness") == {"a": 1.0, "b": 0.0}
    assert values(read_labels(path, default_target="correct"), "correctness") == {
        "a": 1.0,
        "b": 0.0,
    }


def test_label_object(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {"id": "a", "label": {"grounded": True, "relevant": 0.8, "note": "fine"}},
        {"id": "b", "label": {"supported": None, "correctness": False}},
    )
    labels = read_labels(path)
    assert values(labels, "faithfulness") == {"a": 1.0}
    assert values(labels, "answer_relevance") == {"a": 0.8}
    assert values(labels, "correctness") == {"b": 0.0}
    assert labels.bad_rows == ()


def test_long_form(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {"id": "a", "metric": "faithfulness", "value": 1, "annotator": "ann"},
        {"id": "a", "metric": "correct", "label": "false", "annotator": "ann"},
        {"id": "b", "target": "Faithful", "label": True, "note": "x"},
        {"id": "b", "metric": "rubric:clarity", "value": None},
    )
    labels = read_labels(path)
    assert values(labels, "faithfulness") == {"a": 1.0, "b": 1.0}
    assert values(labels, "correctness") == {"a": 0.0}
    assert labels.unlabelled == 1
    assert labels.rows == 4


def test_dev_set_rows_give_exactly_their_label_fields(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {
            "id": "halueval_qa::0::right",
            "dataset": "halueval_qa",
            "task_type": "qa",
            "question": "Which magazine was started first?",
            "contexts": ["Arthur's Magazine (1844-1846) was an American literary periodical."],
            "answer": "Arthur's Magazine",
            "ground_truth": "Arthur's Magazine",
            "label": {"faithful": True, "correct": True, "source": "constructed"},
            "meta": {"score": 1, "faithfulness": 0},
        },
        {
            "id": "wice::1",
            "dataset": "wice",
            "question": "q",
            "contexts": [],
            "answer": "a",
            "ground_truth": None,
            "faithfulness_note": 1,
            "label": {"faithful": None, "correct": False, "wice_label": "supported"},
            "meta": {},
        },
    )
    labels = read_labels(path)
    assert [(i.sample_id, i.target, i.value) for i in labels.items] == [
        ("halueval_qa::0::right", "faithfulness", 1.0),
        ("halueval_qa::0::right", "correctness", 1.0),
        ("wice::1", "correctness", 0.0),
    ]
    assert labels.bad_rows == ()
    # A label-like value under a name that is no metric is not read, but said.
    assert "label.wice_label" in labels.ignored


def test_dataset_rows_read_known_target_columns_only(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {"id": "a", "question": "q", "answer": "x", "faithfulness": 1, "helpfulness": 1},
        {"id": "b", "question": "q", "answer": "y", "score": 0.3, "human_correctness": 0},
    )
    labels = read_labels(path)
    assert labels.targets() == ("faithfulness", "correctness")
    assert labels.ignored == {}


def test_dataset_rows_without_id_get_the_datasets_id(write_jsonl: WriteRows) -> None:
    from veracity.dataset import read_dataset

    row = {"question": "q", "contexts": ["c"], "answer": "a", "system": "s", "label": 1}
    path = write_jsonl(row)
    (sample,) = list(read_dataset(path))
    (item,) = read_labels(path).items
    assert (item.sample_id, item.system) == (sample.id, "s")  # type: ignore[union-attr]


def test_system_annotator_group(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {"id": 1, "system": "bm25", "rater": "r1", "group_id": 3, "faithfulness": 1},
        {"id": 1, "system": "dense", "annotator_id": 9, "group": "3", "faithfulness": 0},
    )
    labels = read_labels(path)
    assert labels.items == (
        ItemLabel("1", "bm25", "faithfulness", 1.0, True, (("r1", 1.0),), "3"),
        ItemLabel("1", "dense", "faithfulness", 0.0, False, (("9", 0.0),), "3"),
    )


def test_json_array_and_objects(write_file: WriteFile) -> None:
    rows = [{"id": "a", "faithfulness": 1}, {"id": "b", "faithfulness": 0}]
    for content in (rows, {"labels": rows, "meta": {"x": 1}}, {"samples": rows}):
        path = write_file("labels.json", "\ufeff" + json.dumps(content))
        assert values(read_labels(path), "faithfulness") == {"a": 1.0, "b": 0.0}


def test_json_rows_are_located_by_item(write_file: WriteFile) -> None:
    path = write_file("labels.json", json.dumps([{"id": "a", "faithfulness": 1}, {"id": "b"}, 3]))
    labels = read_labels(path)
    assert [str(row) for row in labels.bad_rows] == [
        f"{path} item 3: expected a JSON object, got a number"
    ]
    assert labels.unlabelled == 1


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("", "got an empty file"),
        ("3", "got a value starting with .3."),
        ('{"rows": []}', "no 'labels' array"),
        ('{"labels": {}}', "'labels' must be an array"),
        ('{"labels": [], "samples": []}', "both 'labels' and 'samples'"),
        ('[{"id": "a", "faithfulness": 1}, {"id": ', "invalid JSON after item 1"),
    ],
)
def test_malformed_json_file_is_a_label_error(
    write_file: WriteFile, content: str, problem: str
) -> None:
    with pytest.raises(LabelError, match=problem):
        read_labels(write_file("labels.json", content))


def test_csv_with_a_header(write_file: WriteFile) -> None:
    path = write_file(
        "labels.csv",
        "id,annotator,faithfulness,correctness,comment,label,contexts\n"
        'a,ann,yes,0,"looks fine, really",,[not json\n'
        'b,ann,No,1.0,,"{""answer_relevance"": 0.5}",\n'
        "c,ann,,,,,\n",
    )
    labels = read_labels(path)
    assert values(labels, "faithfulness") == {"a": 1.0, "b": 0.0}
    assert values(labels, "correctness") == {"a": 0.0, "b": 1.0}
    assert values(labels, "answer_relevance") == {"b": 0.5}
    assert labels.unlabelled == 1
    assert labels.bad_rows == ()


def test_csv_bad_cells_are_located(write_file: WriteFile) -> None:
    path = write_file("labels.csv", "id,faithfulness\na,1\nb,maybe\n,1\nd,0,extra\n")
    labels = read_labels(path)
    assert [str(row) for row in labels.bad_rows] == [
        f"{path}:3: field 'faithfulness': 'maybe' is not a label (expected true/false, "
        "yes/no, pass/fail, a number, or empty for no label)",
        f"{path}:4: missing id (field id, sample_id, queryLogId or query_id)",
        f"{path}:5: row has 3 cells but the header has 2 columns",
    ]


def test_unknown_columns_of_a_labels_file_are_named_not_read(write_file: WriteFile) -> None:
    # Only known metrics and declared targets are labels: helpfulness is not guessed at
    # from its values (a typo in it is no bad row), and every other column is named.
    path = write_file(
        "labels.csv",
        "id,faithfulness,helpfulness,seconds,notes,stars,Time Spent\n"
        "a,true,true,12.5,ok,4,1\nb,false,false,3,yes,5,2\nc,1,ture,8,long text,3,3\n",
    )
    labels = read_labels(path)
    assert labels.targets() == ("faithfulness",) and labels.bad_rows == ()
    assert set(labels.ignored) == {"helpfulness", "seconds", "notes", "stars", "Time Spent"}
    assert "--scale helpfulness=binary" in labels.ignored["helpfulness"]
    assert "stars=1:5 for grades" in labels.ignored["stars"]
    assert "no metric's" in labels.ignored["Time Spent"]
    declared = read_labels(
        path,
        scales={"stars": Scale(LabelKind.GRADE, 1, 5), "helpfulness": Scale(LabelKind.BINARY)},
    )
    assert values(declared, "stars") == {"a": 4.0, "b": 5.0}  # row c is bad: its typo
    assert values(declared, "helpfulness") == {"a": 1.0, "b": 0.0}
    assert [row.line for row in declared.bad_rows] == [4]  # declared, the typo is bad
    assert set(declared.ignored) == {"seconds", "notes", "Time Spent"}


def test_csv_dataset_without_ids_hashes_like_the_dataset(write_file: WriteFile) -> None:
    from veracity.dataset import read_dataset

    path = write_file(
        "data.csv", 'question,contexts,answer,human_faithfulness\nq,"[""c1"", ""c2""]",a,1\n'
    )
    (sample,) = list(read_dataset(path))
    (item,) = read_labels(path).items
    assert item.sample_id == sample.id  # type: ignore[union-attr]


def test_no_label_is_a_label_error(write_jsonl: WriteRows, tmp_path: Path) -> None:
    with pytest.raises(LabelError, match=r"no label in .*2 row\(s\) but no label; expected"):
        read_labels(write_jsonl({"id": "a"}, {"id": "b"}))
    with pytest.raises(LabelError, match=r"but no label \(not read: note: not a known metric"):
        read_labels(write_jsonl({"id": "a"}, {"id": "b", "note": "x"}))
    with pytest.raises(LabelError, match="no row"):
        read_labels(write_jsonl())
    with pytest.raises(LabelError, match=r"e\.g\. --scale stars=binary \(or stars=1:5"):
        read_labels(write_jsonl({"id": "a", "stars": 5}, {"id": "b", "stars": 3}))


def test_missing_file_and_unknown_extension(tmp_path: Path) -> None:
    with pytest.raises(LabelError, match=r"nope\.jsonl: labels file not found"):
        read_labels(tmp_path / "nope.jsonl")
    with pytest.raises(LabelError, match="nope: labels file not found"):
        read_labels(tmp_path / "nope")
    (tmp_path / "dir.jsonl").mkdir()
    with pytest.raises(LabelError, match="is a directory, not a file"):
        read_labels(tmp_path / "dir.jsonl")
    (tmp_path / "labels.txt").write_text("x")
    with pytest.raises(LabelError, match=r"unknown labels format '\.txt'"):
        read_labels(tmp_path / "labels.txt")


def test_a_label_set_is_returned_as_it_is(write_jsonl: WriteRows) -> None:
    labels = read_labels(write_jsonl({"id": "a", "label": 1}))
    assert read_labels(labels) is labels
