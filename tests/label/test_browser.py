"""The review page in Debian's Chromium (tests/html/browser.py), served by ``veracity
label`` itself in a process of its own: labelling with the keys alone at phone and desktop
widths, the name asked on the page, two annotators at once, the server killed mid-session
and started again, and the reliability suite's payloads inert."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.html.browser import DESKTOP, PHONE, Page
from tests.html.conftest import IMG, SCRIPT
from tests.label.conftest import people_say
from veracity.labels import read_labels
from veracity.review.labelfile import LabelFile


@contextmanager
def label_server(run: Path, out: Path, *extra: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``veracity label RUN --out OUT --no-browser``, and the address it printed."""
    env = os.environ | {"PYTHONUNBUFFERED": "1", "COLUMNS": "400"}
    command = [sys.executable, "-m", "veracity", "label", str(run), "--out", str(out),
               "--no-browser", *extra]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=env)  # fmt: skip
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if "http" in line:
                url = line.split()[-1]
                break
        else:
            raise AssertionError(f"veracity label printed no address (exit {process.wait()})")
        yield process, url
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture
def page(chromium: Any) -> Iterator[Page]:
    context = chromium.new_context(viewport=DESKTOP)
    try:
        yield Page(context.new_page())
    finally:
        context.close()


def _shown(page: Page) -> str:
    shown: str = page.page.locator("#item .id").text_content()
    return shown


def _press(page: Page, key: str) -> None:
    """A key that leaves the page (a form sent, a link followed), and the page it loads."""
    with page.page.expect_navigation():
        page.page.keyboard.press(key)


def _label_shown(page: Page) -> str:
    """Answer the item shown as people would, with its key alone; returns its id."""
    sample_id = _shown(page)
    _press(page, people_say(sample_id))
    return sample_id


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_items_are_labelled_with_the_keys_alone(
    page: Page, run: Path, tmp_path: Path, viewport: dict[str, int]
) -> None:
    out = tmp_path / "labels.jsonl"
    page.resize(viewport)
    with label_server(run, out, "--annotator", "ann") as (_process, url):
        page.open(url)
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        first, second = _label_shown(page), _label_shown(page)
        third = _shown(page)
        _press(page, "j")
        _press(page, "k")
        assert _shown(page) == third
        _press(page, "s")
        assert _shown(page) != third  # skipped: no label, the next one shown
        _press(page, "u")
        assert _shown(page) == second  # undone: shown again to answer
        _press(page, "n" if people_say(second) == "y" else "y")  # a change of mind
        page.page.locator("#item .claims input").first.click()  # a claim marked by click
        page.page.locator("textarea[name=note]").fill("looked twice")
        page.page.locator("#item .claims input").first.focus()
        marked = _label_shown(page)
    labels = read_labels(out)
    assert not labels.bad_rows
    said = {item.sample_id: item.value for item in labels.items}
    assert said[first] == (1.0 if people_say(first) == "y" else 0.0)
    assert said[second] == (0.0 if people_say(second) == "y" else 1.0)
    assert set(said) == {first, second, marked}
    assert page.console_errors() == []
    last = [row for row in out.read_text().splitlines() if marked in row][-1]
    assert "looked twice" in last and "not faithful" in last


def test_the_name_is_asked_and_two_annotators_label_at_once(
    chromium: Any, run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "labels.jsonl"
    contexts = [chromium.new_context(viewport=PHONE), chromium.new_context(viewport=DESKTOP)]
    try:
        pages = [Page(context.new_page()) for context in contexts]
        with label_server(run, out) as (_process, url):
            for page, name in zip(pages, ("ann", "bo"), strict=True):
                page.open(url)
                page.page.locator("#annotator").fill(name)
                with page.page.expect_navigation():
                    page.page.keyboard.press("Enter")
            for _ in range(3):
                for page in pages:
                    _label_shown(page)
        items = read_labels(out).items
        assert len(items) == 3
        assert all(sorted(str(a) for a, _v in item.votes) == ["ann", "bo"] for item in items)
    finally:
        for context in contexts:
            context.close()


def test_a_server_killed_mid_session_resumes_where_it_stopped(
    page: Page, run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "labels.jsonl"
    with label_server(run, out, "--annotator", "ann") as (process, url):
        page.open(url)
        before = {_label_shown(page) for _ in range(3)}
        process.kill()  # no clean shutdown: what was answered must be on disk already
        process.wait()
    assert {s.key[0] for s in LabelFile(out).standing("ann")} == before
    with label_server(run, out, "--annotator", "ann") as (_process, url):
        page.open(url)
        assert page.page.locator("#mine").text_content() == "3"
        after = _label_shown(page)
    assert after not in before
    assert {item.sample_id for item in read_labels(out).items} == before | {after}


def test_hostile_texts_stay_inert(page: Page, hostile_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "labels.jsonl"
    with label_server(hostile_run, out, "--annotator", f"ann {IMG}") as (_process, url):
        page.open(url)
        for _ in range(20):  # the run has 13 items
            if SCRIPT in _shown(page):
                break
            _press(page, "j")
        evil = _shown(page)
        assert SCRIPT in evil
        assert SCRIPT in page.page.locator("#item .question").text_content()
        assert page.evaluate("document.querySelectorAll('#item script, #item img').length") == 0
        _press(page, "y")
        assert page.evaluate("window.__pwned === undefined")
    assert page.dialogs == [] and page.console_errors() == []
    (item,) = read_labels(out).items
    assert item.sample_id == evil and item.votes == ((f"ann {IMG}", 1.0),)
