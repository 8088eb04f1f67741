"""A decision server's context window: a request over it is a judge error saying what to
set, and with the prompt budget set to the window (contexts cut to fit) the same samples
are scored, their cut contexts noted, never cut silently."""

from __future__ import annotations

import pytest

from veracity import evaluate
from veracity.config import RunConfig
from veracity.decisions import ServerLimits
from veracity.decisions.client import OVER_WINDOW_ADVICE
from veracity.testing import FakeDecisionServer, synthetic_samples
from veracity.types import Sample, Status

WINDOW = ServerLimits(max_questions=64, max_options=26, max_state_tokens=600)


@pytest.fixture
def long_samples() -> list[Sample]:
    return [
        s.model_copy(update={"contexts": [c * 100 for c in s.contexts]})
        for s in synthetic_samples(2, seed=5)
    ]


def test_over_the_window_is_a_judge_error_saying_what_to_set(long_samples: list[Sample]) -> None:
    with FakeDecisionServer(limits=WINDOW) as server:
        result = evaluate(
            long_samples,
            "faithfulness",
            "systemone/x",
            config=RunConfig(base_url=server.base_url, cache=False),
        )
    assert {r.status for r in result.results} == {Status.JUDGE_ERROR}
    assert all(OVER_WINDOW_ADVICE in r.reason for r in result.results)


def test_the_budget_set_to_the_window_cuts_the_contexts_and_scores(
    long_samples: list[Sample],
) -> None:
    with FakeDecisionServer(limits=WINDOW) as server:
        result = evaluate(
            long_samples,
            "faithfulness",
            "systemone/x",
            config=RunConfig(
                base_url=server.base_url, cache=False, prompt_budget=500, truncate_contexts=True
            ),
        )
    assert {r.status for r in result.results} == {Status.SCORED}
    for record in result.results:
        assert any("cut" in note for note in record.details.get("notes", [])), record.details
