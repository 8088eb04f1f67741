"""The offline judge's default calibration: every offline faithfulness result carries a
`calibrated` probability from the scoring veracity ships, unless the run names another
calibration or `none`; other judges have none by default."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.agreement import scenario
from veracity import evaluate
from veracity.agreement import read_calibration
from veracity.agreement.scorings import DEFAULTS, NO_CALIBRATION
from veracity.cli import app
from veracity.config import RunConfig
from veracity.judges.offline import OfflineJudge, load_params
from veracity.report.keys import OVERALL

OFFLINE = DEFAULTS["offline"]
CONTEXT = "The grey tower is in Paris. It was built in 1889 by Gustave Eiffel."


def rows() -> list[dict[str, object]]:
    answers = ["The tower is in Paris.", "The tower is in Lyon and was built in 1920.", ""]
    return [
        {"id": f"s{i}", "question": "Where is the tower?", "contexts": [CONTEXT], "answer": a}
        for i, a in enumerate(answers)
    ]


def settings_of(run: Path) -> dict[str, object]:
    found: dict[str, object] = json.loads((run / "run.json").read_text())["settings"]
    return found


def test_the_shipped_scoring_was_fitted_on_todays_offline_judge() -> None:
    """A change to the offline judge's parameters or name must come with the scoring
    refitted (benchmarks/agreement.py --write-scorings), or the default would silently
    stop applying."""
    shipped = read_calibration(OFFLINE).judge
    judge = OfflineJudge()
    assert shipped.name == judge.name
    assert shipped.fingerprints == {"params": judge.params.fingerprint}


def test_an_offline_run_is_calibrated_by_default(tmp_path: Path) -> None:
    result = evaluate(rows(), "faithfulness", "offline", out=tmp_path / "run", progress=False)
    by_id = {r.sample_id: r for r in result.results}
    assert all(r.calibrated is not None and 0 <= r.calibrated <= 1 for r in by_id.values())
    assert by_id["s0"].calibrated is not None and by_id["s1"].calibrated is not None
    assert by_id["s0"].calibrated > by_id["s1"].calibrated
    # Vacuously faithful (1.0 raw), rarely what people call faithful.
    assert by_id["s2"].score == 1.0
    assert by_id["s2"].calibrated is not None and by_id["s2"].calibrated < 0.5
    calibration = settings_of(tmp_path / "run")["calibration"]
    assert isinstance(calibration, dict)
    assert calibration["scoring"] == OFFLINE
    assert "default" in str(calibration["source"])
    assert "calibrated" in result.summary["metrics"]["faithfulness"][OVERALL]


def test_an_abstention_is_likely_faithful_and_chit_chat_is_not() -> None:
    """Saying nothing unsupported is faithful (an abstention scores 1.0 raw); the default
    calibration agrees for an abstention, not for a greeting or a question asked back,
    which also make no claim."""
    answers = {
        "abstains": "I'm sorry, I don't have information about who painted the tower.",
        "says_none": "Unknown.",
        "greets": "Thanks!",
        "asks_back": "Do you like towers?",
    }
    samples = [{"id": k, "question": "Who painted the tower?", "contexts": [CONTEXT],
                "answer": a} for k, a in answers.items()]  # fmt: skip
    result = evaluate(samples, "faithfulness", "offline", progress=False)
    calibrated = {r.sample_id: r.calibrated for r in result.results}
    assert all(r.score == 1.0 for r in result.results)
    for kind in ("abstains", "says_none"):
        assert (calibrated[kind] or 0.0) > 0.5, calibrated
    for kind in ("greets", "asks_back"):
        assert (calibrated[kind] or 1.0) < 0.5, calibrated


def test_none_turns_the_default_off_and_a_teams_file_replaces_it(tmp_path: Path) -> None:
    off = evaluate(
        rows(),
        "faithfulness",
        "offline",
        config=RunConfig(calibration=NO_CALIBRATION),
        progress=False,
    )
    assert all(r.calibrated is None for r in off.results)
    assert "calibrated" not in off.summary["metrics"]["faithfulness"][OVERALL]

    shipped = read_calibration(OFFLINE)
    fitted = shipped.metrics["faithfulness"]
    assert fitted.model.kind == "logistic"
    # A team's own file (here: the shipped one with its intercept moved) is used instead.
    own = shipped.model_copy(
        update={
            "scoring": None,
            "metrics": {
                "faithfulness": fitted.model_copy(
                    update={"model": fitted.model.model_copy(update={"intercept": -50.0})}
                )
            },
        }
    )
    path = tmp_path / "ours.json"
    path.write_text(own.model_dump_json())
    ours = evaluate(
        rows(), "faithfulness", "offline", config=RunConfig(calibration=path), progress=False
    )
    assert all(r.calibrated is not None and r.calibrated < 0.01 for r in ours.results)


def test_another_offline_judge_gets_no_default_and_run_json_says_why(tmp_path: Path) -> None:
    params = load_params()
    other = dataclasses.replace(params, t_support=params.t_support + 0.05, fingerprint="other")
    result = evaluate(rows(), "faithfulness", OfflineJudge(params=other), out=tmp_path / "run",
                      progress=False)  # fmt: skip
    assert all(r.calibrated is None for r in result.results)
    calibration = settings_of(tmp_path / "run")["calibration"]
    assert isinstance(calibration, dict)
    assert calibration["source"] is None
    assert "veracity calibrate" in str(calibration["note"])


def test_a_run_without_faithfulness_or_with_an_llm_judge_has_no_default() -> None:
    relevance = evaluate(rows(), "context_precision", "offline", progress=False)
    assert all(r.calibrated is None for r in relevance.results)
    llm = scenario.run(n=4)
    assert all(r.calibrated is None for r in llm.results)


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows()))
    return path


def test_the_cli_gates_on_the_default_calibrated_probability(dataset: Path, tmp_path: Path) -> None:
    common = ["run", str(dataset), "--metrics", "faithfulness", "--judge", "offline"]
    passed = CliRunner().invoke(
        app, [*common, "--out", str(tmp_path / "a"), "--threshold", "faithfulness:calibrated=0.05"]
    )
    assert passed.exit_code == 0, passed.output
    assert "calibrated" in passed.output
    missed = CliRunner().invoke(
        app, [*common, "--out", str(tmp_path / "b"), "--threshold", "faithfulness:calibrated=0.99"]
    )
    assert missed.exit_code == 1, missed.output
    # With the default turned off there is nothing to gate on: said before any judge call.
    off = CliRunner().invoke(
        app,
        [*common, "--out", str(tmp_path / "c"), "--calibration", "none",
         "--threshold", "faithfulness:calibrated=0.5"],
    )  # fmt: skip
    assert off.exit_code == 2
    assert "needs calibrated probabilities" in off.output
    assert not (tmp_path / "c" / "results.jsonl").exists()


def test_pytest_asserts_on_the_default_calibrated_probability() -> None:
    from veracity.pytest_plugin import RagAssertionError, assert_scores

    calibrated = evaluate(rows()[:2], "faithfulness", "offline", progress=False)
    assert_scores(calibrated.results, min_mean=0.05, calibrated=True)
    with pytest.raises(RagAssertionError, match="faithfulness"):
        assert_scores(calibrated.results, min_mean=0.99, calibrated=True)
    off = evaluate(
        rows()[:2], "faithfulness", "offline", config=RunConfig(calibration="none"), progress=False
    )
    with pytest.raises(RagAssertionError, match="no calibrated probability"):
        assert_scores(off.results, calibrated=True)
