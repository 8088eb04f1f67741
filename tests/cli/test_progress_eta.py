"""The progress bar's ETA stays steady through a run's slow start (issue: an ETA of 4:10
on a run that ended in 10 s)."""

from __future__ import annotations

import io
import re

from rich.console import Console
from rich.progress import Progress

from veracity.chat.batch_api import BatchState
from veracity.chat.batching import BatchStatus
from veracity.cli.progress import RunProgress, SteadyEta
from veracity.types import ResultRecord, Status

# The run the issue saw: the first result after 2 s (a model loading), the second 2.5 s
# later (the first calls), then 100 more at a steady pace until the run ends at 10 s.
END = 10.0
TIMES = [2.0, 4.5, *(4.5 + (END - 4.5) * (i + 1) / 100 for i in range(100))]
TOTAL = len(TIMES)


def test_the_sequence_reproduces_the_jump_with_a_rate_over_all_results() -> None:
    now = [0.0]
    progress = Progress(get_time=lambda: now[0], disable=True)
    task = progress.add_task("run", total=TOTAL)
    for at in TIMES[:2]:
        now[0] = at
        progress.update(task, advance=1)
    remaining = progress.tasks[0].time_remaining
    assert remaining is not None and round(remaining) == 250  # 4:10, on a 10 s run


def test_the_eta_waits_for_a_few_results_then_stays_near_the_truth() -> None:
    eta = SteadyEta()
    shown: list[tuple[int, float]] = []
    for done, at in enumerate(TIMES, start=1):
        eta.add(at)
        seconds = eta.remaining(TOTAL - done, at)
        if done < eta.min_results:
            assert seconds is None, done
        else:
            assert seconds is not None
            shown.append((done, seconds))
    # Once shown, it is never off by more than a second from the time the run had left.
    for done, seconds in shown:
        truth = END - TIMES[done - 1]
        assert abs(seconds - truth) <= 1.0, (done, seconds, truth)


def test_between_results_it_counts_down_and_a_stalled_run_shows_none() -> None:
    eta = SteadyEta()
    for at in range(10):  # one result a second
        eta.add(float(at))
    assert eta.remaining(20, 9.0) == 20.0
    assert eta.remaining(20, 9.5) == 19.5
    assert eta.remaining(20, 40.0) is None  # nothing for 31 s: no honest estimate
    assert eta.remaining(0, 40.0) == 0.0


def test_the_run_progress_bar_shows_the_steady_eta() -> None:
    now = [0.0]
    console = Console(file=io.StringIO(), force_terminal=True, color_system=None, width=200)
    progress = RunProgress(console, TOTAL, clock=lambda: now[0])
    record = ResultRecord(
        sample_id="s", system="", metric="m", iteration=0, score=1.0, status=Status.SCORED,
        reason="all claims supported",
    )  # fmt: skip
    shown = []
    for at in TIMES[:20]:
        now[0] = at
        progress(record)
        console.file = io.StringIO()
        console.print(progress._progress.get_renderable())
        found = re.search(r"ETA (\S+)", console.file.getvalue())
        assert found is not None
        shown.append(found.group(1))
    assert shown[:7] == ["-:--:--"] * 7
    hours, minutes, seconds = (int(part) for part in shown[-1].split(":"))
    assert abs(hours * 3600 + minutes * 60 + seconds - (END - TIMES[19])) <= 1.0


def test_a_resumed_run_starts_the_bar_at_its_done_results() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, color_system=None, width=200)
    progress = RunProgress(console, 10, clock=lambda: 0.0, done=4)
    console.print(progress._progress.get_renderable())
    assert "4/10" in buffer.getvalue()


def test_a_batch_run_shows_its_phase_status_and_counts() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, color_system=None, width=200)
    progress = RunProgress(console, 10, clock=lambda: 0.0)
    state = BatchState("in_progress", ended=False, done=7, failed=2, total=40)
    progress.batch(BatchStatus(2, "batch_abc", state))
    console.print(progress._progress.get_renderable())
    assert "phase 2: in_progress 7/40, 2 failed" in buffer.getvalue()


def test_off_a_terminal_each_change_of_a_batch_is_one_line() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=False, width=200)
    progress = RunProgress(console, 10, clock=lambda: 0.0)
    waiting = BatchState("in_progress", ended=False, total=40)
    for state in (waiting, waiting, BatchState("completed", ended=True, done=40, total=40)):
        progress.batch(BatchStatus(1, "batch_abc", state))
    assert buffer.getvalue().splitlines() == [
        "batch batch_abc, phase 1: in_progress 0/40",
        "batch batch_abc, phase 1: completed 40/40",
    ]
