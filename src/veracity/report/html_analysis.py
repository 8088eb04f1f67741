"""The low-score analysis of ``summary.json`` as HTML: recommendations, severity, the worst
items with their failing claims (coloured by verdict), and the flagged patterns.

The section is read through its typed model (:class:`~veracity.report.summary_file.Analysis`),
so every part has its type; parts a later version adds are shown as they are (by
:func:`generic`). Every value is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from veracity.report.html_data import status_label
from veracity.report.html_tables import e, generic, mark, number
from veracity.report.tallies import CLAIM_COUNTS

# Summary key → column heading, in plain words.
SEVERITY_COLUMNS = {
    "threshold": "threshold",
    "scored": "scored",
    "with_score": "with a score (scored, or by rule)",
    "failing": "failing (below threshold)",
    "judge_errors": "judge errors",
    "unsupported_by_judge": "not supported by this judge",
}
MAX_WORST = 25


def _text(value: Any) -> str:
    if isinstance(value, float):
        return number(value)
    return "—" if value is None else str(value)


def analysis_section(value: Mapping[str, Any] | None) -> str:
    """All of the analysis; ``""`` when there is none."""
    if not value:
        return ""
    parts = [
        _recommendations(value["recommendations"]),
        _severity(value["severity"]),
        _worst(value["worst"]),
        _patterns(value["patterns"]),
    ]
    done = {"recommendations", "severity", "worst", "patterns", "worst_n"}
    rest = {k: v for k, v in value.items() if k not in done}
    if rest:
        parts.append(f"<details><summary>more</summary>{generic(rest)}</details>")
    return "".join(parts)


def _recommendations(items: Sequence[Mapping[str, Any]]) -> str:
    if not items:
        return '<h3>Recommendations</h3><p class="muted">No pattern strong enough to act on.</p>'
    lis = []
    for item in items:
        where = " · ".join(str(item[k]) for k in ("metric", "scope") if item[k])
        tag = f' <span class="muted">({e(where)})</span>' if where else ""
        lis.append(f"<li>{e(item['message'])}{tag}</li>")
    return f'<h3>Recommendations</h3><ul class="recommendations">{"".join(lis)}</ul>'


def _severity(rows: Mapping[str, Mapping[str, Any]]) -> str:
    if not rows:
        return ""
    bands = list(dict.fromkeys(b for s in rows.values() for b in s["bands"]))
    head = [
        "metric",
        *SEVERITY_COLUMNS.values(),
        *(f"score {b}" for b in bands),
        "claims of failing results",
    ]
    body = []
    for metric, stats in rows.items():
        cells = [_text(stats[c]) for c in SEVERITY_COLUMNS]
        cells += [_text(stats["bands"].get(b)) for b in bands]
        claims = stats["claims_in_failing"]
        notes = []
        if claims is not None:
            notes.append(_claims_words(claims))
        rubric = stats["rubric_overall"]
        if rubric is not None:
            notes.append("rubric overall " + ", ".join(f"{k}: {v}" for k, v in rubric.items()))
        claims_text = "; ".join(notes) or "—"
        body.append(
            f'<tr><th scope="row">{e(metric)}</th>'
            + "".join(f'<td class="num">{e(c)}</td>' for c in cells)
            + f"<td>{e(claims_text)}</td></tr>"
        )
    header = "".join(f'<th scope="col">{e(h)}</th>' for h in head)
    return (
        '<h3>Failures by severity</h3><div class="table-scroll"><table class="severity">'
        f"<thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _claims_words(claims: Mapping[str, Any]) -> str:
    """The claim counts of a metric's failing results as a sentence, e.g. "3 failing
    results, 1 with a contradicted claim; claims: 2 contradicted, 4 not enough info"."""
    rest = ", ".join(
        f"{k.replace('_', ' ')} {v}"
        for k, v in claims.items()
        if k not in CLAIM_COUNTS and v is not None
    )
    if claims["results"] == 0 and not rest:
        return "no failing result"
    text = (
        f"{_plural(claims['results'], 'failing result')}, "
        f"{claims['results_with_contradicted']} with a contradicted claim; claims: "
        f"{claims['contradicted']} contradicted, {claims['not_enough_info']} not enough info"
    )
    return "; ".join(x for x in (text, rest) if x)


def _claim_list(claims: Sequence[Mapping[str, Any]]) -> str:
    if not claims:
        return ""
    lis = []
    for claim in claims:
        verdict, kind = claim["verdict"], claim["kind"]
        css = "".join(ch for ch in verdict if ch.isalnum() or ch == "_")
        label = verdict.replace("_", " ") + (f" {kind}" if kind and kind != "claim" else "")
        lis.append(
            f'<li class="verdict verdict-{css}"><div class="verdict-line">'
            f'<span class="verdict-label">{e(label)}</span>'
            f'<span class="item-text">{e(claim["claim"])}</span></div>'
            + (
                f'<p class="attribution">{e(claim["citations"])}</p>'
                if claim.get("citations")
                else ""
            )
            + (f'<p class="item-reason">{e(claim["reason"])}</p>' if claim["reason"] else "")
            + (
                f'<blockquote class="evidence">{e(claim["evidence"])}</blockquote>'
                if claim["evidence"]
                else ""
            )
            + "</li>"
        )
    return f'<ul class="claims">{"".join(lis)}</ul>'


def _score_cell(entry: Mapping[str, Any]) -> str:
    """The score with its pass mark and, when not plainly scored, its status in words."""
    text = _text(entry["score"])
    if entry["status"] != "scored":
        text = f"{status_label(entry['status'])} · {text}"
    text = f"{mark(not entry['failing'])} {text}"
    return f'<td class="num">{e(text)}</td>'


def _worst_row(entry: Mapping[str, Any]) -> str:
    extra = [f"{key} {entry[key]}" for key in ("grade", "classification") if entry[key]]
    extra += [
        f"{d['name']} {_text(d['score'])}/5 (minimum {_text(d['minimum'])}): {d['reasoning']}"
        for d in entry["failing_dimensions"]
    ]
    if entry["more_failing_claims"]:
        extra.append(f"… and {entry['more_failing_claims']} more failing claim(s)")
    notes = "".join(f'<p class="item-reason">{e(x)}</p>' for x in extra)
    cells = [entry[k] for k in ("sample_id", "system", "question_type", "iteration")]
    return (
        "<tr>"
        + "".join(f"<td>{e(_text(c))}</td>" for c in cells)
        + _score_cell(entry)
        + f"<td>{e(entry['reason'] or '—')}{notes}{_claim_list(entry['failing_claims'])}"
        + "</td></tr>"
    )


def _worst(worst: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    blocks = []
    for metric, entries in worst.items():
        if not entries:
            continue
        rows = "".join(_worst_row(x) for x in entries[:MAX_WORST])
        head = "".join(
            f'<th scope="col">{h}</th>'
            for h in ("sample", "system", "type", "iteration", "score", "why")
        )
        blocks.append(
            f"<details><summary>{e(metric)}: {len(entries)} lowest score(s)</summary>"
            f'<div class="table-scroll"><table class="worst"><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table></div></details>"
        )
    return "<h3>Worst items</h3>" + "".join(blocks) if blocks else ""


def _patterns(patterns: Mapping[str, Mapping[str, Any]]) -> str:
    if not patterns:
        return ""
    flagged = [
        _flag(metric, dimension, group, stats)
        for metric, by in patterns.items()
        for dimension in ("by_system", "by_question_type")
        for group, stats in by[dimension].items()
        if stats["flagged"]
    ]
    listed = (
        f'<ul class="flagged">{"".join(flagged)}</ul>'
        if flagged
        else '<p class="muted">No system or question type fails notably more than average.</p>'
    )
    return (
        f"<h3>Patterns</h3>{listed}"
        f"<details><summary>all groups</summary>{generic(patterns)}</details>"
    )


def _flag(metric: str, dimension: str, group: str, stats: Mapping[str, Any]) -> str:
    what = dimension.removeprefix("by_").replace("_", " ")
    ratio = stats["ratio_to_average"]
    facts: Sequence[str] = [
        f"failure rate {_text(stats['failure_rate'])}",
        f"{_text(ratio)}× the average" if ratio is not None else "",
        f"mean {_text(stats['mean'])}",
    ]
    return f"<li>{e(metric)} · {e(what)} {e(group)}: {e(', '.join(f for f in facts if f))}</li>"
