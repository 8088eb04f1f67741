"""Reading a distribution over allowed values from a reply's token log-probabilities."""

from __future__ import annotations

import math

import pytest

from veracity.judges.parsing.probabilities import (
    choice_probabilities,
    locate_values,
    weighted_number,
    weighted_scores,
)
from veracity.types import TokenLogprob

LABELS = {"supported": "S", "contradicted": "C", "not_enough_info": "N"}


def tok(piece: str, *alternatives: tuple[str, float]) -> TokenLogprob:
    top = tuple((t, math.log(p)) for t, p in alternatives) or ((piece, 0.0),)
    return TokenLogprob(piece, dict(top).get(piece, 0.0), top)


def test_values_are_located_in_order_after_their_keys() -> None:
    text = (
        '{"verdicts": [{"reason": "supported by x", "verdict": "supported"}, {"verdict": "not"}]}'
    )
    first, second = locate_values(text, ["supported", "not"], ["verdict"])
    assert first is not None and text[first:].startswith('supported"}')
    assert second is not None and text[second:].startswith('not"}')


def test_alternatives_that_fit_one_label_only_count() -> None:
    pieces = ['{"verdict": "', "supp", 'orted"}']
    tokens = [
        tok(pieces[0]),
        tok("supp", ("supp", 0.5), ("contr", 0.2), ("not", 0.2), ("s", 0.1)),
        tok(pieces[2]),
    ]
    text = "".join(pieces)
    (offset,) = locate_values(text, ["supported"], ["verdict"])
    distribution = choice_probabilities(tokens, text, offset, LABELS)
    assert distribution is not None
    # "s" fits "supported" only (no other label starts with s): it counts for S.
    assert distribution == pytest.approx({"S": 0.6, "C": 0.2, "N": 0.2})


def test_tokens_that_do_not_spell_the_reply_give_nothing() -> None:
    text = '{"verdict": "supported"}'
    tokens = [tok('{"verdict": "'), tok("supported"), tok("}")]  # a quote missing
    assert choice_probabilities(tokens, text, 13, LABELS) is None


def test_a_number_weighed_only_when_written_as_one_token() -> None:
    text = '{"score": 4}'
    tokens = [tok('{"score": '), tok("4", ("4", 0.5), ("5", 0.25), ("3", 0.25)), tok("}")]
    assert weighted_number(tokens, text, 10, 1, 5) == pytest.approx(4.0)
    split = '{"score": 85}'
    tokens = [tok('{"score": '), tok("8", ("8", 0.5), ("9", 0.5)), tok("5"), tok("}")]
    assert weighted_number(tokens, split, 10, 0, 100) is None


def test_alternatives_outside_the_scale_are_left_out() -> None:
    text = '{"score": 5}'
    tokens = [tok('{"score": '), tok("5", ("5", 0.5), ("6", 0.5)), tok("}")]
    assert weighted_number(tokens, text, 10, 1, 5) == pytest.approx(5.0)


def test_a_score_is_weighed_at_its_own_dimension_not_where_its_name_is_mentioned() -> None:
    # The first reasoning mentions "completeness"; both scores are 4.
    pieces = ['{"faithfulness": {"reasoning": "good completeness", "score": ', "4",
              '}, "completeness": {"reasoning": "r", "score": ', "4", "}}"]  # fmt: skip
    text = "".join(pieces)
    tokens = [
        tok(pieces[0]),
        tok("4", ("4", 0.5), ("5", 0.5)),
        tok(pieces[2]),
        tok("4", ("4", 0.5), ("3", 0.5)),
        tok(pieces[4]),
    ]
    weighted = weighted_scores(text, tokens, [("faithfulness", 4), ("completeness", 4)], 1, 5)
    assert weighted == [pytest.approx(4.5), pytest.approx(3.5)]
