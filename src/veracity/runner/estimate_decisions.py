"""Predicting a decision judge's requests and tokens before making any.

The run's own metrics are asked, sample by sample, of the decision judge itself over a
decision model that sends nothing and answers every option alike: the requests counted
are the judge's own grouping of questions by state and the client's splitting at the
server's limits, not a model of them. A request's input tokens are its state once and
each question with its options, at four characters a token; decision models write no
text, so there are no output tokens. Where a chat judge draws the claims (the hybrid), its
calls are estimated apart (:func:`~veracity.runner.estimate.estimate_extractions`), and
the decision questions are asked of the texts' sentences in their place.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator, Sequence

from veracity.decisions import Question, ServerLimits
from veracity.decisions.scripted import ScriptedDecisions, ScriptedRequest
from veracity.judges.decision import DecisionJudge
from veracity.metrics import BertScore, Metric, Models, SemanticSimilarity
from veracity.prompts import PromptBudget, approx_tokens
from veracity.runner.engine import run_metrics
from veracity.runner.estimate import Estimate
from veracity.types import ResultRecord, Sample, Status

# What the estimate's calls are filed under, beside a hybrid's chat extraction calls.
DECISION_REQUESTS = "decision requests"
# Metrics that ask no judge anything: left out of the dry run.
_NO_JUDGE = (SemanticSimilarity, BertScore)


def estimate_decisions(
    samples: Iterable[Sample],
    metrics: Sequence[Metric],
    limits: ServerLimits,
    *,
    iterations: int = 1,
    budget: PromptBudget | None = None,
) -> Estimate:
    """The requests and input tokens a decision judge with the server ``limits`` would
    spend on ``metrics`` over ``samples``, ``iterations`` times."""
    budget = budget or PromptBudget()
    asked = [m for m in metrics if not isinstance(m, _NO_JUDGE)]
    model = ScriptedDecisions(_alike, limits=limits, model="estimate")
    once = Estimate(budget=budget)
    count = 0

    def planned() -> Iterator[Sample]:
        nonlocal count
        for sample in samples:
            count += 1
            yield sample

    def tally(record: ResultRecord, _: int) -> None:
        once.over_budget += record.status is Status.INVALID_INPUT
        drain()

    def drain() -> None:
        # The requests sent so far, counted and let go: a large dataset is not kept.
        for request in model.requests:
            once.calls += 1
            once.input_tokens += request_tokens(request)
            once.calls_by_prompt[DECISION_REQUESTS] += 1
        model.requests.clear()

    if asked:
        judge = DecisionJudge(model, prompt_budget=budget)
        run = run_metrics(
            planned(), asked, Models(judge=judge), on_result=tally, on_bad_row=lambda _: None
        )
        asyncio.run(run)
        drain()
    else:
        for _ in planned():
            pass
    total = Estimate(budget=budget)
    total.merge(once, times=iterations)
    total.samples = count
    return total


def request_tokens(request: ScriptedRequest) -> int:
    """A request's input tokens: its state once, each question with its options."""
    return approx_tokens(request.state) + sum(map(_question_tokens, request.questions))


def _question_tokens(question: Question) -> int:
    options = " ".join(f"{o.value} {o.description}" for o in question.options)
    return approx_tokens(f"{question.instructions} {options}")


def _alike(_: str, question: Question) -> dict[str, float]:
    values = question.option_values()
    return dict.fromkeys(values, 1 / len(values))
