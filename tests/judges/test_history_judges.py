"""The conversation before a question, through the LLM judge: in the prompts that need it
(over the OpenAI and the Anthropic API alike), counted by the prompt budget and the
estimate, and prompts without history exactly as they were."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tests.helpers import claims_reply, constant, make_sample, verdicts_reply
from veracity.chat import AnthropicChat, ChatModel, OpenAIChat, ScriptedChat
from veracity.judges import LLMJudge
from veracity.metrics import (
    AnswerRelevance,
    ContextPrecision,
    ContextRecall,
    Faithfulness,
    Metric,
    Models,
    SampleWork,
)
from veracity.prompts import (
    ALL_TEMPLATES,
    CHUNK_RELEVANCE,
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    QUESTION_GENERATION,
    RELEVANCE_RATING,
    ChatMessage,
    OutputSpec,
    PromptBudget,
    conversation_fingerprints,
    render_chunk_relevance,
    render_extraction,
    render_question_generation,
    render_relevance_rating,
    render_verification,
)
from veracity.runner.estimate import estimate_run
from veracity.testing import FakeLLMServer, HashingEmbedder
from veracity.transport import RetryPolicy
from veracity.types import Sample, Turn

HISTORY = (
    Turn(role="user", content="When was the Eiffel Tower finished?"),
    Turn(role="assistant", content="In 1889, for the World's Fair."),
)
CONTEXTS = ("The Eiffel Tower is 330 metres tall.", "Paris is in France.")
FOLLOW_UP = make_sample(
    answer="It is 330 metres tall.",
    contexts=CONTEXTS,
    question="And how tall is it?",
    reference="The tower is 330 metres tall.",
    history=[t.model_dump() for t in HISTORY],
)
ALONE = FOLLOW_UP.model_copy(update={"history": ()})


def respond(messages: Sequence[ChatMessage], output: OutputSpec) -> str:
    """A usable reply to each question (their content does not matter here)."""
    replies = {
        "claim_extraction": claims_reply("The Eiffel Tower is 330 metres tall."),
        "claim_verification": verdicts_reply(("The Eiffel Tower is 330 metres tall.", "supported")),
        "chunk_relevance": json.dumps(
            {
                "chunks": [
                    {"index": i, "reason": "r", "relevance": 90, "relevant": True} for i in (1, 2)
                ]
            }
        ),
        "question_generation": json.dumps(
            {"reason": "r", "noncommittal": False, "questions": ["How tall is the tower?"]}
        ),
        "relevance_rating": json.dumps({"reason": "r", "score": 90}),
    }
    return replies[output.name]


async def run_metrics(sample: Sample, embedder: HashingEmbedder | None) -> ScriptedChat:
    chat = ScriptedChat(responder=respond)
    metrics: list[Metric] = [Faithfulness(), ContextPrecision(), ContextRecall(), AnswerRelevance()]
    work = SampleWork(
        sample,
        Models(LLMJudge(chat, unfounded_support="flag"), embedder=embedder),
        0,
        {m.name: m for m in metrics},
    )
    for metric in metrics:
        result = await work.result_of(metric.name, constant(metric))
        assert result.score is not None, result.reason
    return chat


def by_template(chat: ScriptedChat) -> dict[str, list[tuple[ChatMessage, ...]]]:
    found: dict[str, list[tuple[ChatMessage, ...]]] = {}
    for call in chat.calls:
        found.setdefault(call.output.name, []).append(call.messages)
    return found


async def test_history_goes_to_the_questions_that_need_it_and_no_other() -> None:
    calls = by_template(await run_metrics(FOLLOW_UP, HashingEmbedder()))
    rated = by_template(await run_metrics(FOLLOW_UP, None))  # no embedder: a direct rating
    calls["relevance_rating"] = rated["relevance_rating"]
    assert len(calls["claim_extraction"]) == 2  # the answer's claims, the reference's
    for name in ("claim_extraction", "chunk_relevance", "question_generation", "relevance_rating"):
        for messages in calls[name]:
            user = messages[1].content
            assert "<history>" in user, name
            assert user.index(HISTORY[0].content) < user.index(HISTORY[1].content)
            assert user.index("</history>") < user.index(
                "<question>" if "<question>" in user else "<answer>"
            )
    for messages in calls["claim_verification"]:
        assert "history" not in messages[1].content and "1889" not in messages[1].content


async def test_without_history_every_prompt_is_the_template_s_own() -> None:
    calls = by_template(await run_metrics(ALONE, HashingEmbedder()))
    rated = by_template(await run_metrics(ALONE, None))
    q, a, ref = ALONE.question, ALONE.answer, ALONE.reference or ""
    expected = {
        "claim_extraction": [
            CLAIM_EXTRACTION.render(render_extraction(q, a)).messages,
            CLAIM_EXTRACTION.render(render_extraction(q, ref)).messages,
        ],
        "claim_verification": [
            CLAIM_VERIFICATION.render(
                render_verification(["The Eiffel Tower is 330 metres tall."], CONTEXTS), items=1
            ).messages
        ],
        "chunk_relevance": [
            CHUNK_RELEVANCE.render(render_chunk_relevance(q, CONTEXTS, ref), items=2).messages
        ],
        "question_generation": [
            QUESTION_GENERATION.render(render_question_generation(a, CONTEXTS)).messages
        ],
    }
    assert {k: sorted(v, key=str) for k, v in calls.items()} == {
        k: sorted(v, key=str) for k, v in expected.items()
    }
    assert rated["relevance_rating"] == [
        RELEVANCE_RATING.render(render_relevance_rating(q, a)).messages
    ]


def test_the_judge_records_both_sets_of_prompt_fingerprints() -> None:
    described = LLMJudge(ScriptedChat()).describe()
    # The prompts of runs without history, recorded as they always were.
    assert described["prompts"] == {t.id: t.fingerprint for t in ALL_TEMPLATES}
    assert described["conversation_prompts"] == conversation_fingerprints(ALL_TEMPLATES)


async def test_answer_relevance_compares_a_follow_up_read_after_the_user_turn() -> None:
    embedder = HashingEmbedder()
    chat = ScriptedChat(responder=respond)
    work = SampleWork(FOLLOW_UP, Models(LLMJudge(chat), embedder=embedder), 0)
    result = await AnswerRelevance().score(work)
    read_as = f"{HISTORY[0].content} {FOLLOW_UP.question}"
    assert result.details["question_read_as"] == read_as
    alone = await AnswerRelevance().score(
        SampleWork(ALONE, Models(LLMJudge(chat), embedder=embedder), 0)
    )
    assert "question_read_as" not in alone.details
    # Read with its conversation, the question shares the tower's name with the generated one.
    assert result.score is not None and alone.score is not None and result.score > alone.score


# ------------------------------------------------------------------ budget and estimate


async def test_the_prompt_budget_counts_the_history() -> None:
    long_history = (Turn(role="user", content="word " * 4000),)
    chat = ScriptedChat(responder=respond)
    judge = LLMJudge(chat, prompt_budget=PromptBudget(2000))
    fits = await judge.extract_claims(ALONE.question, ALONE.answer, iteration=0)
    assert fits.ok
    over = await judge.extract_claims(
        ALONE.question, ALONE.answer, iteration=0, history=long_history
    )
    assert over.invalid_input and over.error is not None and "prompt budget" in over.error
    assert len(chat.calls) == 1  # the question over the budget was never sent


def test_the_estimate_renders_the_history_as_the_judge_does() -> None:
    metrics: list[Metric] = [Faithfulness(), ContextPrecision(), AnswerRelevance()]
    alone, shown = estimate_run([ALONE], metrics), estimate_run([FOLLOW_UP], metrics)
    # One call more: faithfulness' check of the turns (counted as an upper bound).
    assert shown.calls == alone.calls + 1
    # Three prompts carry the conversation (claims, chunks, questions): its note and turns.
    assert shown.input_tokens - alone.input_tokens > 3 * 60
    tight = PromptBudget(800)
    assert estimate_run([ALONE], [Faithfulness()], budget=tight).over_budget == 0
    long = FOLLOW_UP.model_copy(update={"history": (Turn(content="word " * 400),)})
    over = estimate_run([long], [Faithfulness()], budget=tight)
    # Over the budget with its history, the extraction is not sent, nor any verification.
    assert over.over_budget == 1 and over.calls == 0


# ----------------------------------------------------------------- over HTTP, both APIs

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05)


async def test_openai_and_anthropic_requests_carry_the_history() -> None:
    with FakeLLMServer() as server:
        chats: list[ChatModel] = [
            OpenAIChat("m", base_url=server.base_url, api_key="k", retry=FAST_RETRY),
            AnthropicChat("m", base_url=server.anthropic_base_url, api_key="k", retry=FAST_RETRY),
        ]
        for chat in chats:
            judge = LLMJudge(chat)
            outcome = await judge.extract_claims(
                FOLLOW_UP.question, FOLLOW_UP.answer, iteration=0, history=FOLLOW_UP.history
            )
            assert outcome.value == ("It is 330 metres tall.",)  # the answer's, not the history's
            await judge.aclose()
        openai_body, anthropic_body = server.requests
    openai_user = openai_body["messages"][1]["content"]
    anthropic_user = anthropic_body["messages"][0]["content"]
    for user in (openai_user, anthropic_user):
        text = user if isinstance(user, str) else "".join(b["text"] for b in user)
        assert '<turn role="user">\nWhen was the Eiffel Tower finished?\n</turn>' in text
        assert text.index("</history>") < text.index("<question>")
    assert openai_body["messages"][0]["content"] == CLAIM_EXTRACTION.system_text
    assert anthropic_body["system"] == CLAIM_EXTRACTION.system_text
