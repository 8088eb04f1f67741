"""``evaluate`` where an event loop already runs (issue 17 item 2): it runs on a worker
thread, an interrupt stops it as Ctrl-C stops a script, and the result shows itself as a
table in a notebook."""

from __future__ import annotations

import _thread
import asyncio
import gc
import json
import os
import signal
import threading
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import claims_reply, verdicts_reply
from tests.html.page import parse
from tests.html.page import rows as table_rows
from veracity import LLMJudge, ScriptedChat, evaluate
from veracity.config import RunConfig
from veracity.evaluation.blocking import run_blocking

ROWS = [
    {"id": f"s{i}", "question": "Where?", "answer": "In Paris.", "contexts": ["Paris"]}
    for i in range(3)
]


def respond(messages: Sequence[Any], output: Any) -> str:
    if getattr(output, "name", "") == "claim_extraction":
        return claims_reply("It is in Paris.")
    return verdicts_reply(("It is in Paris.", "supported", "stated", "Paris"))


def judge(latency_s: float = 0.0) -> LLMJudge:
    return LLMJudge(ScriptedChat(responder=respond, latency_s=latency_s))


async def test_evaluate_works_inside_a_running_event_loop() -> None:
    """It raised ``asyncio.run() cannot be called from a running event loop`` and left
    a "coroutine 'aevaluate' was never awaited" warning."""
    asyncio.get_running_loop()  # this test runs inside one, as a notebook cell does
    gc.collect()  # what earlier tests left is not this test's to report
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = evaluate(ROWS, "faithfulness", judge(), config=RunConfig(cache=False))
        gc.collect()  # an un-awaited coroutine warns when it is collected
    assert [r.score for r in result] == [1.0, 1.0, 1.0]
    assert [str(w.message) for w in caught] == []


async def test_errors_of_the_run_reach_the_caller() -> None:
    with pytest.raises(ValueError, match="unknown metric"):
        evaluate(ROWS, "nope", judge())


@pytest.fixture
def default_sigint() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt, as in a kernel executing a cell, whatever handler
    an earlier test or library left behind."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("default_sigint")
def test_an_interrupt_of_the_waiting_thread_cancels_the_run() -> None:
    stopped = threading.Event()

    async def forever() -> None:
        _thread.interrupt_main()  # Ctrl-C in the waiting thread, once this runs
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            stopped.set()
            raise

    with pytest.raises(KeyboardInterrupt):
        run_blocking(forever, on_wait=lambda: None)
    assert stopped.is_set()


@pytest.mark.usefixtures("default_sigint")
def test_an_interrupted_run_in_a_loop_keeps_its_results(tmp_path: Path) -> None:
    """Inside a loop run as a kernel runs its own (no asyncio.run, whose SIGINT handler
    would only cancel its task): the interrupt stops the run, the results so far stay."""
    rows = [dict(ROWS[0], id=f"s{i}") for i in range(400)]

    finished = []

    def on_result(record: object) -> None:
        finished.append(record)
        if len(finished) == 10:  # Ctrl-C mid-run: a real SIGINT, as a kernel's interrupt
            # sends (interrupt_main() would only be seen when the wait next wakes up).
            os.kill(os.getpid(), signal.SIGINT)

    async def cell() -> None:
        evaluate(
            rows,
            "faithfulness",
            judge(latency_s=0.05),
            config=RunConfig(cache=False),
            out=tmp_path / "run",
            on_result=on_result,
        )

    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(cell())
    finally:
        loop.close()
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["status"] == "interrupted"
    kept = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    assert 0 < len(kept) < 400


def test_the_result_shows_as_an_escaped_table() -> None:
    rows = [dict(ROWS[0], system="<b>A</b>"), dict(ROWS[1], system="B & C")]
    html = evaluate(rows, "faithfulness", judge(), config=RunConfig(cache=False))._repr_html_()
    doc = parse(html)
    shown = {row.heading: row for row in table_rows(doc.find("table"))}
    # The metric's row, in bold, then one per system, named as given and shown as text.
    assert list(shown) == ["faithfulness", "<b>A</b>", "B & C"]
    assert [b.text for b in doc.find_all("b")] == ["faithfulness"]
    # mean, CI (too few scores for one), pass rate at the threshold, scored of n
    overall = shown["faithfulness"]
    assert (overall["mean"], overall["pass"], overall["scored"]) == (
        "100.0",
        "100.0 (≥ 0.5)",
        "2/2",
    )
    assert shown["B & C"]["95% CI"] == "—"
