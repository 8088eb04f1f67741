"""Several annotators: votes combined per item, duplicates and groups checked, and the
inter-annotator agreement checked against sklearn."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from itertools import combinations

import pytest
from sklearn.metrics import cohen_kappa_score

from tests.labels.conftest import WriteRows
from veracity.labels import ItemLabel, LabelRow, parse_scales, read_labels
from veracity.labels.agreement import cohen_kappa

Votes = dict[str, dict[str, object]]


def rows(target: str, votes: Mapping[str, Mapping[str, object]]) -> list[dict[str, object]]:
    """{sample: {annotator: value}} as one row per vote."""
    return [
        {"id": sample, "annotator": annotator, target: value}
        for sample, by_annotator in votes.items()
        for annotator, value in by_annotator.items()
    ]


def test_binary_majority_and_tie() -> None:
    labels = read_labels(
        rows(
            "faithfulness",
            {"a": {"x": 1, "y": 1, "z": 0}, "b": {"x": 0, "y": 1}, "c": {"x": "no"}},
        )
    )
    assert labels.items == (
        ItemLabel("a", None, "faithfulness", 1.0, True, (("x", 1.0), ("y", 1.0), ("z", 0.0)), None),
        ItemLabel("b", None, "faithfulness", 0.5, None, (("x", 0.0), ("y", 1.0)), None),
        ItemLabel("c", None, "faithfulness", 0.0, False, (("x", 0.0),), None),
    )


def test_grade_median_and_probability_mean() -> None:
    grades = read_labels(
        rows("faithfulness", {"a": {"x": 1, "y": 4, "z": 3}, "b": {"x": 2, "y": 3}}),
        scales=parse_scales(["faithfulness=1:4"]),
    )
    assert [(i.value, i.positive) for i in grades.items] == [(3.0, True), (2.5, True)]
    probabilities = read_labels(rows("faithfulness", {"a": {"x": 0.2, "y": 0.5}}))
    assert [(i.value, i.positive) for i in probabilities.items] == [(0.35, False)]


def test_duplicate_label_names_the_first(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {"id": "a", "annotator": "x", "faithfulness": 1, "correctness": 1},
        {"id": "a", "annotator": "y", "faithfulness": 0},
        {"id": "a", "annotator": "x", "faithfulness": 0},
        {"id": "a", "system": "s", "annotator": "x", "faithfulness": 0},
        {"id": "b", "faithfulness": 1},
        {"id": "b", "label": 1},
    )
    labels = read_labels(path)
    assert [str(b) for b in labels.bad_rows] == [
        f"{path}:3: duplicate label: (id 'a', target faithfulness, annotator 'x') "
        f"first at {path}:1",
        f"{path}:6: duplicate label: (id 'b', target faithfulness) first at {path}:5",
    ]
    assert len(labels.items) == 4
    assert labels.rows == 6
    assert labels.rows == len(labels.bad_rows) + labels.unlabelled + 4


def test_groups_keep_the_first_and_a_conflict_is_a_bad_row(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {"id": "a", "annotator": "x", "group": "conv1", "faithfulness": 1},
        {"id": "a", "annotator": "y", "faithfulness": 1},
        {"id": "a", "annotator": "z", "group": "conv2", "faithfulness": 0},
        {"id": "b", "annotator": "x", "faithfulness": 0},
        {"id": "b", "annotator": "y", "group": 7, "faithfulness": 0},
    )
    labels = read_labels(path)
    assert [(i.sample_id, i.group, len(i.votes)) for i in labels.items] == [
        ("a", "conv1", 2),
        ("b", "7", 2),
    ]
    (bad,) = labels.bad_rows
    assert str(bad) == (
        f"{path}:3: group 'conv2' differs from group 'conv1' given for id 'a' at {path}:1"
    )


def _random_votes(seed: int, annotators: int, items: int, choices: list[int]) -> Votes:
    rng = random.Random(seed)
    votes: Votes = {}
    for item in range(items):
        chosen = rng.sample(range(annotators), rng.randint(1, annotators))
        truth = rng.choice(choices)
        votes[f"s{item}"] = {
            f"a{a}": truth if rng.random() < 0.7 else rng.choice(choices) for a in chosen
        }
    return votes


def _expected(votes: Votes, weights: str | None) -> tuple[float, int]:
    """Mean pairwise kappa computed with sklearn, independently of the library."""
    annotators = sorted({a for by in votes.values() for a in by})
    kappas = []
    for first, second in combinations(annotators, 2):
        shared = [by for by in votes.values() if first in by and second in by]
        if len(shared) < 2:
            continue
        a = [by[first] for by in shared]
        b = [by[second] for by in shared]
        if len(set(a) | set(b)) < 2:
            continue  # undefined: both gave one same label throughout
        kappa = cohen_kappa_score(a, b, weights=weights)
        if not math.isnan(kappa):
            kappas.append(kappa)
    return sum(kappas) / len(kappas), len(kappas)


@pytest.mark.parametrize("seed", range(5))
def test_binary_kappa_matches_sklearn(seed: int) -> None:
    votes = _random_votes(seed, annotators=4, items=40, choices=[0, 1])
    labels = read_labels(rows("faithfulness", votes))
    agreement = labels.inter_annotator["faithfulness"]
    kappa, pairs = _expected(votes, None)
    assert agreement.kappa == pytest.approx(kappa, abs=1e-12)
    assert agreement.pairs == pairs
    assert agreement.annotators == 4
    assert agreement.items == sum(1 for by in votes.values() if len(by) >= 2)


@pytest.mark.parametrize("seed", range(5))
def test_grade_kappa_matches_sklearn_quadratic(seed: int) -> None:
    votes = _random_votes(seed, annotators=3, items=50, choices=[1, 2, 3, 5])
    labels = read_labels(rows("rubric:clarity", votes), scales=parse_scales(["rubric:clarity=1:5"]))
    kappa, pairs = _expected(votes, "quadratic")
    agreement = labels.inter_annotator["rubric:clarity"]
    assert agreement.kappa == pytest.approx(kappa, abs=1e-12)
    assert agreement.pairs == pairs


def test_raw_agreement_counts_pairs_on_items() -> None:
    votes = {"a": {"x": 1, "y": 1, "z": 0}, "b": {"x": 0, "y": 0}, "c": {"x": 1}}
    agreement = read_labels(rows("faithfulness", votes)).inter_annotator["faithfulness"]
    # a: 3 pairs, 1 agrees; b: 1 pair, agrees.
    assert agreement.raw_agreement == pytest.approx(2 / 4)
    assert agreement.items == 2
    assert agreement.annotators == 3


def test_no_overlap_and_one_annotator() -> None:
    apart = read_labels(rows("faithfulness", {"a": {"x": 1}, "b": {"y": 0}}))
    agreement = apart.inter_annotator["faithfulness"]
    assert (agreement.items, agreement.raw_agreement, agreement.kappa, agreement.pairs) == (
        0,
        None,
        None,
        0,
    )
    alone = read_labels(rows("faithfulness", {"a": {"x": 1}, "b": {"x": 0}}))
    assert alone.inter_annotator == {}


def test_undefined_kappa_is_left_out() -> None:
    # x and y agree on everything with one label: kappa is 0/0, not a number.
    votes = {"a": {"x": 1, "y": 1}, "b": {"x": 1, "y": 1}}
    agreement = read_labels(rows("faithfulness", votes)).inter_annotator["faithfulness"]
    assert (agreement.raw_agreement, agreement.kappa, agreement.pairs) == (1.0, None, 0)


@pytest.mark.parametrize("seed", range(20))
def test_cohen_kappa_matches_sklearn(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 30)
    labels = rng.sample([0.0, 0.5, 1.0, 2.0, 3.5, 7.0], rng.randint(2, 4))
    a = [rng.choice(labels) for _ in range(n)]
    b = [rng.choice(labels) for _ in range(n)]
    for quadratic in (False, True):
        ours = cohen_kappa(a, b, quadratic=quadratic)
        # sklearn takes no fractional labels; as strings they sort in the same order here.
        theirs = cohen_kappa_score(
            [str(x) for x in a], [str(x) for x in b], weights="quadratic" if quadratic else None
        )
        if math.isnan(theirs):
            assert ours is None
        else:
            assert ours == pytest.approx(theirs, abs=1e-12)


def test_every_vote_is_kept_located(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {"id": "a", "annotator": "x", "faithfulness": 1, "group": "g"},
        {"id": "a", "annotator": "y", "faithfulness": 0},
    )
    labels = read_labels(path)
    assert labels.labels == (
        LabelRow("a", None, "faithfulness", 1.0, "x", "g", f"{path}:1"),
        LabelRow("a", None, "faithfulness", 0.0, "y", None, f"{path}:2"),
    )
