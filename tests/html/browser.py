"""Debian's Chromium, driven by playwright, with what the tests inspect recorded.

Playwright's own browser download is never used (nothing is fetched at test time): the
system Chromium is launched by path. A page records its console errors, uncaught
exceptions, requests and dialogs (dialogs are dismissed).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

EXECUTABLES = ("chromium", "chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def find_chromium() -> str | None:
    return next((path for name in EXECUTABLES if (path := shutil.which(name))), None)


def unavailable(reason: str) -> None:
    """Skip a browser test here; in CI (``CI=true``) fail it instead, so it never goes
    quietly unrun there."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}: CI must run the browser tests", pytrace=False)
    pytest.skip(reason)


class Page:
    """One playwright page and what happened on it."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("dialog", self._dialog)

    def _console(self, message: Any) -> None:
        if message.type in ("error", "assert"):  # CSP violations are logged as errors too
            self.errors.append(message.text)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, url: str) -> None:
        self.page.goto(url, wait_until="load")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (statements allowed) in the page."""
        return self.page.evaluate(expression)

    def resize(self, viewport: dict[str, int]) -> None:
        self.page.set_viewport_size(viewport)

    def screenshot(self, path: Path, *, full_page: bool = False) -> Path:
        self.page.screenshot(path=str(path), full_page=full_page)
        print(f"screenshot: {path}")  # shown with -s, or with the output of a failing test
        return path

    def console_errors(self) -> list[str]:
        return list(self.errors)

    def requested_urls(self) -> list[str]:
        return list(self.requests)


# Every text of every visible chart that is smaller than 10 px on screen (its font size
# times the scale its SVG is drawn at) or reaches outside its SVG's box.
CHART_TEXT_PROBLEMS = """[...document.querySelectorAll('svg.chart')].flatMap(svg => {
  const box = svg.getBoundingClientRect();
  if (!box.width) { return []; }
  return [...svg.querySelectorAll('text')].flatMap(t => {
    const m = t.getScreenCTM();
    const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
    const r = t.getBoundingClientRect();
    const found = [];
    if (px < 10) { found.push(`${t.textContent}: ${px.toFixed(1)} px`); }
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5
        || r.bottom > box.bottom + 0.5) { found.push(`${t.textContent}: outside its chart`); }
    return found;
  });
})"""

# The words (runs of letters, digits and underscores in one text node) of the elements
# ``selector`` finds that the browser broke across two lines: "insuli" / "n". A line may
# still end at a hyphen or a bracket, where the rules of line breaking allow it.
BROKEN_WORDS = """(selector => {
  const broken = [];
  document.querySelectorAll(selector).forEach(element => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[\\p{L}\\p{N}_]+/gu)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (lines.size > 1) { broken.push(m[0]); }
      }
    }
  });
  return broken;
})"""


def chart_text_problems(page: Page) -> list[str]:
    problems: list[str] = page.evaluate(CHART_TEXT_PROBLEMS)
    return problems


def broken_words(page: Page, selector: str) -> list[str]:
    words: list[str] = page.evaluate(f"{BROKEN_WORDS}({json.dumps(selector)})")
    return words
