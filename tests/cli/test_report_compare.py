"""``veracity report`` and ``veracity compare`` on run directories written by real runs.

The commands are plain functions; the test registers them on its own typer app.
"""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from tests.helpers import claims_reply, verdicts_reply
from tests.html.page import parse
from veracity import LLMJudge, ScriptedChat, evaluate
from veracity.cli import report as report_module
from veracity.cli.common import Command
from veracity.cli.report import compare, report
from veracity.config import RunConfig

GOOD, BAD = "The tower is in Paris.", "The tower is green."


def respond(messages: Sequence[Any], output: Any) -> str:
    prompt = messages[-1].content
    if getattr(output, "name", "") == "claim_extraction":
        return claims_reply(BAD if "WRONG" in prompt else GOOD)
    if BAD in prompt:
        return verdicts_reply((BAD, "contradicted", "the context says grey", "The tower is grey"))
    return verdicts_reply((GOOD, "supported", "stated", "The grey tower is in Paris."))


def rows(wrong: set[int], system: str | None = None) -> list[dict[str, Any]]:
    return [
        {
            "id": f"s{i}",
            "question": "Where is the tower?",
            "contexts": ["The grey tower is in Paris."],
            "answer": "WRONG: it is green." if i in wrong else "It is in Paris.",
            "question_type": "lookup" if i % 2 else "simple",
            **({"system": system} if system else {}),
        }
        for i in range(6)
    ]


def run(path: Path, data: list[dict[str, Any]], **settings: Any) -> Path:
    judge = LLMJudge(ScriptedChat(responder=respond))
    evaluate(data, ["faithfulness"], judge, config=RunConfig(**settings), out=path)
    return path


def invoke(runner: CliRunner, *args: str) -> Result:
    app = typer.Typer()
    app.command(cls=Command)(report)
    app.command(cls=Command)(compare)
    return runner.invoke(app, list(args))


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    baseline = run(tmp_path / "a", rows(set()))
    worse = run(
        tmp_path / "b", rows({1, 3, 5}), extra_settings={"thresholds": {"faithfulness": 0.8}}
    )
    return baseline, worse


def test_report_prints_statistics_analysis_and_recommendations(
    cli: CliRunner, runs: tuple[Path, Path]
) -> None:
    summary = json.loads((runs[1] / "summary.json").read_text())
    # the threshold in the run's settings reached the summary
    assert summary["metrics"]["faithfulness"]["threshold"] == {"value": 0.8, "source": "given"}
    result = invoke(cli, "report", str(runs[1]))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "faithfulness" in out and "50.0" in out  # mean ×100
    assert "per question type" in out and "lookup" in out
    assert "faithfulness 0.8" in out  # the threshold used
    assert "failures by severity" in out and "3/6" in out
    assert "worst faithfulness results:" in out
    assert f"✗ contradicted: {BAD}" in out
    assert "evidence: The tower is grey" in out
    assert "many contradicted claims (faithfulness: 3 claims in 3 of 6 answers, 50%)" in out


def test_report_rebuilds_a_missing_summary_without_writing_it(
    cli: CliRunner, runs: tuple[Path, Path]
) -> None:
    (runs[1] / "summary.json").unlink()
    result = invoke(cli, "report", str(runs[1]))
    assert result.exit_code == 0, result.output
    assert "summary rebuilt from results.jsonl" in result.stderr
    assert "worst faithfulness results:" in result.stdout
    assert not (runs[1] / "summary.json").exists()
    # the threshold is recovered from the run's settings in run.json
    assert "faithfulness 0.8" in result.stdout


def test_report_rejects_what_is_not_a_run(cli: CliRunner, tmp_path: Path) -> None:
    missing = invoke(cli, "report", str(tmp_path / "nope"))
    assert missing.exit_code == 2 and "run directory not found" in missing.stderr
    (tmp_path / "empty").mkdir()
    empty = invoke(cli, "report", str(tmp_path / "empty"))
    assert empty.exit_code == 2 and "neither a readable summary.json" in empty.stderr


def test_report_html_when_the_module_is_missing(
    cli: CliRunner, runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report_module, "HTML_MODULE", "veracity.report.no_such_module")
    result = invoke(cli, "report", str(runs[0]), "--html")
    assert result.exit_code == 2 and "--html is not available" in result.stderr
    assert result.stdout == ""  # failed before printing anything


def test_report_html_calls_the_writer_lazily(
    cli: CliRunner, runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[Path] = []

    def write_report(run_dir: Path, out: Path | None = None) -> Path:
        calls.append(run_dir)
        return out or run_dir / "report.html"

    fake = types.ModuleType("fake_html")
    fake.write_report = write_report  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "veracity.report.fake_html", fake)
    monkeypatch.setattr(report_module, "HTML_MODULE", "veracity.report.fake_html")
    assert invoke(cli, "report", str(runs[0])).exit_code == 0 and calls == []
    result = invoke(cli, "report", str(runs[0]), "--html")
    assert result.exit_code == 0 and calls == [runs[0]]
    assert "report.html" in result.stdout


def test_compare_two_runs(cli: CliRunner, runs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "comparison.json"
    result = invoke(cli, "compare", str(runs[0]), str(runs[1]), "--json", str(out))
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "faithfulness" in text and "-50.0" in text  # 100 → 50
    # three of six samples dropped by 1: exact p = 2 / 2**3
    assert "0.25" in text
    assert "most regressed on faithfulness:" in text and "s1 (iteration 0)" in text
    assert "contradicted" in text  # B's reason is shown
    written = json.loads(out.read_text())["metrics"]["faithfulness"]
    assert written["mean_diff"] == pytest.approx(-0.5) and written["p_method"] == "exact"
    assert [r["sample_id"] for r in written["regressed"]] == ["s1", "s3", "s5"]


def test_compare_writes_nothing_unless_asked(cli: CliRunner, runs: tuple[Path, Path]) -> None:
    before = {p: p.stat().st_mtime_ns for run_dir in runs for p in run_dir.iterdir()}
    assert invoke(cli, "compare", str(runs[0]), str(runs[1])).exit_code == 0
    after = {p: p.stat().st_mtime_ns for run_dir in runs for p in run_dir.iterdir()}
    assert before == after


def test_compare_two_systems_inside_one_run(cli: CliRunner, tmp_path: Path) -> None:
    both = run(tmp_path / "both", rows(set(), "old") + rows({0, 1}, "new"))
    result = invoke(cli, "compare", str(both), "--systems", "old,new")
    assert result.exit_code == 0, result.output
    assert "A: old" in result.stdout and "B: new" in result.stdout
    assert "-33.3" in result.stdout and "s0" in result.stdout
    unknown = invoke(cli, "compare", str(both), "--systems", "old,newer")
    assert unknown.exit_code == 2 and "system 'newer' is not in" in unknown.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["A"], "give two run directories, or one run and --systems A,B"),
        (["A", "B", "--systems", "x,y"], "give two run directories"),
        (["A", "--systems", "x"], "--systems needs two different names"),
        (["MISSING", "B"], "not a run directory (no results.jsonl)"),
    ],
)
def test_compare_bad_input_exits_2(
    cli: CliRunner, runs: tuple[Path, Path], tmp_path: Path, args: list[str], message: str
) -> None:
    paths = {"A": str(runs[0]), "B": str(runs[1]), "MISSING": str(tmp_path / "missing")}
    result = invoke(cli, "compare", *[paths.get(a, a) for a in args])
    assert result.exit_code == 2 and message in result.stderr


def test_compare_lists_what_it_could_not_compare(cli: CliRunner, tmp_path: Path) -> None:
    def write(path: Path, ids: list[str]) -> Path:
        path.mkdir()
        lines = [
            json.dumps({"sample_id": i, "system": None, "metric": "faithfulness",
                        "iteration": 0, "score": 0.5, "status": "scored", "reason": "r"})
            for i in ids
        ]  # fmt: skip
        (path / "results.jsonl").write_text("\n".join(lines) + "\n")
        return path

    a = write(tmp_path / "a", ["x", "y"])
    b = write(tmp_path / "b", ["y", "z", "w"])
    result = invoke(cli, "compare", str(a), str(b))
    assert result.exit_code == 0, result.output
    assert "faithfulness not compared: 1 only in A, 2 only in B" in result.stdout
    unrelated = write(tmp_path / "c", ["p", "q"])
    nothing = invoke(cli, "compare", str(a), str(unrelated))
    assert "nothing paired" in nothing.stdout and "same id in both" in nothing.stdout


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (b'{"sample_id": "s3"}', "field 'metric': Field required"),
        (b"{not json", "invalid JSON: Expecting property name"),
        (b'{"sample_id": "\xff"}', "undecodable bytes (not UTF-8): 0xff"),
    ],
)
def test_a_broken_results_file_is_named_with_its_line(
    cli: CliRunner, runs: tuple[Path, Path], line: bytes, problem: str
) -> None:
    results = runs[1] / "results.jsonl"
    lines = results.read_bytes().splitlines()
    lines[3] = line
    results.write_bytes(b"\n".join(lines) + b"\n")
    (runs[1] / "summary.json").unlink()  # the report rebuilds it from results.jsonl
    for args in (["report", str(runs[1])], ["compare", str(runs[0]), str(runs[1])]):
        result = invoke(cli, *args)
        assert result.exit_code == 2, result.output
        assert f"{results}:4: {problem}" in result.stderr


def test_compare_json_that_cannot_be_written_exits_2(
    cli: CliRunner, runs: tuple[Path, Path], tmp_path: Path
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    target = a_file / "comparison.json"
    result = invoke(cli, "compare", str(runs[0]), str(runs[1]), "--json", str(target))
    assert result.exit_code == 2, result.output
    assert f"cannot write {target}: Not a directory" in result.stderr


def test_compare_html_page(cli: CliRunner, runs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "pages" / "compare.html"
    result = invoke(cli, "compare", str(runs[0]), str(runs[1]), "--html", str(out))
    assert result.exit_code == 0, result.output
    assert f"comparison page: {out}" in result.stdout
    page = out.read_text("utf-8")
    tree = parse(page)
    # The chart: a dot for the difference and a red line (a regression) for a CI below 0.
    (dot,) = tree.find_all("circle", cls="diff")
    (interval,) = tree.find_all("line", cls="ci")
    assert dot.attrs["fill"] == interval.attrs["stroke"] == "#c62828"
    hover = " ".join(title.text for title in tree.find_all("title"))
    assert "B − A -0.500, 95 % CI" in hover and "n 6" in hover
    assert "B worse" in tree.text and "0 / 3 / 3" in tree.text
    assert not tree.find_all("script")
    policy = tree.find("meta", http_equiv="Content-Security-Policy").attrs["content"] or ""
    assert "script-src 'none'" in policy
    assert "faithfulness: 3 pair(s) down" in tree.text  # the most regressed, with reasons


def test_compare_html_that_cannot_be_written_exits_2(
    cli: CliRunner, runs: tuple[Path, Path], tmp_path: Path
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    target = a_file / "compare.html"
    result = invoke(cli, "compare", str(runs[0]), str(runs[1]), "--html", str(target))
    assert result.exit_code == 2, result.output
    assert f"cannot write {target}" in result.stderr
