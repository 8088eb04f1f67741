"""A run in a Jupyter notebook: a progress line in the cell, and the result as a table.

IPython is never imported here: a notebook has it loaded already, and elsewhere none of
this is used.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from html import escape
from typing import Any

from veracity.report.console import usage_line
from veracity.report.groups import ci, pct
from veracity.report.keys import OVERALL
from veracity.types import ResultRecord, Usage


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (a notebook, JupyterLab, VS Code, Colab)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def _clock(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


class _Line:
    """One state of the progress line, as HTML and as plain text."""

    def __init__(self, text: str, done: int, total: int | None, finished: bool) -> None:
        self.text, self.done, self.total, self.finished = text, done, total, finished

    def _repr_html_(self) -> str:
        if self.finished:
            bar = ""
        elif self.total is None:
            bar = "<progress></progress> "  # no value: an indeterminate bar
        else:
            bar = f'<progress value="{self.done}" max="{self.total}"></progress> '
        return f"<div>{bar}<span>{escape(self.text)}</span></div>"

    def __repr__(self) -> str:
        return self.text


class NotebookProgress:
    """Results counted as they finish (``__call__``, from the run's thread) and shown in
    the cell's output, redrawn by :meth:`refresh` from the notebook's own thread.

    ``total`` is the number of results expected (``None``: unknown); a run that brings
    more (rows with ``answers`` expand into several samples) shows a count only.
    """

    def __init__(self, total: int | None) -> None:
        from IPython.display import display

        self.total, self.done = total, 0
        self.usage, self.cost = Usage(), 0.0
        self._started = time.monotonic()
        self._shown = -1
        self._handle = display(self._line(None), display_id=True)  # type: ignore[no-untyped-call]

    def __call__(self, record: ResultRecord) -> None:
        self.usage += record.usage
        self.cost += record.cost_usd or 0.0
        self.done += 1

    def refresh(self) -> None:
        if self.done != self._shown:
            self._shown = self.done
            self._handle.update(self._line(None))

    def finish(self, error: BaseException | None) -> None:
        """The last state: what was judged in how long, or where the run stopped."""
        self._handle.update(self._line(error if error is not None else False))

    def _line(self, ending: BaseException | bool | None) -> _Line:
        total = self.total if self.total is not None and self.done <= self.total else None
        count = f"{self.done}/{total}" if total is not None else str(self.done)
        elapsed = _clock(time.monotonic() - self._started)
        spent = ""
        if self.usage.calls or self.usage.cached_calls:
            tokens = self.usage.input_tokens + self.usage.output_tokens
            spent = f" · {self.usage.calls} calls · {tokens:,} tokens · ${self.cost:.4f}"
        if ending is None:
            text = f"judging: {count} results · {elapsed}{spent}"
        elif ending is False:
            text = f"judged {self.done} results in {elapsed}{spent}"
        else:
            text = f"stopped after {self.done} results ({type(ending).__name__}){spent}"
        return _Line(text, self.done, total, finished=ending is not None)


def summary_html(summary: Mapping[str, Any], run_dir: str | None) -> str:
    """The summary as an HTML table: per metric (and per system when there are several)
    the mean, its 95 % CI, the pass rate at the threshold and how many were scored —
    the console's table, figures ×100. Every text from the data is escaped."""
    rows = []
    for metric, groups in summary.get("metrics", {}).items():
        threshold = (groups.get("threshold") or {}).get("value")
        rows.append(_row(f"<b>{escape(metric)}</b>", groups[OVERALL], threshold))
        systems = groups.get("by_system") or {}
        if len(systems) > 1:
            rows.extend(
                _row(f"&nbsp;&nbsp;{escape(str(system))}", stats, threshold)
                for system, stats in systems.items()
            )
    head = "".join(
        f'<th style="text-align:{align}">{name}</th>'
        for name, align in (("metric", "left"), ("mean", "right"), ("95% CI", "right"),
                            ("pass", "right"), ("scored", "right"))
    )  # fmt: skip
    where = f"<br>run directory: <code>{escape(run_dir)}</code>" if run_dir else ""
    usage = escape(usage_line(summary)) if "usage" in summary else ""
    return (
        '<div class="veracity-result"><table>'
        "<caption>veracity summary (scores ×100)</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        f"<small>{usage}{where}</small></div>"
    )


def _row(name: str, stats: Mapping[str, Any], threshold: float | None) -> str:
    at = "" if threshold is None else f" (≥ {threshold:g})"
    # Scored as every report counts it: the results the mean and pass rate are over.
    scored = f"{stats.get('n_scored', 0)}/{stats.get('n', 0)}"
    cells = (pct(stats.get("mean")), ci(stats), pct(stats.get("pass_rate")) + at, scored)
    return (
        f"<tr><td>{name}</td>"
        + "".join(f'<td style="text-align:right">{escape(cell)}</td>' for cell in cells)
        + "</tr>"
    )
