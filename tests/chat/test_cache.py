"""The response cache: a reply seen before is not asked again, per iteration."""

from __future__ import annotations

import asyncio
import json
import re
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.helpers import claims_reply, verdicts_reply
from veracity import evaluate
from veracity.chat import ChatReply, OpenAIChat, ScriptedChat
from veracity.chat.cache import CachedChat, CorruptCacheWarning, ResponseCache
from veracity.config import RunConfig
from veracity.judges import LLMJudge
from veracity.prompts import ChatMessage, OutputSpec
from veracity.testing import FakeLLMServer
from veracity.transport.errors import CallFailedError
from veracity.types import Usage


async def test_second_ask_comes_from_the_cache_at_no_cost(tmp_path: Path) -> None:
    chat = ScriptedChat(responder=lambda m, o: claims_reply("Paris is in France."))
    cache = ResponseCache(tmp_path / "c.sqlite3")
    judge = LLMJudge(CachedChat(chat, cache))
    first = await judge.extract_claims("q", "Paris is in France.", iteration=0)
    second = await judge.extract_claims("q", "Paris is in France.", iteration=0)
    assert first.value == second.value
    assert len(chat.calls) == 1
    assert (first.usage.calls, first.usage.cached_calls) == (1, 0)
    assert (second.usage.calls, second.usage.cached_calls) == (0, 1)
    assert second.usage.input_tokens == 0


async def test_iterations_and_prompts_are_separate_keys(tmp_path: Path) -> None:
    chat = ScriptedChat(responder=lambda m, o: claims_reply("x"))
    judge = LLMJudge(CachedChat(chat, ResponseCache(tmp_path / "c.sqlite3")))
    await judge.extract_claims("q", "A.", iteration=0)
    await judge.extract_claims("q", "A.", iteration=1)
    await judge.extract_claims("q", "B.", iteration=0)
    assert len(chat.calls) == 3


async def test_the_cache_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    chat = ScriptedChat(responder=lambda m, o: claims_reply("x"))
    await LLMJudge(CachedChat(chat, ResponseCache(path))).extract_claims("q", "A.", iteration=0)
    again = ScriptedChat()
    outcome = await LLMJudge(CachedChat(again, ResponseCache(path))).extract_claims(
        "q", "A.", iteration=0
    )
    assert outcome.value == ("x",)
    assert again.calls == []
    assert len(ResponseCache(path)) == 1


REFUSAL = "I cannot help with that."


async def test_replies_that_gave_a_judge_error_are_not_served_again(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite3")
    # Refused, and refused again when re-asked: the question ends in an error.
    chat = ScriptedChat([REFUSAL, REFUSAL], responder=lambda m, o: claims_reply("x"))
    failed = await LLMJudge(CachedChat(chat, cache)).extract_claims("q", "A.", iteration=0)
    assert failed.error is not None and len(chat.calls) == 2
    assert len(cache) == 0  # both replies taken back

    again = await LLMJudge(CachedChat(chat, cache)).extract_claims("q", "A.", iteration=0)
    assert again.value == ("x",)
    assert len(chat.calls) == 3  # asked anew, not the cached refusal replayed
    assert (again.usage.calls, again.usage.cached_calls) == (1, 0)


async def test_a_reply_mended_by_its_re_ask_stays_cached(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite3")
    chat = ScriptedChat(["not json", claims_reply("x")])
    first = await LLMJudge(CachedChat(chat, cache)).extract_claims("q", "A.", iteration=0)
    second = await LLMJudge(CachedChat(ScriptedChat(), cache)).extract_claims(
        "q", "A.", iteration=0
    )
    assert first.value == second.value == ("x",)
    assert second.usage.cached_calls == 2  # the pair replays: a re-run makes no call


async def test_missing_verdicts_still_missing_are_not_served_again(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite3")
    partial = verdicts_reply(("A.", "supported"))
    chat = ScriptedChat([partial, json.dumps({"verdicts": []})])
    failed = await LLMJudge(CachedChat(chat, cache)).verify_claims(
        ["A.", "B."], ["A. B."], iteration=0
    )
    assert failed.error is not None and "no verdict" in failed.error
    assert len(cache) == 0


def _per_claim_responder(refused: set[str]) -> Callable[[Sequence[ChatMessage], object], str]:
    """Judges each claim asked alone "supported", but refuses the claims in ``refused``."""

    def respond(messages: Sequence[ChatMessage], _: object) -> str:
        # The last claim shown (the prompt's examples come first); a re-ask repeats it.
        shown = "\n".join(m.content for m in messages)
        claim = re.findall(r'<claim index="1">\n(.*?)\n</claim>', shown)[-1]
        return REFUSAL if claim in refused else verdicts_reply((claim, "supported"))

    return respond


async def test_one_claim_asked_alone_that_fails_takes_back_only_its_own_replies(
    tmp_path: Path,
) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite3")
    claims = ["Paris is in France.", "Paris is a city.", "Paris has a tower."]
    # One call at a time, so every claim is asked before the refusal cancels the others.
    first_chat = ScriptedChat(responder=_per_claim_responder({claims[1]}), concurrency=1)
    failed = await LLMJudge(CachedChat(first_chat, cache)).verify_claims(
        claims, ["Paris is a city in France with a tower."], iteration=0, batch=False
    )
    assert failed.error is not None and "refused" in failed.error
    assert len(first_chat.calls) == 4  # the refused claim was asked twice
    assert len(cache) == 2  # the two claims judged keep their replies

    again = ScriptedChat(responder=_per_claim_responder(set()), concurrency=1)
    judged = await LLMJudge(CachedChat(again, cache)).verify_claims(
        claims, ["Paris is a city in France with a tower."], iteration=0, batch=False
    )
    assert judged.value is not None
    assert [v.verdict.value for v in judged.value] == ["supported"] * 3
    assert len(again.calls) == 1  # only the claim that failed reached the judge again
    assert (judged.usage.calls, judged.usage.cached_calls) == (1, 2)


def test_a_corrupt_cache_file_is_set_aside_and_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "responses.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.warns(CorruptCacheWarning, match=re.escape(str(path))):
        cache = ResponseCache(path)
    cache.put("k", reply("kept"))
    assert cache.get("k") is not None
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("responses.sqlite3.corrupt")]
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not")
    cache.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rebuilt cache opens without a word
        assert ResponseCache(path).get("k") is not None


def test_a_cache_corrupt_inside_is_set_aside_when_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "responses.sqlite3"
    cache = ResponseCache(path)
    for i in range(500):
        cache.put(str(i), reply("x" * 500))
    cache.close()
    data = bytearray(path.read_bytes())
    data[8192 : 8192 * 20] = b"\x55" * (8192 * 19)  # pages in the middle, header intact
    path.write_bytes(bytes(data))

    # The header still reads: the damage shows on the first statement that reaches it
    # (the upkeep on opening, or a read).
    with pytest.warns(CorruptCacheWarning, match=re.escape(str(path))):
        cache = ResponseCache(path)
        assert cache.get("400") is None
    cache.put("400", reply("new"))
    found = cache.get("400")
    assert found is not None and found.text == "new"
    assert len(cache) == 1


def reply(text: str) -> ChatReply:
    return ChatReply(text=text, usage=Usage(calls=1), latency_s=0.0, model="m")


@pytest.mark.parametrize(("cache", "scope"), [(True, "shared"), (False, "run")])
def test_run_json_says_whose_cache_the_replies_went_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: bool, scope: str
) -> None:
    monkeypatch.setenv("VERACITY_CACHE", str(tmp_path / "shared.sqlite3"))
    rows = [{"id": "a", "question": "q", "answer": "Paris is in France.", "contexts": ["Paris"]}]
    with FakeLLMServer() as server:
        judge = LLMJudge(OpenAIChat("m", base_url=server.base_url, api_key="k"))
        evaluate(rows, ["faithfulness"], judge, config=RunConfig(cache=cache), out=tmp_path / "run")
    described = json.loads((tmp_path / "run" / "run.json").read_text())["judge"]
    assert described["cache"] == scope
    # A run's own replies are gone once it completes; the shared cache stays.
    assert not (tmp_path / "run" / "replies.sqlite3").exists()
    assert (tmp_path / "shared.sqlite3").exists() is cache


class _SlowChat:
    """A chat model whose replies take a while, so that callers overlap; ``failing`` calls
    (by number, from 1) raise instead of answering."""

    name = "fake/slow"
    concurrency = 8

    def __init__(self, failing: frozenset[int] = frozenset()) -> None:
        self.calls = 0
        self.failing = failing

    def describe(self) -> dict[str, str]:
        return {"name": self.name}

    async def complete(
        self, messages: Sequence[ChatMessage], output: OutputSpec, *, iteration: int
    ) -> ChatReply:
        self.calls += 1
        number = self.calls
        await asyncio.sleep(0.05)
        if number in self.failing:
            raise CallFailedError(f"call {number} failed")
        return ChatReply(
            text=f"reply {number}", usage=Usage(calls=1, input_tokens=7), latency_s=0.05,
            model=self.name,
        )  # fmt: skip

    async def aclose(self) -> None:
        return None


_ASKED = [ChatMessage("user", "Is Paris in France?")]
_OUTPUT = OutputSpec("answer", {"type": "object"})


async def test_a_prompt_asked_again_while_in_flight_is_one_call(tmp_path: Path) -> None:
    model = _SlowChat()
    chat = CachedChat(model, ResponseCache(tmp_path / "c.sqlite3"))
    replies = await asyncio.gather(
        *(chat.complete(_ASKED, _OUTPUT, iteration=0) for _ in range(5)),
        chat.complete(_ASKED, _OUTPUT, iteration=1),  # another iteration: its own call
    )
    assert model.calls == 2
    assert [r.text for r in replies[:5]] == ["reply 1"] * 5
    # Paid once: the others are counted as cached, at no cost.
    assert [r.usage.calls for r in replies[:5]] == [1, 0, 0, 0, 0]
    assert [r.usage.cached_calls for r in replies[:5]] == [0, 1, 1, 1, 1]
    assert len({r.cache_key for r in replies[:5]}) == 1 and replies[0].cache_key is not None
    assert replies[5].text == "reply 2"


async def test_a_failed_call_in_flight_leaves_the_waiting_caller_to_ask(tmp_path: Path) -> None:
    model = _SlowChat(failing=frozenset({1}))
    chat = CachedChat(model, ResponseCache(tmp_path / "c.sqlite3"))
    first, second = await asyncio.gather(
        chat.complete(_ASKED, _OUTPUT, iteration=0),
        chat.complete(_ASKED, _OUTPUT, iteration=0),
        return_exceptions=True,
    )
    assert isinstance(first, CallFailedError)
    assert isinstance(second, ChatReply) and second.text == "reply 2"
    assert second.usage.calls == 1 and model.calls == 2


async def _two_in_flight(
    tmp_path: Path,
) -> tuple[_SlowChat, CachedChat, asyncio.Task[ChatReply], asyncio.Task[ChatReply]]:
    """A call in flight, and a second caller of the same prompt waiting on it."""
    model = _SlowChat()
    chat = CachedChat(model, ResponseCache(tmp_path / "c.sqlite3"))
    first = asyncio.create_task(chat.complete(_ASKED, _OUTPUT, iteration=0))
    await asyncio.sleep(0)
    second = asyncio.create_task(chat.complete(_ASKED, _OUTPUT, iteration=0))
    await asyncio.sleep(0.01)
    return model, chat, first, second


async def test_a_cancelled_call_in_flight_leaves_the_waiting_caller_to_ask(
    tmp_path: Path,
) -> None:
    model, chat, first, second = await _two_in_flight(tmp_path)
    first.cancel()
    reply = await second
    assert first.cancelled()
    assert reply.text == "reply 2" and model.calls == 2
    assert len(chat._in_flight) == 0  # nothing left waiting


async def test_a_cancelled_waiter_does_not_cancel_the_call_it_waits_on(tmp_path: Path) -> None:
    model, _, first, second = await _two_in_flight(tmp_path)
    second.cancel()
    assert (await first).text == "reply 1"
    assert second.cancelled() and model.calls == 1
