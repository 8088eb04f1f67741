"""The agreement page (``veracity agree --html``), built through the real code path from
results and labels: its sections and figures, its charts, hostile text escaped, nothing
fetched, and the paired table for two runs."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

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


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text of the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    return parser


def test_sections_per_metric_with_header_and_figures(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    assert 'id="agreement-0-0"' in page
    assert 'id="agreement-0-1"' in page
    assert "faithfulness against people&#x27;s &#x27;faithfulness&#x27;" in page
    assert "answer_relevance against people&#x27;s &#x27;answer_relevance&#x27;" in page
    for fact in ("people&#x27;s label", "threshold", "labelled good", "best threshold"):
        assert f"<dt>{fact}</dt>" in page
    for head in ("AUROC", "bal. acc.", "bal. acc. (cv)", "κ", "Brier", "ECE"):
        assert f'<th scope="col">{head}</th>' in page
    # The grade target adds weighted κ and Spearman; it is not probability-like.
    assert '<th scope="col">weighted κ</th>' in page
    assert '<th scope="col">Spearman</th>' in page
    # Overall and per system, each with a 95 % interval.
    assert '<th scope="row">all</th>' in page
    assert '<th scope="row">baseline</th>' in page
    cell = r'<td class="num">\d\.\d{3}<span class="ci">-?\d\.\d{3}–\d\.\d{3}</span>'
    assert re.search(cell, page)
    assert "95 % bootstrap interval" in page


def test_charts_confusion_and_what_was_not_used(page: str) -> None:
    report = one_run()
    faithfulness = report.metrics[0][0]
    assert page.count('<svg class="chart agreement-chart"') == 3  # ROC ×2, reliability ×1
    assert page.count('class="roc"') == 6  # all items and two systems, for both metrics
    assert page.count('class="diagonal"') == 3
    assert "ROC · AUROC " + f"{faithfulness.overall.figures.auroc.value:.3f}" in page
    bins = faithfulness.overall.figures.reliability
    assert page.count('class="bin"') == len(bins)
    assert [int(n) for n in re.findall(r'class="bin-count"[^>]*>(\d+)<', page)] == [
        b["n"] for b in bins
    ]
    c = faithfulness.overall.figures.confusion
    assert f'<td class="agree-cell">{c["tp"]}</td><td class="disagree-cell">{c["fn"]}</td>' in page
    assert "1 unscored (judge_error)" in page
    assert "1 label(s) without a result (e.g. id &#x27;ghost&#x27;)" in page
    assert faithfulness.as_dict()["missing_ids"] == ["ghost"]
    ia = faithfulness.inter_annotator
    assert ia is not None and ia.items
    assert "People among themselves" in page
    assert f"{ia.items} item(s) with two votes or more" in page


def test_small_samples_and_the_resamples_are_explained(page: str) -> None:
    # 18 items per system: fewer than 30, flagged; the count of resamples is the one drawn.
    faithfulness = one_run().metrics[0][0]
    assert any("few labelled items" in c for c in faithfulness.caveats())
    assert "few labelled items (" in page and "below 30" in page
    assert "(200 resamples of items)" in page


def test_disagreements_in_both_directions_with_claims(page: str) -> None:
    faithfulness = one_run().metrics[0][0]
    assert faithfulness.overall.missed and faithfulness.overall.false_alarms
    assert "Labelled good, scored low (" in page
    assert "Labelled bad, scored high (" in page
    missed = faithfulness.overall.missed[0]
    assert f"score {missed.score:.3f} · label 1" in page
    assert page.count('<li class="verdict verdict-supported">') >= 2
    assert '<li class="verdict verdict-contradicted">' in page
    assert '<span class="p-supported">p 0.90</span>' in page
    assert "<dt>votes</dt>" in page
    assert "<dt>question</dt>" in page
    assert "<dt>answer</dt>" in page
    assert '<blockquote class="evidence">' in page


def test_hostile_text_is_escaped(page: str, paired_page: str) -> None:
    for html in (page, paired_page):
        parsed = _parse(html)
        tags = [tag for tag, _ in parsed.tags]
        assert "script" not in tags
        assert "img" not in tags
        assert not any(k.startswith("on") for _, attrs in parsed.tags for k in attrs)
        text = "".join(parsed.text)
        assert SCRIPT in text  # shown, as text
        assert 'onerror="window.__pwned=1"' in text
        assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", html)
        assert r"bell\x07 escape\x1b[2J nul\x00 c1\x9b end" in text


def test_self_contained(page: str, paired_page: str) -> None:
    for html in (page, paired_page):
        assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)""", html, re.I)
        assert "url(" not in html
        assert "@import" not in html
        assert "default-src &#x27;none&#x27;" in html


def test_two_runs_show_the_paired_table(page: str, paired_page: str) -> None:
    assert 'id="paired"' not in page
    assert 'id="paired"' in paired_page
    report = two_runs()
    assert report.paired
    for head in ("figure", "B − A", "95 % CI", "reading", "A", "B"):
        assert f'<th scope="col">{head}</th>' in paired_page
    readings = re.findall(r'<td class="(?:reading-\w+)?">([^<]*)</td><td class="num">', paired_page)
    assert len(readings) == sum(len(p.figures) for p in report.paired)
    assert set(readings) <= {"B better", "B worse", "no clear difference"} | {
        e.reason for p in report.paired for e in p.figures.values() if e.reason
    }
    auroc = report.paired[0].figures["auroc"]
    assert auroc.diff is not None
    assert f'<th scope="row">AUROC</th><td class="num">{auroc.diff:+.3f}</td>' in paired_page
    assert f"faithfulness · {report.paired[0].n} item(s) in both runs" in paired_page
    # Both runs' sections, named.
    assert 'id="agreement-1-0"' in paired_page
    assert "runs/b &lt;script&gt;" in paired_page


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
