"""match_verdicts: exact and fuzzy text, position fallback, missing, extras, duplicates."""

from __future__ import annotations

import pytest

from veracity.judges.parsing import RawVerdict, match_verdicts
from veracity.types.results import Verdict

S, C, N = Verdict.SUPPORTED, Verdict.CONTRADICTED, Verdict.NOT_ENOUGH_INFO
CLAIMS = (
    "Paris is the capital of France.",
    "The Eiffel Tower is 330 metres tall.",
    "The tower opened in 1889.",
)


def _v(claim: str | None, verdict: Verdict = S) -> RawVerdict:
    return RawVerdict(claim, verdict, raw_label=verdict.value)


def test_exact_text_in_any_order() -> None:
    verdicts = [_v(CLAIMS[2], N), _v(CLAIMS[0], S), _v(CLAIMS[1], C)]
    match = match_verdicts(CLAIMS, verdicts)
    assert dict(match.assigned) == {0: verdicts[1], 1: verdicts[2], 2: verdicts[0]}
    assert match.missing == ()
    assert match.extras == ()
    assert match.notes == ()


@pytest.mark.parametrize(
    "text",
    [
        "paris is the capital of france",
        "  PARIS   is the capital\nof France. ",
        '"Paris is the capital of France."',
        "1. Paris is the capital of France.",
        "\u201cParis is the capital of France\u201d",
        "Ｐａｒｉｓ is the capital of France.",  # NFKC
    ],
)
def test_exact_match_after_normalisation(text: str) -> None:
    verdicts = [_v(CLAIMS[1]), _v(text, C)]  # wrong order, so position would not do it
    match = match_verdicts(CLAIMS, verdicts)
    assert match.assigned[0] is verdicts[1]
    assert match.assigned[1] is verdicts[0]
    assert match.notes == ()


def test_fuzzy_text_match() -> None:
    verdicts = [_v("The Eiffel tower is 330 meters tall", C), _v(CLAIMS[0])]
    match = match_verdicts(CLAIMS, verdicts)
    assert match.assigned[1] is verdicts[0]
    assert match.assigned[0] is verdicts[1]
    assert match.missing == (2,)
    assert any("similar text" in n and "claim 2" in n for n in match.notes)


def test_fuzzy_below_threshold_falls_back_to_position() -> None:
    verdicts = [_v("Something else entirely", N)]
    match = match_verdicts(CLAIMS, verdicts)
    assert match.assigned[0] is verdicts[0]
    assert any("by position" in n for n in match.notes)


def test_fuzzy_tie_is_left_to_position() -> None:
    claims = ("The year was 1901.", "The year was 1902.")
    verdicts = [_v("The year was 1903.", N), _v("The year was 1904.", C)]
    match = match_verdicts(claims, verdicts)
    assert match.assigned == {0: verdicts[0], 1: verdicts[1]}
    assert not any("similar text" in n for n in match.notes)
    assert sum("by position" in n for n in match.notes) == 2


@pytest.mark.parametrize("claim_text", [None, ""])
def test_position_fallback_for_label_only_verdicts(claim_text: str | None) -> None:
    verdicts = [_v(claim_text, S), _v(claim_text, C), _v(claim_text, N)]
    match = match_verdicts(CLAIMS, verdicts)
    assert dict(match.assigned) == {0: verdicts[0], 1: verdicts[1], 2: verdicts[2]}
    assert match.notes == ()


def test_position_only_takes_a_free_claim() -> None:
    # verdict 0 names claim 1 by text, so the label-only verdict at position 1 finds it taken
    verdicts = [_v(CLAIMS[1], C), _v(None, S)]
    match = match_verdicts(CLAIMS, verdicts)
    assert match.assigned == {1: verdicts[0]}
    assert match.missing == (0, 2)
    assert match.extras == (verdicts[1],)


def test_missing_claims() -> None:
    verdicts = [_v(CLAIMS[0])]
    match = match_verdicts(CLAIMS, verdicts)
    assert match.missing == (1, 2)
    assert list(match.assigned) == [0]


def test_extras_are_dropped_and_noted() -> None:
    verdicts = [_v(CLAIMS[0]), _v(CLAIMS[1]), _v(CLAIMS[2]), _v("The sky is green.", C)]
    match = match_verdicts(CLAIMS, verdicts)
    assert match.extras == (verdicts[3],)
    assert match.missing == ()
    assert match.notes == ("dropped 1 extra verdict: 'The sky is green.' -> contradicted",)


def test_verdicts_without_claims_are_all_extras() -> None:
    verdicts = [_v(None), _v("x")]
    match = match_verdicts((), verdicts)
    assert match.assigned == {}
    assert match.extras == tuple(verdicts)
    assert "dropped 2 extra verdicts" in match.notes[-1]


def test_no_verdicts_means_every_claim_is_missing() -> None:
    match = match_verdicts(CLAIMS, [])
    assert match.missing == (0, 1, 2)
    assert match.extras == ()


def test_duplicate_by_exact_text_keeps_the_first() -> None:
    verdicts = [_v(CLAIMS[0], S), _v(CLAIMS[0].upper(), C), _v(CLAIMS[2], N)]
    match = match_verdicts(CLAIMS, verdicts)
    assert match.assigned == {0: verdicts[0], 2: verdicts[2]}
    assert match.missing == (1,)  # the duplicate does not take claim 1 by position
    assert match.extras == (verdicts[1],)
    assert any("duplicate verdict for claim 1" in n and "kept the first" in n for n in match.notes)


def test_duplicate_by_fuzzy_text_keeps_the_first() -> None:
    verdicts = [_v(CLAIMS[1], S), _v("The Eiffel tower is 330 meters tall", C)]
    match = match_verdicts(CLAIMS, verdicts)
    assert match.assigned == {1: verdicts[0]}
    assert match.extras == (verdicts[1],)
    assert any("duplicate verdict for claim 2" in n for n in match.notes)


def test_identical_claims_each_get_one_verdict() -> None:
    claims = ("It is big.", "It is big.")
    verdicts = [_v("It is big.", S), _v("It is big.", C)]
    match = match_verdicts(claims, verdicts)
    assert match.assigned == {0: verdicts[0], 1: verdicts[1]}
    assert match.extras == ()


def test_assigned_is_read_only() -> None:
    match = match_verdicts(CLAIMS, [_v(CLAIMS[0])])
    with pytest.raises(TypeError):
        match.assigned[1] = _v(None)  # type: ignore[index]
