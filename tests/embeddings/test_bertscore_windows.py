"""Where BERTScore's windows over a long text start, and which window each token takes."""

from __future__ import annotations

from itertools import pairwise

import pytest

from veracity.embeddings.bertscore_windows import best_windows, window_starts


def test_a_text_that_fits_is_one_window() -> None:
    assert window_starts(0, 510) == [0]
    assert window_starts(510, 510) == [0]


@pytest.mark.parametrize(("length", "window"), [(511, 510), (1000, 510), (2556, 510), (9, 4)])
def test_windows_overlap_by_half_and_the_last_ends_with_the_text(length: int, window: int) -> None:
    starts = window_starts(length, window)
    assert starts[0] == 0 and starts[-1] == length - window
    assert all(0 < b - a <= window // 2 for a, b in pairwise(starts))


def test_each_token_takes_the_window_where_it_has_most_context() -> None:
    window = 8
    starts = window_starts(20, window)  # [0, 4, 8, 12]
    assert starts == [0, 4, 8, 12]
    best = best_windows(20, starts, window)
    assert best == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3]
    for position, which in enumerate(best):
        start = starts[which]
        assert start <= position < start + window
        # Away from the text's own ends, a token has about a quarter window on each side
        # (127 tokens for a window of 510).
        if window // 4 <= position < 20 - window // 4:
            assert min(position - start, start + window - 1 - position) >= (window // 2 - 1) // 2
