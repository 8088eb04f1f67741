"""The public API of veracity.labels, scales and ``--scale`` specs."""

from __future__ import annotations

import pytest

import veracity.labels
from veracity.labels import LabelKind, Scale, parse_scales
from veracity.labels.names import is_known_target
from veracity.metrics.registry import METRICS


def test_all_is_the_public_api() -> None:
    assert sorted(veracity.labels.__all__) == [
        "InterAnnotator",
        "ItemLabel",
        "LabelError",
        "LabelKind",
        "LabelRow",
        "LabelSet",
        "Scale",
        "labels_from_samples",
        "parse_scales",
        "read_labels",
    ]
    for name in veracity.labels.__all__:
        assert getattr(veracity.labels, name) is not None


def test_every_metric_and_correctness_are_known_targets() -> None:
    for target in (*METRICS, "correctness", "rubric:clarity"):
        assert is_known_target(target, {})
    assert not is_known_target("helpfulness", {}) and is_known_target(
        "helpfulness", {"helpfulness"}
    )


def test_binary_and_probability_scales() -> None:
    binary = Scale(LabelKind.BINARY)
    assert binary.positive(1.0) and not binary.positive(0.0)
    assert binary.unit(1.0) == 1.0
    assert binary.describe() == "binary"
    probability = Scale(LabelKind.PROBABILITY)
    assert probability.positive(0.5) and not probability.positive(0.49)
    assert probability.describe() == "0–1"


def test_grade_scale() -> None:
    grade = Scale(LabelKind.GRADE, 1, 4)
    assert [grade.positive(v) for v in (1, 2, 2.5, 3, 4)] == [False, False, True, True, True]
    assert grade.unit(1) == 0.0
    assert grade.unit(4) == 1.0
    assert grade.unit(2.5) == 0.5
    assert grade.describe() == "grade 1–4"
    assert Scale(LabelKind.GRADE, 0.5, 2.5).describe() == "grade 0.5–2.5"


@pytest.mark.parametrize(
    ("kind", "low", "high"),
    [
        (LabelKind.GRADE, 4, 1),
        (LabelKind.GRADE, 1, 1),
        (LabelKind.GRADE, 0, float("inf")),
        (LabelKind.BINARY, 1, 4),
        (LabelKind.PROBABILITY, 0, 100),
    ],
)
def test_bad_scales_are_refused(kind: LabelKind, low: float, high: float) -> None:
    with pytest.raises(ValueError, match="scale"):
        Scale(kind, low, high)


def test_parse_scales() -> None:
    scales = parse_scales(
        ["faithfulness=1:4", "answer_relevance=binary", "x=0:1", "rubric:clarity=0.5:2.5"]
    )
    assert scales == {
        "faithfulness": Scale(LabelKind.GRADE, 1, 4),
        "answer_relevance": Scale(LabelKind.BINARY),
        "x": Scale(LabelKind.PROBABILITY),
        "rubric:clarity": Scale(LabelKind.GRADE, 0.5, 2.5),
    }


def test_parse_scales_resolves_aliases() -> None:
    assert parse_scales(["Faithful = 1:5"]) == {"faithfulness": Scale(LabelKind.GRADE, 1, 5)}
    assert parse_scales(["correct=probability"]) == {"correctness": Scale(LabelKind.PROBABILITY)}


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("faithfulness", "expected NAME=LOW:HIGH"),
        ("faithfulness=", "expected NAME=LOW:HIGH"),
        ("=1:4", "expected NAME=LOW:HIGH"),
        ("faithfulness=1-4", "expected NAME=LOW:HIGH"),
        ("faithfulness=4:1", "low end must be below"),
        ("faithfulness=1:1", "low end must be below"),
        ("faithfulness=a:4", "'a' is not a number"),
        ("faithfulness=1:nan", "not a finite number"),
        ("two words=1:4", "not a metric name"),
        ("faithfulness=ternary", "expected NAME=LOW:HIGH"),
        ("faithfulness=1:4.5", "whole number of grades apart"),
        ("faithfulness=0:5000", "at most 1,001 grades"),
    ],
)
def test_parse_scales_names_the_bad_spec(spec: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem) as caught:
        parse_scales([spec])
    assert repr(spec) in str(caught.value)


def test_parse_scales_refuses_a_target_twice() -> None:
    with pytest.raises(ValueError, match="'faithfulness' already has a scale"):
        parse_scales(["faithfulness=1:4", "faithful=binary"])


def test_a_kind_may_be_given_by_name() -> None:
    assert Scale("grade", 1, 4) == Scale(LabelKind.GRADE, 1, 4)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be one of binary, probability, grade"):
        Scale("ordinal", 1, 4)  # type: ignore[arg-type]
