"""The response cache: a reply seen before is not asked again, per iteration."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import claims_reply
from veracity.judges import LLMJudge
from veracity.judges.chat import ScriptedChat
from veracity.judges.chat.cache import CachedChat, ResponseCache


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
