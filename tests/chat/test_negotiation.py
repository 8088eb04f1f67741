"""Request options negotiated with the endpoint: a rejected option costs one failed call."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import paris_rows
from veracity import aevaluate
from veracity.chat import OpenAIChat
from veracity.chat.cache import CachedChat, ResponseCache
from veracity.config import RunConfig
from veracity.judges import LLMJudge
from veracity.testing import FakeLLMServer, Faults
from veracity.transport import RetryPolicy
from veracity.types import Status

FAST_RETRY = RetryPolicy(max_attempts=8, base_delay_s=0.01, max_delay_s=0.05)
SAMPLES = paris_rows(6)


def chat(server: FakeLLMServer, **options: object) -> OpenAIChat:
    return OpenAIChat(
        "judge-model",
        base_url=server.base_url,
        api_key="test-key",
        retry=FAST_RETRY,
        **options,  # type: ignore[arg-type]
    )


def formats(server: FakeLLMServer) -> list[str | None]:
    """Each request's structured-output mode, as veracity names them."""
    sent = [body.get("response_format") or {} for body in server.requests]
    return [f"{f['type']}_schema" if "schema" in f else f.get("type") for f in sent]


async def test_a_500_naming_the_format_costs_one_call_even_with_calls_in_flight() -> None:
    with FakeLLMServer(supports_json_schema=False, rejection_status=500) as server:
        model = chat(server, concurrency=8)
        judge = LLMJudge(model)
        outcomes = await asyncio.gather(
            *(judge.extract_claims("q", f"Fact {i} holds.", iteration=0) for i in range(8))
        )
        await judge.aclose()
        statuses = server.stats.by_status
        sent = formats(server)
    assert all(o.ok for o in outcomes)
    assert statuses.get(500) == 1 and statuses.get(200) == 8
    assert sent == ["json_schema"] + ["json_object_schema"] * 8
    schema = server.requests[1]["response_format"]["schema"]
    assert schema["required"] == ["claims"]  # the question's own output schema
    described = model.describe()
    assert described["structured_output"] == "json_object_schema"
    note = described["negotiation"][0]
    assert "rejected json_schema; using json_object_schema" in note
    assert "\n" not in note and len(note) < 400  # the gist of the error, not a traceback


async def test_422_and_400_rejections_step_down_too() -> None:
    for status in (400, 422):
        with FakeLLMServer(supports_json_schema=False, rejection_status=status) as server:
            judge = LLMJudge(chat(server))
            outcome = await judge.extract_claims("q", "Paris is in France.", iteration=0)
            await judge.aclose()
            assert outcome.ok and formats(server) == ["json_schema", "json_object_schema"]


async def test_a_server_that_refuses_a_schema_in_json_mode_gets_plain_json_mode() -> None:
    with FakeLLMServer(
        supports_json_schema=False, supports_schema_in_json_mode=False, rejection_status=400
    ) as server:
        model = chat(server)
        judge = LLMJudge(model)
        for i in range(2):
            assert (await judge.extract_claims("q", f"Fact {i} holds.", iteration=0)).ok
        await judge.aclose()
        sent = formats(server)
    assert sent == ["json_schema", "json_object_schema", "json_object", "json_object"]
    assert model.options.structured_output == "json_object" and len(model.notes) == 2


async def test_a_500_that_names_no_option_is_retried_not_negotiated() -> None:
    with FakeLLMServer(faults=Faults(status_5xx=0.5), seed=3) as server:
        model = chat(server)
        judge = LLMJudge(model)
        outcomes = [
            await judge.extract_claims("q", f"Fact {i} holds.", iteration=0) for i in range(6)
        ]
        await judge.aclose()
        assert server.stats.by_status.get(500, 0) > 0
    assert all(o.ok for o in outcomes)
    assert model.options.structured_output == "json_schema" and not model.notes


async def test_rejected_logprobs_are_dropped_once() -> None:
    with FakeLLMServer(supports_logprobs=False, rejection_status=500) as server:
        model = chat(server)
        judge = LLMJudge(model)
        for i in range(3):
            assert (await judge.extract_claims("q", f"Fact {i} holds.", iteration=0)).ok
        await judge.aclose()
        asked = [body.get("logprobs") for body in server.requests]
    assert asked == [True, None, None, None]
    assert model.options.logprobs is False
    assert any("rejected logprobs" in note for note in model.notes)


async def test_log_probabilities_are_asked_for_only_where_they_are_read() -> None:
    # Claim extraction reads none (a list of claims); verification reads the verdicts'.
    # The first call asks for them whatever its question: it finds out what the endpoint
    # takes, so that a rejection costs one call for the whole run.
    with FakeLLMServer() as server:
        judge = LLMJudge(chat(server))
        for _ in range(2):
            await judge.extract_claims("q", "Paris is in France.", iteration=0)
            await judge.verify_claims(["Paris is in France."], ["Paris is in France."], iteration=0)
        await judge.aclose()
        asked = [body.get("logprobs") for body in server.requests]
    assert asked == [True, True, None, True]


async def test_every_request_carries_its_questions_reply_bound() -> None:
    with FakeLLMServer() as server:
        judge = LLMJudge(chat(server), max_tokens={"claim_extraction": 77})
        await judge.extract_claims("q", "Paris is in France.", iteration=0)
        await judge.verify_claims(("Paris is in France.",), ("Paris is in France.",), iteration=0)
        await judge.aclose()
        bounds = [body["max_tokens"] for body in server.requests]
    assert bounds[0] == 77
    assert bounds[1] > 0


async def test_the_outcome_of_a_negotiation_is_remembered_by_the_cache(tmp_path: Path) -> None:
    with FakeLLMServer(supports_json_schema=False, rejection_status=500) as server:
        first = CachedChat(chat(server), ResponseCache(tmp_path / "cache.sqlite3"))
        judge = LLMJudge(first)
        assert (await judge.extract_claims("q", "Paris is in France.", iteration=0)).ok
        await judge.aclose()
        # A new run, a new question: it starts where the last run ended up.
        second = chat(server)
        judge = LLMJudge(CachedChat(second, ResponseCache(tmp_path / "cache.sqlite3")))
        assert (await judge.extract_claims("q", "Lyon is in France.", iteration=0)).ok
        await judge.aclose()
        sent = formats(server)
    assert sent == ["json_schema", "json_object_schema", "json_object_schema"]
    assert second.options.structured_output == "json_object_schema" and second.notes


async def test_a_run_after_an_answered_one_asks_no_first_call_alone(tmp_path: Path) -> None:
    # The first call of a run finds out which options the endpoint takes while the others
    # wait (a whole call's time); once the cache knows a call was answered, the next run's
    # calls all go at once, and extraction asks for no log-probabilities it would not read.
    cache = tmp_path / "cache.sqlite3"
    in_flight = []
    with FakeLLMServer(latency_s=0.2) as server:
        for run in ("first", "next"):
            server.reset_stats()
            judge = LLMJudge(CachedChat(chat(server, concurrency=4), ResponseCache(cache)))
            outcomes = await asyncio.gather(
                *(judge.extract_claims("q", f"{run} fact {i} holds.", iteration=0)
                  for i in range(4))
            )  # fmt: skip
            await judge.aclose()
            assert all(o.ok for o in outcomes)
            in_flight.append(server.stats.max_concurrent)
        asked = [body.get("logprobs") for body in server.requests]
    assert in_flight == [3, 4]
    assert asked == [None] * 4


async def test_calls_that_waited_out_a_negotiation_are_cached_as_they_were_asked(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache.sqlite3"
    with FakeLLMServer(supports_json_schema=False) as server:
        # Five calls at once: four wait while the first is rejected and steps down.
        result = await aevaluate(
            SAMPLES[:5], ["faithfulness"], LLMJudge(chat(server)), config=RunConfig(cache=cache)
        )
        calls = server.stats.completions
        again = await aevaluate(
            SAMPLES[:5], ["faithfulness"], LLMJudge(chat(server)), config=RunConfig(cache=cache)
        )
        assert server.stats.completions == calls  # a finished run run again: no call
    assert [r.score for r in again.results] == [r.score for r in result.results]


async def test_default_settings_score_every_item_and_run_json_says_how(tmp_path: Path) -> None:
    with FakeLLMServer(
        supports_json_schema=False, supports_logprobs=False, rejection_status=500
    ) as server:
        result = await aevaluate(
            SAMPLES, ["faithfulness"], LLMJudge(chat(server, concurrency=4)), out=tmp_path
        )
        failed = server.stats.by_status.get(500, 0)
    assert {r.status for r in result.results} == {Status.SCORED}
    assert failed == 2  # json_schema, then logprobs: once each for the whole run
    judge = json.loads((tmp_path / "run.json").read_text())["judge"]
    assert judge["structured_output"] == "json_object_schema" and judge["logprobs"] is False
    assert len(judge["negotiation"]) == 2


def test_the_cli_bounds_replies_and_rejects_a_bad_bound(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES[:1]))
    with FakeLLMServer() as server:
        base = [sys.executable, "-m", "veracity", "run", str(data), "--judge", "openai/m"]
        base += ["--base-url", server.base_url, "--out", str(tmp_path / "run")]
        ok = subprocess.run(
            [*base, "--max-tokens", "claim_extraction=99"],
            capture_output=True,
            text=True,
            check=False,
        )
        bad = subprocess.run(
            [*base, "--max-tokens", "claim_extracton=99"],
            capture_output=True,
            text=True,
            check=False,
        )
        bounds = [body["max_tokens"] for body in server.requests]
    assert ok.returncode == 0, ok.stderr
    assert bounds[0] == 99
    assert bad.returncode == 2 and "no question 'claim_extracton'" in bad.stderr
    assert "Traceback" not in bad.stderr
