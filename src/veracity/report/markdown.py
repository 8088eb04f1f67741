"""A run's summary as Markdown (for ``$GITHUB_STEP_SUMMARY``, a pull-request comment or
a wiki), and GitHub Actions annotations for the gates it fails.

The table gives, per metric (and per system when there are several), the mean with its
95 % CI, how many results were scored, the pass rate at the metric's threshold and,
where a threshold was given, whether the mean meets it — the gate ``veracity run
--threshold`` exits 1 on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from veracity.report.groups import by_rule, calibrated_line, cost_text, reading_line
from veracity.report.keys import OVERALL
from veracity.report.run_data import RunData
from veracity.report.terminal import visible
from veracity.report.thresholds import (
    CALIBRATED,
    DEFAULT_MAX_ERROR_RATE,
    ThresholdCheck,
    check_error_rate,
    check_thresholds,
)

# What Markdown (GitHub's flavour) reads as markup inside a table cell.
_MARKUP = re.compile(r"([\\`*_{}\[\]<>()#+!|~&])")


def md(text: object) -> str:
    """``text`` as literal Markdown table-cell text: one line, control characters escaped
    as on the terminal (an ESC or OSC sequence from the data must not reach the terminal
    the file is shown on, nor a bell or a bidirectional override the reader), markup
    escaped. Every Markdown output (``report``, ``agree``) passes its data through it."""
    return _MARKUP.sub(r"\\\1", visible(" ".join(str(text).split())))


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _interval(stats: Mapping[str, Any]) -> str:
    bounds = stats.get("ci95")
    return "—" if not bounds else f"{bounds[0]:.3f}–{bounds[1]:.3f}"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def _gate(mean: float | None, threshold: float | None) -> str:
    if threshold is None:
        return "—"
    check = ThresholdCheck("", threshold, mean)
    return f"✓ ≥ {threshold:g}" if check.met else f"✗ < {threshold:g}"


def _row(name: str, stats: Mapping[str, Any], threshold: float | None) -> str:
    # The results with a score (those of the mean and the pass rate), as in every report;
    # those scored by rule (no_claims, no_contexts) said beside.
    rule = by_rule(stats)
    cells = [
        name,
        _score(stats["mean"]),
        _interval(stats),
        f"{stats['n_scored']}/{stats['n']}" + (f" ({rule} by rule)" if rule else ""),
        _rate(stats.get("pass_rate")),
        _gate(stats["mean"], threshold),
    ]
    return "| " + " | ".join(cells) + " |"


def _max_error_rate(run: RunData) -> float:
    value = run.manifest.settings.get("max_error_rate")
    return float(value) if isinstance(value, int | float) else DEFAULT_MAX_ERROR_RATE


def markdown_summary(run: RunData, title: str = "veracity") -> str:
    """The summary table of ``run`` and a line on the judge, the results and the cost."""
    lines = [
        f"### {md(title)}",
        "",
        "| metric | mean | 95 % CI | scored | pass rate | threshold |",
        "| :-- | --: | --: | --: | --: | :-- |",
    ]
    calibrated_rows = False
    for metric, groups in run.metrics.items():
        threshold = run.thresholds.get(metric)
        lines.append(_row(f"**{md(metric)}**", groups[OVERALL], threshold))
        systems = groups.get("by_system") or {}
        if len(systems) > 1:
            for system, stats in systems.items():
                lines.append(_row(f"↳ {md(system)}", stats, threshold))
        row = _calibrated_row(metric, groups[OVERALL], run.thresholds)
        if row is not None:
            lines.append(row)
            calibrated_rows = True
    notes: list[str] = []
    for line in (calibrated_line(run.summary), reading_line(run.summary)):
        notes += [md(line), ""] if line is not None else []
    notes += [CALIBRATED_NOTE, ""] if calibrated_rows else []
    lines += ["", *notes, _footer(run), ""]
    return "\n".join(lines)


CALIBRATED_NOTE = (
    "*calibrated* rows: the calibrated probabilities (`--calibration`); their pass rate is "
    "the share at or above 0.5."
)


def _calibrated_row(
    metric: str, overall: Mapping[str, Any], thresholds: Mapping[str, float]
) -> str | None:
    """The row of a metric's calibrated probabilities, with their gate
    (``--threshold METRIC:calibrated=V``) as ``veracity run`` checks it; ``None`` for a
    metric without them and without such a gate."""
    gate = f"{metric}{CALIBRATED}"
    stats = overall.get("calibrated")
    if not isinstance(stats, Mapping) and gate not in thresholds:
        return None
    stats = stats if isinstance(stats, Mapping) else {}
    cells = [
        f"↳ *calibrated* ({md(gate)})",
        _score(stats.get("mean")),
        _interval(stats),
        f"{stats.get('n', 0)}/{overall['n']}",
        _rate(stats.get("pass_rate")),
        _gate(stats.get("mean"), thresholds.get(gate)),
    ]
    return "| " + " | ".join(cells) + " |"


def _footer(run: RunData) -> str:
    summary = run.summary
    defaults = [
        f"{md(metric)} {run.threshold(metric):g}"
        for metric in run.metrics
        if metric not in run.thresholds
    ]
    cost = cost_text(summary)
    parts = [
        f"judge `{md(run.judge.get('name', 'unknown'))}`" if run.judge else "judge unknown",
        f"{summary['results']} results",
        f"{summary.get('bad_rows', 0)} bad row(s)",
        f"{summary['usage']['calls']} judge calls",
        cost,
    ]
    text = "Scores in [0, 1]; pass rate: share of scored results at or above the threshold"
    if defaults:
        text += f" (no threshold given: {', '.join(defaults)} by default)"
    return f"{text}.<br>{' · '.join(parts)}"


def workflow_escape(text: str, *, property_value: bool = False) -> str:
    """Escaped for a GitHub Actions workflow command (its message, or a property), the
    other control characters as on the terminal (the command is printed there)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return visible(text)


def github_annotations(run: RunData) -> list[str]:
    """``::error`` lines for the thresholds the run's means miss, and a ``::warning``
    when judge errors left more results unscored than the run allowed."""
    lines = []
    for check in check_thresholds(run.summary, run.thresholds):
        if not check.met:
            title = workflow_escape(
                f"veracity: {check.metric} below its threshold", property_value=True
            )
            lines.append(f"::error title={title}::{workflow_escape(str(check))}")
    errors = check_error_rate(run.summary, _max_error_rate(run))
    if not errors.met:
        title = workflow_escape("veracity: judge errors", property_value=True)
        lines.append(f"::warning title={title}::{workflow_escape(str(errors))}")
    return lines
