"""The micro-batcher: concurrent calls merged onto one worker thread, results routed back."""

from __future__ import annotations

import asyncio
import threading

import pytest

from veracity.embeddings import MicroBatcher, ModelOutputError


class Recorder:
    """A ``process`` that doubles numbers, records each call and its thread, and can be
    held until released."""

    def __init__(self) -> None:
        self.calls: list[list[int]] = []
        self.threads: set[int] = set()
        self.started = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self.fail_on: int | None = None

    def __call__(self, items: list[int]) -> list[int]:
        self.calls.append(list(items))
        self.threads.add(threading.get_ident())
        self.started.set()
        self.release.wait(5)
        if self.fail_on is not None and self.fail_on in items:
            raise RuntimeError(f"cannot process {self.fail_on}")
        return [item * 2 for item in items]


async def test_concurrent_submits_share_one_call_and_get_their_own_results() -> None:
    process = Recorder()
    batcher = MicroBatcher(process)
    results = await asyncio.gather(*(batcher.submit([i, i + 100]) for i in range(20)))
    assert results == [[2 * i, 2 * (i + 100)] for i in range(20)]
    assert len(process.calls) == 1
    assert batcher.process_calls == 1
    assert process.threads != {threading.get_ident()}
    batcher.close()


async def test_calls_arriving_during_a_call_are_merged_into_the_next() -> None:
    process = Recorder()
    process.release.clear()
    batcher = MicroBatcher(process)
    first = asyncio.create_task(batcher.submit([1]))
    await asyncio.to_thread(process.started.wait, 5)
    later = [asyncio.create_task(batcher.submit([n])) for n in (2, 3, 4, 5)]
    await asyncio.sleep(0.01)
    process.release.set()
    assert await first == [2]
    assert [await task for task in later] == [[4], [6], [8], [10]]
    assert process.calls == [[1], [2, 3, 4, 5]]
    batcher.close()


async def test_max_items_caps_a_merged_call_but_not_a_single_request() -> None:
    process = Recorder()
    batcher = MicroBatcher(process, max_items=4)
    big = list(range(10, 20))
    results = await asyncio.gather(
        batcher.submit([1, 2, 3]), batcher.submit([4, 5]), batcher.submit(big)
    )
    assert results[2] == [2 * i for i in big]
    assert process.calls == [[1, 2, 3], [4, 5], big]
    batcher.close()


async def test_an_item_in_flight_is_processed_once_for_every_caller_asking() -> None:
    process = Recorder()
    process.release.clear()
    batcher = MicroBatcher(process)
    busy = asyncio.create_task(batcher.submit([1, 2]))
    await asyncio.to_thread(process.started.wait, 5)
    # 1 is being processed, 3 gets queued by the first caller that asks for it.
    later = [asyncio.create_task(batcher.submit(items)) for items in ([2, 3], [3, 1, 3], [4])]
    await asyncio.sleep(0.01)
    process.release.set()
    assert await busy == [2, 4]
    assert [await task for task in later] == [[4, 6], [6, 2, 6], [8]]
    assert process.calls == [[1, 2], [3, 4]]
    assert await batcher.submit([1]) == [2]  # done items leave the flight: asked again
    assert process.calls[-1] == [1]
    batcher.close()


async def test_a_cancelled_caller_leaves_a_shared_item_to_the_others() -> None:
    process = Recorder()
    process.release.clear()
    batcher = MicroBatcher(process)
    busy = asyncio.create_task(batcher.submit([1]))
    await asyncio.to_thread(process.started.wait, 5)
    first = asyncio.create_task(batcher.submit([5]))
    second = asyncio.create_task(batcher.submit([5, 6]))
    await asyncio.sleep(0.01)
    first.cancel()  # it queued 5, which the second caller still wants
    process.release.set()
    assert await busy == [2]
    assert await second == [10, 12]
    assert first.cancelled()
    assert process.calls == [[1], [5, 6]]
    batcher.close()


async def test_a_failure_reaches_every_caller_of_that_call_only() -> None:
    process = Recorder()
    process.fail_on = 7
    batcher = MicroBatcher(process)
    outcomes = await asyncio.gather(
        batcher.submit([1]), batcher.submit([7]), return_exceptions=True
    )
    assert all(isinstance(outcome, RuntimeError) for outcome in outcomes)
    assert await batcher.submit([8]) == [16]  # the worker survives
    batcher.close()


async def test_a_cancelled_caller_does_not_disturb_the_others() -> None:
    process = Recorder()
    process.release.clear()
    batcher = MicroBatcher(process)
    busy = asyncio.create_task(batcher.submit([1]))
    await asyncio.to_thread(process.started.wait, 5)
    doomed = asyncio.create_task(batcher.submit([2]))
    kept = asyncio.create_task(batcher.submit([3]))
    await asyncio.sleep(0.01)
    doomed.cancel()
    process.release.set()
    assert await busy == [2]
    assert await kept == [6]
    assert doomed.cancelled()
    assert process.calls == [[1], [3]]
    batcher.close()


async def test_a_wrong_number_of_results_is_an_error() -> None:
    batcher: MicroBatcher[int, int] = MicroBatcher(lambda items: items[:-1])
    with pytest.raises(ModelOutputError, match="2 results for 3 inputs"):
        await batcher.submit([1, 2, 3])
    batcher.close()


async def test_run_uses_the_same_worker_thread_and_empty_submit_skips_it() -> None:
    process = Recorder()
    batcher = MicroBatcher(process)
    assert await batcher.submit([]) == []
    assert batcher.process_calls == 0
    await batcher.submit([1])
    assert await batcher.run(threading.get_ident) in process.threads
    batcher.close()


def test_one_batcher_serves_successive_event_loops() -> None:
    process = Recorder()
    batcher = MicroBatcher(process)
    assert asyncio.run(batcher.submit([1])) == [2]
    assert asyncio.run(batcher.submit([2])) == [4]
    batcher.close()
    assert asyncio.run(batcher.submit([3])) == [6]  # a closed batcher starts a new thread
    batcher.close()
