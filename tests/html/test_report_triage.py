"""Triage in a real headless Chromium, at a phone's width (390 px) and a laptop's (1280 px):
failures first, pass marks as text, statuses in words, the answer in the row with its
unsupported claims marked, and ``veracity compare --html``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.html.browser import DESKTOP, PHONE, Page
from tests.html.conftest import CONTRADICTED, IMG, PARAPHRASED, SCRIPT, TRIAGE, triage_run
from veracity.report.compare import compare_systems
from veracity.report.html import write_report
from veracity.report.html_compare import write_comparison

WIDTHS = {"phone": PHONE, "desktop": DESKTOP}
FAILING = ["fails", "unretrieved", "broken"]

# Each visible row: its id and, per metric column, the cell's text and hover text.
ROWS = """[...document.querySelectorAll('tr.sample-row')].map(r => ({
  id: r.querySelector('.sample-id').textContent,
  cells: Object.fromEntries([...r.querySelectorAll('td.score')]
    .map(td => [td.dataset.metric, [td.textContent, td.title]])) }))"""


@pytest.fixture(scope="module")
def triage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report(triage_run(tmp_path_factory.mktemp("triage")))


def _rows(browser: Page) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = browser.evaluate(ROWS)
    return rows


def _toggle(browser: Page) -> None:
    browser.evaluate("document.getElementById('f-failing').click()")


@pytest.mark.parametrize("width", list(WIDTHS))
def test_failing_first_and_the_score_in_view(
    browser: Page, triage: Path, tmp_path: Path, width: str
) -> None:
    viewport = WIDTHS[width]
    browser.resize(viewport)
    browser.open(triage.as_uri())
    browser.evaluate("document.getElementById('samples').scrollIntoView()")
    # Something fails, so the page opens on the failing samples alone.
    assert browser.evaluate("document.getElementById('f-failing').checked") is True
    assert "3 of 5 samples" in browser.evaluate(
        "document.querySelector('label.toggle').textContent"
    )
    assert [r["id"] for r in _rows(browser)] == FAILING
    # The first row's score is on screen, and nothing needs scrolling sideways.
    box = browser.evaluate(
        "(r => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom}))"
        "(document.querySelector('tr.sample-row td.score').getBoundingClientRect())"
    )
    assert box["left"] >= 0 and box["right"] <= viewport["width"]
    assert box["top"] >= 0 and box["bottom"] <= viewport["height"]
    assert browser.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    browser.screenshot(tmp_path / f"triage-{width}.png")
    browser.screenshot(tmp_path / f"triage-{width}-page.png", full_page=True)
    # The toggle shows the passing samples and hides them again.
    _toggle(browser)
    assert [r["id"] for r in _rows(browser)] == list(TRIAGE)
    _toggle(browser)
    assert [r["id"] for r in _rows(browser)] == FAILING
    assert browser.console_errors() == []


def test_every_score_has_its_mark_and_its_status_in_words(browser: Page, triage: Path) -> None:
    browser.open(triage.as_uri())
    _toggle(browser)
    cells = {r["id"]: r["cells"] for r in _rows(browser)}
    faithfulness = {sample: cells[sample]["faithfulness"][0] for sample in TRIAGE}
    assert faithfulness == {
        "passes": "✓ 1.000",
        "fails": "✗ 0.500",  # below the run's threshold, 0.7
        "abstains": "✓ no claims · 1.000",
        "unretrieved": "✗ no contexts",
        "broken": "⚠ judge error",
    }
    assert {c["context_precision"][0] for c in cells.values()} == {"✓ 0.900"}
    # The judge's failure, with its reason, on hover; the threshold beside a score.
    assert (
        f"judge error: the judge's reply was not JSON {SCRIPT}"
        in cells["broken"]["faithfulness"][1]
    )
    assert "threshold 0.7" in cells["fails"]["faithfulness"][1]
    assert "threshold 0.5" in cells["fails"]["context_precision"][1]
    # The drill-down card of the failure says so in words too.
    browser.evaluate("document.querySelector('tr.sample-row:nth-child(5)').click()")
    card = browser.evaluate(
        "document.querySelector('.detail-row article.status-judge_error h4').textContent"
    )
    assert "⚠ judge error" in card
    # Statuses in words in the filter as well.
    options = browser.evaluate("[...document.getElementById('f-status').options].map(o => o.text)")
    assert {"no claims", "no contexts", "judge error"} <= set(options)
    summary = browser.evaluate("document.querySelector('#summary tbody tr').textContent")
    assert "✗ 0.625" in summary and "no contexts 1, judge error 1" in summary


def test_the_answer_shows_its_unsupported_claims(browser: Page, triage: Path) -> None:
    browser.open(triage.as_uri())
    row = "document.querySelector('tr.sample-row')"
    answer = browser.evaluate(
        f"(r => ({{marks: [...r.querySelectorAll('mark')].map(m => [m.className, m.textContent,"
        " m.title]), listed: [...r.querySelectorAll('ul.unplaced li')].map(li => li.textContent),"
        " count: r.querySelector('.unsupported-count').textContent,"
        " clipped: r.querySelector('.answer-text').classList.contains('clipped'),"
        f" text: r.querySelector('.answer-text').textContent}}))({row})"
    )
    assert answer["marks"] == [
        ["claim-contradicted", CONTRADICTED,
         f"contradicted by the contexts: the contexts name Joseph Strauss {IMG}"],
    ]  # fmt: skip
    assert answer["listed"] == [f"not enough info{PARAPHRASED}"]  # not in the answer's words
    assert answer["count"] == "2 unsupported claims: 1 marked in the answer"
    assert answer["text"] == TRIAGE["fails"][0] and answer["clipped"]
    # "more" shows the whole answer without opening the drill-down; "less" clips it again.
    browser.evaluate(f"{row}.querySelector('button.more-text').click()")
    assert browser.evaluate(f"{row}.querySelector('.answer-text.clipped')") is None
    assert browser.evaluate("document.querySelectorAll('.detail-row').length") == 0
    browser.evaluate(f"{row}.querySelector('button.more-text').click()")
    assert browser.evaluate(f"{row}.querySelector('.answer-text.clipped')") is not None
    # Hostile text in claims and reasons is shown, never run.
    assert browser.evaluate("typeof window.__pwned") == "undefined"
    assert browser.evaluate("document.querySelectorAll('img').length") == 0
    assert browser.dialogs == [] and browser.console_errors() == []


def test_nothing_failing_leaves_the_toggle_off(browser: Page, tmp_path: Path) -> None:
    run = triage_run(tmp_path, {"passes": TRIAGE["passes"], "abstains": TRIAGE["abstains"]})
    browser.open(write_report(run).as_uri())
    toggle = browser.evaluate(
        "(c => [c.checked, c.disabled])(document.getElementById('f-failing'))"
    )
    assert toggle == [False, True]
    assert [r["id"] for r in _rows(browser)] == ["passes", "abstains"]
    assert "nothing fails" in browser.evaluate("document.querySelector('label.toggle').textContent")


@pytest.mark.parametrize("width", list(WIDTHS))
def test_comparison_page(browser: Page, tmp_path: Path, width: str) -> None:
    run = triage_run(tmp_path)
    results = run / "results.jsonl"
    # The same samples under a second system that scores lower on context_precision, by
    # 0.5 on average but not on every sample: its interval has a width, all below 0.
    lower = iter([0.3, 0.5, 0.4, 0.2, 0.6])
    lines = []
    for line in results.read_text().splitlines():
        record = json.loads(line)
        lines.append(json.dumps(record | {"system": "old"}))
        if record["metric"] == "context_precision":
            record["score"] = next(lower)
        lines.append(json.dumps(record | {"system": f"new {SCRIPT}"}))
    results.write_text("\n".join(lines) + "\n")
    comparison = compare_systems(run, "old", f"new {SCRIPT}")
    page = write_comparison(comparison, tmp_path / "compare.html")
    browser.resize(WIDTHS[width])
    browser.open(page.as_uri())
    chart = browser.evaluate(
        "[...document.querySelectorAll('svg.differences g.difference')].map(g => ({"
        " text: g.querySelector('text').textContent, title: g.querySelector('title').textContent,"
        " dot: (b => [b.left, b.right])(g.querySelector('circle.diff').getBoundingClientRect()),"
        " ci: (l => l && {stroke: l.getAttribute('stroke'),"
        " ends: (b => [b.left, b.right])(l.getBoundingClientRect())})(g.querySelector('line.ci'))"
        "}))"
    )
    zero = browser.evaluate(
        "document.querySelector('svg.differences line.zero').getBoundingClientRect().left"
    )
    assert [c["text"] for c in chart] == ["faithfulness", "context_precision"]
    precision = chart[1]
    stats = comparison.metrics[1].stats
    assert stats.ci95 is not None
    low, high = stats.ci95
    assert low < -0.5 < high < 0
    assert "B − A -0.500" in precision["title"] and "n 5" in precision["title"]
    assert f"95 % CI {low:+.3f} … {high:+.3f}" in precision["title"]
    assert precision["dot"][0] >= 0 and precision["dot"][1] <= WIDTHS[width]["width"]
    # The whisker is drawn, red (the interval is below 0), from low to high on the chart's
    # scale, which the dot at -0.5 and the zero line give.
    dot = sum(precision["dot"]) / 2
    per_unit = (zero - dot) / 0.5
    assert precision["ci"] is not None
    assert precision["ci"]["stroke"] == "#c62828"
    assert precision["ci"]["ends"] == pytest.approx(
        [dot + (low + 0.5) * per_unit, dot + (high + 0.5) * per_unit], abs=1
    )
    assert browser.evaluate("document.documentElement.scrollWidth") <= WIDTHS[width]["width"]
    table = browser.evaluate("document.querySelector('#comparison tbody').innerText")
    assert "context_precision" in table and "-0.500" in table
    assert browser.evaluate("document.querySelectorAll('script').length") == 0
    assert SCRIPT in browser.evaluate("document.querySelector('header').textContent")
    browser.screenshot(tmp_path / f"compare-{width}.png", full_page=True)
    assert browser.console_errors() == []
