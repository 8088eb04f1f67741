"""Issue 48 item 8: one convention for HTML pages, ``--html [PATH]``, in run, report,
compare and agree: alone it writes the command's default file, with PATH it writes there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.agreement import scenario
from tests.cli.test_report_compare import rows, run
from veracity.cli.app import app
from veracity.cli.common import html_target


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    return run(tmp_path / "a", rows(set())), run(tmp_path / "b", rows({1, 3}))


def _page(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    assert text.lstrip().lower().startswith("<!doctype html"), path
    return text


def test_report_html_alone_and_with_a_path(cli: CliRunner, runs: tuple[Path, Path]) -> None:
    run_a = runs[0]
    alone = cli.invoke(app, ["report", str(run_a), "--html"])
    assert alone.exit_code == 0, alone.output
    _page(run_a / "report.html")

    target = run_a.parent / "pages" / "x.html"
    given = cli.invoke(app, ["report", str(run_a), "--html", str(target)])
    assert given.exit_code == 0, given.output
    _page(target)

    # The next option is not taken for the path.
    before = cli.invoke(app, ["report", str(run_a), "--html", "--format", "markdown"])
    assert before.exit_code == 0, before.output
    assert "faithfulness" in before.stdout


def test_compare_html_alone_writes_comparison_html(
    cli: CliRunner, runs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(app, ["compare", str(runs[0]), str(runs[1]), "--html"])
    assert result.exit_code == 0, result.output
    _page(tmp_path / "comparison.html")
    folder = tmp_path / "out"
    folder.mkdir()
    into = cli.invoke(app, ["compare", str(runs[0]), str(runs[1]), "--html", str(folder)])
    assert into.exit_code == 0, into.output
    _page(folder / "comparison.html")


def test_agree_html_path_is_not_read_as_run_b(cli: CliRunner, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    scenario.run(run_dir)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(row) + "\n" for row in scenario.labels()))
    target = tmp_path / "agree.html"
    common = ["agree", str(run_dir), "--labels", str(labels), "--resamples", "100"]

    given = cli.invoke(app, [*common, "--html", str(target)])
    assert given.exit_code == 0, given.output
    assert "<svg" in _page(target)
    assert not (run_dir / "agreement.html").exists()

    alone = cli.invoke(app, [*common, "--html"])
    assert alone.exit_code == 0, alone.output
    _page(run_dir / "agreement.html")


def test_run_html_takes_a_path(cli: CliRunner, tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"question": "q?", "answer": "It is in Paris.",
                                "contexts": ["The tower is in Paris."]}) + "\n")  # fmt: skip
    target = tmp_path / "pages" / "run.html"
    args = ["run", str(data), "--judge", "offline", "--metrics", "faithfulness", "--no-cache"]
    result = cli.invoke(app, [*args, "--out", str(tmp_path / "r"), "--html", str(target)])
    assert result.exit_code == 0, result.output
    _page(target)
    assert not (tmp_path / "r" / "report.html").exists()


def test_html_target(tmp_path: Path) -> None:
    default = tmp_path / "run" / "report.html"
    assert html_target(None, default) is None
    assert html_target("", default) == default
    assert html_target(str(tmp_path), default) == tmp_path / "report.html"
    assert html_target("x.html", default) == Path("x.html")
