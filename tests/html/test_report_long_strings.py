"""Issue 29 item 4: a long unbroken string (a dataset path in the page's title) wraps on
a phone instead of widening the page."""

from __future__ import annotations

from pathlib import Path

from tests.html.browser import PHONE, Page
from tests.html.conftest import dataset_rows, make_run
from veracity.report.html import write_report


def test_a_long_dataset_path_wraps_at_390_px(browser: Page, tmp_path: Path) -> None:
    deep = tmp_path / ("a_very_long_folder_name_without_any_break" * 3)
    page = write_report(make_run(deep, dataset_rows(2), metrics=["faithfulness"]))
    browser.resize(PHONE)
    browser.open(page.as_uri())
    assert browser.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
