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


def loaded() -> bool:
    return _loaded.is_set()


def zipf(word: str) -> float:
    """``word``'s frequency in English on the Zipf scale; the first caller loads the table,
    and a caller that comes while it does waits for it rather than reading a copy."""
    from wordfreq import zipf_frequency  # type: ignore[import-untyped, import-not-found, unused-ignore]

    if not _loaded.is_set():
        with _lock:
            if not _loaded.is_set():
                zipf_frequency("the", "en")
                _loaded.set()
    return float(zipf_frequency(word, "en"))
