"""``batch=True``: the judge's calls through the fake server's batch APIs, on loopback."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from veracity import evaluate
from veracity.chat import OpenAIChat
from veracity.chat.batch_api import BatchState, OpenAIBatches
from veracity.chat.batching import BatchingChat, BatchSettings, BatchStatus
from veracity.chat.stack import BatchUnavailableError
from veracity.config import RunConfig
from veracity.judges import JudgeFatalError, LLMJudge
from veracity.testing import FakeLLMServer, synthetic_samples
from veracity.types import ResultRecord

METRICS = ["faithfulness", "context_precision", "answer_relevance"]
FAST = BatchSettings(poll_s=0.02, quiet_s=0.05)


def _samples(n: int = 5) -> list[Any]:
    return list(synthetic_samples(n, seed=3))


def _run(server: FakeLLMServer, judge: str, out: Path, **settings: Any) -> list[ResultRecord]:
    base_url = server.anthropic_base_url if judge.startswith("anthropic") else server.base_url
    config = RunConfig(base_url=base_url, embedder="none", **settings)
    result = evaluate(_samples(), METRICS, judge, config=config, out=out)
    return list(result.results)


def _essence(records: list[ResultRecord]) -> list[tuple[Any, ...]]:
    return [
        (r.sample_id, r.metric, r.iteration, r.status, r.score, r.usage.input_tokens,
         r.usage.output_tokens, r.usage.calls)
        for r in records
    ]  # fmt: skip


@pytest.mark.parametrize("judge", ["openai/gpt-4o-mini", "anthropic/claude-haiku-4-5"])
def test_a_batch_run_equals_a_live_run_at_half_the_cost(tmp_path: Path, judge: str) -> None:
    with FakeLLMServer() as server:
        live = _run(server, judge, tmp_path / "live", cache=False)
        assert server.batches_created == 0
        live_completions = server.stats.completions
        server.reset_stats()
        seen: list[BatchStatus] = []
        batched = _run(
            server,
            judge,
            tmp_path / "batch",
            cache=False,
            batch=BatchSettings(poll_s=0.02, quiet_s=0.05, on_status=seen.append),
        )
        # Extraction and the independent questions in one phase, verifications in the next.
        assert server.batches_created == 2
        assert server.stats.completions == live_completions
    assert _essence(batched) == _essence(live)
    assert all(r.status == "scored" for r in batched)
    for b, a in zip(batched, live, strict=True):
        assert b.cost_usd == pytest.approx((a.cost_usd or 0) / 2)
    ended = [s for s in seen if s.state.ended]
    assert [s.phase for s in ended] == [1, 2]
    assert all(s.state.done == s.state.total > 0 for s in ended)
    # Every batch answered: the ledger has served its purpose, and the provider's copy
    # of the prompts (the user's contexts) is deleted.
    assert not (tmp_path / "batch" / "batches.sqlite3").exists()
    assert server.batch_data_kept == 0


def test_a_finished_batch_run_run_again_makes_no_call(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        first = _run(server, "openai/gpt-4o-mini", tmp_path / "a", batch=FAST)
        server.reset_stats()
        again = _run(server, "openai/gpt-4o-mini", tmp_path / "b", batch=FAST)
        assert (server.batches_created, server.stats.requests) == (0, 0)
    assert [r.score for r in again] == [r.score for r in first]
    assert all(r.usage.calls == 0 and r.usage.cached_calls > 0 for r in again)


@pytest.mark.parametrize("judge", ["openai/gpt-4o-mini", "anthropic/claude-haiku-4-5"])
def test_an_expired_batch_sends_again_only_what_it_did_not_answer(
    tmp_path: Path, judge: str
) -> None:
    with FakeLLMServer() as server:
        live = _run(server, judge, tmp_path / "live", cache=False)
        live_completions = server.stats.completions
        server.reset_stats()
        server.batches.expire = 1  # the first batch answers half its requests, then expires
        batched = _run(server, judge, tmp_path / "batch", cache=False, batch=FAST)
        # The unanswered half in a batch of its own, then the verifications.
        assert server.batches_created == 3
        assert server.stats.completions == live_completions  # nothing answered twice
    assert _essence(batched) == _essence(live)


SECRET = "sk-test-batch-secret-0123456789abcdef"


@pytest.mark.parametrize(
    ("judge", "key_env"),
    [("openai/gpt-4o-mini", "OPENAI_API_KEY"), ("anthropic/claude-haiku-4-5", "ANTHROPIC_API_KEY")],
)
def test_requests_that_fail_in_a_batch_are_judge_errors_for_their_items_only(
    tmp_path: Path, judge: str, key_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(key_env, SECRET)
    with FakeLLMServer(api_key=SECRET) as server:
        server.batches.fail_every = 4
        # Endpoints echo what they were sent: the key must not reach a result.
        server.batches.fail_message = f"Injected batch request failure (key {SECRET})."
        records = _run(server, judge, tmp_path / "run", cache=False, batch=FAST)
    errors = [r for r in records if r.status == "judge_error"]
    scored = [r for r in records if r.status == "scored"]
    assert errors and scored
    for record in errors:
        assert "Injected batch request failure" in (record.reason or "")
        assert SECRET not in record.model_dump_json()


def test_an_endpoint_without_a_batch_api_stops_the_run_saying_so(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.batches.available = False
        with pytest.raises(JudgeFatalError, match=r"cannot create a batch at .*without --batch"):
            _run(server, "openai/gpt-4o-mini", tmp_path / "run", batch=FAST)


def test_a_judge_without_a_batch_api_is_refused(tmp_path: Path) -> None:
    from veracity.chat import ScriptedChat

    with pytest.raises(BatchUnavailableError, match="no batch API"):
        evaluate(
            _samples(1),
            METRICS,
            LLMJudge(ScriptedChat()),
            config=RunConfig(embedder="none", batch=True),
        )


@pytest.mark.parametrize(("limit", "value"), [("max_requests", 2), ("max_bytes", 6_000)])
async def test_a_phase_over_the_providers_limits_goes_in_several_batches(
    tmp_path: Path, limit: str, value: int
) -> None:
    with FakeLLMServer() as server:
        chat = OpenAIChat("gpt-4o-mini", base_url=server.base_url, api_key="test")
        api = OpenAIBatches(chat)
        setattr(api, limit, value)
        submitted: list[list[bytes]] = []
        submit = api.submit

        async def recorded(lines: Sequence[bytes]) -> str:
            submitted.append(list(lines))
            return await submit(lines)

        api.submit = recorded  # type: ignore[method-assign]
        judge = LLMJudge(BatchingChat(chat, api, ledger_path=tmp_path / "b.sqlite3", settings=FAST))
        try:
            outcomes = await asyncio.gather(
                *(judge.extract_claims(s.question, s.answer, iteration=0) for s in _samples())
            )
        finally:
            await judge.aclose()
        assert server.stats.completions == 5
    assert all(o.value for o in outcomes)
    # One phase of five extractions (about 2.5 kB a line), in batches within the limit.
    assert len(submitted) == 3
    assert sum(map(len, submitted)) == 5
    for lines in submitted:
        assert len(lines) <= api.max_requests
        assert sum(len(line) + 1 for line in lines) <= api.max_bytes


def test_an_option_the_endpoint_refuses_is_dropped_and_the_phase_sent_again(
    tmp_path: Path,
) -> None:
    judge = "openai/gpt-4o-mini"
    with FakeLLMServer(supports_json_schema=False) as server:
        live = _run(server, judge, tmp_path / "live", cache=False)
        server.reset_stats()
        result = evaluate(
            _samples(),
            METRICS,
            judge,
            config=RunConfig(base_url=server.base_url, embedder="none", cache=False, batch=FAST),
            out=tmp_path / "batch",
        )
        # The first phase refused as a whole (json_schema), sent again as json_object_schema.
        assert server.batches_created == 3
    assert [r.status for r in result.results] == [r.status for r in live]
    assert [r.score for r in result.results] == [r.score for r in live]
    judge_now = result.manifest["judge"]
    assert judge_now["structured_output"] == "json_object_schema"
    assert "rejected json_schema" in judge_now["negotiation"][0]


def _attempt(server: FakeLLMServer, judge: str, out: Path) -> Any:
    """A batch run of ``judge`` into ``out``, not yet awaited."""
    from veracity.evaluation import aevaluate

    base_url = server.anthropic_base_url if judge.startswith("anthropic") else server.base_url
    return aevaluate(
        _samples(),
        METRICS,
        judge,
        config=RunConfig(base_url=base_url, embedder="none", cache=False, batch=FAST),
        out=out,
    )


async def _stopped_while_waiting(server: FakeLLMServer, judge: str, out: Path) -> None:
    """Start a batch run and cancel it once it waits on its first batch (slowed to 1 s)."""
    server.batches.delay_s = 1.0
    first = asyncio.ensure_future(_attempt(server, judge, out))
    while server.batches_created == 0:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)  # waiting on the batch now
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert (out / "batches.sqlite3").exists()
    server.batches.delay_s = 0.0


@pytest.mark.parametrize("judge", ["openai/gpt-4o-mini", "anthropic/claude-haiku-4-5"])
async def test_a_run_stopped_while_waiting_polls_the_same_batch_when_resumed(
    tmp_path: Path, judge: str
) -> None:
    out = tmp_path / "batch"
    with FakeLLMServer() as server:
        live = _run(server, judge, tmp_path / "live", cache=False)
        server.reset_stats()
        await _stopped_while_waiting(server, judge, out)
        resumed = await _attempt(server, judge, out)
        assert server.batches_created == 2  # the first phase's batch polled, not sent again
    assert _essence(list(resumed.results)) == _essence(live)
    assert resumed.manifest["attempts"][0]["status"] == "interrupted"


async def test_polling_backs_off_to_twenty_times_the_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class SlowBatches:
        max_requests, max_bytes = 10, 10_000

        def __init__(self) -> None:
            self.looks = 0

        def line(self, custom_id: str, messages: Sequence[Any], output: Any) -> bytes:
            return custom_id.encode()

        async def submit(self, lines: Sequence[bytes]) -> str:
            return "batch_1"

        async def state(self, batch_id: str) -> BatchState:
            self.looks += 1
            return BatchState("in_progress", ended=self.looks > 12)

        async def results(self, batch_id: str, latency_s: float) -> dict[str, Any]:
            return {}

        async def discard(self, batch_id: str) -> None:
            pass

    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        await real_sleep(0)

    chat = OpenAIChat("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="test")
    batching = BatchingChat(
        chat, SlowBatches(), ledger_path=None, settings=BatchSettings(poll_s=1.0, quiet_s=0.0)
    )
    monkeypatch.setattr("veracity.chat.batching.asyncio.sleep", sleep)
    batching._poll("batch_1", 1)
    await batching._polling["batch_1"]
    await batching.aclose()
    assert waits[:4] == [1.0, 1.5, 2.25, 3.375]
    assert max(waits) == 20.0 and len(waits) == 12


def test_a_batch_the_provider_refuses_whole_stops_the_run_with_its_reason(
    tmp_path: Path,
) -> None:
    with FakeLLMServer() as server:
        server.batches.refuse = "Enqueued token limit reached for gpt-4o-mini."
        with pytest.raises(JudgeFatalError, match=r"failed: Enqueued token limit reached"):
            _run(server, "openai/gpt-4o-mini", tmp_path / "run", batch=FAST)
        manifest = (tmp_path / "run" / "run.json").read_text()
        assert "Enqueued token limit reached" in manifest
        # Run again once the cap allows: the refused batch is not waited for, but sent anew.
        server.batches.refuse = None
        records = _run(server, "openai/gpt-4o-mini", tmp_path / "run", batch=FAST)
        assert server.batches_created == 3
    assert all(r.status == "scored" for r in records)


async def test_a_recorded_batch_the_endpoint_does_not_know_is_sent_anew(tmp_path: Path) -> None:
    judge, out = "openai/gpt-4o-mini", tmp_path / "batch"
    with FakeLLMServer() as server:
        await _stopped_while_waiting(server, judge, out)
        # As if the provider had deleted it (or the key belongs to another organisation).
        with sqlite3.connect(out / "batches.sqlite3") as db:
            db.execute("UPDATE requests SET batch_id = 'batch_gone'")
            db.execute("UPDATE batches SET id = 'batch_gone'")
        resumed = await _attempt(server, judge, out)
        assert server.batches_created == 3  # the lost one, its requests again, the verdicts
    assert all(r.status == "scored" for r in resumed.results)
