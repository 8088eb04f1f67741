"""Paired comparison of two runs, and of two systems inside one run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.report.factory import rec
from veracity.report.compare import CompareError, compare_records, compare_runs, compare_systems
from veracity.types import ResultRecord, Status

DIFFS = [0.1, 0.2, 0.3, 0.4, 0.5, -0.1]


def pair_of_runs() -> tuple[list[ResultRecord], list[ResultRecord]]:
    run_a = [rec(0.5, sample_id=f"s{i}", reason=f"a{i}") for i in range(6)]
    run_b = [rec(0.5 + d, sample_id=f"s{i}", reason=f"b{i}") for i, d in enumerate(DIFFS)]
    run_a += [
        rec(0.9, sample_id="only-a"),
        rec(0.9, sample_id="err-b"),
        rec(None, sample_id="err-a", status=Status.JUDGE_ERROR),
        rec(None, sample_id="err-both", status=Status.JUDGE_ERROR),
    ]
    run_b += [
        rec(0.1, sample_id="only-b"),
        rec(None, sample_id="err-b", status=Status.JUDGE_ERROR),
        rec(0.4, sample_id="err-a"),
        rec(None, sample_id="err-both", status=Status.JUDGE_ERROR),
    ]
    return run_a, run_b


def test_paired_differences_ci_and_p_value_by_hand() -> None:
    (entry,) = compare_records(*pair_of_runs()).metrics
    stats = entry.stats
    assert stats.n == 6
    assert stats.mean_a == pytest.approx(0.5) and stats.mean_diff == pytest.approx(1.4 / 6)
    assert stats.test.method == "exact" and stats.test.p_value == pytest.approx(6 / 64)
    assert stats.ci95 is not None and stats.ci95[0] < 1.4 / 6 < stats.ci95[1]
    assert (entry.improved, entry.regressed_count, entry.unchanged) == (5, 1, 0)


def test_nothing_is_dropped_silently() -> None:
    (entry,) = compare_records(*pair_of_runs()).metrics
    assert (entry.n_a, entry.n_b) == (10, 10)
    assert (entry.unpaired_a, entry.unpaired_b) == (1, 1)
    assert (entry.unscored_in_a, entry.unscored_in_b, entry.unscored_in_both) == (1, 1, 1)
    as_dict = entry.as_dict()
    assert as_dict["unpaired"] == {"a": 1, "b": 1}
    assert as_dict["unscored"] == {"a": 1, "b": 1, "both": 1}
    # every result of A is paired-and-scored, unpaired or in an unscored pair
    assert as_dict["n_paired"] + 1 + 3 == entry.n_a


def test_the_regressed_items_are_the_largest_drops_with_their_reasons() -> None:
    run_a = [rec(0.9, sample_id=f"s{i}", reason=f"A says {i}") for i in range(20)]
    run_b = [rec(0.9 - i / 40, sample_id=f"s{i}", reason=f"B says {i}") for i in range(20)]
    comparison = compare_records(run_a, run_b, label_a="old", label_b="new")
    (entry,) = comparison.metrics
    assert (entry.regressed_count, entry.unchanged) == (19, 1) and len(entry.regressed) == 10
    worst = entry.regressed[0]
    assert worst.sample_id == "s19" and worst.diff == pytest.approx(-0.475)
    assert (worst.reason_a, worst.reason_b) == ("A says 19", "B says 19")
    assert [r.sample_id for r in entry.regressed][-1] == "s10"
    # 20 samples are more than 16: the p-value is sampled, and tiny for 19 drops of 19
    assert entry.stats.test.method == "monte_carlo"
    assert entry.stats.test.p_value is not None and entry.stats.test.p_value < 0.001
    as_dict = comparison.as_dict()
    assert as_dict["a"] == "old" and as_dict["pairing"] == ["sample_id", "metric", "iteration"]
    assert as_dict["metrics"]["faithfulness"]["regressed"][0]["diff"] == pytest.approx(-0.475)


def test_pairing_uses_the_system_when_a_run_needs_it() -> None:
    run_a = [rec(0.5, sample_id="q", system="x"), rec(0.5, sample_id="q", system="y")]
    run_b = [rec(0.9, sample_id="q", system="x"), rec(0.1, sample_id="q", system="y")]
    comparison = compare_records(run_a, run_b)
    assert comparison.pairing == ("sample_id", "system", "metric", "iteration")
    (entry,) = comparison.metrics
    assert entry.stats.n == 2 and entry.stats.mean_diff == pytest.approx(0.0)
    # one system per run: the systems may differ, samples pair by id
    single = compare_records([rec(0.5, sample_id="q", system="v1")],
                             [rec(0.7, sample_id="q", system="v2")])  # fmt: skip
    assert single.metrics[0].stats.n == 1 and single.metrics[0].unpaired_a == 0


def test_iterations_pair_by_index_and_count_their_sample_once() -> None:
    run_a = [rec(0.5, sample_id=f"s{i}", iteration=it) for i in range(3) for it in (0, 1)]
    run_b = [rec(0.6, sample_id=f"s{i}", iteration=it) for i in range(3) for it in (0, 1)]
    (entry,) = compare_records(run_a, run_b).metrics
    assert entry.stats.n == 6 and entry.stats.units == 3
    # three samples, all +0.1: exact p = 2 / 2**3
    assert entry.stats.test.p_value == pytest.approx(0.25)


def test_metrics_only_on_one_side_are_listed() -> None:
    comparison = compare_records([rec(0.5, metric="m1")], [rec(0.5, metric="m2")])
    by_name = {m.metric: m for m in comparison.metrics}
    assert by_name["m1"].unpaired_a == 1 and by_name["m1"].n_b == 0
    assert by_name["m2"].unpaired_b == 1 and by_name["m2"].stats.n == 0
    assert by_name["m2"].stats.mean_diff is None


def write_run(path: Path, records: list[ResultRecord]) -> Path:
    path.mkdir(parents=True)
    lines = [json.dumps(r.model_dump(mode="json")) for r in records]
    (path / "results.jsonl").write_text("\n".join(lines) + "\n")
    (path / "run.json").write_text(json.dumps({"metrics": ["faithfulness"], "status": "done"}))
    return path


def test_compare_runs_and_systems_from_run_directories(tmp_path: Path) -> None:
    run_a, run_b = pair_of_runs()
    comparison = compare_runs(write_run(tmp_path / "a", run_a), write_run(tmp_path / "b", run_b))
    assert comparison.metrics[0].stats.n == 6
    both = [r.model_copy(update={"system": "old"}) for r in run_a] + [
        r.model_copy(update={"system": "new"}) for r in run_b
    ]
    run = write_run(tmp_path / "both", both)
    by_system = compare_systems(run, "old", "new")
    assert (by_system.label_a, by_system.label_b) == ("old", "new")
    assert by_system.metrics[0].stats.test.p_value == pytest.approx(6 / 64)
    with pytest.raises(CompareError, match=r"system 'newer' is not in .* \(systems: new, old\)"):
        compare_systems(run, "old", "newer")
