"""Named scorings: the calibrations veracity ships, fitted once on its development sets'
fit halves, chosen by name wherever a calibration file is expected."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from tests.agreement import scenario
from veracity import evaluate
from veracity.agreement import CalibrationFileError, read_calibration
from veracity.agreement.calibration_file import CalibrationFile, JudgeIdentity, Scoring
from veracity.agreement.scorings import NAMES as SCORINGS
from veracity.config import RunConfig

OFFLINE = "offline-combined"


def rows() -> list[dict[str, object]]:
    context = "The grey tower is in Paris. It was built in 1889 by Gustave Eiffel."
    answers = ["The tower is in Paris.", "The tower is in Lyon and was built in 1920.", ""]
    return [
        {"id": f"s{i}", "question": "Where is the tower?", "contexts": [context], "answer": a}
        for i, a in enumerate(answers)
    ]


@pytest.mark.parametrize("name", SCORINGS)
def test_every_shipped_scoring_reads_strictly_and_names_itself(name: str) -> None:
    scoring = read_calibration(name)
    assert scoring.scoring is not None
    assert scoring.scoring.name == name
    assert set(scoring.metrics) == {"faithfulness"}
    fitted = scoring.metrics["faithfulness"]
    assert fitted.n >= 50 and 0 < fitted.n_positive < fitted.n
    # The judge's own score pushes the probability up, never down.
    assert fitted.model.kind == "isotonic" or fitted.model.coef[0] > 0


def test_a_scoring_for_the_other_kind_of_judge_is_refused() -> None:
    offline = read_calibration(OFFLINE)
    assert offline.scoring is not None
    for_llm = offline.model_copy(
        update={"scoring": offline.scoring.model_copy(update={"judges": "llm"})}
    )
    with pytest.raises(CalibrationFileError, match="is for LLM judges, not 'offline/"):
        evaluate(
            rows(), "faithfulness", "offline", config=RunConfig(calibration=for_llm), progress=False
        )
    # And the offline one on an LLM judge.
    with pytest.raises(CalibrationFileError, match="is for the offline judge, not 'scripted"):
        scenario.run(n=3, calibration=offline)


def test_a_scoring_of_the_same_kind_does_not_warn_about_the_judges_version() -> None:
    offline = read_calibration(OFFLINE)
    other_version = offline.model_copy(
        update={"judge": JudgeIdentity(name="offline/minilm-v0", fingerprints={"params": "x"})}
    )
    assert other_version.differences(JudgeIdentity(name="offline/minilm-v11")) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(
            rows()[:1],
            "faithfulness",
            "offline",
            config=RunConfig(calibration=other_version),
            progress=False,
        )


def test_a_file_of_the_same_name_wins_over_the_shipped_scoring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = read_calibration(OFFLINE).model_copy(update={"labels": "our labels", "scoring": None})
    monkeypatch.chdir(tmp_path)
    Path(OFFLINE).write_text(mine.model_dump_json())
    assert read_calibration(OFFLINE).labels == "our labels"


def test_an_unknown_name_is_a_message_listing_the_scorings() -> None:
    with pytest.raises(CalibrationFileError, match=f"named scoring: .*{OFFLINE}"):
        read_calibration("offline-combind")


def test_a_scoring_names_its_kind_of_judge_strictly() -> None:
    with pytest.raises(ValueError, match="judges"):
        Scoring.model_validate({"name": "x", "judges": "gpt", "fitted_on": "-"})
    text = read_calibration(OFFLINE).model_dump_json()
    damaged = json.loads(text)
    damaged["scoring"]["unexpected"] = 1
    with pytest.raises(ValueError, match="unexpected"):
        CalibrationFile.model_validate_json(json.dumps(damaged), strict=True)
