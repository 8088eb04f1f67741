"""The agreement page (``veracity agree --html``), built through the real code path from
results and labels: its sections and figures, its charts, hostile text escaped, nothing
fetched, and the paired table for two runs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.html.page import Element, Row, columns, parse, rows, tags, terms
from veracity.agreement.html import render_agreement_html, write_agreement_html
from veracity.agreement.report import AgreementReport, agreement_report
from veracity.labels import parse_scales, read_labels
from veracity.types import ResultRecord, Sample, Status

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror="window.__pwned=1">'
CONTROL = "bell\x07 escape\x1b[2J nul\x00 c1\x9b end"
HOSTILE_ID = f"id-{SCRIPT}-{IMG}"
HOSTILE_SYSTEM = f"sys {IMG}"
LONG_ID = "/very/long/unbroken/path/" + "x" * 240
SYSTEMS = ("baseline", HOSTILE_SYSTEM)
THRESHOLDS = {"faithfulness": 0.5}


def _ids() -> list[str]:
    ids = [f"s{i:02d}" for i in range(18)]
    ids[3], ids[4] = HOSTILE_ID, LONG_ID
    return ids


def _good(i: int) -> bool:
    return i % 3 != 0


def _score(i: int, s: int, shift: float) -> float:
    """Scores that mostly agree with the labels, with a few disagreements each way."""
    if _good(i):
        base = 0.55 + 0.4 * ((i * 7 + s) % 10) / 10
    else:
        base = 0.05 + 0.6 * ((i * 3 + s) % 10) / 10
    if i in (4, 7):  # labelled good, scored low
        base = 0.1
    return round(min(max(base + shift, 0.0), 1.0), 3)


def _claims(i: int, good: bool) -> list[dict[str, Any]]:
    return [
        {"claim": f"Claim one of {i} {SCRIPT}", "verdict": "supported", "p_supported": 0.9,
         "reason": f"stated in context 1 {IMG}", "evidence": f"the context says so {CONTROL}"},
        {"claim": f"Claim two of {i}", "verdict": "supported" if good else "contradicted",
         "p_supported": 0.8 if good else 0.1, "reason": f"reason {i} {LONG_ID}",
         "evidence": ""},
    ]  # fmt: skip


def _record(metric: str, sample_id: str, system: str, score: float | None, **more: Any) -> Any:
    status = Status.SCORED if score is not None else Status.JUDGE_ERROR
    return ResultRecord(metric=metric, score=score, status=status, sample_id=sample_id,
                        system=system, iteration=0, **more)  # fmt: skip


def _records(shift: float = 0.0) -> list[ResultRecord]:
    records = []
    for s, system in enumerate(SYSTEMS):
        for i, sample_id in enumerate(_ids()):
            score = _score(i, s, shift)
            claims = _claims(i, score >= 0.5)
            reason = f"{score:.2f} of claims supported {SCRIPT}"
            details = {"claims": claims, "n_claims": len(claims)}
            records.append(
                _record("faithfulness", sample_id, system, score, reason=reason, details=details)
            )
            grade = 1 + round(4 * min(max(score + (0.1 if i % 4 else -0.2), 0), 1))
            records.append(
                _record("answer_relevance", sample_id, system, (grade - 1) / 4, reason="relevant")
            )
    records.append(_record("faithfulness", "unjudged", "baseline", None, reason=f"no {SCRIPT}"))
    return records


def _labels() -> Any:
    rows: list[dict[str, Any]] = []
    for s, system in enumerate(SYSTEMS):
        for i, sample_id in enumerate(_ids()):
            good = _good(i)
            rows.append({"id": sample_id, "system": system, "faithfulness": good,
                         "annotator": "alice", "answer_relevance": 1 + (i + s) % 5})  # fmt: skip
            if i % 2 == 0:  # a second annotator, who mostly agrees
                rows.append({"id": sample_id, "system": system, "annotator": f"bob {SCRIPT}",
                             "faithfulness": good if i % 6 else not good})  # fmt: skip
    rows.append({"id": "ghost", "system": "baseline", "faithfulness": True})
    rows.append({"id": "unjudged", "system": "baseline", "faithfulness": False})
    return read_labels(rows, scales=parse_scales(["answer_relevance=1:5"]))


def _samples() -> dict[tuple[str, str | None], Sample]:
    question, answer = "What about {}? " + SCRIPT, f"An answer {IMG} {CONTROL} {LONG_ID}"
    return {
        (i, s): Sample(id=i, system=s, question=question.format(i), answer=answer, contexts=["c"])
        for s in SYSTEMS
        for i in _ids()
    }


def one_run() -> AgreementReport:
    return agreement_report(
        [("runs/a", _records(), THRESHOLDS)], _labels(), _samples(), resamples=200
    )


def two_runs() -> AgreementReport:
    return agreement_report(
        [("runs/a", _records(), THRESHOLDS), (f"runs/b {SCRIPT}", _records(0.15), THRESHOLDS)],
        _labels(),
        _samples(),
        resamples=200,
    )


@pytest.fixture(scope="module")
def page() -> str:
    return render_agreement_html(one_run())


@pytest.fixture(scope="module")
def paired_page() -> str:
    return render_agreement_html(two_runs())


def _figures(section: Element) -> dict[str, Row]:
    """The rows of a section's table of figures, by their heading (all items, a system)."""
    return {row.heading: row for row in rows(section.find("table", cls="figures"))}


def test_sections_per_metric_with_header_and_figures(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    doc = parse(page)
    faithfulness, relevance = one_run().metrics[0]
    sections = [doc.find("section", id=f"agreement-0-{n}") for n in (0, 1)]
    assert [section.find("h2").text for section in sections] == [
        "faithfulness against people's 'faithfulness'",
        "answer_relevance against people's 'answer_relevance'",
    ]
    binary, grade = sections
    for fact in ("people's label", "threshold", "labelled good", "best threshold"):
        assert fact in terms(binary)
    figures = {"AUROC", "bal. acc.", "bal. acc. (cv)", "κ"}
    assert figures | {"Brier", "ECE"} <= set(columns(binary.find("table", cls="figures")))
    # The grade target adds weighted κ and Spearman; it is not probability-like.
    grade_columns = set(columns(grade.find("table", cls="figures")))
    assert figures | {"weighted κ", "Spearman"} <= grade_columns
    assert not {"Brier", "ECE"} & grade_columns
    # Overall and per system, each with a 95 % interval.
    by_heading = _figures(binary)
    assert {"all", "baseline", HOSTILE_SYSTEM} <= set(by_heading)
    auroc = faithfulness.overall.figures.auroc
    assert auroc.value is not None and auroc.ci95 is not None
    shown = by_heading["all"].cells["AUROC"]
    assert shown.own_text == f"{auroc.value:.3f}"
    assert shown.find("span", cls="ci").text == f"{auroc.ci95[0]:.3f}–{auroc.ci95[1]:.3f}"
    for row in by_heading.values():
        assert re.fullmatch(r"\d\.\d{3}", row.cells["AUROC"].own_text)
        assert re.fullmatch(r"-?\d\.\d{3}–\d\.\d{3}", row.cells["AUROC"].find(cls="ci").text)
    assert "95 % bootstrap interval" in doc.text
    assert _figures(grade)["all"]["n"] == str(relevance.overall.figures.n)


def test_charts_confusion_and_what_was_not_used(page: str) -> None:
    doc = parse(page)
    faithfulness = one_run().metrics[0][0]
    assert len(doc.find_all("svg", cls="agreement-chart")) == 3  # ROC ×2, reliability ×1
    assert len(doc.find_all(cls="roc")) == 6  # all items and two systems, for both metrics
    assert len(doc.find_all(cls="diagonal")) == 3
    captions = [caption.text for caption in doc.find_all("figcaption")]
    auroc = faithfulness.overall.figures.auroc.value
    assert any(caption.startswith(f"ROC · AUROC {auroc:.3f}") for caption in captions)
    bins = faithfulness.overall.figures.reliability
    assert len(doc.find_all(cls="bin")) == len(bins)
    assert [int(count.own_text) for count in doc.find_all(cls="bin-count")] == [
        b["n"] for b in bins
    ]
    # The confusion table: counts where score and people agree, and where they do not.
    c = faithfulness.overall.figures.confusion
    section = doc.find("section", id="agreement-0-0")
    confusion = {row.heading: row for row in rows(section.find("table", cls="confusion"))}
    good, bad = confusion["labelled good"], confusion["labelled bad"]
    assert (good["score ≥ 0.5"], good["score < 0.5"]) == (str(c["tp"]), str(c["fn"]))
    assert (bad["score ≥ 0.5"], bad["score < 0.5"]) == (str(c["fp"]), str(c["tn"]))
    agreeing = {good.cells["score ≥ 0.5"], bad.cells["score < 0.5"]}
    assert all("agree-cell" in cell.classes for cell in agreeing)
    disagreeing = {good.cells["score < 0.5"], bad.cells["score ≥ 0.5"]}
    assert all("disagree-cell" in cell.classes for cell in disagreeing)
    text = doc.text
    assert "1 unscored (judge_error)" in text
    assert "1 label(s) without a result (e.g. id 'ghost')" in text
    assert faithfulness.as_dict()["missing_ids"] == ["ghost"]
    ia = faithfulness.inter_annotator
    assert ia is not None and ia.items
    assert "People among themselves" in text
    assert f"{ia.items} item(s) with two votes or more" in text


def test_small_samples_and_the_resamples_are_explained(page: str) -> None:
    # 18 items per system: fewer than 30, flagged; the count of resamples is the one drawn.
    faithfulness = one_run().metrics[0][0]
    assert any("few labelled items" in c for c in faithfulness.caveats())
    text = parse(page).text
    assert "few labelled items (" in text and "below 30" in text
    assert "(200 resamples of items)" in text


def test_disagreements_in_both_directions_with_claims(page: str) -> None:
    doc = parse(page)
    faithfulness = one_run().metrics[0][0]
    missed, alarms = faithfulness.overall.missed, faithfulness.overall.false_alarms
    assert missed and alarms
    headings = [h3.text for h3 in doc.find("section", id="agreement-0-0").find_all("h3")]
    assert f"Labelled good, scored low ({len(missed)})" in headings
    assert f"Labelled bad, scored high ({len(alarms)})" in headings
    assert f"score {missed[0].score:.3f} · label 1" in doc.text
    # Each claim is shown with its verdict, named and as the class that colours it.
    claims = doc.find_all("li", cls="verdict")
    verdicts = [claim.find(cls="verdict-label").text for claim in claims]
    assert all(
        f"verdict-{verdict}" in c.classes for verdict, c in zip(verdicts, claims, strict=True)
    )
    assert verdicts.count("supported") >= 2 and "contradicted" in verdicts
    assert "p 0.90" in [p.text for p in doc.find_all(cls="p-supported")]
    assert {"votes", "question", "answer"} <= set(terms(doc))
    evidence = [quote.text for quote in doc.find_all("blockquote", cls="evidence")]
    assert evidence and all(quote.startswith("the context says so") for quote in evidence)


def test_hostile_text_is_escaped(page: str, paired_page: str) -> None:
    for html in (page, paired_page):
        doc = parse(html)
        names = tags(doc)
        assert "script" not in names
        assert "img" not in names
        assert not any(k.startswith("on") for e in doc.descendants() for k in e.attrs)
        text = doc.text
        assert SCRIPT in text  # shown, as text
        assert 'onerror="window.__pwned=1"' in text
        assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", html)
        assert r"bell\x07 escape\x1b[2J nul\x00 c1\x9b end" in text


def test_self_contained(page: str, paired_page: str) -> None:
    for html in (page, paired_page):
        doc = parse(html)
        links = [e.attrs.get(a) or "" for e in doc.descendants() for a in ("src", "href")]
        assert not any(re.match(r"\s*(https?:|//)", link, re.I) for link in links)
        assert "url(" not in html  # nothing fetched from a style either
        assert "@import" not in html
        csp = doc.find("meta", http_equiv="Content-Security-Policy").attrs["content"] or ""
        assert "default-src 'none'" in csp


def test_two_runs_show_the_paired_table(page: str, paired_page: str) -> None:
    assert parse(page).find_all(id="paired") == []
    doc = parse(paired_page)
    paired = doc.find(id="paired")
    report = two_runs()
    assert report.paired
    table = paired.find("table")
    assert {"figure", "B − A", "95 % CI", "reading", "A", "B"} <= set(columns(table))
    shown = rows(table)
    readings = [row["reading"] for row in shown]
    assert len(readings) == sum(len(p.figures) for p in report.paired)
    assert set(readings) <= {"B better", "B worse", "no clear difference"} | {
        e.reason for p in report.paired for e in p.figures.values() if e.reason
    }
    first = report.paired[0]
    group = f"faithfulness · {first.n} item(s) in both runs"
    assert group in {row.group for row in shown}
    auroc = first.figures["auroc"]
    assert auroc.diff is not None
    [row] = [row for row in shown if row.group == group and row.heading == "AUROC"]
    assert row["B − A"] == f"{auroc.diff:+.3f}"
    # Both runs' sections, named.
    assert doc.find_all("section", id="agreement-1-0")
    assert f"runs/b {SCRIPT}" in doc.text


def test_reading_follows_the_interval_and_the_direction() -> None:
    from veracity.agreement.html import _reading
    from veracity.agreement.model import PairedEstimate

    up = PairedEstimate(0.5, 0.7, 0.2, (0.1, 0.3))
    down = PairedEstimate(0.7, 0.5, -0.2, (-0.3, -0.1))
    both = PairedEstimate(0.5, 0.55, 0.05, (-0.1, 0.2))
    assert _reading("auroc", up)[0] == "B better"
    assert _reading("auroc", down)[0] == "B worse"
    assert _reading("brier", up)[0] == "B worse"  # a higher Brier score is worse
    assert _reading("ece", down)[0] == "B better"
    assert _reading("kappa", both)[0] == "no clear difference"
    assert _reading("kappa", PairedEstimate(None, 0.5, None, None, "why"))[0] == "why"


def test_write_creates_the_file(tmp_path: Path) -> None:
    out = write_agreement_html(one_run(), tmp_path / "deep" / "agreement.html")
    assert out == tmp_path / "deep" / "agreement.html"
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert html.rstrip().endswith("</html>")


def test_lone_surrogates_do_not_break_writing(tmp_path: Path) -> None:
    records = [
        ResultRecord(metric="faithfulness", score=0.9 if i % 2 else 0.2, status=Status.SCORED,
                     reason="odd \ud800 text", sample_id=f"x{i}", system=None, iteration=0)
        for i in range(6)
    ]  # fmt: skip
    labels = read_labels([{"id": f"x{i}", "faithfulness": i % 3 == 0} for i in range(6)])
    report = agreement_report([("run", records, {})], labels, resamples=50)
    html = write_agreement_html(report, tmp_path / "a.html").read_text(encoding="utf-8")
    assert "\\ud800" in html
