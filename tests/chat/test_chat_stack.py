"""stack_chat: what a run puts around a judge's chat model, in which order, and refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.chat import OpenAIChat, ScriptedChat
from veracity.chat.batching import BatchingChat, BatchSettings
from veracity.chat.cache import CachedChat
from veracity.chat.stack import BatchUnavailableError, check_batchable, open_cache, stack_chat
from veracity.judges import LLMJudge
from veracity.judges.offline.judge import OfflineJudge
from veracity.judges.rechat import chat_of, rechat
from veracity.store import BATCHES


def _openai() -> OpenAIChat:
    return OpenAIChat("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="sk-test")


def test_the_cache_sits_over_batching_and_the_ledger_in_the_run_directory(tmp_path: Path) -> None:
    cache = open_cache(tmp_path / "replies.sqlite3")
    assert cache is not None
    try:
        chat = stack_chat(_openai(), cache=cache, batch=BatchSettings(), run_dir=tmp_path / "run")
        assert isinstance(chat, CachedChat) and chat.scope == "shared"
        assert isinstance(chat.model, BatchingChat)
        assert chat.model.ledger_path == tmp_path / "run" / BATCHES
        assert stack_chat(chat, cache=cache, scope="run") is chat  # looked up once, not twice
    finally:
        cache.close()


def test_without_a_cache_or_batching_the_model_is_itself() -> None:
    model = _openai()
    assert stack_chat(model) is model
    assert open_cache(False) is None


def test_a_model_without_a_batch_api_is_refused_by_name() -> None:
    with pytest.raises(BatchUnavailableError, match="scripted"):
        stack_chat(ScriptedChat(), batch=BatchSettings())
    with pytest.raises(BatchUnavailableError, match="offline has no batch API"):
        check_batchable(None, "offline", "local")
    with pytest.raises(BatchUnavailableError, match="not ray"):
        check_batchable(_openai(), "openai/gpt-4o-mini", "ray")
    check_batchable(_openai(), "openai/gpt-4o-mini", "local")


def test_rechat_rebuilds_an_llm_judge_and_keeps_a_judge_without_a_chat_model() -> None:
    scripted = ScriptedChat()
    judge = LLMJudge(scripted, max_tokens={"claim_extraction": 99})
    seen: list[object] = []

    def build(model: object) -> ScriptedChat:
        seen.append(model)
        return ScriptedChat(model="other")

    rebuilt = rechat(judge, build)
    assert seen == [scripted]
    assert chat_of(rebuilt) is not scripted and rebuilt.name == "scripted/other"
    assert rebuilt.asker.max_tokens == judge.asker.max_tokens  # its settings go along
    offline = OfflineJudge.__new__(OfflineJudge)  # its models are never needed here
    assert rechat(offline, build) is offline and chat_of(offline) is None
    assert len(seen) == 1
