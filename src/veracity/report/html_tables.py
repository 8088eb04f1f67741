"""The HTML tables of ``report.html``: the run header, the per-metric summary, and whatever
else ``summary.json`` holds. The summary is typed (:mod:`~veracity.report.summary_file`:
every field there, of its type); ``run.json`` is not yet, and is read defensively.

Every value is escaped with :func:`e`; nothing from a run reaches the page unescaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from veracity.report.groups import caveats, cost_text
from veracity.report.html_charts import Bar
from veracity.report.html_data import status_label
from veracity.report.keys import OVERALL
from veracity.store import Manifest

KNOWN_METRIC_KEYS = {
    OVERALL, "by_system", "by_question_type", "by_iteration", "threshold", "judge_variance",
}  # fmt: skip
MAX_ITEMS = 50


def e(value: object) -> str:
    return escape(str(value), quote=True)


def number(value: Any, digits: int = 3) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "—"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _real(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def bar_of(stats: Mapping[str, Any] | None) -> Bar | None:
    if stats is None or stats["mean"] is None:
        return None
    low, high = stats["ci95"] or (None, None)
    return Bar(stats["mean"], low, high, stats["n_scored"])


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def percent(value: Any) -> str:
    return f"{100 * float(value):.1f} %" if _real(value) else "—"


def _when(value: Any) -> Any:
    """An ISO timestamp made easier to read (other values as they are)."""
    if not isinstance(value, str) or "T" not in value:
        return value
    return value.replace("T", " ", 1).replace("+00:00", " UTC")


def run_header(manifest: Manifest, summary: Mapping[str, Any]) -> str:
    usage = mapping(summary.get("usage"))
    facts: list[tuple[str, Any]] = [
        ("judge", manifest.judge.name),
        ("model", manifest.judge.model),
        ("dataset", manifest.dataset.path or "(samples given in Python)"),
        ("started", _when(manifest.started_at)),
        ("finished", _when(manifest.finished_at)),
        ("status", manifest.status),
        ("cost", cost_text(summary, in_a_row=True)),
        ("judge calls", usage.get("calls")),
        (
            "tokens in / out",
            f"{usage.get('input_tokens', '—')} / {usage.get('output_tokens', '—')}",
        ),
        ("results", summary.get("results")),
        ("bad rows", summary.get("bad_rows", manifest.bad_rows)),
        ("iterations", manifest.settings.get("iterations")),
        ("veracity", manifest.veracity_version),
        ("error", manifest.error),
    ]
    items = "".join(
        f'<div class="fact"><dt>{e(k)}</dt><dd class="fact-{e(k.replace(" ", "-"))}">{e(v)}</dd>'
        "</div>"
        for k, v in facts
        if v is not None
    )
    return f'<dl class="facts">{items}</dl>'


def _statuses(stats: Mapping[str, Any]) -> str:
    counts = stats["counts_by_status"]
    shown = [f"{status_label(str(k))} {v}" for k, v in counts.items() if v and k != "scored"]
    return ", ".join([*shown, *caveats(stats)]) or "—"


def _labels(stats: Mapping[str, Any]) -> str:
    parts = []
    for key in ("classification", "grades", "passed"):
        if stats[key] is not None:
            words = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in stats[key]["counts"].items())
            parts.append(f"{key}: {words}")
    return "; ".join(parts) or "—"


def _threshold(value: Mapping[str, Any] | None) -> tuple[float | None, str]:
    """The threshold's value and its cell (marked ``(default)`` when none was given)."""
    if value is None:
        return None, "—"
    shown = e(number(value["value"]))
    if value["source"] == "default":
        shown += ' <span class="default">(default)</span>'
    return value["value"], shown


def mark(passed: bool) -> str:
    """The pass mark as text, so pass and fail never rest on colour alone."""
    return "✓" if passed else "✗"


def _mean_cell(mean: Any, threshold: float | None) -> str:
    if not _real(mean):
        return '<td class="num">—</td>'
    if threshold is None:
        return f'<td class="num">{e(number(mean))}</td>'
    passed = float(mean) >= threshold
    verdict = "at or above" if passed else "below"
    return (
        f'<td class="num mean {"pass" if passed else "fail"}" '
        f'title="{e(f"mean {verdict} the threshold {threshold:g}")}">'
        f'<span class="mark">{mark(passed)}</span> {e(number(mean))}</td>'
    )


def summary_table(metrics: Mapping[str, Any]) -> str:
    """One row per metric, the mean (against its threshold) first so it stays in view on
    a narrow screen; the labels column only where a metric has labels."""
    head = ["metric", "mean", "threshold", "pass rate", "95 % CI", "results", "scored",
            "median", "std", "min", "max", "other statuses"]  # fmt: skip
    labels = {metric: _labels(groups[OVERALL]) for metric, groups in metrics.items()}
    with_labels = any(text != "—" for text in labels.values())
    if with_labels:
        head.append("labels")
    rows = []
    for metric, groups in metrics.items():
        stats = groups[OVERALL]
        interval = stats["ci95"]
        threshold, threshold_cell = _threshold(groups["threshold"])
        cells = [
            percent(stats["pass_rate"]),
            "—" if interval is None else f"{interval[0]:.3f} – {interval[1]:.3f}",
            number(stats["n"]),
            number(stats["n_scored"]),
            number(stats["median"]),
            number(stats["std"]),
            number(stats["min"]),
            number(stats["max"]),
        ]
        rows.append(
            f'<tr><th scope="row">{e(metric)}</th>{_mean_cell(stats["mean"], threshold)}'
            f'<td class="num threshold">{threshold_cell}</td>'
            + "".join(f'<td class="num">{e(c)}</td>' for c in cells)
            + f"<td>{e(_statuses(stats))}</td>"
            + (f"<td>{e(labels[metric])}</td>" if with_labels else "")
            + "</tr>"
        )
    header = "".join(f'<th scope="col">{e(h)}</th>' for h in head)
    return (
        f'<table class="summary"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _spread(variance: Mapping[str, Any] | None, key: str) -> str:
    if variance is None:
        return "—"
    return f"{number(variance[key]['mean'])} / {number(variance[key]['max'])}"


def iteration_table(metrics: Mapping[str, Any]) -> str:
    """Mean per iteration and the judge variance of each metric, when a run has several
    iterations (``by_iteration`` and ``judge_variance`` in the summary)."""
    iterations = dict[str, None]()
    for groups in metrics.values():
        iterations.update(dict.fromkeys(groups["by_iteration"]))
    if len(iterations) < 2:
        return ""
    rows = []
    for metric, groups in metrics.items():
        by = groups["by_iteration"]
        cells = [number(by[it]["mean"]) if it in by else "—" for it in iterations]
        variance = groups["judge_variance"]
        cells += [
            _spread(variance, "std"),
            _spread(variance, "range"),
            percent(None if variance is None else variance["flip_rate"]),
        ]
        rows.append(
            f'<tr><th scope="row">{e(metric)}</th>'
            + "".join(f'<td class="num">{e(c)}</td>' for c in cells)
            + "</tr>"
        )
    head = "".join(f'<th scope="col">iteration {e(it)}</th>' for it in iterations)
    head += (
        '<th scope="col">per-item std (mean / max)</th>'
        '<th scope="col">per-item range (mean / max)</th><th scope="col">pass/fail flips</th>'
    )
    return (
        f'<table class="summary iterations"><thead><tr><th scope="col">metric</th>{head}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def generic(value: Any, depth: int = 0) -> str:
    """Any JSON value as nested HTML (lists of uniform objects as tables), escaped."""
    if isinstance(value, Mapping):
        if not value:
            return "—"
        if depth > 5:
            return f"<code>{e(value)}</code>"
        items = "".join(
            f"<div><dt>{e(k)}</dt><dd>{generic(v, depth + 1)}</dd></div>" for k, v in value.items()
        )
        return f'<dl class="generic">{items}</dl>'
    if isinstance(value, list | tuple):
        return _generic_list(value, depth)
    if isinstance(value, float):
        return e(number(value))
    return e("—" if value is None else value)


def _generic_list(items: Sequence[Any], depth: int) -> str:
    if not items:
        return "—"
    more = (
        f'<p class="more">… and {len(items) - MAX_ITEMS} more</p>' if len(items) > MAX_ITEMS else ""
    )
    shown = items[:MAX_ITEMS]
    if all(isinstance(i, Mapping) for i in shown):
        keys = list(dict.fromkeys(k for i in shown for k in i))
        if len(keys) <= 8:
            head = "".join(f'<th scope="col">{e(k)}</th>' for k in keys)
            body = "".join(
                "<tr>" + "".join(f"<td>{generic(i.get(k), depth + 1)}</td>" for k in keys) + "</tr>"
                for i in shown
            )
            return (
                f'<table class="generic"><thead><tr>{head}</tr></thead>'
                f"<tbody>{body}</tbody></table>{more}"
            )
    lis = "".join(f"<li>{generic(i, depth + 1)}</li>" for i in shown)
    return f'<ul class="generic">{lis}</ul>{more}'


def extras(metrics: Mapping[str, Any]) -> str:
    """Per-metric summary keys this report does not draw itself, shown as they are."""
    blocks = []
    for metric, groups in metrics.items():
        rest = {k: v for k, v in groups.items() if k not in KNOWN_METRIC_KEYS and v is not None}
        if rest:
            blocks.append(f"<details><summary>{e(metric)}</summary>{generic(rest)}</details>")
    return "".join(blocks)
