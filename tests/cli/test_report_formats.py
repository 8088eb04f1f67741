"""``veracity report --format junit|markdown [--github]`` on a run a real evaluation wrote."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import typer
import xmlschema
from typer.testing import CliRunner, Result

from tests.helpers import claims_reply, verdicts_reply
from veracity import LLMJudge, ScriptedChat, evaluate
from veracity.cli.report import report
from veracity.config import RunConfig
from veracity.transport import CallFailedError

SCHEMA = xmlschema.XMLSchema(Path(__file__).parents[1] / "data" / "junit.xsd")
GOOD, BAD = "The tower is in Paris.", "The tower is green."


def respond(messages: Sequence[Any], output: Any) -> str:
    prompt = messages[-1].content
    if "BROKEN" in prompt:
        raise CallFailedError("gave up after 8 attempts; last error: HTTP 503")
    if getattr(output, "name", "") == "claim_extraction":
        return claims_reply(BAD if "WRONG" in prompt else GOOD)
    if BAD in prompt:
        return verdicts_reply((BAD, "contradicted", "the context says grey", "The tower is grey"))
    return verdicts_reply((GOOD, "supported", "stated", "The grey tower is in Paris."))


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """Six samples: four right, one wrong (score 0), one whose judge call fails."""
    answers = ["It is in Paris."] * 4 + ["WRONG: it is green.", "BROKEN"]
    data = [
        {"id": f"s{i}", "question": "Where is the tower?", "answer": answer,
         "contexts": ["The grey tower is in Paris."]}
        for i, answer in enumerate(answers)
    ]  # fmt: skip
    out = tmp_path / "nightly"
    evaluate(
        data,
        ["faithfulness"],
        LLMJudge(ScriptedChat(responder=respond)),
        config=RunConfig(
            extra_settings={"thresholds": {"faithfulness": 0.9}, "max_error_rate": 0.1}
        ),
        out=out,
    )
    return out


@pytest.fixture
def cli(cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return cli


def invoke(runner: CliRunner, *args: str) -> Result:
    app = typer.Typer()
    app.command()(report)
    return runner.invoke(app, list(args))


def test_junit_to_a_file_validates_and_counts(cli: CliRunner, run_dir: Path) -> None:
    target = run_dir.parent / "junit.xml"
    result = invoke(cli, str(run_dir), "--format", "junit", "--out", str(target))
    # The report never gates: the threshold is missed, the report still exits 0.
    assert result.exit_code == 0, result.output
    xml = target.read_text(encoding="utf-8")
    SCHEMA.validate(xml)
    root = ET.fromstring(xml)
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "1", "1")
    failure = root.find(".//testcase[@name='s4']/failure")
    assert failure is not None
    assert failure.get("message", "").startswith("score 0.0000 < threshold 0.9")
    assert "- [contradicted] The tower is green. — the context says grey" in (failure.text or "")
    error = root.find(".//testcase[@name='s5']/error")
    assert error is not None
    assert "HTTP 503" in (error.text or "")
    properties = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert properties["judge"] == "scripted/scripted"


def test_junit_to_stdout_and_a_threshold_on_top(cli: CliRunner, run_dir: Path) -> None:
    result = invoke(cli, str(run_dir), "--format", "junit", "--threshold", "faithfulness=0.5")
    assert result.exit_code == 0, result.output
    SCHEMA.validate(result.stdout)
    root = ET.fromstring(result.stdout)
    threshold = root.find("testsuite/properties/property[@name='threshold']")
    assert threshold is not None
    assert threshold.get("value") == "0.5"
    # At 0.5 the wrong answer (0.0) still fails; the four right ones (1.0) pass.
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "1", "1")
    assert "summary rebuilt" in result.stderr


def test_markdown_with_github_appends_the_step_summary_and_annotates(
    cli: CliRunner, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary_file = run_dir.parent / "step_summary.md"
    summary_file.write_text("## earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary_file))
    result = invoke(cli, str(run_dir), "--format", "markdown", "--github")
    assert result.exit_code == 0, result.output
    written = summary_file.read_text(encoding="utf-8")
    assert written.startswith("## earlier step\n### veracity: nightly\n")
    assert "| **faithfulness** | 0.800 |" in written
    assert "✗ < 0.9" in written
    lines = result.stdout.splitlines()
    assert (
        "::error title=veracity%3A faithfulness below its threshold::"
        "faithfulness ≥ 0.9: NOT met (mean 0.8000)"
    ) in lines
    # 1 judge error in 6 results: over the run's allowed share of 0.1.
    assert any(line.startswith("::warning title=veracity%3A judge errors::") for line in lines)


def test_github_outside_actions_says_so(cli: CliRunner, run_dir: Path) -> None:
    result = invoke(cli, str(run_dir), "--format", "markdown", "--github")
    assert result.exit_code == 0
    assert "GITHUB_STEP_SUMMARY is not set" in result.stderr
    assert "### veracity: nightly" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "junit", "--github"], "--github goes with --format markdown"),
        (["--out", "x.xml"], "--out goes with --format junit or --format markdown"),
        (["--format", "junit", "--threshold", "recall=0.5"], "'recall', a metric this run"),
        (["--format", "junit", "--threshold", "faithfulness=2"], "bad threshold"),
    ],
)
def test_unusable_options_exit_2_with_a_message(
    cli: CliRunner, run_dir: Path, args: list[str], message: str
) -> None:
    result = invoke(cli, str(run_dir), *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_junit_without_any_threshold_says_how_to_give_one(cli: CliRunner, tmp_path: Path) -> None:
    data = [{"id": "s0", "question": "Where?", "answer": "It is in Paris.",
             "contexts": ["The grey tower is in Paris."]}]  # fmt: skip
    evaluate(data, ["faithfulness"], LLMJudge(ScriptedChat(responder=respond)), out=tmp_path / "r")
    result = invoke(cli, str(tmp_path / "r"), "--format", "junit")
    assert result.exit_code == 2
    assert "give one with --threshold metric=value" in result.stderr
