"""Label values: the words and numbers accepted, kinds inferred or declared, and every
value that is no label a bad row naming the field and the value."""

from __future__ import annotations

import pytest

from tests.labels.conftest import WriteRows
from veracity.labels import LabelError, LabelKind, Scale, parse_scales, read_labels

TRUE = [True, 1, 1.0, "true", "YES", " pass ", "1", "correct", "Faithful", "supported", "y"]
FALSE = [False, 0, "false", "no", "fail", "0", "0.0", "incorrect", "unfaithful"]
ID_MUST = "field 'id' must be a string or an integer"
FALSE += ["not_supported", "not supported", "unsupported", "Not-Supported"]


@pytest.mark.parametrize(("raw", "expected"), [(v, 1.0) for v in TRUE] + [(v, 0.0) for v in FALSE])
def test_label_words_and_numbers(raw: object, expected: float) -> None:
    labels = read_labels([{"id": "a", "faithfulness": raw}])
    assert labels.items[0].value == expected
    assert labels.scales["faithfulness"] == Scale(LabelKind.BINARY)


@pytest.mark.parametrize("raw", [None, "", "   "])
def test_empty_is_no_label(raw: object) -> None:
    labels = read_labels([{"id": "a", "faithfulness": raw, "correctness": 1}])
    assert labels.targets() == ("correctness",)


def test_numeric_strings_and_probabilities() -> None:
    labels = read_labels([{"id": "a", "faithfulness": "0.7"}, {"id": "b", "faithfulness": 0}])
    assert labels.scales["faithfulness"] == Scale(LabelKind.PROBABILITY)
    assert [(i.value, i.positive) for i in labels.items] == [(0.7, True), (0.0, False)]


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("maybe", "'maybe'"),
        ("partially_supported", "'partially_supported'"),
        ([1], "an array"),
        ({"a": 1}, "an object"),
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        ("nan", "'nan'"),
        ("Infinity", "'Infinity'"),
        ("1_0", "'1_0'"),
        ("x" * 500, "'" + "x" * 60 + "'…"),
        ("\x1b[31mred\x1b[0m", r"'\x1b[31mred\x1b[0m'"),
    ],
)
def test_values_that_are_no_label_are_bad_rows(raw: object, shown: str) -> None:
    labels = read_labels([{"id": "ok", "faithfulness": 1}, {"id": "a", "faithfulness": raw}])
    (bad,) = labels.bad_rows
    assert str(bad) == (
        f"labels row 1: field 'faithfulness': {shown} is not a label "
        "(expected true/false, yes/no, pass/fail, a number, or empty for no label)"
    )
    assert "\x1b" not in str(bad)


def test_grades_without_a_scale_are_an_error_naming_scale() -> None:
    """Read as yes/no, the grade 1 of a 1–4 file would count as good: no number of a
    target is read while some of its numbers lie outside 0–1 and no scale is declared."""
    rows = [{"id": "a", "faithfulness": 1}, {"id": "b", "faithfulness": 3},
            {"id": "c", "faithfulness": 4}, {"id": "d", "correctness": 1}]  # fmt: skip
    with pytest.raises(LabelError) as caught:
        read_labels(rows)
    assert str(caught.value) == (
        "labels: labels that look like grades, on a scale nobody declared — read as yes/no, "
        "a grade 1 (the worst) would count as good. faithfulness has 2 number(s) outside "
        "0–1 (values from 1 to 4, the first at labels row 1): declare its scale, e.g. "
        "--scale faithfulness=1:4"
    )
    with pytest.raises(LabelError, match=r"from -1 to -1.*--scale faithfulness=-1:4"):
        read_labels([{"id": "b", "faithfulness": -1}])
    with pytest.raises(LabelError, match=r"from 0 to 5.*--scale faithfulness=0:5"):
        read_labels([{"id": "a", "faithfulness": 0}, {"id": "b", "label": 5}])
    # Declared, the same rows are grades; 0–1 numbers need no scale.
    declared = read_labels(rows[:3], scales=parse_scales(["faithfulness=1:4"]))
    assert [i.positive for i in declared.items] == [False, True, True]
    assert read_labels([{"id": "a", "faithfulness": 0.7}]).items[0].positive


def test_declared_grades() -> None:
    scales = parse_scales(["faithfulness=1:4"])
    rows = [
        {"id": "a", "faithfulness": 4},
        {"id": "b", "faithfulness": "2"},
        {"id": "c", "faithfulness": 2.5},
        {"id": "d", "faithfulness": 5},
        {"id": "e", "faithfulness": 0},
        {"id": "f", "faithfulness": True},
        {"id": "g", "faithfulness": "yes"},
    ]
    labels = read_labels(rows, scales=scales)
    assert [(i.sample_id, i.value, i.positive) for i in labels.items] == [
        ("a", 4.0, True),
        ("b", 2.0, False),
    ]
    assert labels.scales == {"faithfulness": Scale(LabelKind.GRADE, 1, 4)}
    assert [b.message for b in labels.bad_rows] == [
        # A vote is a whole grade; only a median of two votes falls between grades.
        "field 'faithfulness': 2.5 is not a whole grade on faithfulness's scale (grade 1–4)",
        "field 'faithfulness': 5 is outside faithfulness's scale (grade 1–4)",
        "field 'faithfulness': 0 is outside faithfulness's scale (grade 1–4)",
        "field 'faithfulness': true is not a grade on faithfulness's scale (grade 1–4)",
        "field 'faithfulness': 'yes' is not a grade on faithfulness's scale (grade 1–4)",
    ]


def test_declared_binary_and_probability() -> None:
    rows = [{"id": "a", "x": 1}, {"id": "b", "x": 0.5}, {"id": "c", "x": 0}]
    binary = read_labels(rows, scales=parse_scales(["x=binary"]))
    assert [i.sample_id for i in binary.items] == ["a", "c"]
    assert binary.bad_rows[0].message == "field 'x': 0.5 is outside x's scale (binary)"
    probability = read_labels([{"id": "a", "x": 1}], scales={"x": Scale(LabelKind.PROBABILITY)})
    assert probability.scales == {"x": Scale(LabelKind.PROBABILITY)}


def test_declaring_a_scale_makes_any_name_a_target_even_in_a_dataset() -> None:
    row = {"id": "a", "question": "q", "answer": "a", "stars": 4}
    with pytest.raises(LabelError, match="no label"):
        read_labels([row])
    labels = read_labels([row], scales=parse_scales(["stars=1:5"]))
    assert labels.items[0].value == 4.0


def test_two_fields_for_one_target_must_agree() -> None:
    labels = read_labels(
        [
            {"id": "a", "label": True, "faithfulness": "yes"},
            {"id": "b", "label": {"faithful": True, "grounded": False}},
        ]
    )
    assert [i.sample_id for i in labels.items] == ["a"]
    assert labels.bad_rows[0].message == (
        "fields 'label.faithful' and 'label.grounded' both label faithfulness but differ"
    )


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (
            {"id": True, "faithfulness": 1},
            "field 'id' must be a string or an integer, got a boolean",
        ),
        (
            {"id": ["a"], "faithfulness": 1},
            "field 'id' must be a string or an integer, got an array",
        ),
        ({"id": 1.5, "faithfulness": 1}, "field 'id' must be a string or an integer, got a number"),
        ({"id": "a", "sample_id": "b", "faithfulness": 1}, "fields 'id' and 'sample_id' give"),
        ({"id": "a", "system": 3, "faithfulness": 1}, "field 'system' must be a string"),
        ({"id": "a", "annotator": {}, "faithfulness": 1}, "field 'annotator' must be a string"),
        ({"id": "a", "group": [1], "faithfulness": 1}, "field 'group' must be a string"),
        ({"id": "a", "label": [1, 0]}, "field 'label' must be a label or an object"),
        ({"id": "a", "metric": 3, "value": 1}, "field 'metric' must name a metric"),
        ({"id": "a", "metric": "two words", "value": 1}, "field 'metric' must name a metric"),
        ({"id": "a", "metric": "x", "value": {"a": 1}}, "field 'value' must be one label"),
        ({"id": "a", "metric": "x", "label": 1, "value": 0}, "fields 'label' and 'value' both"),
        ({"id": "a", "value": 1}, "field 'value' needs 'metric'"),
        ({"id": "a", "label": "{not json"}, "field 'label': invalid JSON"),
        ({"faithfulness": 1}, "missing id"),
    ],
)
def test_bad_rows_name_the_field(row: dict[str, object], problem: str) -> None:
    labels = read_labels([{"id": "ok", "faithfulness": 1}, row])
    (bad,) = labels.bad_rows
    assert problem in bad.message
    assert bad.location == "labels row 1"


def test_a_row_that_is_not_an_object(write_jsonl: WriteRows) -> None:
    labels = read_labels(write_jsonl({"id": "a", "label": 1}, [1, 2], "x", None))
    assert [str(b).split(": ", 1)[1] for b in labels.bad_rows] == [
        "expected a JSON object, got an array",
        "expected a JSON object, got a string",
        "expected a JSON object, got null",
    ]
