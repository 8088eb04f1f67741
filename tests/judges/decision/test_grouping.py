"""The coalescer: questions about one state wait for the sample's claims being drawn, not
for another sample's that started later with the same question."""

from __future__ import annotations

import asyncio

import pytest

from veracity.decisions import Question
from veracity.decisions.scripted import ScriptedDecisions
from veracity.judges.decision import grouping
from veracity.judges.decision.grouping import Asked, Coalescer

QUESTION = Asked("chunk_useful", "predicate", "Is passage [1] relevant?")


async def _extraction(coalescer: Coalescer, start_s: float, lasts_s: float) -> None:
    await asyncio.sleep(start_s)
    with coalescer.extracting("Summarize.", 0):
        await asyncio.sleep(lasts_s)


def test_waits_for_its_sample_extraction_not_for_later_ones() -> None:
    async def main() -> float:
        model = ScriptedDecisions(table={"predicate": {"true": 0.9, "false": 0.1}})
        coalescer = Coalescer(model, window_s=0.01)
        loop = asyncio.get_running_loop()
        own = asyncio.ensure_future(_extraction(coalescer, 0.0, 0.5))
        later = asyncio.ensure_future(_extraction(coalescer, 0.3, 3.0))
        started = loop.time()
        decided = await coalescer.ask("state", [QUESTION], iteration=0, awaits="Summarize.")
        took = loop.time() - started
        assert decided.answers[0].probability("true") == 0.9
        assert own.done() and not later.done()
        later.cancel()
        return took

    took = asyncio.run(main())
    assert took >= 0.5  # its own extraction was waited for; the later one was not (above)


def test_callers_share_a_request_and_its_usage_is_charged_once() -> None:
    async def main() -> None:
        model = ScriptedDecisions(table={"predicate": {"true": 0.6, "false": 0.4}})
        coalescer = Coalescer(model, window_s=0.01)
        other = Asked("chunk_useful", "predicate", "Is passage [2] relevant?")
        first, second, third = await asyncio.gather(
            coalescer.ask("state", [QUESTION], iteration=0),
            coalescer.ask("state", [other, QUESTION], iteration=0),
            coalescer.ask("state", [QUESTION], iteration=1),
        )
        assert [len(r.questions) for r in model.requests] == [2, 1]
        assert first.usage.calls == 1 and second.usage.calls == 0
        assert third.usage.calls == 1  # another iteration: its own request
        assert second.answers[1].name == first.answers[0].name  # asked once

    asyncio.run(main())


CLAIM = Asked("claim_support", "predicate", "Is the claim supported?")


def test_claims_drawn_are_waited_for_even_when_their_questions_come_late() -> None:
    """On a busy loop the claims' questions may come well after the claims were drawn."""

    async def main() -> None:
        model = ScriptedDecisions(table={"predicate": {"true": 0.9, "false": 0.1}})
        coalescer = Coalescer(model, window_s=0.01)

        async def faithfulness() -> None:
            with coalescer.extracting("Summarize.", 0) as extraction:
                await asyncio.sleep(0.05)
                extraction.found = True
            await asyncio.sleep(0.2)  # far beyond the quiet window
            await coalescer.ask("state", [CLAIM], iteration=0, claims=True)

        await asyncio.gather(
            coalescer.ask("state", [QUESTION], iteration=0, awaits="Summarize."),
            faithfulness(),
        )
        assert [len(r.questions) for r in model.requests] == [2]

    asyncio.run(main())


@pytest.mark.timeout(30)  # held for good, the request would never be sent
def test_claims_that_never_come_hold_the_request_a_second_at_most() -> None:
    async def main() -> float:
        model = ScriptedDecisions(table={"predicate": {"true": 0.9, "false": 0.1}})
        coalescer = Coalescer(model, window_s=0.01)
        loop = asyncio.get_running_loop()
        started = loop.time()

        async def extraction_only() -> None:
            with coalescer.extracting("Summarize.", 0) as extraction:
                await asyncio.sleep(0.02)
                extraction.found = True

        await asyncio.gather(
            coalescer.ask("state", [QUESTION], iteration=0, awaits="Summarize."),
            extraction_only(),
        )
        assert [len(r.questions) for r in model.requests] == [1]  # sent without the claims
        return loop.time() - started

    assert asyncio.run(main()) >= grouping.CLAIMS_WAIT_S  # it did wait for them, that long


async def test_ended_extractions_are_forgotten_so_a_long_run_keeps_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(grouping, "_KEPT_S", 0.0)
    coalescer = Coalescer(ScriptedDecisions(table={"predicate": {"true": 1.0}}), 0.0)
    for n in range(5_000):
        with coalescer.extracting(f"question {n}", 0) as extraction:
            extraction.found = True
    assert len(coalescer._extractions) <= 2 * grouping._SWEEP_AT


def test_a_failed_part_fails_its_callers_and_still_charges_the_first() -> None:
    from veracity.decisions import PartlyDecidedError, ServerLimits
    from veracity.transport import CallFailedError

    def answer(state: str, question: Question) -> object:
        if "[9]" in question.instructions:
            return CallFailedError("HTTP 503")
        return {"true": 0.7, "false": 0.3}

    async def main() -> None:
        limits = ServerLimits(max_questions=1, max_options=5)
        model = ScriptedDecisions(answer, limits=limits)  # type: ignore[arg-type]
        coalescer = Coalescer(model, window_s=0.01)
        failing = Asked("chunk_useful", "predicate", "Is passage [9] relevant?")
        first, second = await asyncio.gather(
            coalescer.ask("state", [failing, QUESTION], iteration=0),
            coalescer.ask("state", [QUESTION], iteration=0),
            return_exceptions=True,
        )
        assert isinstance(first, PartlyDecidedError) and "HTTP 503" in str(first)
        # The first caller carries the request's cost, though its own answers failed.
        assert first.reply.usage.calls == 1
        assert list(first.reply.answers) == ["chunk_useful_2"]
        assert not isinstance(second, BaseException)
        assert second.answers[0].probability("true") == 0.7 and second.usage.calls == 0

    asyncio.run(main())


def test_a_cancelled_first_caller_leaves_the_cost_to_the_next() -> None:
    async def main() -> None:
        model = ScriptedDecisions(table={"predicate": {"true": 0.6, "false": 0.4}})
        coalescer = Coalescer(model, window_s=0.05)
        other = Asked("chunk_useful", "predicate", "Is passage [2] relevant?")
        first = asyncio.ensure_future(coalescer.ask("state", [QUESTION], iteration=0))
        second = asyncio.ensure_future(coalescer.ask("state", [other], iteration=0))
        await asyncio.sleep(0)
        first.cancel()  # before the request goes
        decided = await second
        assert len(model.requests) == 1
        assert decided.usage.calls == 1  # charged, though the first caller left

    asyncio.run(main())
