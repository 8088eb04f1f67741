"""A calibration applied to a run: a file that would compute no number is refused when it
is read, before any judge call; a result it cannot calibrate keeps its raw score and says
why; one fitted on another judge is refused unless forced, whether a user's file or a
shipped scoring; and a run directory re-run or resumed with another calibration has every
result given the calibration its run.json names."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.agreement import scenario
from tests.agreement.test_calibration_file_hostile import GOOD, MODEL, changed, write
from veracity import EvaluationResult
from veracity.agreement import (
    CalibrationFile,
    CalibrationFileError,
    CalibrationMismatchError,
    CalibrationWarning,
    read_calibration,
)
from veracity.agreement.calibration_file import (
    CALIBRATION_ERROR,
    IsotonicModel,
    JudgeIdentity,
    LogisticModel,
    with_calibration,
)
from veracity.types import ResultRecord, Status


@pytest.fixture(scope="module")
def result() -> EvaluationResult:
    return scenario.run()


@pytest.fixture(scope="module")
def fitted(result: EvaluationResult) -> CalibrationFile:
    return result.calibrate(scenario.labels()).calibration


def isotonic(calibration: CalibrationFile, low: float, high: float) -> CalibrationFile:
    """``calibration`` mapping a score s to low + (high − low)·s: values a test can tell."""
    entry = calibration.metrics["faithfulness"]
    model = IsotonicModel(x=(0.0, 1.0), y=(low, high))
    return calibration.model_copy(
        update={"metrics": {"faithfulness": entry.model_copy(update={"model": model})}}
    )


# --- a file that passes every check of its shape but computes no number ---------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("scale", [5e-324, 0.1]),  # (x − mean) / 5e-324 overflows
        ("coef", [1e308, -1e308]),  # two infinite terms of opposite signs: NaN
        ("mean", [-1e308, 0.7]),  # x − mean, scaled, overflows
    ],
)
def test_a_file_computing_no_finite_value_is_refused_when_read(
    tmp_path: Path, field: str, value: list[float]
) -> None:
    path = write(tmp_path, changed([*MODEL, field], value))
    with pytest.raises(CalibrationFileError) as caught:
        read_calibration(path)
    message = str(caught.value)
    assert str(path) in message
    assert "metrics.faithfulness.model" in message and "no finite value" in message


def test_large_but_sound_numbers_still_read(tmp_path: Path) -> None:
    """Only what overflows is refused: a steep model is a model."""
    path = write(tmp_path, changed([*MODEL, "coef"], [1e6, -1e6]))
    loaded = read_calibration(path)
    assert loaded.metrics["faithfulness"].model.kind == "logistic"


def test_an_entry_fitted_on_another_metric_is_refused_naming_it(tmp_path: Path) -> None:
    """answer_relevance's entry reading faithfulness' signals: the KeyError of old."""
    data = json.loads(json.dumps(GOOD))
    data["metrics"]["answer_relevance"] = data["metrics"].pop("faithfulness")
    path = write(tmp_path, json.dumps(data))
    with pytest.raises(CalibrationFileError) as caught:
        read_calibration(path)
    message = str(caught.value)
    assert str(path) in message
    assert "'answer_relevance' is a calibration of 'faithfulness'" in message


def test_a_file_built_in_python_is_checked_as_a_file_is(fitted: CalibrationFile) -> None:
    entry = fitted.metrics["faithfulness"]
    bad = LogisticModel.model_construct(
        signals=("score", "answer_overlap"), mean=(0.5, 0.5), scale=(5e-324, 1.0),
        coef=(1.0, 1.0), intercept=0.0,
    )  # fmt: skip
    broken = fitted.model_copy(
        update={"metrics": {"faithfulness": entry.model_copy(update={"model": bad})}}
    )
    with pytest.raises(CalibrationFileError, match=r"given in Python.*no finite value"):
        scenario.run(n=3, calibration=broken)


def record(**details: Any) -> ResultRecord:
    return ResultRecord(
        metric="faithfulness", score=0.75, status=Status.SCORED, reason="r", details=details,
        sample_id="s", system=None, iteration=0,
    )  # fmt: skip


def test_a_result_beyond_the_checked_ranges_keeps_its_score_and_says_why() -> None:
    """Checked up to a thousand claims; an answer of two thousand overflows this model."""
    steep = LogisticModel(
        signals=("log_claims",), mean=(0.0,), scale=(1.0,), coef=(2.5e307,), intercept=0.0
    )
    assert math.log1p(1000) * 2.5e307 < 1.79e308 < math.log1p(2000) * 2.5e307
    calibration = read_calibration_good()
    entry = calibration.metrics["faithfulness"]
    calibration = calibration.model_copy(
        update={"metrics": {"faithfulness": entry.model_copy(update={"model": steep})}}
    )
    claims = [{"claim": f"c{i}", "verdict": "supported"} for i in range(2000)]
    many = record(claims=claims, local_signals={"answer_overlap": 0.5})
    applied = with_calibration(many, calibration)
    assert applied.score == 0.75 and applied.calibrated is None
    assert "no finite probability" in applied.details[CALIBRATION_ERROR]
    # A sound result is calibrated, and a note of an earlier failure goes.
    few = record(claims=claims[:3], local_signals={"answer_overlap": 0.5})
    few.details[CALIBRATION_ERROR] = applied.details[CALIBRATION_ERROR]
    healed = with_calibration(few, calibration)
    assert healed.calibrated is not None and CALIBRATION_ERROR not in healed.details


def read_calibration_good() -> CalibrationFile:
    return CalibrationFile.model_validate(GOOD)


# --- one rule for a calibration fitted on another judge -------------------------------


def test_only_the_prompts_of_the_calibrated_metric_count(fitted: CalibrationFile) -> None:
    judge = fitted.judge
    prompts = dict(judge.fingerprints)
    assert "claim_verification" in prompts and "chunk_relevance" in prompts
    unrelated = JudgeIdentity(name=judge.name, fingerprints={**prompts, "chunk_relevance": "x"})
    assert fitted.differences(unrelated, ["faithfulness", "context_precision"]) == []
    related = JudgeIdentity(name=judge.name, fingerprints={**prompts, "claim_verification": "x"})
    (difference,) = fitted.differences(related, ["faithfulness"])
    assert "claim_verification" in difference and "chunk_relevance" not in difference
    # Another judge: named, both of them, and no list of prompts beside.
    other = JudgeIdentity(name="openai/gpt-4o-mini", fingerprints={"claim_verification": "y"})
    assert fitted.differences(other) == [
        f"fitted on judge {judge.name!r}; this run's judge is 'openai/gpt-4o-mini'"
    ]


def test_changed_prompts_of_the_metric_are_refused_unless_forced(
    fitted: CalibrationFile,
) -> None:
    prompts = {**fitted.judge.fingerprints, "claim_extraction": "an older prompt"}
    older = fitted.model_copy(
        update={"judge": JudgeIdentity(name=fitted.judge.name, fingerprints=prompts)}
    )
    with pytest.raises(CalibrationMismatchError, match=r"other prompts.*claim_extraction"):
        scenario.run(n=3, calibration=older)
    with pytest.warns(CalibrationWarning, match="forced"):
        scenario.run(n=3, calibration=older, force_calibration=True)


def test_a_shipped_scoring_for_the_other_kind_of_judge_is_applied_when_forced() -> None:
    offline = read_calibration("offline-combined")
    with pytest.raises(CalibrationMismatchError, match="force_calibration=True"):
        scenario.run(n=3, calibration=offline)
    with pytest.warns(CalibrationWarning, match="is for the offline judge"):
        forced = scenario.run(n=3, calibration=offline, force_calibration=True)
    assert all(r.calibrated is not None for r in forced.results)


# --- a run directory has one calibration: the one its run.json names ------------------


def stored(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def attempts(run_dir: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads((run_dir / "run.json").read_text())["attempts"]
    return found


def test_a_rerun_with_another_calibration_recalibrates_every_stored_result(
    fitted: CalibrationFile, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(isotonic(fitted, 0.1, 0.2).model_dump_json())
    second.write_text(isotonic(fitted, 0.6, 0.7).model_dump_json())
    scenario.run(run_dir, n=6, calibration=first)
    assert {round(r["calibrated"] - 0.1 * r["score"], 9) for r in stored(run_dir)} == {0.1}

    again = scenario.run(run_dir, n=6, calibration=second)
    # Every result, the stored file and the result object alike: the second calibration.
    assert {round(r["calibrated"] - 0.1 * r["score"], 9) for r in stored(run_dir)} == {0.6}
    assert all(r.calibrated is not None and r.calibrated >= 0.6 for r in again.results)
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["settings"]["calibration"]["source"] == str(second)
    last = attempts(run_dir)[-1]
    assert last["calibration"] == str(second) and last["results_recalibrated"] == 6
    assert attempts(run_dir)[0]["calibration"] == str(first)
    summary = json.loads((run_dir / "summary.json").read_text())
    overall = summary["metrics"]["faithfulness"]["overall"]["calibrated"]
    assert overall["mean"] >= 0.6

    # The same calibration again: every result has it already, none is rewritten.
    scenario.run(run_dir, n=6, calibration=second)
    assert attempts(run_dir)[-1]["results_recalibrated"] == 0
    assert {round(r["calibrated"] - 0.1 * r["score"], 9) for r in stored(run_dir)} == {0.6}

    # Without a calibration, none: run.json names none, and no result keeps one.
    scenario.run(run_dir, n=6)
    assert all(r["calibrated"] is None for r in stored(run_dir))
    assert attempts(run_dir)[-1]["results_recalibrated"] == 6
    assert attempts(run_dir)[-1]["calibration"] is None


def test_a_resumed_run_never_mixes_two_calibrations(
    fitted: CalibrationFile, tmp_path: Path
) -> None:
    """Half the samples done under one calibration, the rest under another."""
    run_dir = tmp_path / "run"
    scenario.run(run_dir, n=3, calibration=isotonic(fitted, 0.1, 0.2))
    scenario.run(run_dir, n=6, calibration=isotonic(fitted, 0.6, 0.7))
    values = [r["calibrated"] - 0.1 * r["score"] for r in stored(run_dir)]
    assert len(values) == 6 and all(v == pytest.approx(0.6) for v in values)
    last = attempts(run_dir)[-1]
    assert last["results_resumed"] == 3 and last["results_recalibrated"] == 3


def test_a_stored_result_that_cannot_be_calibrated_is_kept_with_its_score(
    fitted: CalibrationFile, tmp_path: Path
) -> None:
    """A result from a version before local signals (no sample at hand to compute them):
    its raw score stays, without a probability, with the reason; the others are
    calibrated, and the run's files stay valid JSON."""
    run_dir = tmp_path / "run"
    scenario.run(run_dir, n=3)
    with sqlite3.connect(run_dir / "veracity.sqlite3") as db:
        db.execute(
            "UPDATE results SET record = json_remove(record, '$.details.local_signals') "
            "WHERE sample_id = 's1'"
        )
    db.close()
    with pytest.warns(CalibrationWarning, match="'s1'.*raw score"):
        again = scenario.run(run_dir, n=3, calibration=fitted)
    by_id = {r["sample_id"]: r for r in stored(run_dir)}
    assert by_id["s1"]["score"] is not None and by_id["s1"]["calibrated"] is None
    assert "local signals" in by_id["s1"]["details"][CALIBRATION_ERROR]
    assert by_id["s0"]["calibrated"] is not None and by_id["s2"]["calibrated"] is not None
    assert len(again.results) == 3


# --- what a calibration says of itself ---------------------------------------------------


def test_print_shows_a_summary_and_repr_stays_compact(fitted: CalibrationFile) -> None:
    text = str(fitted)
    entry = fitted.metrics["faithfulness"]
    assert text.splitlines()[0].startswith("calibration of faithfulness (veracity ")
    assert f"  judge: {fitted.judge.name}" in text
    assert f"faithfulness: {entry.n} labelled item(s) ({entry.n_positive} good)" in text
    assert f"AUROC  raw {entry.cv.auroc_raw:.3f} → calibrated" in text
    assert entry.verdict in text
    assert "LogisticModel(" not in text and "coef=" not in text
    assert repr(fitted) == (
        f"CalibrationFile(metrics=['faithfulness'], judge={fitted.judge.name!r}, "
        f"labels={fitted.labels!r}, created_at={fitted.created_at!r})"
    )


def test_a_signal_that_is_not_a_number_gives_no_probability() -> None:
    """An isotonic map interpolates NaN to NaN: never written as a probability."""
    calibration = read_calibration_good()
    entry = calibration.metrics["faithfulness"]
    calibration = calibration.model_copy(
        update={"metrics": {"faithfulness": entry.model_copy(update={"model": IsotonicModel(
            signals=("score",), x=(0.0, 1.0), y=(0.2, 0.8))})}}
    )  # fmt: skip
    odd = record(claims=[], local_signals={"answer_overlap": 0.5}).model_copy(
        update={"score": float("nan")}  # model_copy checks nothing: as a plug-in might
    )
    applied = with_calibration(odd, calibration)
    assert applied.calibrated is None and "no probability" in applied.details[CALIBRATION_ERROR]


def test_print_of_what_calibrate_found_is_the_summary_and_why_not(
    result: EvaluationResult,
) -> None:
    from veracity.agreement import calibrate_run

    found = calibrate_run(result, [{"id": f"s{i}", "faithfulness": True} for i in range(30)])
    text = str(found)
    assert text.startswith("calibration of no metric")
    assert "faithfulness: not calibrated:" in text
    assert (
        str(result.calibrate(scenario.labels()))
        .splitlines()[0]
        .startswith("calibration of faithfulness")
    )
