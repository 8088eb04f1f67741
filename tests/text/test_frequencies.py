"""wordfreq's English table is read once, however many threads ask for it first."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from tests.helpers import word_frequencies_unloaded
from veracity.text import analysis as tx
from veracity.text import frequencies


def _at_once(task: Callable[[], object], threads: int = 4) -> None:
    start = threading.Barrier(threads)

    def run() -> None:
        start.wait()
        task()

    running = [threading.Thread(target=run) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()


def test_wordfreq_alone_reads_the_table_once_per_thread_asking_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Why the module exists: wordfreq's lru_cache lets every first caller read a copy."""
    from wordfreq import zipf_frequency  # type: ignore[import-untyped, import-not-found, unused-ignore]

    reads = word_frequencies_unloaded(monkeypatch)
    _at_once(lambda: zipf_frequency("the", "en"))
    assert len(reads) > 1


def test_threads_asking_at_once_read_the_table_once(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = word_frequencies_unloaded(monkeypatch)
    assert not frequencies.loaded()
    _at_once(lambda: tx.specific.__wrapped__("pancreas"))
    assert len(reads) == 1
    assert frequencies.loaded()
    # Later look-ups read the table just loaded: nothing is read again.
    assert tx.specific.__wrapped__("pancreas") is True
    assert tx.specific.__wrapped__("house") is False
    assert frequencies.zipf("the") > 7
    assert len(reads) == 1
