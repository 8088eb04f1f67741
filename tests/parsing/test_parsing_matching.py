"""match_verdicts: exact and fuzzy text, position fallback, missing, extras, duplicates."""

from __future__ import annotations

import pytest

from veracity.judges.parsing.matching import match_verdicts
from veracity.judges.parsing.verdicts import RawVerdict
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


def _numbered(number: int, evidence: str, verdict: Verdict = S) -> RawVerdict:
    return RawVerdict(None, verdict, evidence=evidence, raw_label=verdict.value, number=number)


# A list a small judge copied from its contexts, then judged one short: it skipped the
# first claim, numbered the rest from 1 and quoted each one's own words as its evidence.
LISTED = (
    "SAP HANA Database Overview",
    "SAP HANA offers a robust set of capabilities",
    "database management",
    "data security",
)


def test_a_verdict_numbered_one_short_goes_to_the_claim_its_evidence_quotes() -> None:
    verdicts = [_numbered(n, LISTED[n]) for n in (1, 2, 3)]
    match = match_verdicts(LISTED, verdicts)
    assert dict(match.assigned) == {1: verdicts[0], 2: verdicts[1], 3: verdicts[2]}
    assert match.missing == (0,)  # the skipped claim is asked again, not given another's
    assert match.extras == ()
    assert any("verdict 1 to claim 2, whose words it quotes" in n for n in match.notes)


def test_two_verdicts_with_swapped_numbers_are_swapped_back() -> None:
    claims = ("Two comics merged with the Eagle.", "The Eagle was merged with Lion in 1969.")
    verdicts = [
        _numbered(1, "The Eagle was merged with Lion in 1969."),
        _numbered(2, "", N),  # what the judge said of claim 1, under claim 2's number
    ]
    match = match_verdicts(claims, verdicts)
    assert dict(match.assigned) == {0: verdicts[1], 1: verdicts[0]}
    assert match.missing == ()
    assert match.extras == ()
    assert any("verdict 2 to claim 1: it swapped numbers" in n for n in match.notes)


def test_a_swap_back_never_takes_a_claim_already_judged() -> None:
    # Verdict 1 quotes claim 2; claim 1 has its own verdict by text: verdict 2 is a spare.
    verdicts = [
        _numbered(1, LISTED[1]),
        RawVerdict(LISTED[0], N, raw_label="not_enough_info"),
        _numbered(2, "", C),
    ]
    match = match_verdicts(LISTED[:2], verdicts)
    assert dict(match.assigned) == {0: verdicts[1], 1: verdicts[0]}
    assert match.extras == (verdicts[2],)


@pytest.mark.parametrize(
    ("evidence", "verdict"),
    [
        # Another claim's words that hold this claim's too.
        ("SAP HANA offers a robust set of capabilities", S),
        # A claim's own words cannot contradict it, nor leave it unsupported.
        ("database management", C),
        ("database management", N),
        # Words of no claim, or of the verdict's own claim.
        ("SAP HANA is a database.", S),
        ("SAP HANA offers a robust set", S),
    ],
)
def test_a_verdict_keeps_its_number_unless_it_supports_another_claim_in_its_words(
    evidence: str, verdict: Verdict
) -> None:
    claims = ("SAP HANA offers a robust set", LISTED[1], LISTED[2])
    verdicts = [_numbered(1, evidence, verdict), _numbered(2, claims[1]), _numbered(3, claims[2])]
    match = match_verdicts(claims, verdicts)
    assert dict(match.assigned) == {0: verdicts[0], 1: verdicts[1], 2: verdicts[2]}
    assert match.notes == ()


def test_a_claim_already_judged_by_its_own_text_keeps_that_verdict() -> None:
    judged = RawVerdict(LISTED[1], N, raw_label="not_enough_info")
    verdicts = [judged, _numbered(1, LISTED[1])]
    match = match_verdicts(LISTED[:2], verdicts)
    assert match.assigned[1] is judged
    assert match.assigned[0] is verdicts[1]


def test_evidence_quoting_two_claims_of_the_same_words_moves_nothing() -> None:
    claims = ("Paris is in France.", "It has a tower.", "It has a tower.")
    verdicts = [_numbered(1, "It has a tower."), _numbered(2, ""), _numbered(3, "")]
    match = match_verdicts(claims, verdicts)
    assert dict(match.assigned) == {0: verdicts[0], 1: verdicts[1], 2: verdicts[2]}
    assert match.notes == ()
