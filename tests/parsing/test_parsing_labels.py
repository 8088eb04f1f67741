"""normalise_verdict: every synonym family, numbers, booleans and unknown labels."""

from __future__ import annotations

import pytest

from veracity.judges.parsing.legacy_verdicts import leading_label
from veracity.prompts.reply import normalise_verdict
from veracity.types.results import Verdict

SUPPORTED = [
    "supported",
    "support",
    "supports",
    "yes",
    "true",
    "1",
    "1.0",
    "entailed",
    "entailment",
    "entails",
    "faithful",
    "attributable",
    "correct",
    "pass",
    "valid",
    "verified",
    "fully supported",
]
CONTRADICTED = [
    "contradicted",
    "contradiction",
    "contradicts",
    "contradictory",
    "refuted",
    "refutes",
    "conflict",
    "conflicting",
    "inconsistent",
]
NOT_ENOUGH_INFO = [
    "not_enough_info",
    "not enough info",
    "not enough information",
    "nei",
    "neutral",
    "no",
    "false",
    "0",
    "0.0",
    "unsupported",
    "not supported",
    "not_supported",
    "unverifiable",
    "unknown",
    "cannot be determined",
    "insufficient information",
    "partially supported",
    "partial",
]


@pytest.mark.parametrize("label", SUPPORTED)
def test_supported_synonyms(label: str) -> None:
    assert normalise_verdict(label) is Verdict.SUPPORTED


@pytest.mark.parametrize("label", CONTRADICTED)
def test_contradicted_synonyms(label: str) -> None:
    assert normalise_verdict(label) is Verdict.CONTRADICTED


@pytest.mark.parametrize("label", NOT_ENOUGH_INFO)
def test_not_enough_info_synonyms(label: str) -> None:
    assert normalise_verdict(label) is Verdict.NOT_ENOUGH_INFO


@pytest.mark.parametrize(
    ("label", "verdict"),
    [
        ("  YES. ", Verdict.SUPPORTED),
        ("**Supported**", Verdict.SUPPORTED),
        ("Fully-Supported!", Verdict.SUPPORTED),
        ("NOT_ENOUGH_INFO", Verdict.NOT_ENOUGH_INFO),
        ("Not Enough Info.", Verdict.NOT_ENOUGH_INFO),
        ("not-supported", Verdict.NOT_ENOUGH_INFO),
        ('"Contradicted"', Verdict.CONTRADICTED),
        ("ｙｅｓ", Verdict.SUPPORTED),  # full-width letters, NFKC
    ],
)
def test_case_whitespace_and_punctuation_do_not_matter(label: str, verdict: Verdict) -> None:
    assert normalise_verdict(label) is verdict


@pytest.mark.parametrize(
    ("raw", "verdict"),
    [
        (True, Verdict.SUPPORTED),
        (False, Verdict.NOT_ENOUGH_INFO),
        (1, Verdict.SUPPORTED),
        (0, Verdict.NOT_ENOUGH_INFO),
        (1.0, Verdict.SUPPORTED),
        (0.0, Verdict.NOT_ENOUGH_INFO),
        (Verdict.CONTRADICTED, Verdict.CONTRADICTED),
    ],
)
def test_booleans_and_numbers(raw: object, verdict: Verdict) -> None:
    assert normalise_verdict(raw) is verdict


@pytest.mark.parametrize(
    "raw",
    [
        "maybe",
        "",
        "   ",
        "supported and contradicted",
        "2",
        "0.5",
        2,
        0.5,
        float("nan"),
        None,
        [],
        {},
    ],
)
def test_unknown_labels_are_none(raw: object) -> None:
    assert normalise_verdict(raw) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yes. The context says so.", (Verdict.SUPPORTED, "Yes", "The context says so.")),
        ("not supported - no mention", (Verdict.NOT_ENOUGH_INFO, "not supported", "no mention")),
        ("contradicted (it says 1900)", (Verdict.CONTRADICTED, "contradicted", "it says 1900)")),
        ("Paris is big", None),
    ],
)
def test_leading_label(text: str, expected: tuple[Verdict, str, str] | None) -> None:
    assert leading_label(text) == expected
