"""Issue 48 item 14: ``veracity compare``'s table keeps its right border on an 80-column
terminal, whatever the figures (three-digit pair counts, p below 0.001, long metric
names): intervals take two lines, then names break after their underscores."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from tests.report.factory import rec
from tests.report.test_compare import write_run
from veracity.cli.common import out_console
from veracity.cli.report import compare
from veracity.report.compare import compare_records
from veracity.report.console_compare import print_comparison
from veracity.types import ResultRecord

METRICS = ("faithfulness", "citation_precision", "answer_relevance")


def runs(metrics: tuple[str, ...] = METRICS) -> tuple[list[ResultRecord], list[ResultRecord]]:
    """Two runs of 120 samples, B far below A: wide counts, intervals and p-values."""
    rng = random.Random(1)
    a, b = [], []
    for metric in metrics:
        for i in range(120):
            a.append(rec(rng.random(), metric=metric, sample_id=f"s{i}"))
            b.append(rec(rng.random() * 0.3, metric=metric, sample_id=f"s{i}"))
    return a, b


def table_lines(printed: str) -> list[str]:
    """The lines of the table, from its top border to its bottom one."""
    lines = printed.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    bottom = next(i for i, line in enumerate(lines) if line.startswith("└"))
    return lines[top : bottom + 1]


def printed_at(width: int, metrics: tuple[str, ...] = METRICS) -> str:
    out = io.StringIO()
    print_comparison(compare_records(*runs(metrics)), Console(file=out, width=width))
    return out.getvalue()


def assert_boxed(lines: list[str], width: int) -> None:
    assert all(len(line) <= width for line in lines), [len(line) for line in lines]
    # Every line of the table ends on its right border: nothing was cut.
    assert all(line[-1] in "┓┃┩│┘" for line in lines), lines


def test_the_table_fits_80_columns_with_its_right_border() -> None:
    printed = printed_at(80)
    lines = table_lines(printed)
    assert_boxed(lines, 80)
    # Every figure is still there, whole.
    body = "\n".join(lines)
    for figure in ("120", "~<0.001", "18/102/0", "-33.8", "-39.5…", "-28.3"):
        assert figure in body
    assert printed.count("│ faithfulness") == 1


def test_metric_names_break_after_an_underscore_not_inside_a_word() -> None:
    names = ("faithfulness", "rubric_helpfulness_for_customers", "context_precision")
    lines = table_lines(printed_at(80, names))
    assert_boxed(lines, 80)
    first_cells = [line.split("│")[1].strip() for line in lines if line.startswith("│")]
    # The long name takes several lines, each ending after an underscore but the last.
    start = next(i for i, cell in enumerate(first_cells) if cell.startswith("rubric_"))
    end = next(i for i, cell in enumerate(first_cells) if cell.endswith("customers"))
    rubric = first_cells[start : end + 1]
    assert "".join(rubric) == names[1] and len(rubric) > 1
    assert all(line.endswith("_") for line in rubric[:-1])


def test_a_wide_terminal_keeps_one_line_a_metric() -> None:
    lines = table_lines(printed_at(200))
    assert len([line for line in lines if line.startswith("│")]) == len(METRICS)
    assert "-39.5…-28.3" in "\n".join(lines)


def test_the_command_at_80_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(out_console, "_width", 80)
    run_a, run_b = runs()
    first = write_run(tmp_path / "a", run_a)
    second = write_run(tmp_path / "b", run_b)
    app = typer.Typer()
    app.command()(compare)
    result = CliRunner().invoke(app, [str(first), str(second)])
    assert result.exit_code == 0, result.output
    lines = table_lines(result.stdout)
    assert len(lines) > 4
    assert_boxed(lines, 80)
