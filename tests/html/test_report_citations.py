"""The report's drill-down links each citation marker of an answer to the passage it names,
and shows a conversation's earlier turns above the question, at phone and desktop width."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from tests.html.browser import DESKTOP, PHONE, Page
from tests.html.conftest import off_loop
from veracity import evaluate
from veracity.judges.offline import OfflineJudge
from veracity.report.html import write_report

EXAMPLE = resources.files("veracity") / "examples" / "rag_sample.jsonl"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("citations")
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    chosen = [
        line for line in lines if json.loads(line).get("id") in ("eiffel-cited", "tower-height")
    ]
    # A file, not rows in memory: the report shows the samples' texts from the dataset file.
    dataset = folder / "data.jsonl"
    dataset.write_text("\n".join(chosen) + "\n", encoding="utf-8")
    out = folder / "run"
    off_loop(evaluate, str(dataset), ["faithfulness", "citation_recall"], OfflineJudge(), out=out)
    return write_report(out)


def _open(browser: Page, report: Path, sample: str, system: str) -> None:
    browser.open(report.as_uri())
    browser.evaluate(
        "([...document.querySelectorAll('tr.sample-row')].find(tr => tr.textContent.includes("
        f"{json.dumps(sample)}) && tr.textContent.includes({json.dumps(system)}))).click(); true"
    )


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_citation_marker_opens_the_passage_it_names(
    browser: Page, report: Path, viewport: dict[str, int]
) -> None:
    browser.resize(viewport)
    _open(browser, report, "eiffel-cited", "baseline")
    links = browser.evaluate(
        "[...document.querySelectorAll('.detail-row .citation a.cite')].map(a => a.textContent)"
    )
    assert links == ["1", "1"]  # the baseline cites passage 1 twice, once wrongly
    shown = browser.evaluate(
        "(() => { const a = document.querySelectorAll('.detail-row .citation a.cite')[0];"
        " a.click(); const d = document.querySelector('.detail-row details.contexts');"
        " const li = d.querySelector('li.cited');"
        " return {open: d.open, start: d.querySelector('ol').start, text: li && li.textContent};"
        " })()"
    )
    assert shown["open"] and shown["start"] == 1
    assert shown["text"].startswith("The Eiffel Tower is a wrought-iron lattice tower")
    assert browser.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert "misattributed" in browser.evaluate("document.querySelector('.detail-row').textContent")
    assert browser.console_errors() == []


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_misattributed_claim_is_shown_as_one(
    browser: Page, report: Path, viewport: dict[str, int]
) -> None:
    browser.resize(viewport)
    _open(browser, report, "eiffel-cited", "baseline")
    # In the list: marked in the answer and counted, though the claim itself is supported.
    row = browser.evaluate(
        "(() => { const tr = document.querySelector('.detail-row').previousElementSibling;"
        " return {count: tr.querySelector('.unsupported-count').textContent,"
        " marked: [...tr.querySelectorAll('mark.claim-misattributed')].map(m => m.textContent)};"
        " })()"
    )
    assert row == {
        "count": "1 misattributed: 1 marked in the answer",
        "marked": ["Its construction was completed in 1889"],
    }
    # In the citation card: labelled misattributed, with what it cites and where its support is.
    shown = browser.evaluate(
        "[...document.querySelectorAll('.detail-row .metric-card')]"
        ".filter(c => c.querySelector('.metric-name').textContent === 'citation_recall')"
        ".flatMap(c => [...c.querySelectorAll('li.verdict')])"
        ".map(li => [li.querySelector('.verdict-label').textContent,"
        " li.querySelector('p.attribution').textContent])"
    )
    assert shown == [
        ["supported", "cites [1], which supports it"],
        ["misattributed", "cites [1], but its support is in [2]"],
    ]
    assert browser.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


def test_local_signals_read_as_words_not_json(browser: Page, report: Path) -> None:
    browser.resize(PHONE)
    _open(browser, report, "eiffel-cited", "baseline")
    card = (
        "[...document.querySelectorAll('.detail-row .metric-card')]"
        ".find(c => c.querySelector('.metric-name').textContent === 'faithfulness')"
    )
    per_claim = browser.evaluate(f"[...{card}.querySelectorAll('li.verdict p.signals')]"
                                 ".map(p => p.textContent)")  # fmt: skip
    assert per_claim == ["local signals: word overlap 100 %"] * 2
    answer = browser.evaluate(
        f"[...{card}.querySelectorAll('dl.kv > div')]"
        ".find(d => d.textContent.startsWith('local_signals')).textContent"
    )
    assert answer.startswith("local_signalsanswer_overlap 0.842, min_claim_overlap 1,")
    assert "{" not in answer and "claims" not in answer.replace("claims_missing", "")


def test_the_conversation_shows_above_the_question(browser: Page, report: Path) -> None:
    browser.resize(PHONE)
    _open(browser, report, "tower-height", "baseline")
    order = browser.evaluate(
        "[...document.querySelectorAll('.detail-row dl.sample-texts dt')].map(d => d.textContent)"
    )
    assert order.index("earlier turns (2)") < order.index("question") < order.index("answer")
    roles = browser.evaluate(
        "[...document.querySelectorAll('.detail-row ol.history .role')].map(r => r.textContent)"
    )
    assert roles == ["user", "assistant"]  # MTRAG's speaker "agent" read as the assistant
    assert browser.console_errors() == []
