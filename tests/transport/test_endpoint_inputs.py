"""What a judge refuses up front (a base URL no request can go to, limits that are no
number) and what it never lets through (a key an endpoint echoes, a reply that trickles in
past the timeout)."""

from __future__ import annotations

import asyncio
import math
import re

import pytest

from tests.hostile_endpoint import HostileEndpoint
from veracity._scrub import scrub_secrets
from veracity.chat import AnthropicChat, OpenAIChat
from veracity.judges import JudgeFatalError, LLMJudge
from veracity.transport import RequestLimiter, RetryPolicy
from veracity.transport.retry import classify_sdk_error
from veracity.transport.urls import checked_base_url

KEY = "hostile-key-0123456789"
FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("localhost:8000/v1", "does not start with http:// or https://"),
        ("127.0.0.1:8000", "does not start with http:// or https://"),
        ("ftp://example.com/v1", "scheme must be http or https, not 'ftp'"),
        ("http://127.0.0.1:99999/v1", "port must be a number from 1 to 65535"),
        ("http://127.0.0.1:0/v1", "port must be a number from 1 to 65535"),
        ("http://127.0.0.1:abc/v1", "port must be a number from 1 to 65535"),
        ("http://:8000/v1", "names no host"),
        ("http://local host/v1", "contains a space"),
        ("http://[::1/v1", "host is not valid"),
    ],
)
def test_a_base_url_no_request_can_go_to_is_refused_naming_it(url: str, problem: str) -> None:
    with pytest.raises(ValueError, match="is not a usable URL") as raised:
        checked_base_url(url, "--base-url")
    assert str(raised.value).startswith(f"--base-url {url!r}")
    assert problem in str(raised.value)


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8000/v1", "https://api.example.com/v1", "http://[::1]:8080"]
)
def test_usable_base_urls_pass(url: str) -> None:
    assert checked_base_url(f" {url} ", "--base-url") == url


def test_a_refused_url_hides_its_user_info() -> None:
    with pytest.raises(ValueError) as raised:
        checked_base_url("http://me:hunter2hunter2@:8000/v1", "--base-url")
    assert "hunter2" not in str(raised.value) and "***@" in str(raised.value)


@pytest.mark.parametrize("chat_class", [OpenAIChat, AnthropicChat])
def test_a_judge_refuses_a_bad_base_url_before_any_call(chat_class: type[OpenAIChat]) -> None:
    with pytest.raises(ValueError, match="base_url 'localhost:8000/v1' is not a usable URL"):
        chat_class("m", base_url="localhost:8000/v1", api_key=KEY)


def test_a_bad_base_url_from_the_environment_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:70000/v1")
    with pytest.raises(ValueError, match=re.escape("OPENAI_BASE_URL 'http://127.0.0.1:70000/v1'")):
        OpenAIChat("m")


@pytest.mark.parametrize("value", [math.inf, math.nan, 0.0, -1.0])
def test_limits_that_are_no_positive_number_are_refused(value: float) -> None:
    with pytest.raises(ValueError, match="rpm must be a positive number"):
        RequestLimiter(4, rpm=value)
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        OpenAIChat("m", base_url="http://127.0.0.1:8000/v1", timeout_s=value)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (f"the key {KEY} is wrong", "the key *** is wrong"),
        (f"key=hostile-key%2F0123456789 sent, {KEY[:8]}", "key=*** sent, hostile-"),
        ("Authorization: Bearer abc.def-123", "Authorization: ***"),
        ("got 'Bearer abc.def-123' from you", "got 'Bearer ***' from you"),
        ('{"x-api-key": "zzzzzzzzzzzz"}', '{"x-api-key": "***"}'),
        ("{'api_key': 'zzzzzzzzzzzz', 'n': 1}", "{'api_key': '***', 'n': 1}"),
        ("Incorrect API key provided: sk-proj-abcdefghijkl.", "Incorrect API key provided: ***."),
        ("cannot reach http://me:pw@host/v1", "cannot reach http://***@host/v1"),
        ("model 'gpt-4o-mini' not found", "model 'gpt-4o-mini' not found"),
    ],
)
def test_error_text_is_scrubbed_of_keys_and_tokens(text: str, kept: str) -> None:
    key = "hostile-key/0123456789" if "%2F" in text else KEY
    assert scrub_secrets(text, key) == kept


def test_placeholder_keys_leave_words_alone() -> None:
    assert scrub_secrets("the ollama server said EMPTY", "ollama") == "the ollama server said EMPTY"


def test_a_key_where_a_long_message_is_cut_is_still_scrubbed() -> None:
    class Refused(Exception):
        status_code = 400

    kind = classify_sdk_error(Refused("x" * 290 + KEY), (), key=KEY)
    assert kind is not None and KEY[:6] not in kind.message and "***" in kind.message


async def test_an_endpoint_echoing_the_key_never_gets_it_into_an_error() -> None:
    with HostileEndpoint(echo_status=500) as endpoint:
        chat = OpenAIChat("m", base_url=endpoint.base_url, api_key=KEY, retry=FAST_RETRY)
        outcome = await LLMJudge(chat).extract_claims("q", "Paris is in France.", iteration=0)
        await chat.aclose()
    assert outcome.error is not None and "HTTP 500" in outcome.error
    assert KEY not in outcome.error and KEY not in repr(outcome)
    assert "the key *** is not allowed" in outcome.error


async def test_a_fatal_error_does_not_chain_the_endpoints_unscrubbed_words() -> None:
    with HostileEndpoint(echo_status=401) as endpoint:
        chat = OpenAIChat("m", base_url=endpoint.base_url, api_key=KEY, retry=FAST_RETRY)
        with pytest.raises(JudgeFatalError) as raised:
            await LLMJudge(chat).extract_claims("q", "Paris is in France.", iteration=0)
        await chat.aclose()
    assert KEY not in str(raised.value)
    # A traceback shows neither the cause nor the context: the SDK's error quotes the key.
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


async def test_a_reply_trickling_in_byte_by_byte_is_bounded_by_the_timeout_as_a_whole() -> None:
    # Each byte comes well within the timeout, the whole reply (about 300 bytes) never does.
    with HostileEndpoint(every_s=0.1) as endpoint:
        chat = OpenAIChat("m", base_url=endpoint.base_url, api_key=KEY, timeout_s=0.5)
        # A timeout per read would let each attempt run the whole 30 s: wait_for would end it.
        with pytest.raises(JudgeFatalError, match=r"no complete reply within 0\.5 s \(3 attempts"):
            await asyncio.wait_for(
                LLMJudge(chat).extract_claims("q", "Paris is in France.", iteration=0), 30
            )
        await chat.aclose()
        requests = endpoint.requests
    assert requests == 3
