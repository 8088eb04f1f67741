"""A 200 reply whose body is not a chat completion (a JSON array, null, a
string, ``choices`` as an object, a choice without a message; with ``anthropic/`` any body
that is not a Messages reply) is a judge error per result, never a crashed run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile_endpoint import SAMPLES, HostileEndpoint, judge, results
from veracity import aevaluate
from veracity.config import RunConfig
from veracity.testing.payloads import openai_completion

OPENAI_SHAPED = openai_completion("m", json.dumps({"claims": ["Paris is in France."]}), 1, 1)


@pytest.mark.parametrize(
    ("provider", "body"),
    [
        ("openai", []),
        ("openai", None),
        ("openai", "a string"),
        ("openai", 7),
        ("openai", {"choices": {"0": {}}}),
        ("openai", {"choices": [{}]}),
        ("openai", {"choices": [{"message": {"content": ["not", "text"]}}]}),
        ("openai", {"choices": [{"message": "hello"}], "usage": "lots"}),
        ("anthropic", {"ok": True}),
        ("anthropic", []),
        ("anthropic", OPENAI_SHAPED),
        ("anthropic", {"content": [{"type": "text", "text": 5}], "usage": None}),
    ],
)
async def test_a_reply_that_is_no_chat_completion_is_a_judge_error_per_result(
    tmp_path: Path, provider: str, body: object
) -> None:
    encoded = json.dumps(body).encode()
    with HostileEndpoint(answer=lambda key: (200, encoded)) as endpoint:
        result = await aevaluate(
            SAMPLES[:2],
            "faithfulness",
            judge(provider, endpoint.base_url),
            config=RunConfig(embedder="none"),
            out=tmp_path / "run",
        )
    assert [r.status for r in result.results] == ["judge_error", "judge_error"]
    assert all("reply" in r.reason for r in result.results), result.results[0].reason
    stored = results(tmp_path / "run")
    assert len(stored) == 2
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "completed"
