"""Agreement and calibration from a real run through the Python API: the figures, the
disagreements, pairing labels with results, two runs paired, calibration that helps and
one that cannot, and ``calibration=`` on a new run."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

from tests.agreement import scenario
from veracity import EvaluationResult
from veracity.agreement import (
    AgreementError,
    CalibrationFile,
    CalibrationMismatchError,
    CalibrationWarning,
    agree,
    calibrate_run,
    read_calibration,
)
from veracity.agreement.calibration_file import JudgeIdentity
from veracity.types import ResultRecord, Status


@pytest.fixture(scope="module")
def result() -> EvaluationResult:
    return scenario.run()


def test_the_figures_are_scikit_learns_on_the_paired_items(
    result: EvaluationResult,
) -> None:
    report = result.agreement(scenario.labels(), resamples=200)
    (metric,) = report.metrics[0]
    figures = metric.overall.figures
    by_id: dict[str, float] = {}
    for r in result.results:
        assert r.score is not None
        by_id[r.sample_id] = r.score
    y = [scenario.kind_of(i) == "right" for i in range(30)]
    scores = [by_id[f"s{i}"] for i in range(30)]
    assert figures.n == 30 and figures.n_positive == 10
    assert figures.auroc.value == pytest.approx(roc_auc_score(y, scores)) == pytest.approx(0.75)
    assert figures.balanced_accuracy.value == pytest.approx(
        balanced_accuracy_score(y, [s >= 0.5 for s in scores])
    )
    assert figures.auroc.ci95 is not None
    assert figures.confusion == {"tp": 10, "fp": 10, "tn": 10, "fn": 0}


def test_the_worst_disagreements_are_the_swapped_answers_with_their_claims(
    result: EvaluationResult,
) -> None:
    report = result.agreement(scenario.labels(), resamples=200, top=3)
    overall = report.metrics[0][0].overall
    assert overall.missed == ()  # every answer people call faithful scored 1
    assert len(overall.false_alarms) == 3
    first = overall.false_alarms[0]
    assert first.answer == scenario.ANSWERS["swapped"]
    assert first.claims[0]["verdict"] == "supported"
    assert first.label == 0.0
    as_json = json.dumps(report.as_dict())
    assert "false_alarms" in as_json and "NaN" not in as_json


def test_labels_without_a_result_and_unscored_results_are_counted(
    result: EvaluationResult,
) -> None:
    labels = [*scenario.labels(), {"id": "nowhere", "faithfulness": True}]
    records = list(result.results)
    broken = records[0].model_copy(
        update={"score": None, "status": Status.JUDGE_ERROR, "reason": "judge failed"}
    )
    from veracity.agreement.report import agreement_report
    from veracity.labels import read_labels

    report = agreement_report(
        [("run", [broken, *records[1:]], {})], read_labels(labels), resamples=200
    )
    metric = report.metrics[0][0]
    assert metric.without_result == 1
    assert metric.unscored == {"judge_error": 1}
    assert metric.overall.figures.n == 29


def test_a_label_without_a_system_is_ambiguous_where_several_systems_answered() -> None:
    from veracity.agreement.join import join
    from veracity.labels import read_labels

    def record(system: str) -> ResultRecord:
        return ResultRecord(
            metric="faithfulness", score=1.0, status=Status.SCORED, reason="r",
            sample_id="q", system=system, iteration=0,
        )  # fmt: skip

    labels = read_labels([{"id": "q", "faithfulness": True}])
    (joined,) = join([record("a"), record("b")], labels)
    assert (joined.ambiguous, joined.pairs) == (1, [])
    (one,) = join([record("a")], labels)
    assert len(one.pairs) == 1 and one.pairs[0].system == "a"


def test_labels_naming_no_sample_or_system_of_the_run_say_so(result: EvaluationResult) -> None:
    from veracity.agreement.join import NoSharedItems, join
    from veracity.labels import read_labels

    other_ids = [{"id": f"q{i}", "faithfulness": i % 2} for i in range(5)]
    with pytest.raises(AgreementError, match=r"none of the 5 labelled sample id\(s\)"):
        result.agreement(other_ids, resamples=200)
    with pytest.raises(AgreementError, match=r"labels: 'q0', 'q1', 'q2', … \(5 in all\)"):
        calibrate_run(result, other_ids)
    other_systems = read_labels([{"id": "s1", "system": "rag-b", "faithfulness": 1}])
    with pytest.raises(NoSharedItems, match="run's samples name no system"):
        join(result.results, other_systems)
    # Some ids of the run among others: the others are counted, not an error.
    some = read_labels([*other_ids, *scenario.labels(6)])
    (joined,) = join(result.results, some)
    assert (len(joined.pairs), joined.without_result) == (6, 5)


def test_two_runs_on_the_same_labels_are_paired(result: EvaluationResult, tmp_path: Path) -> None:
    fewer = scenario.run(n=24)
    report = result.agreement(scenario.labels(), other=fewer, resamples=200)
    (paired,) = report.paired
    assert paired.n == 24
    auroc = paired.figures["auroc"]
    assert auroc.diff == pytest.approx(0.0)
    assert auroc.ci95 == pytest.approx((0.0, 0.0))


def test_a_calibration_on_few_labels_says_they_are_few(result: EvaluationResult) -> None:
    enough = result.calibrate(scenario.labels()).calibration.metrics["faithfulness"]
    few = scenario.run(n=12).calibrate(scenario.labels()).calibration.metrics["faithfulness"]
    assert enough.helps and few.helps  # the fit finds the missing name either way
    assert "labelled items" not in enough.verdict
    assert few.verdict.endswith(
        "; only 12 labelled items, and below 30 a fit is unreliable: "
        "label more before relying on it"
    )


def test_calibration_learns_the_missing_name_and_a_new_run_gets_probabilities(
    result: EvaluationResult, tmp_path: Path
) -> None:
    fitted = result.calibrate(scenario.labels())
    entry = fitted.calibration.metrics["faithfulness"]
    assert entry.model.kind == "logistic"
    assert entry.helps
    assert entry.cv.auroc_raw == pytest.approx(0.75)
    assert entry.cv.auroc_calibrated is not None and entry.cv.auroc_calibrated > 0.95
    path = tmp_path / "calibration.json"
    path.write_text(fitted.calibration.model_dump_json())
    again = scenario.run(tmp_path / "run", calibration=path)
    calibrated: dict[str, float] = {}
    for r in again.results:
        assert r.calibrated is not None
        calibrated[r.sample_id] = r.calibrated
    assert all(calibrated[f"s{i}"] > 0.5 for i in range(0, 30, 3))  # right
    assert all(calibrated[f"s{i}"] < 0.5 for i in range(2, 30, 3))  # swapped
    overall = again.summary["metrics"]["faithfulness"]["overall"]
    assert overall["calibrated"]["n"] == 30
    assert overall["calibrated"]["pass_rate"] == pytest.approx(1 / 3)
    assert again.manifest["settings"]["calibration"]["metrics"] == ["faithfulness"]
    # The raw score is untouched.
    assert {r.score for r in again.results} == {r.score for r in result.results}


def test_a_calibration_fitted_on_another_judge_is_refused_unless_forced(
    result: EvaluationResult,
) -> None:
    fitted = result.calibrate(scenario.labels()).calibration
    other = fitted.model_copy(update={"judge": JudgeIdentity(name="openai/gpt-4o-mini")})
    with pytest.raises(CalibrationMismatchError, match="fitted on judge 'openai/gpt-4o-mini'"):
        scenario.run(n=3, calibration=other)
    with pytest.warns(CalibrationWarning, match="forced"):
        forced = scenario.run(n=3, calibration=other, force_calibration=True)
    assert all(r.calibrated is not None for r in forced.results)


def test_one_class_of_labels_cannot_be_calibrated(result: EvaluationResult) -> None:
    fitted = calibrate_run(result, [{"id": f"s{i}", "faithfulness": True} for i in range(30)])
    assert fitted.calibration.metrics == {}
    assert "at least 2 of each label" in fitted.not_fitted["faithfulness"]


def test_labels_no_metric_measures_are_refused(result: EvaluationResult) -> None:
    with pytest.raises(AgreementError, match="no metric of the run has labels"):
        calibrate_run(result, [{"id": "s1", "answer_relevance": True}])
    report = agree([result], [{"id": "s1", "answer_relevance": True}], resamples=200)
    assert report.metrics == ((),)
    assert report.targets_without_metric == ("answer_relevance",)


def test_labels_kept_in_the_samples_are_used_when_none_are_given() -> None:
    data = [row | {"human_faithfulness": scenario.kind_of(i) == "right"}
            for i, row in enumerate(scenario.rows())]  # fmt: skip
    from veracity import LLMJudge, ScriptedChat, evaluate

    judged = evaluate(
        data, "faithfulness", LLMJudge(ScriptedChat(responder=scenario.respond)), progress=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = judged.agreement(resamples=200)
    assert report.metrics[0][0].overall.figures.n == 30
    frame = report.to_pandas()
    assert list(frame["auroc"]) == [pytest.approx(0.75)]


def test_the_written_calibration_reads_back_equal(result: EvaluationResult, tmp_path: Path) -> None:
    fitted = result.calibrate(scenario.labels()).calibration
    path = tmp_path / "c.json"
    path.write_text(fitted.model_dump_json())
    assert read_calibration(path) == fitted
    assert isinstance(fitted, CalibrationFile)


def test_the_public_names_resolve_and_import_veracity_stays_light() -> None:
    import subprocess
    import sys

    from veracity import agreement

    assert sorted(agreement.__all__) == agreement.__all__
    for name in agreement.__all__:
        assert getattr(agreement, name) is not None
    code = (
        "import sys, veracity, veracity.agreement; "
        "print('sklearn' in sys.modules, 'scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_the_pytest_helpers_gate_on_the_calibrated_probability(
    result: EvaluationResult, tmp_path: Path
) -> None:
    from veracity.pytest_plugin.assertions import RagAssertionError, assert_scores

    calibration = result.calibrate(scenario.labels()).helpful()
    again = scenario.run(n=6, calibration=calibration)
    assert_scores(again, min_mean=0.3, calibrated=True)
    # The raw score fails only the contradicted answers: the swapped city fools the judge.
    with pytest.raises(RagAssertionError, match="2 of 6 result"):
        assert_scores(again, min_score=0.5)
    with pytest.raises(RagAssertionError, match="4 of 6 result"):
        assert_scores(again, min_score=0.5, calibrated=True)
    with pytest.raises(RagAssertionError, match="no calibrated probability"):
        assert_scores(result, min_mean=0.3, calibrated=True)
