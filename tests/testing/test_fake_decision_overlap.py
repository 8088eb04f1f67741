"""The fake decision model's word-overlap answers: deterministic, valid, and sensible."""

from __future__ import annotations

import math

import pytest

from veracity.decisions.base import Option, Question
from veracity.prompts import decisions as decision_prompts
from veracity.testing import OverlapDecider
from veracity.testing.decision_overlap import option_role

STATE = (
    "Paris is the capital of France. The Eiffel Tower was finished in 1889 for the World's Fair."
)
VERDICTS = (
    Option("supported", "the passages state the claim"),
    Option("contradicted", "the passages state the opposite"),
    Option("not_enough_info", "the passages do not say"),
)
LEVELS = tuple(Option(str(i), text) for i, text in enumerate(["none", "some", "most", "all"]))
decide = OverlapDecider()


def verdict(claim: str, state: str = STATE) -> dict[str, float]:
    question = Question("c", "choice", f"Is the claim supported? Claim: {claim}", VERDICTS)
    probabilities = decide(state, question)
    assert probabilities is not None
    return {o.value: p for o, p in zip(VERDICTS, probabilities, strict=True)}


def test_a_claim_whose_words_are_in_the_passages_is_likely_supported() -> None:
    answer = verdict("The Eiffel Tower was finished in 1889.")
    assert max(answer, key=answer.__getitem__) == "supported"
    assert answer["supported"] > 0.9


def test_a_claim_whose_words_are_not_there_leans_not_enough_info() -> None:
    answer = verdict("Berlin has many museums and large parks.")
    assert max(answer, key=answer.__getitem__) == "not_enough_info"
    assert answer["not_enough_info"] > 0.9


def test_a_covered_claim_that_flips_a_negation_is_contradicted() -> None:
    answer = verdict("The Eiffel Tower was not finished in 1889.")
    assert max(answer, key=answer.__getitem__) == "contradicted"


def test_partial_overlap_is_less_certain_than_full_overlap() -> None:
    full = verdict("Paris is the capital of France.")
    partial = verdict("Paris has the largest museums of Europe.")
    assert partial["supported"] < full["supported"]
    assert partial["not_enough_info"] > full["not_enough_info"]


def test_predicates_rise_with_overlap() -> None:
    covered = decide(STATE, Question("p", "predicate", "Paris is the capital of France"))
    uncovered = decide(STATE, Question("p", "predicate", "Madrid hosts the Olympic games"))
    assert covered is not None and uncovered is not None
    assert covered[1] > 0.9
    assert uncovered[1] < 0.1


def test_scores_put_mass_on_higher_levels_with_more_overlap() -> None:
    def expected(instructions: str) -> float:
        probabilities = decide(STATE, Question("s", "score", instructions, LEVELS))
        assert probabilities is not None
        return sum(i * p for i, p in enumerate(probabilities))

    full = expected("Paris capital France")
    half = expected("Paris capital Spain Madrid")
    none = expected("Madrid Spain Barcelona")
    assert full > half > none
    assert full > 2.5 and none < 0.5


@pytest.mark.parametrize(
    "question",
    [
        Question("p", "predicate", "anything at all"),
        Question("p", "predicate", "the the and"),  # no content words
        Question("c", "choice", "Which team?", (Option("billing"), Option("shipping"))),
        Question("c", "choice", "Claim: Paris", VERDICTS),
        Question("s", "score", "Paris", LEVELS[:2]),
        Question("s", "score", "Paris", tuple(Option(str(i)) for i in range(10))),
    ],
)
def test_probabilities_are_always_a_valid_distribution(question: Question) -> None:
    probabilities = decide(STATE, question)
    assert probabilities is not None
    assert len(probabilities) == len(question.option_values())
    assert all(math.isfinite(p) and 0.0 <= p <= 1.0 for p in probabilities)
    assert abs(math.fsum(probabilities) - 1.0) < 1e-3
    assert decide(STATE, question) == probabilities  # deterministic


def test_options_of_no_known_meaning_follow_their_own_words() -> None:
    options = (Option("billing", "payments, charges and refunds"), Option("shipping", "parcels"))
    question = Question("route", "choice", "Which team should handle this?", options)
    probabilities = decide("I was charged twice and want my refunds.", question)
    assert probabilities is not None and probabilities[0] > probabilities[1]


@pytest.mark.parametrize(
    ("value", "description", "role"),
    [
        ("supported", "", "affirm"),
        ("yes", "", "affirm"),
        ("contradicted", "", "deny"),
        ("not_enough_info", "", "abstain"),
        ("nei", "", "abstain"),
        ("B", "the passages do not support it", "deny"),
        ("C", "not enough information", "abstain"),
        ("billing", "payments", "other"),
    ],
)
def test_option_roles(value: str, description: str, role: str) -> None:
    assert option_role(value, description) == role


# veracity's own decision questions, as its decision judge asks them --------------------

CONTEXTS = [
    "Paris is the capital of France.",
    "The Eiffel Tower was finished in 1889 for the World's Fair.",
    "Bananas are yellow.",
]
QUESTION = "When was the Eiffel Tower finished?"


def top(state: str, question: Question) -> str:
    probabilities = decide(state, question)
    assert probabilities is not None
    values = question.option_values()
    return values[max(range(len(values)), key=lambda i: probabilities[i])]


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("The Eiffel Tower was finished in 1889.", "supported"),
        ("The Eiffel Tower was not finished in 1889.", "contradicted"),
        ("The Louvre is in Rome.", "not_enough_info"),
    ],
)
def test_claims_as_the_decision_judge_asks_them(claim: str, expected: str) -> None:
    options = tuple(Option(v, d) for v, d in decision_prompts.CLAIM_SUPPORT.options)
    instructions = decision_prompts.claim_instructions(claim)
    state = decision_prompts.contexts_state(CONTEXTS)
    assert top(state, Question("c", "choice", instructions, options)) == expected


def test_a_passage_question_looks_in_that_passage_only() -> None:
    state = decision_prompts.contexts_state(CONTEXTS)
    useful = [
        top(
            state,
            Question("k", "predicate", decision_prompts.chunk_instructions(i, QUESTION, None)),
        )
        for i in (1, 2, 3)
    ]
    assert useful == ["false", "true", "false"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("It was finished in 1889.", "correct"),
        ("It was finished in 1925 by Napoleon.", "wrong"),
        ("I don't know.", "dont_know"),
    ],
)
def test_an_answer_is_graded_against_its_reference(answer: str, expected: str) -> None:
    template = decision_prompts.ANSWER_CLASS
    options = tuple(Option(v, d) for v, d in template.options)
    reference = "The Eiffel Tower was finished in 1889."
    state = decision_prompts.graded_state(QUESTION, answer, reference)
    assert top(state, Question("a", "choice", template.instructions, options)) == expected


def test_relevance_rises_with_the_questions_words_in_the_answer() -> None:
    template = decision_prompts.RELEVANCE_LEVEL
    levels = tuple(Option(v, d) for v, d in template.options)

    def level(answer: str) -> float:
        state = decision_prompts.answer_state(QUESTION, answer)
        probabilities = decide(state, Question("r", "score", template.instructions, levels))
        assert probabilities is not None
        return sum(i * p for i, p in enumerate(probabilities))

    assert level("The Eiffel Tower was finished in 1889.") > 3.0
    assert level("Bananas are yellow.") < 1.0
