"""``veracity estimate`` against what a run really does, on the fake server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.in_process import veracity
from veracity import LLMJudge, OpenAIChat, evaluate
from veracity.config import RunConfig
from veracity.metrics import resolve_metrics
from veracity.prompts import PromptBudget
from veracity.runner.estimate import estimate_run
from veracity.testing import FakeLLMServer, HashingEmbedder, synthetic_samples

METRICS = [
    "faithfulness",
    "context_precision",
    "context_recall",
    "answer_relevance",
    "factual_accuracy",
    "answer_classification",
    "rubric",
]


@pytest.mark.parametrize("iterations", [1, 2])
def test_estimate_is_within_15_percent_of_calls_and_tokens(iterations: int) -> None:
    samples = synthetic_samples(40, seed=9)
    metrics = resolve_metrics(METRICS)
    predicted = estimate_run(samples, metrics, iterations=iterations, has_embedder=True)
    with FakeLLMServer() as server:
        judge = LLMJudge(OpenAIChat("fake", base_url=server.base_url, api_key="k"))
        evaluate(
            samples,
            metrics,
            judge,
            config=RunConfig(iterations=iterations, embedder=HashingEmbedder(), cache=False),
        )
        stats = server.stats
    actual_tokens = stats.prompt_tokens + stats.completion_tokens
    predicted_tokens = predicted.input_tokens + predicted.output_tokens
    assert predicted.calls == pytest.approx(stats.completions, rel=0.15)
    assert predicted_tokens == pytest.approx(actual_tokens, rel=0.15)
    assert predicted.input_tokens == pytest.approx(stats.prompt_tokens, rel=0.15)


def test_estimate_command_prints_calls_tokens_and_cost(tmp_path: Path) -> None:
    dataset = tmp_path / "data.jsonl"
    dataset.write_text(
        "".join(json.dumps(s.model_dump(mode="json")) + "\n" for s in synthetic_samples(3))
    )
    proc = veracity(
        "estimate", str(dataset), "--metrics", "faithfulness,context_recall",
        "--judge", "openai/gpt-4o-mini", "--rpm", "60",
        env={"OPENAI_API_KEY": "unused"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "3 samples × 2 metric(s)" in proc.stdout
    assert "judge calls     9" in proc.stdout  # 2 extractions + 1 shared verification each
    assert "cost            ~$" in proc.stdout
    assert "time at 60 rpm" in proc.stdout


def test_no_price_is_said_not_guessed(tmp_path: Path) -> None:
    dataset = tmp_path / "data.jsonl"
    dataset.write_text(json.dumps(synthetic_samples(1)[0].model_dump(mode="json")) + "\n")
    proc = veracity(
        "estimate", str(dataset), "--judge", "openai/my-own-model", "--base-url",
        "http://127.0.0.1:9/v1",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "cost            unknown" in proc.stdout


def test_estimate_counts_questions_over_the_prompt_budget_as_not_sent(tmp_path: Path) -> None:
    """A sample over the budget makes no call in a run: the estimate must not count it,
    and says how many questions it leaves out; cut contexts are sized as cut."""
    small = synthetic_samples(3, seed=2)
    huge = small[0].model_copy(update={"id": "huge", "answer": "The answer goes on. " * 20_000})
    samples = [*small, huge]
    metrics = resolve_metrics(["faithfulness", "context_precision"])
    budget = PromptBudget(8_000)
    predicted = estimate_run(samples, metrics, has_embedder=True, budget=budget)
    with FakeLLMServer() as server:
        judge = LLMJudge(OpenAIChat("fake", base_url=server.base_url, api_key="k"),
                         prompt_budget=budget)  # fmt: skip
        result = evaluate(samples, metrics, judge, config=RunConfig(cache=False))
        sent = server.stats.completions
    assert predicted.calls == sent
    assert predicted.over_budget == 1  # the huge answer's claim extraction
    assert [r.status.value for r in result.results if r.sample_id == "huge"] == [
        "invalid_input",
        "scored",
    ]
    assert estimate_run(small, metrics, has_embedder=True, budget=budget).over_budget == 0

    dataset = tmp_path / "data.jsonl"
    dataset.write_text("".join(json.dumps(s.model_dump(mode="json")) + "\n" for s in samples))
    proc = veracity(
        "estimate", str(dataset), "--metrics", "faithfulness", "--judge", "openai/gpt-4o-mini",
        "--prompt-budget", "8000", env={"OPENAI_API_KEY": "unused"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "not sent        1 question(s) over the prompt budget of 8,000 tokens" in proc.stdout


def test_a_conversation_adds_faithfulness_check_of_its_turns_at_most_once() -> None:
    from veracity.types import Sample, Turn

    alone = Sample(id="a", question="q?", answer="The tower is tall.", contexts=("c.",))
    talk = alone.model_copy(update={"history": (Turn(role="user", content="I am in Paris."),)})
    metrics = resolve_metrics(["faithfulness"])
    without = estimate_run([alone], metrics)
    with_turns = estimate_run([talk], metrics)
    assert with_turns.calls_by_prompt["claim_verification"] == 2
    assert without.calls_by_prompt["claim_verification"] == 1
    assert with_turns.calls == without.calls + 1


def test_citation_metrics_count_nothing_for_an_answer_that_cites_nothing() -> None:
    from veracity.types import Sample

    sample = Sample(
        id="a", question="q?", contexts=("one.", "two."),
        answer="The tower is tall [1][2]. It is old [2]. It is grey.",
    )  # fmt: skip
    metrics = resolve_metrics(["citation_recall", "citation_precision"])
    cited = estimate_run([sample], metrics)
    # Faithfulness' extraction and verification, shared by both metrics.
    assert cited.calls == estimate_run([sample], resolve_metrics(["faithfulness"])).calls == 2
    uncited = sample.model_copy(update={"answer": "The tower is tall. It is old."})
    assert estimate_run([uncited], metrics).calls == 0  # no_citations, before any call
    both = resolve_metrics(["faithfulness", "citation_recall"])
    assert estimate_run([uncited], both).calls == 2
