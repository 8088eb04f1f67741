"""``--judge systemone/MODEL`` and ``openai-decisions/MODEL``: a decision judge over the
right client, its claims from the segmentation or a named chat judge."""

from __future__ import annotations

import pytest

from veracity.config import RunConfig
from veracity.judges import JudgeSpecError, LLMJudge, make_judge
from veracity.judges.decision import DecisionJudge

URL = "http://127.0.0.1:9/v1"


def test_systemone_judge_over_its_client() -> None:
    judge = make_judge("systemone/laya-1", base_url=URL)
    assert isinstance(judge, DecisionJudge)
    assert judge.name == "systemone/laya-1"
    described = judge.describe()
    assert described["provider"] == "systemone" and described["model"] == "laya-1"
    assert described["claims"]["source"] == "offline segmentation"
    assert set(described["prompts"]) >= {"claim_support", "chunk_useful", "relevance_level"}
    assert described["limits"]["max_questions"] >= 1


def test_openai_decisions_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    judge = make_judge("openai-decisions/gpt-6-luna", base_url=URL)
    assert isinstance(judge, DecisionJudge)
    assert judge.name == "openai-decisions/gpt-6-luna"


def test_systemone_needs_a_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SYSTEMONE_BASE_URL", raising=False)
    with pytest.raises(JudgeSpecError, match="SYSTEMONE_BASE_URL"):
        make_judge("systemone/laya-1")


def test_claims_from_a_named_chat_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    settings = RunConfig(
        judge="systemone/laya-1",
        base_url=URL,
        claims_judge="openai/qwen2.5-7b",
        claims_base_url="http://127.0.0.1:8/v1",
        grouping_ms=50,
    )
    judge = settings.make_judge()
    assert isinstance(judge, DecisionJudge)
    assert isinstance(judge.claims_judge, LLMJudge)
    assert judge.describe()["grouping_window_s"] == 0.05
    claims = judge.describe()["claims"]
    assert claims["source"] == "chat judge"
    assert claims["judge"]["model"] == "qwen2.5-7b"
    assert claims["judge"]["base_url"].startswith("http://127.0.0.1:8/")


@pytest.mark.parametrize(
    ("spec", "claims", "message"),
    [
        ("openai/gpt-4o-mini", "openai/x", "is for a decision judge"),
        ("systemone/laya-1", "mistral/x", "unknown claims judge"),
        ("decider/x", None, "systemone/MODEL"),
    ],
)
def test_bad_specs_say_what_is_known(spec: str, claims: str | None, message: str) -> None:
    with pytest.raises(JudgeSpecError, match=message):
        make_judge(spec, base_url=URL, claims_judge=claims)
