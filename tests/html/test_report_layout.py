"""Issue 48 item 14: the pages read on a phone and on a desktop. At 390 px every chart's
text is at least 10 px on screen and inside its chart (no "aithfulness"); at 1280 px the
summary table fits its section without a sideways scroll, and no word of the tables is
broken in the middle.

The pages are the bundled example run with the offline judge (the report, and the
comparison of its two systems), the hand-made report of ``run_dir`` (every kind of
metric, labels included) and the agreement page of two runs."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from tests.agreement.test_agreement_html import two_runs
from tests.html.browser import DESKTOP, PHONE, Page, broken_words, chart_text_problems
from tests.html.conftest import off_loop
from veracity import evaluate
from veracity.agreement.html import write_agreement_html
from veracity.judges.offline import OfflineJudge
from veracity.report.compare import compare_systems
from veracity.report.html import write_report
from veracity.report.html_compare import write_comparison

EXAMPLE = resources.files("veracity") / "examples" / "rag_sample.jsonl"
METRICS = ["faithfulness", "context_precision", "context_recall", "answer_relevance",
           "citation_recall", "citation_precision"]  # fmt: skip
VIEWPORTS = pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
# The tables' cells and headings, where a word broken in two reads as two.
TABLE_TEXT = "table.summary th, table.summary td, #sample-table th, #sample-table td"


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("example")
    dataset = folder / "rag_sample.jsonl"  # a file: the report shows the samples' texts
    dataset.write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    out = folder / "run"
    off_loop(evaluate, str(dataset), METRICS, OfflineJudge(), out=out)
    return out


@pytest.fixture(scope="module")
def pages(
    example_run: Path, run_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pages")
    comparison = compare_systems(example_run, "baseline", "reranked")
    return {
        "example report": write_report(example_run, folder / "example.html"),
        "report of every metric": write_report(run_dir, folder / "every.html"),
        "comparison": write_comparison(comparison, folder / "comparison.html"),
        "agreement": write_agreement_html(two_runs(), folder / "agreement.html"),
    }


@pytest.fixture
def at(chromium: Any) -> Iterator[Any]:
    """A page opened at a given viewport: ``at(viewport, path)``."""
    contexts: list[Any] = []

    def open_page(viewport: dict[str, int], path: Path) -> Page:
        context = chromium.new_context(viewport=viewport)
        contexts.append(context)
        page = Page(context.new_page())
        page.open(path.as_uri())
        return page

    yield open_page
    for context in contexts:
        context.close()


@VIEWPORTS
@pytest.mark.parametrize(
    "name", ["example report", "report of every metric", "comparison", "agreement"]
)
def test_chart_text_is_legible_and_inside_its_chart(
    at: Any, pages: dict[str, Path], name: str, viewport: dict[str, int]
) -> None:
    page = at(viewport, pages[name])
    texts = page.evaluate("document.querySelectorAll('svg.chart text').length")
    assert texts > 10  # the page has charts, and they have text
    assert chart_text_problems(page) == []
    assert page.console_errors() == []


def test_the_bars_name_each_metric_whole_on_a_phone(at: Any, pages: dict[str, Path]) -> None:
    page = at(PHONE, pages["example report"])
    names = page.evaluate(
        "[...document.querySelectorAll('#systems svg.chart text.group')]"
        ".map(t => t.firstChild.data)"
    )
    assert names == METRICS
    # The systems' colours are named in the legend, which wraps like any text.
    legend = page.evaluate(
        "[...document.querySelectorAll('#systems ul.legend li')].map(li => li.textContent)"
    )
    assert legend == ["baseline", "reranked"]


@pytest.mark.parametrize("name", ["example report", "report of every metric"])
def test_the_summary_table_fits_a_desktop_screen(
    at: Any, pages: dict[str, Path], name: str
) -> None:
    page = at(DESKTOP, pages[name])
    box = page.evaluate(
        "(() => { const s = document.querySelector('#summary table.summary').parentElement;"
        " return [s.scrollWidth, s.clientWidth]; })()"
    )
    assert box[0] <= box[1], box  # every column in view, none behind a sideways scroll
    heads = page.evaluate(
        "[...document.querySelectorAll('#summary table.summary thead th')]"
        ".map(th => th.textContent)"
    )
    assert heads[-1] == ("labels" if name == "report of every metric" else "other statuses")


@pytest.mark.parametrize("name", ["example report", "report of every metric"])
def test_no_word_is_broken_in_the_middle(at: Any, pages: dict[str, Path], name: str) -> None:
    page = at(DESKTOP, pages[name])
    page.evaluate(  # every sample in the table, not only the failing ones
        "(c => { if (c.checked) { c.click(); } })(document.getElementById('f-failing')); true"
    )
    assert page.evaluate("document.querySelectorAll('#sample-table td.sample-id').length") > 5
    assert broken_words(page, TABLE_TEXT) == []
    anywhere = page.evaluate(
        "[...document.querySelectorAll('main *')].filter(e =>"
        " getComputedStyle(e).wordBreak === 'break-all').length"
    )
    assert anywhere == 0
