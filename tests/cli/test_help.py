"""Issue 48 item 10: the help lists every metric (from the registry), each option's
values, and no ``<bool>`` beside an on/off flag."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from veracity.cli.app import app
from veracity.metrics.registry import METRICS

WIDE = {"COLUMNS": "400", "TERMINAL_WIDTH": "400"}
COMMANDS = [
    [], ["run"], ["estimate"], ["report"], ["compare"], ["agree"], ["calibrate"], ["demo"],
    ["export"], ["send"], ["version"], ["testset"], ["testset", "from-logs"],
    ["testset", "generate"], ["cache"], ["cache", "info"], ["cache", "clear"],
]  # fmt: skip


def help_of(*command: str) -> str:
    result = CliRunner().invoke(app, [*command, "--help"], env=WIDE)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


@pytest.mark.parametrize("command", ["run", "estimate"])
def test_the_help_lists_every_metric_of_the_registry(command: str) -> None:
    listed = re.search(r"Metrics \(--metrics\): (.*?), and rubric:NAME", help_of(command))
    assert listed is not None
    assert listed.group(1).split(", ") == list(METRICS)
    assert "citation_recall" in listed.group(1) and "citation_precision" in listed.group(1)


def test_a_choice_shows_its_values() -> None:
    assert re.search(r"--supported-by-conversation <supported\|unsupported>", help_of("run"))


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "veracity")
def test_no_python_types_in_the_help(command: list[str]) -> None:
    text = help_of(*command)
    assert "<bool>" not in text
    assert "list[" not in text  # a repeatable option shows its form (METRIC=V), not a type
    assert "--help Show this message" in text
