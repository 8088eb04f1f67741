"""The offline judge reads wordfreq's English table once when many samples start at once
(each worker thread that looked a word up first read a copy of its own: 35 MiB each)."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers import word_frequencies_unloaded
from veracity.judges.offline import OfflineJudge
from veracity.text import frequencies


async def test_samples_starting_at_once_read_the_word_frequencies_once(
    judge: OfflineJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = word_frequencies_unloaded(monkeypatch)
    pancreas = "Insulin is produced by beta cells in the islets of the pancreas."
    # "liver" is in no context and rare: its claim's features look it up.
    found = await asyncio.gather(
        *(
            judge.claim_features([f"Insulin number {i} is made in the liver."], [pancreas])
            for i in range(8)
        )
    )
    assert all(f.missing_specific == ("liver",) for (f,) in found)
    assert len(reads) == 1
    assert frequencies.loaded()
