"""The agreement page in a real headless Chromium: it loads offline without errors, runs
none of the hostile text, draws its charts, and never gets wider than the screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.agreement.test_agreement_html import two_runs
from tests.html.browser import DESKTOP, PHONE, Page
from veracity.agreement.html import write_agreement_html

SCREENSHOTS = {390: Path("/tmp/agree_390.png"), 1280: Path("/tmp/agree_1280.png")}


@pytest.fixture(scope="module")
def agreement_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_agreement_html(two_runs(), tmp_path_factory.mktemp("agree") / "agreement.html")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_fits_the_screen_and_runs_nothing(
    chromium: Any, agreement_page: Path, viewport: dict[str, int]
) -> None:
    context = chromium.new_context(viewport=viewport)
    try:
        browser = Page(context.new_page())
        browser.open(agreement_page.as_uri())
        browser.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; }); 1")
        width = viewport["width"]
        browser.screenshot(SCREENSHOTS[width], full_page=True)
        assert browser.evaluate("document.documentElement.scrollWidth") <= width
        assert browser.console_errors() == []
        assert browser.requested_urls() == [agreement_page.as_uri()]
        assert browser.evaluate("window.__pwned === undefined")
        assert browser.evaluate("document.querySelectorAll('script, img').length") == 0
        charts = browser.evaluate(
            "[...document.querySelectorAll('svg.agreement-chart')]"
            ".map(s => s.getBoundingClientRect().width)"
        )
        assert charts and all(200 <= w <= width for w in charts)
        # No element but the scrolling tables reaches past the right edge of the page.
        wide = browser.evaluate(
            f"""[...document.querySelectorAll('main *')].filter(el =>
                !el.closest('.table-scroll') && el.getBoundingClientRect().right > {width} + 1
            ).map(el => el.tagName + '.' + el.className).slice(0, 5)"""
        )
        assert wide == []
    finally:
        context.close()
