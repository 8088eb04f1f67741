"""``report.html`` in a real headless Chromium: it loads cleanly and offline, its charts
render, its drill-down opens, and hostile text in the run runs nothing."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.html.browser import Page
from tests.html.conftest import IMG, PAYLOAD, SCRIPT, off_loop
from veracity import LLMJudge, ScriptedChat, evaluate
from veracity.config import RunConfig
from veracity.report.html import write_report
from veracity.report.html_charts import Bar, grouped_bars

# The verdict colours of the stylesheet, as the browser computes them.
GREEN, RED, AMBER = "rgb(46, 125, 50)", "rgb(198, 40, 40)", "rgb(224, 161, 0)"


class _Server(http.server.ThreadingHTTPServer):
    paths: list[str]


@pytest.fixture
def served(run_dir: Path) -> Iterator[tuple[str, list[str]]]:
    """The run directory over HTTP on loopback, and the paths requested from it."""
    write_report(run_dir)
    root = str(run_dir)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=root, **kwargs)  # type: ignore[arg-type]

        def log_message(self, format: str, *args: object) -> None:
            server.paths.append(self.path)

    server = _Server(("127.0.0.1", 0), Handler)
    server.paths = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/report.html", server.paths
    finally:
        server.shutdown()
        server.server_close()


def _show_all(browser: Page) -> None:
    """Untick "failing only", which a run with failures opens with."""
    browser.evaluate(
        "(c => { if (c.checked) { c.click(); } })(document.getElementById('f-failing')); true"
    )


def _open_everything(browser: Page) -> None:
    """Open every sample of the drill-down and every collapsed section."""
    browser.evaluate(
        "document.querySelectorAll('tr.sample-row').forEach(r => r.click());"
        "document.querySelectorAll('details').forEach(d => { d.open = true; }); true"
    )


def test_page_loads_without_errors_or_network(browser: Page, served: tuple[str, list[str]]) -> None:
    url, paths = served
    browser.open(url)
    _open_everything(browser)
    browser.evaluate("document.getElementById('f-metric').value = 'faithfulness';"
                     "document.getElementById('f-metric').dispatchEvent(new Event('change'));"
                     "true")  # fmt: skip
    time.sleep(0.5)  # time for any late request to show
    assert browser.console_errors() == []
    assert browser.requested_urls() == [url]
    assert paths == ["/report.html"]
    assert (
        browser.evaluate("document.querySelectorAll('img, iframe, link[rel=stylesheet]').length")
        == 0
    )


def test_file_url_makes_no_request_but_itself(browser: Page, run_dir: Path) -> None:
    page = write_report(run_dir)
    browser.open(page.as_uri())
    _open_everything(browser)
    time.sleep(0.3)
    assert browser.requested_urls() == [page.as_uri()]
    assert browser.console_errors() == []


def test_charts_render(browser: Page, run_dir: Path) -> None:
    browser.open(write_report(run_dir).as_uri())
    counts = browser.evaluate(
        "({hist: document.querySelectorAll('#distributions svg.histogram').length,"
        " histBars: document.querySelectorAll('#distributions svg.histogram rect.bar').length,"
        " systemBars: document.querySelectorAll('#systems svg rect.bar').length,"
        " typeBars: document.querySelectorAll('#question-types svg rect.bar').length,"
        " whiskers: document.querySelectorAll('#systems svg .ci').length,"
        " drawn: [...document.querySelectorAll('svg rect.bar')]"
        "   .filter(r => r.getBoundingClientRect().height > 1).length})"
    )
    metrics = json.loads((run_dir / "run.json").read_text())["metrics"]
    assert counts["hist"] == len(metrics)
    assert counts["histBars"] == 10 * len(metrics)
    assert counts["systemBars"] >= 3 * len(metrics) - 2  # three systems, a bar per mean
    assert counts["typeBars"] > 0
    assert counts["whiskers"] > 0  # the summary has 95 % intervals
    assert counts["drawn"] > 20  # bars with a visible height, laid out by the browser
    iterations = browser.evaluate("document.querySelectorAll('#iterations tbody tr').length")
    assert iterations == len(metrics)


def test_a_narrow_chart_keeps_its_legend_inside(browser: Page, tmp_path: Path) -> None:
    # Four metrics by three question types, on a phone: the legend wraps inside the page.
    groups = ["faithfulness", "citation_recall", "citation_precision", "answer_relevance"]
    series = ["fact_retrieval", "policy", "a question type with a long name " * 3]
    values = {(g, s): Bar(0.5, 0.4, 0.6, 3) for g in groups for s in series}
    page = tmp_path / "chart.html"
    chart = grouped_bars("by type", groups, series, values)
    page.write_text(f'<!doctype html><body style="margin:0;width:320px">{chart}')
    browser.resize({"width": 320, "height": 700})
    browser.open(page.as_uri())
    spans = browser.evaluate(
        "[...document.querySelectorAll('ul.legend li')].map(li => {"
        " const b = li.getBoundingClientRect(); return [b.left, b.right]; })"
    )
    assert len(spans) == len(series)
    assert all(left >= 0 and right <= 320 for left, right in spans), spans


def test_drilldown_opens_with_claims_coloured_by_verdict(browser: Page, run_dir: Path) -> None:
    browser.open(write_report(run_dir).as_uri())
    assert browser.evaluate("document.querySelectorAll('.detail-row').length") == 0
    browser.evaluate("document.querySelector('tr.sample-row').click(); true")
    detail = browser.evaluate(
        "(() => { const d = document.querySelector('.detail-row');"
        " const claims = [...d.querySelectorAll('ul.claims li.verdict')];"
        " return {cards: d.querySelectorAll('article.metric-card').length,"
        "  claims: claims.map(li => [li.className, getComputedStyle(li).borderLeftColor]),"
        "  evidence: d.querySelectorAll('blockquote.evidence').length,"
        "  text: d.textContent}; })()"
    )
    assert detail["cards"] == 2 * 7  # seven metrics, two iterations
    assert detail["claims"]
    assert detail["evidence"] > 0
    assert "reference statements" in detail["text"] and "retrieved chunks" in detail["text"]
    assert "rubric" in detail["text"]
    colours = {"verdict-supported": GREEN, "verdict-contradicted": RED,
               "verdict-not_enough_info": AMBER}  # fmt: skip
    for classes, colour in detail["claims"]:
        verdict = next(c for c in classes.split() if c in colours)
        assert colour == colours[verdict]
    # A second click closes the sample again.
    browser.evaluate("document.querySelector('tr.sample-row').click(); true")
    assert browser.evaluate("document.querySelectorAll('.detail-row').length") == 0
    # Every verdict appears somewhere in the run, each in its colour.
    _open_everything(browser)
    seen = browser.evaluate(
        "[...new Set([...document.querySelectorAll('#samples li.verdict')]"
        ".map(li => getComputedStyle(li).borderLeftColor))]"
    )
    assert set(seen) == {GREEN, RED, AMBER}


def test_offline_judge_claims_show_their_probability(browser: Page, tmp_path: Path) -> None:
    sample = {
        "id": "tower",
        "question": "When was the tower built?",
        "contexts": ["The Eiffel Tower was completed in 1889 in Paris."],
        "answer": "The Eiffel Tower was completed in 1889. It was designed by Thomas Edison.",
    }
    dataset = tmp_path / "data.jsonl"
    dataset.write_text(json.dumps(sample) + "\n", encoding="utf-8")
    off_loop(
        evaluate,
        dataset,
        ["faithfulness"],
        "offline",
        config=RunConfig(cache=False),
        out=tmp_path / "run",
    )
    browser.open(write_report(tmp_path / "run").as_uri())
    browser.evaluate("document.querySelector('tr.sample-row').click(); true")
    shown = browser.evaluate(
        "(() => { const d = document.querySelector('.detail-row');"
        " return {p: [...d.querySelectorAll('li.verdict .p-supported')].map(x => x.textContent),"
        "  text: d.textContent}; })()"
    )
    record = json.loads((tmp_path / "run" / "results.jsonl").read_text().splitlines()[0])
    claims = record["details"]["claims"]
    assert shown["p"] == [f"P(supported) {c['p_supported']:.2f}" for c in claims]
    assert len(claims) == 2
    for key in ("supported_share", "scored_by", "grounded_share", "expected_grounded_share"):
        assert key in shown["text"]
    assert browser.console_errors() == []


def test_unfounded_evidence_is_marked(browser: Page, tmp_path: Path) -> None:
    claims = ["The tower is in Paris.", "The tower is green."]
    replies = [
        json.dumps({"claims": claims}),
        json.dumps(
            {
                "verdicts": [
                    {"claim": 1, "evidence": "in Paris", "reason": "r", "verdict": "supported"},
                    {
                        "claim": 2,
                        "evidence": "painted green",
                        "reason": "r",
                        "verdict": "supported",
                    },
                ]
            }
        ),
    ]
    sample = {"id": "t", "question": "q", "contexts": ["The grey tower is in Paris."],
              "answer": " ".join(claims)}  # fmt: skip
    marked = _claim_marks(
        browser, tmp_path, sample, replies, "!!li.querySelector('.evidence-not-found')"
    )
    assert marked == [False, True]
    assert browser.console_errors() == []


def _claim_marks(
    browser: Page, tmp_path: Path, sample: dict[str, Any], replies: list[str], mark: str
) -> Any:
    """``mark`` (JavaScript, of a claim's ``li``) for each claim of the HTML report of a
    faithfulness run of ``sample`` with the scripted judge's ``replies``."""
    off_loop(
        evaluate, [sample], ["faithfulness"], LLMJudge(ScriptedChat(replies)), out=tmp_path / "run"
    )
    browser.open(write_report(tmp_path / "run").as_uri())
    browser.evaluate("document.querySelector('tr.sample-row').click(); true")
    return browser.evaluate(
        f"[...document.querySelectorAll('.detail-row li.verdict')].map(li => {mark})"
    )


def test_a_verdict_reached_other_than_on_the_judges_first_word_is_marked(
    browser: Page, tmp_path: Path
) -> None:
    # Claim 1 is context 1's sentence, word for word: supported over the judge. Claim 2's
    # words are all in context 2: asked again alone there, and supported. Claim 3 stays.
    contexts = [
        "The tower was completed in 1889 for the World's Fair.",
        "At the time the tower is 330 metres tall, the tallest structure of its day.",
    ]
    claims = [
        "The tower was completed in 1889 for the World's Fair.",
        "The tower is 330 metres tall.",
        "The tower is green.",
    ]
    first = [{"claim": n, "evidence": "", "reason": "r", "verdict": "not_enough_info"}
             for n in (1, 2, 3)]  # fmt: skip
    again = [{"claim": 1, "evidence": "330 metres tall", "reason": "ok",
              "verdict": "supported"}]  # fmt: skip
    replies = [
        json.dumps({"claims": claims}),
        json.dumps({"verdicts": first}),
        json.dumps({"verdicts": again}),
    ]
    sample = {"id": "t", "question": "q", "contexts": contexts, "answer": " ".join(claims)}
    marked = _claim_marks(
        browser, tmp_path, sample, replies, "li.querySelector('.provenance')?.textContent ?? null"
    )
    assert marked == ["over the judge's not enough info", "second look", None]
    assert browser.console_errors() == []


def test_filters_and_sorting(browser: Page, run_dir: Path) -> None:
    browser.open(write_report(run_dir).as_uri())
    _show_all(browser)

    def choose(select: str, value: str) -> None:
        browser.evaluate(
            f"(s => {{ s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }})"
            f"(document.getElementById({json.dumps(select)})); true"
        )

    choose("f-system", "baseline")
    systems = browser.evaluate(
        "[...document.querySelectorAll('tr.sample-row')].map(r => r.children[1].textContent)"
    )
    assert systems and set(systems) == {"baseline"}
    choose("f-system", "")
    choose("f-metric", "faithfulness")
    choose("f-sort", "asc")
    column = browser.evaluate(
        "[...document.querySelectorAll('#sample-head th')]"
        ".findIndex(t => t.title === 'faithfulness')"
    )
    scores = browser.evaluate(
        "[...document.querySelectorAll('tr.sample-row')]"
        f".map(r => r.children[{column}].querySelector('.score-text')?.textContent)"
    )
    numbers = [float(s) for s in scores if s and s[0].isdigit()]
    assert numbers == sorted(numbers) and len(numbers) > 5
    options = browser.evaluate("[...document.getElementById('f-status').options].map(o => o.value)")
    assert options[0] == "" and "scored" in options
    choose("f-status", "scored")
    assert browser.evaluate("document.querySelectorAll('tr.sample-row').length") == 13
    browser.evaluate(
        "(s => { s.value = 'EVIL'; s.dispatchEvent(new Event('input')); })"
        "(document.getElementById('f-search')); true"
    )
    assert browser.evaluate("document.querySelectorAll('tr.sample-row').length") == 1
    count = browser.evaluate("document.getElementById('sample-count').textContent")
    assert count.startswith("Showing 1 of 1 matching sample")


def test_hostile_text_runs_nothing(browser: Page, run_dir: Path) -> None:
    browser.open(write_report(run_dir).as_uri())
    _show_all(browser)
    _open_everything(browser)
    browser.evaluate(
        "document.getElementById('f-search').value = 'evil';"
        "document.getElementById('f-search').dispatchEvent(new Event('input')); true"
    )
    _open_everything(browser)
    time.sleep(0.3)
    assert browser.evaluate("typeof window.__pwned") == "undefined"
    assert browser.dialogs == []
    assert browser.evaluate("document.querySelectorAll('img').length") == 0
    assert browser.evaluate("document.querySelectorAll('script').length") == 2
    text = browser.evaluate("document.body.innerText")
    assert SCRIPT in text and IMG in text  # shown as text
    detail = browser.evaluate("document.querySelector('.detail-row').textContent")
    assert f"evil-{SCRIPT}" in detail and f"sys {IMG}" in detail
    turns = browser.evaluate(
        "[...document.querySelectorAll('.detail-row ol.history li.turn')]"
        ".map(li => [li.querySelector('.role').textContent,"
        " li.querySelector('.turn-text').textContent])"
    )
    assert turns == [
        ["user", f"Tell me about bridges. {PAYLOAD}"],
        ["turn", f"An earlier turn of no known speaker. {SCRIPT}"],
    ]
    assert "earlier turns (2)" in detail
    assert detail.index("earlier turns") < detail.index("What is the bridge?")
    claims = browser.evaluate(
        "[...document.querySelectorAll('.detail-row li.verdict')].map(li => li.textContent)"
    )
    assert any(PAYLOAD in claim for claim in claims)
    assert browser.console_errors() == []


def test_screenshot(browser: Page, run_dir: Path, tmp_path: Path) -> None:
    browser.open(write_report(run_dir).as_uri())
    browser.evaluate("document.querySelector('tr.sample-row').click(); true")
    shot = browser.screenshot(tmp_path / "report.png", full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
