"""Issue 48 item 14: how the report names a citation's failings, as the details do. A
supported claim whose sentence cites nothing reads "uncited" (not "misattributed", which
says it points elsewhere); a citation of a passage that does not exist ("[7]" of three) is
named beside the claim that makes it, in the claim list."""

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

EXAMPLE = resources.files("veracity") / "examples" / "rag_citations.jsonl"
TOWER = ["The Eiffel Tower was completed in 1889 for the World's Fair.",
         "The Eiffel Tower is 330 metres tall.", "It is in Paris."]  # fmt: skip
GHOST = {
    "id": "ghost",
    "question": "Tell me about the Eiffel Tower.",
    "contexts": TOWER,
    "answer": "The Eiffel Tower was completed in 1889 [7]. It is 330 metres tall [2].",
}
CARD = (
    "[...document.querySelectorAll('.detail-row .metric-card')]"
    ".filter(c => c.querySelector('.metric-name').textContent === 'citation_recall')"
)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("citation-labels")
    dataset = folder / "data.jsonl"
    lines = [*EXAMPLE.read_text(encoding="utf-8").splitlines(), json.dumps(GHOST)]
    dataset.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = folder / "run"
    metrics = ["faithfulness", "citation_recall"]
    off_loop(evaluate, str(dataset), metrics, OfflineJudge(), out=out)
    return out


def _details(run: Path, sample: str) -> dict[str, object]:
    for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["sample_id"] == sample and record["metric"] == "citation_recall":
            return {"reason": record["reason"], **record["details"]}
    raise AssertionError(sample)


def _open(browser: Page, run: Path, sample: str) -> None:
    browser.open(write_report(run).as_uri())
    browser.evaluate(
        "(c => { if (c.checked) { c.click(); } })(document.getElementById('f-failing'));"
        "[...document.querySelectorAll('tr.sample-row')].find(tr =>"
        f" tr.querySelector('td.sample-id').textContent === {json.dumps(sample)}).click(); true"
    )


def test_the_details_say_uncited_and_name_a_passage_that_does_not_exist(run: Path) -> None:
    uncited = _details(run, "uncited")
    assert uncited["uncited"] == ["Bananas are rich in potassium."]
    assert uncited["misattributed"] == ["Bananas are rich in potassium."]  # ALCE's count
    assert str(uncited["reason"]).endswith("; 1 supported claim(s) cite nothing (uncited)")
    assert "another passage" not in str(uncited["reason"])
    ghost = _details(run, "ghost")
    assert ghost["uncited"] == []
    claims = ghost["claims"]
    assert isinstance(claims, list)
    assert [c.get("no_such_passage") for c in claims] == [[7], None]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_supported_claim_citing_nothing_reads_uncited(
    browser: Page, run: Path, viewport: dict[str, int]
) -> None:
    browser.resize(viewport)
    _open(browser, run, "uncited")
    row = browser.evaluate(
        "(() => { const tr = document.querySelector('.detail-row').previousElementSibling;"
        " return {count: tr.querySelector('.unsupported-count').textContent,"
        " marked: [...tr.querySelectorAll('mark')].map(m => [m.className, m.textContent])};"
        " })()"
    )
    assert row == {
        "count": "1 uncited: 1 marked in the answer",
        "marked": [["claim-uncited", "Bananas are rich in potassium."]],
    }
    shown = browser.evaluate(
        f"{CARD}.flatMap(c => [...c.querySelectorAll('li.verdict')])"
        ".map(li => [li.querySelector('.verdict-label').textContent,"
        " li.querySelector('p.attribution').textContent])"
    )
    assert shown == [
        ["uncited", "cites nothing; its support is in [1]"],
        ["supported", "cites [2], which supports it"],
    ]
    assert "misattributed" not in browser.evaluate(
        "document.querySelector('.detail-row').previousElementSibling.textContent"
    )
    assert browser.console_errors() == []


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_citation_of_no_passage_is_named_beside_its_claim(
    browser: Page, run: Path, viewport: dict[str, int]
) -> None:
    browser.resize(viewport)
    _open(browser, run, "ghost")
    lines = browser.evaluate(
        f"{CARD}.flatMap(c => [...c.querySelectorAll('li.verdict .verdict-line')])"
        ".map(line => [line.querySelector('.item-text').textContent,"
        " (line.querySelector('.no-passage') || {}).textContent || null])"
    )
    assert lines == [
        ["The Eiffel Tower was completed in 1889.", "cites [7], which does not exist"],
        ["It is 330 metres tall.", None],
    ]
    # Right after the claim's text on its line, and inside the page.
    beside = browser.evaluate(
        f"(() => {{ const note = {CARD}[0].querySelector('li.verdict .no-passage');"
        " const box = note.getBoundingClientRect();"
        " return [note.previousElementSibling.className,"
        " box.width > 0 && box.right <= document.documentElement.clientWidth]; })()"
    )
    assert beside == ["item-text", True]
    tip = browser.evaluate(
        "document.querySelector('.detail-row').previousElementSibling.querySelector('mark').title"
    )
    assert tip.endswith("(cites [7], no such passage)")
    assert browser.console_errors() == []
