"""Exit code 3 and ``--max-error-rate``: a run whose judge failed is not a success."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_run_end_to_end import veracity
from tests.helpers import claims_reply, verdicts_reply
from veracity import LLMJudge, ScriptedChat, evaluate
from veracity.testing import ChatRequest, FakeLLMServer, Responder, RuleBasedResponder

# A sample whose answer holds this word gets a refusal from the judge: a judge_error.
UNJUDGEABLE = "UNJUDGEABLE"
SAMPLES = 10


def refusing_on_marked_samples() -> Responder:
    rule_based = RuleBasedResponder()

    def respond(request: ChatRequest) -> str:
        if UNJUDGEABLE in request.last_user or UNJUDGEABLE in request.first_user:
            return "I'm sorry, I cannot help with that."
        return rule_based(request)

    return respond


def dataset(path: Path, unjudgeable: int) -> Path:
    rows = [
        {
            "id": f"q{i}",
            "question": "Where is the Eiffel Tower?",
            "contexts": ["The Eiffel Tower is a wrought-iron tower in Paris, France."],
            "answer": "The Eiffel Tower is in Paris."
            + (f" {UNJUDGEABLE} claim." if i < unjudgeable else ""),
        }
        for i in range(SAMPLES)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def run(tmp_path: Path, unjudgeable: int, *args: str) -> tuple[int, str, Path]:
    data = dataset(tmp_path / "data.jsonl", unjudgeable)
    out = tmp_path / "run"
    with FakeLLMServer(refusing_on_marked_samples()) as server:
        proc = veracity(
            "run", str(data), "--judge", "openai/m", "--base-url", server.base_url,
            "--out", str(out), "--no-cache", *args,
        )  # fmt: skip
    return proc.returncode, proc.stderr, out


def statuses(out: Path) -> list[str]:
    lines = (out / "results.jsonl").read_text().splitlines()
    return [json.loads(line)["status"] for line in lines]


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
    returncode, stderr, out = run(tmp_path, unjudgeable, *args)
    assert statuses(out).count("judge_error") == unjudgeable
    assert returncode == code, stderr
    if code == 3:
        assert f"judge errors left {unjudgeable} of {SAMPLES} results unscored" in stderr
        assert str(out / "results.jsonl") in stderr and "--max-error-rate" in stderr
    # The run finished either way: everything is written and the run is complete.
    assert json.loads((out / "run.json").read_text())["status"] == "completed"
    assert json.loads((out / "run.json").read_text())["settings"]["max_error_rate"] == float(
        args[1] if args else 0.1
    )


def test_a_run_that_scored_nothing_fails_whatever_the_allowed_share(tmp_path: Path) -> None:
    returncode, stderr, out = run(tmp_path, SAMPLES, "--max-error-rate", "1")
    assert statuses(out) == ["judge_error"] * SAMPLES
    assert returncode == 3
    assert f"nothing was scored: 0 of {SAMPLES} results (judge_error {SAMPLES})" in stderr


def test_exit_3_wins_over_an_unmet_threshold(tmp_path: Path) -> None:
    returncode, stderr, _ = run(tmp_path, 5, "--threshold", "faithfulness=0.99")
    assert returncode == 3, stderr


def test_max_error_rate_from_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "veracity.yaml"
    config.write_text("max_error_rate: 0.25\n")
    returncode, stderr, _ = run(tmp_path, 2, "--config", str(config))
    assert returncode == 0, stderr
    # The flag wins over the file.
    returncode, stderr, _ = run(tmp_path, 2, "--config", str(config), "--max-error-rate", "0.1")
    assert returncode == 3, stderr


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
    lenient = evaluate(rows, ["faithfulness"], judge, max_error_rate=0.3)
    assert lenient.error_check.met
    with pytest.raises(ValueError, match="max_error_rate"):
        evaluate(rows, ["faithfulness"], judge, max_error_rate=float("nan"))
