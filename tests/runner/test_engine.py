"""The runner: a bounded window of samples in flight, results out as they finish."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from tests.helpers import claims_reply, make_sample, verdicts_reply
from veracity.chat import ScriptedChat
from veracity.judges import LLMJudge
from veracity.metrics import Faithfulness, Models
from veracity.prompts import ChatMessage, OutputSpec
from veracity.runner import run_metrics
from veracity.types import ResultRecord, Sample


def respond(messages: object, output: OutputSpec) -> str:
    del messages
    if output.name == "claim_extraction":
        return claims_reply("Paris is the capital of France.")
    return verdicts_reply(("Paris is the capital of France.", "supported"))


async def test_only_a_window_of_samples_is_read_ahead() -> None:
    pulled = finished = peak_ahead = 0

    def samples() -> Iterator[Sample | str]:
        nonlocal pulled, peak_ahead
        for i in range(60):
            pulled += 1
            peak_ahead = max(peak_ahead, pulled - finished)
            yield make_sample(id=f"s{i}")
            if i == 30:
                yield "a bad row"

    def on_result(record: ResultRecord, position: int) -> None:
        nonlocal finished
        finished += 1

    bad: list[str] = []
    chat = ScriptedChat(responder=respond, latency_s=0.005, concurrency=4)
    await run_metrics(
        samples(),
        [Faithfulness()],
        Models(LLMJudge(chat)),
        on_result=on_result,
        on_bad_row=bad.append,
        max_in_flight=5,
    )
    assert finished == 60
    assert bad == ["a bad row"]
    assert peak_ahead <= 5 + 1  # the window, plus the one being handed out


async def test_iterations_are_independent_jobs_with_their_index() -> None:
    chat = ScriptedChat(responder=respond)
    records: list[ResultRecord] = []
    await run_metrics(
        [make_sample()],
        [Faithfulness()],
        Models(LLMJudge(chat)),
        on_result=lambda record, position: records.append(record),
        on_bad_row=print,
        iterations=3,
    )
    assert sorted(r.iteration for r in records) == [0, 1, 2]
    assert {c.iteration for c in chat.calls} == {0, 1, 2}
    assert len(chat.calls) == 6  # nothing is shared across iterations


async def test_a_bug_surfaces_as_itself() -> None:
    def broken(messages: Sequence[ChatMessage], output: OutputSpec) -> str:
        raise KeyError("a bug")

    with pytest.raises(KeyError, match="a bug"):
        await run_metrics(
            [make_sample()],
            [Faithfulness()],
            Models(LLMJudge(ScriptedChat(responder=broken))),
            on_result=lambda record, position: None,
            on_bad_row=print,
        )


async def test_iterations_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        await run_metrics(
            [],
            [Faithfulness()],
            Models(LLMJudge(ScriptedChat())),
            on_result=lambda record, position: None,
            on_bad_row=print,
            iterations=0,
        )


async def test_done_metrics_are_skipped_and_positions_follow_the_dataset() -> None:
    chat = ScriptedChat(responder=respond)
    seen: list[tuple[str, int]] = []
    samples = [make_sample(id="a"), make_sample(id="b"), make_sample(id="c")]
    await run_metrics(
        samples,
        [Faithfulness()],
        Models(LLMJudge(chat)),
        on_result=lambda record, position: seen.append((record.sample_id, position)),
        on_bad_row=print,
        done=lambda sample, iteration: {"faithfulness"} if sample.id == "b" else set(),
    )
    assert sorted(seen) == [("a", 0), ("c", 2)]
    assert len(chat.calls) == 4  # sample b made no call
