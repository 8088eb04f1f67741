"""What a 200 reply says is kept only scrubbed of keys, and only
up to a bound on its size (its text when kept, its body as it arrives)."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2
import pytest

from tests.hostile_endpoint import KEY, SAMPLES, HostileEndpoint, judge, results, written
from veracity import aevaluate
from veracity.chat.received import MAX_REPLY_CHARS
from veracity.config import RunConfig
from veracity.testing.payloads import anthropic_message, dumps, openai_completion
from veracity.transport.bounded import MAX_BODY_BYTES, bounded_hooks
from veracity.transport.errors import ReplyTooLargeError

OTHER_KEY = "sk-proj-Abcdefghijklmnop0123456789"


def _body(provider: str, text: str) -> bytes:
    if provider == "anthropic":
        return dumps(anthropic_message("m", text, 1, 1))
    return dumps(openai_completion("m", text, 1, 1))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_key_quoted_in_a_successful_reply_is_never_stored(
    tmp_path: Path, provider: str
) -> None:
    def answer(key: str) -> tuple[int, bytes]:
        text = f"Sorry, your key Bearer {key} is not allowed (nor {OTHER_KEY}, api_key={key})"
        return 200, _body(provider, text)

    with HostileEndpoint(answer=answer) as endpoint:
        result = await aevaluate(
            SAMPLES[:2],
            "faithfulness",
            judge(provider, endpoint.base_url),
            config=RunConfig(embedder="none"),
            out=tmp_path / "run",
        )
    cache = Path(os.environ["VERACITY_CACHE"])
    on_disk = written(tmp_path / "run", cache)
    assert KEY.encode() not in on_disk and OTHER_KEY.encode() not in on_disk
    kept = results(tmp_path / "run")
    assert all(r["status"] == "judge_error" for r in kept)
    shown = json.dumps(kept) + repr(result.results)
    assert KEY not in shown and OTHER_KEY not in shown
    # The judge's words are kept as evidence, the keys masked.
    assert "Sorry, your key Bearer ***" in json.dumps(kept)


async def test_a_reply_over_the_bound_is_a_judge_error_saying_so_and_is_not_kept(
    tmp_path: Path,
) -> None:
    huge = _body("openai", "x" * (MAX_REPLY_CHARS + 1))
    with HostileEndpoint(answer=lambda key: (200, huge)) as endpoint:
        result = await aevaluate(
            SAMPLES[:1],
            "faithfulness",
            judge("openai", endpoint.base_url),
            config=RunConfig(embedder="none"),
            out=tmp_path / "run",
        )
    (record,) = result.results
    assert record.status == "judge_error"
    assert "over the bound" in record.reason
    cache = Path(os.environ["VERACITY_CACHE"])
    assert len(written(tmp_path / "run", cache)) < MAX_REPLY_CHARS // 4


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_body_over_the_bound_is_refused_before_it_is_read_whole(
    tmp_path: Path, provider: str
) -> None:
    huge = b" " * (MAX_BODY_BYTES + 1) + _body(provider, '{"claims": []}')
    with HostileEndpoint(answer=lambda key: (200, huge)) as endpoint:
        result = await aevaluate(
            SAMPLES[:1],
            "faithfulness",
            judge(provider, endpoint.base_url),
            config=RunConfig(cache=False, embedder="none"),
            out=tmp_path / "run",
        )
        requests = endpoint.requests
    (record,) = result.results
    assert record.status == "judge_error" and "over the bound" in record.reason
    assert requests == 1  # the same reply again would be as large: never retried


async def test_a_body_without_a_length_is_cut_off_at_the_bound() -> None:
    class Chunks(httpx2.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for _ in range(10):
                yield b"x" * 100

    (hook,) = bounded_hooks(limit=250)["response"]
    response = httpx2.Response(200, stream=Chunks())
    await hook(response)
    with pytest.raises(ReplyTooLargeError, match="over the bound of 250"):
        await response.aread()
