"""The low-score analysis of ``summary.json`` as HTML: recommendations, severity, the worst
items with their failing claims (coloured by verdict), and the flagged patterns.

Read defensively: a part that is missing or shaped otherwise is shown as it is (by
:func:`generic`) or left out; every value is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from veracity.report.html_data import status_label
from veracity.report.html_tables import e, generic, mark, number

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


def _is_map(value: Any) -> bool:
    return isinstance(value, Mapping)


def _text(value: Any) -> str:
    if isinstance(value, float):
        return number(value)
    return "—" if value is None else str(value)


def analysis_section(value: Any) -> str:
    """All of the analysis; ``""`` when there is none."""
    if not _is_map(value) or not value:
        return e(value) if isinstance(value, str) else ""
    parts = [
        _recommendations(value.get("recommendations")),
        _severity(value.get("severity")),
        _worst(value.get("worst")),
        _patterns(value.get("patterns")),
    ]
    done = {"recommendations", "severity", "worst", "patterns", "worst_n"}
    rest = {k: v for k, v in value.items() if k not in done}
    if rest:
        parts.append(f"<details><summary>more</summary>{generic(rest)}</details>")
    return "".join(parts)


def _recommendations(items: Any) -> str:
    if not isinstance(items, list):
        return ""
    if not items:
        return '<h3>Recommendations</h3><p class="muted">No pattern strong enough to act on.</p>'
    lis = []
    for item in items:
        if _is_map(item) and isinstance(item.get("message"), str):
            where = " · ".join(str(item[k]) for k in ("metric", "scope") if item.get(k))
            tag = f' <span class="muted">({e(where)})</span>' if where else ""
            lis.append(f"<li>{e(item['message'])}{tag}</li>")
        else:
            lis.append(f"<li>{generic(item)}</li>")
    return f'<h3>Recommendations</h3><ul class="recommendations">{"".join(lis)}</ul>'


def _severity(severity: Any) -> str:
    if not _is_map(severity) or not severity:
        return ""
    rows = {m: s for m, s in severity.items() if _is_map(s)}
    bands = list(
        dict.fromkeys(b for s in rows.values() if _is_map(s.get("bands")) for b in s["bands"])
    )
    head = [
        "metric",
        *SEVERITY_COLUMNS.values(),
        *(f"score {b}" for b in bands),
        "claims of failing results",
    ]
    body = []
    for metric, stats in rows.items():
        cells = [_text(stats.get(c)) for c in SEVERITY_COLUMNS]
        band_counts = stats.get("bands") if _is_map(stats.get("bands")) else {}
        cells += [_text(band_counts.get(b)) for b in bands]
        claims = stats.get("claims_in_failing")
        notes = []
        if _is_map(claims):
            notes.append(_claims_words(claims))
        rubric = stats.get("rubric_overall")
        if _is_map(rubric):
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


def _plural(count: Any, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _claims_words(claims: Mapping[str, Any]) -> str:
    """The claim counts of a metric's failing results as a sentence, e.g. "3 failing
    results, 1 with a contradicted claim; claims: 2 contradicted, 4 not enough info"."""
    known = ("results", "results_with_contradicted", "contradicted", "not_enough_info")
    if claims.get("results") == 0 and set(claims) <= set(known):
        return "no failing result"
    parts = []
    if "results" in claims:
        parts.append(_plural(claims["results"], "failing result"))
    if "results_with_contradicted" in claims:
        parts.append(f"{claims['results_with_contradicted']} with a contradicted claim")
    counts = [
        f"{claims[k]} {k.replace('_', ' ')}"
        for k in ("contradicted", "not_enough_info")
        if k in claims
    ]
    text = ", ".join(parts) + ("; claims: " + ", ".join(counts) if counts else "")
    rest = [f"{k.replace('_', ' ')} {v}" for k, v in claims.items() if k not in known]
    return "; ".join(x for x in (text, ", ".join(rest)) if x)


def _claim_list(claims: Any) -> str:
    if not isinstance(claims, list) or not claims:
        return ""
    lis = []
    for claim in claims:
        if not _is_map(claim):
            lis.append(f'<li class="verdict">{generic(claim)}</li>')
            continue
        verdict = str(claim.get("verdict") or "")
        css = "".join(ch for ch in verdict if ch.isalnum() or ch == "_")
        text = claim.get("claim", claim.get("statement", claim.get("text", "")))
        kind = str(claim.get("kind") or "")
        label = verdict.replace("_", " ") + (f" {kind}" if kind and kind != "claim" else "")
        evidence = claim.get("evidence")
        lis.append(
            f'<li class="verdict verdict-{css}"><div class="verdict-line">'
            f'<span class="verdict-label">{e(label)}</span>'
            f'<span class="item-text">{e(_text(text))}</span></div>'
            + (f'<p class="item-reason">{e(claim["reason"])}</p>' if claim.get("reason") else "")
            + (f'<blockquote class="evidence">{e(evidence)}</blockquote>' if evidence else "")
            + "</li>"
        )
    return f'<ul class="claims">{"".join(lis)}</ul>'


def _score_cell(entry: Mapping[str, Any]) -> str:
    """The score with its pass mark and, when not plainly scored, its status in words."""
    text = _text(entry.get("score"))
    status = entry.get("status")
    if isinstance(status, str) and status != "scored":
        text = f"{status_label(status)} · {text}"
    failing = entry.get("failing")
    if isinstance(failing, bool):
        text = f"{mark(not failing)} {text}"
    return f'<td class="num">{e(text)}</td>'


def _worst_row(entry: Mapping[str, Any]) -> str:
    extra = []
    for key in ("grade", "classification"):
        if entry.get(key) is not None:
            extra.append(f"{key} {entry[key]}")
    dims = entry.get("failing_dimensions")
    if isinstance(dims, list):
        extra += [
            f"{d.get('name')} {d.get('score')}/5 (minimum {d.get('minimum')}): {d.get('reasoning')}"
            for d in dims
            if _is_map(d)
        ]
    if entry.get("more_failing_claims"):
        extra.append(f"… and {entry['more_failing_claims']} more failing claim(s)")
    notes = "".join(f'<p class="item-reason">{e(x)}</p>' for x in extra)
    cells = [entry.get(k) for k in ("sample_id", "system", "question_type", "iteration")]
    return (
        "<tr>"
        + "".join(f"<td>{e(_text(c))}</td>" for c in cells)
        + _score_cell(entry)
        + f"<td>{e(_text(entry.get('reason')))}{notes}{_claim_list(entry.get('failing_claims'))}"
        + "</td></tr>"
    )


def _worst(worst: Any) -> str:
    if not _is_map(worst):
        return ""
    blocks = []
    for metric, entries in worst.items():
        if not isinstance(entries, list) or not entries:
            continue
        rows = "".join(_worst_row(x) if _is_map(x) else "" for x in entries[:MAX_WORST])
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


def _patterns(patterns: Any) -> str:
    if not _is_map(patterns) or not patterns:
        return ""
    flagged = []
    for metric, by in patterns.items():
        if not _is_map(by):
            continue
        for dimension, groups in by.items():
            if not _is_map(groups):
                continue
            for group, stats in groups.items():
                if _is_map(stats) and stats.get("flagged") is True:
                    flagged.append(_flag(metric, dimension, group, stats))
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
    ratio = stats.get("ratio_to_average")
    facts: Sequence[str] = [
        f"failure rate {_text(stats.get('failure_rate'))}",
        f"{_text(ratio)}× the average" if isinstance(ratio, int | float) else "",
        f"mean {_text(stats.get('mean'))}",
    ]
    return f"<li>{e(metric)} · {e(what)} {e(group)}: {e(', '.join(f for f in facts if f))}</li>"
