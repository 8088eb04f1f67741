"""wordfreq's English word frequencies (what :func:`veracity.text.analysis.specific` reads),
loaded once per process.

wordfreq reads its table on first use and keeps it with ``functools.lru_cache``, which
does not make a second caller wait for the first one's result: every thread that asks
before the first load ends reads and keeps building a copy of its own (about 35 MiB each,
for a second). The offline judge's worker threads asked at once, and its peak memory
on the same input went from 150 to 300 MiB from run to run with how many of them did.
"""

from __future__ import annotations

import threading

_lock = threading.Lock()
_loaded = threading.Event()


def english_frequencies_loaded() -> bool:
    return _loaded.is_set()


def load_english_frequencies() -> None:
    """Load the table now, once (a caller that comes while another loads it waits for
    it). Blocking: call it from a worker thread."""
    with _lock:
        if _loaded.is_set():
            return
        from wordfreq import zipf_frequency  # type: ignore[import-untyped, import-not-found, unused-ignore]

        # The call analysis.specific makes, so that it fills the cache entry specific reads.
        zipf_frequency("the", "en")
        _loaded.set()
