"""Exit code 3 and ``--max-error-rate``: a run whose judge failed is not a success."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import claims_reply, verdicts_reply
from tests.in_process import Completed, veracity
from veracity import LLMJudge, ScriptedChat, evaluate
from veracity.config import RunConfig
from veracity.testing import ChatRequest, FakeLLMServer, Responder, RuleBasedResponder

# A sample whose answer holds this word gets a refusal from the judge: a judge_error.
UNJUDGEABLE = "UNJUDGEABLE"
# A claim the context does not back: an answer with it scores 0.5 on faithfulness.
UNSUPPORTED = " It is made of chocolate."
SAMPLES = 10


def refusing_on_marked_samples() -> Responder:
    rule_based = RuleBasedResponder()

    def respond(request: ChatRequest) -> str:
        if UNJUDGEABLE in request.last_user or UNJUDGEABLE in request.first_user:
            return "I'm sorry, I cannot help with that."
        return rule_based(request)

    return respond


def dataset(path: Path, unjudgeable: int, unsupported: int = 0) -> Path:
    """``SAMPLES`` rows: the first ``unjudgeable`` refused by the judge, the last
    ``unsupported`` half supported, the others fully."""
    rows = [
        {
            "id": f"q{i}",
            "question": "Where is the Eiffel Tower?",
            "contexts": ["The Eiffel Tower is a wrought-iron tower in Paris, France."],
            "answer": "The Eiffel Tower is in Paris."
            + (f" {UNJUDGEABLE} claim." if i < unjudgeable else "")
            + (UNSUPPORTED if i >= SAMPLES - unsupported else ""),
        }
        for i in range(SAMPLES)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def run(
    directory: Path, unjudgeable: int, *args: str, unsupported: int = 0
) -> tuple[Completed, Path]:
    """``veracity run`` on :func:`dataset` in ``directory``, and its run directory."""
    directory.mkdir(exist_ok=True)
    data = dataset(directory / "data.jsonl", unjudgeable, unsupported)
    out = directory / "run"
    with FakeLLMServer(refusing_on_marked_samples()) as server:
        proc = veracity(
            "run", str(data), "--judge", "openai/m", "--base-url", server.base_url,
            "--out", str(out), "--no-cache", *args,
        )  # fmt: skip
    return proc, out


def statuses(out: Path) -> list[str]:
    lines = (out / "results.jsonl").read_text().splitlines()
    return [json.loads(line)["status"] for line in lines]


def summary_counts(out: Path) -> dict[str, int]:
    """Results by status over the run, as summary.json has them."""
    summary = json.loads((out / "summary.json").read_text())
    counts: dict[str, int] = summary["metrics"]["faithfulness"]["overall"]["counts_by_status"]
    return counts


def max_error_rate(out: Path) -> float:
    rate: float = json.loads((out / "run.json").read_text())["settings"]["max_error_rate"]
    return rate


@pytest.mark.parametrize(
    ("unjudgeable", "args", "code"),
    [
        (1, [], 0),  # 10 %: not more than the default 0.1
        (2, [], 3),  # 20 %: more than the default
        (2, ["--max-error-rate", "0.2"], 0),
        (1, ["--max-error-rate", "0"], 3),
    ],
)
def test_exit_3_when_judge_errors_leave_more_than_the_allowed_share_unscored(
    tmp_path: Path, unjudgeable: int, args: list[str], code: int
) -> None:
    proc, out = run(tmp_path, unjudgeable, *args)
    assert statuses(out).count("judge_error") == unjudgeable
    assert summary_counts(out)["judge_error"] == unjudgeable
    assert summary_counts(out)["scored"] == SAMPLES - unjudgeable
    assert proc.returncode == code, proc.stderr
    if code == 3:
        assert f"judge errors left {unjudgeable} of {SAMPLES} results unscored" in proc.stderr
        assert str(out / "results.jsonl") in proc.stderr and "--max-error-rate" in proc.stderr
    else:
        assert "judge errors left" not in proc.stderr
    # The run finished either way: everything is written and the run is complete.
    assert json.loads((out / "run.json").read_text())["status"] == "completed"
    assert max_error_rate(out) == float(args[1] if args else 0.1)


def test_a_run_that_scored_nothing_fails_whatever_the_allowed_share(tmp_path: Path) -> None:
    proc, out = run(tmp_path, SAMPLES, "--max-error-rate", "1")
    assert statuses(out) == ["judge_error"] * SAMPLES
    assert proc.returncode == 3
    assert f"nothing was scored: 0 of {SAMPLES} results (judge_error {SAMPLES})" in proc.stderr


def test_exit_3_wins_over_an_unmet_threshold(tmp_path: Path) -> None:
    # 5 refused, 3 scored 1.0 and 2 scored 0.5: a mean of 0.8, below the threshold.
    proc, out = run(tmp_path, 5, "--threshold", "faithfulness=0.9", unsupported=2)
    assert proc.returncode == 3, proc.stderr
    assert summary_counts(out)["judge_error"] == 5
    assert "faithfulness ≥ 0.9: NOT met (mean 0.8000)" in proc.stdout
    assert (
        f"judge errors left 5 of {SAMPLES} results unscored (50.0%), more than the allowed "
        "share (0.1)" in proc.stderr
    )


def test_max_error_rate_from_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "veracity.yaml"
    config.write_text("max_error_rate: 0.25\n")
    proc, out = run(tmp_path / "file", 2, "--config", str(config))
    assert proc.returncode == 0, proc.stderr
    assert max_error_rate(out) == 0.25
    assert summary_counts(out)["judge_error"] == 2
    assert "judge errors left" not in proc.stderr
    # The flag wins over the file.
    proc, out = run(tmp_path / "flag", 2, "--config", str(config), "--max-error-rate", "0.1")
    assert proc.returncode == 3, proc.stderr
    assert max_error_rate(out) == 0.1
    assert summary_counts(out)["judge_error"] == 2
    assert (
        f"judge errors left 2 of {SAMPLES} results unscored (20.0%), more than the allowed "
        "share (0.1)" in proc.stderr
    )


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan", "lots"])
def test_a_bad_max_error_rate_is_refused_before_any_call(tmp_path: Path, value: str) -> None:
    data = dataset(tmp_path / "data.jsonl", 0)
    with FakeLLMServer() as server:
        proc = veracity(
            "run", str(data), "--judge", "openai/m", "--base-url", server.base_url,
            "--out", str(tmp_path / "run"), "--max-error-rate", value,
        )  # fmt: skip
        requests = server.stats.requests
    assert proc.returncode == 2
    assert "--max-error-rate" in proc.stderr and "Traceback" not in proc.stderr
    assert requests == 0


def test_the_python_api_says_whether_the_error_rate_was_exceeded() -> None:
    def respond(messages: object, output: object) -> str:
        text = json.dumps(messages, default=str)
        if getattr(output, "name", "") == "claim_extraction":
            return "no idea" if UNJUDGEABLE in text else claims_reply("Paris is in France.")
        return verdicts_reply(("Paris is in France.", "supported", "stated", "Paris"))

    rows = [
        {"id": f"q{i}", "question": "q", "contexts": ["Paris is in France."],
         "answer": f"Paris is in France.{' ' + UNJUDGEABLE if i < 3 else ''}"}
        for i in range(SAMPLES)
    ]  # fmt: skip
    judge = LLMJudge(ScriptedChat(responder=respond))
    strict = evaluate(rows, ["faithfulness"], judge)
    assert strict.error_check.judge_errors == 3
    assert strict.error_check.rate == pytest.approx(0.3)
    assert not strict.error_check.met  # the default allows 0.1
    lenient = evaluate(rows, ["faithfulness"], judge, config=RunConfig(max_error_rate=0.3))
    assert lenient.error_check.met
    with pytest.raises(ValueError, match="max_error_rate"):
        evaluate(rows, ["faithfulness"], judge, config=RunConfig(max_error_rate=float("nan")))
