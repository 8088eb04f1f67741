"""Any OpenAI-compatible chat endpoint, through the official ``openai`` SDK."""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from veracity.chat.base import ChatReply
from veracity.chat.received import received_text
from veracity.chat.sdk import RequestOptions, SDKChat, SDKClient, as_rejection, count
from veracity.dataset.fields import a_json_type
from veracity.prompts import ChatMessage, OutputSpec
from veracity.transport import CallFailedError
from veracity.transport.retry import ErrorClass, classify_sdk_error
from veracity.transport.urls import public_url
from veracity.types import TokenLogprob, Usage

if TYPE_CHECKING:  # the SDK takes half a second to import: only when a judge is made
    import openai
    from openai.types.chat import ChatCompletionMessageParam

# How many alternatives to ask for at each token (OpenAI allows up to 20).
TOP_LOGPROBS = 10
# What an error message names when it is about an option, by the option to drop.
_OPTION_WORDS = (
    ("logprobs", ("logprob",)),
    ("max_tokens", ("max_tokens",)),
    ("temperature", ("temperature",)),
    ("response_format", ("response_format", "json_schema", "json_object", "schema")),
)


class OpenAIClient(SDKClient["openai.AsyncOpenAI"]):
    """A model of veracity's through the ``openai`` SDK's client, made as every one of them
    uses it: replies bounded in size, no retries or timeouts of its own (each call is
    retried and bounded whole by the transport)."""

    def _make_client(self, api_key: str) -> openai.AsyncOpenAI:
        import openai

        from veracity.transport.bounded import bounded_hooks

        http = openai.DefaultAsyncHttpxClient(timeout=None, event_hooks=bounded_hooks())
        return openai.AsyncOpenAI(
            api_key=api_key, base_url=self.base_url, timeout=None, max_retries=0, http_client=http
        )

    async def _close_client(self, client: openai.AsyncOpenAI) -> None:
        await client.close()

    def _classify(self, exc: BaseException) -> ErrorClass | None:
        """How to treat an error of the SDK's (see :func:`classify_sdk_error`)."""
        import openai

        return classify_sdk_error(
            exc,
            (openai.APIConnectionError, openai.APIResponseValidationError),
            public_url(self.base_url),
            self._api_key,
        )


class OpenAIChat(OpenAIClient, SDKChat["openai.AsyncOpenAI"]):
    """Chat completions against OpenAI or any compatible server, with log-probabilities
    where the endpoint gives them and a ``max_tokens`` bound on every reply."""

    provider = "openai"
    key_env = "OPENAI_API_KEY"
    base_url_env = "OPENAI_BASE_URL"
    option_words = _OPTION_WORDS

    def _classify(self, exc: BaseException) -> ErrorClass | None:
        return as_rejection(super()._classify(exc), self.option_words)

    def request_params(
        self, options: RequestOptions, messages: Sequence[ChatMessage], output: OutputSpec
    ) -> dict[str, Any]:
        """The body of a chat completion request (a live call's, or a batch line's)."""
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [_message_param(m) for m in messages],
            options.token_limit: output.max_tokens,
        }
        if options.temperature is not None:
            params["temperature"] = options.temperature
        # Asked for where the reply's probabilities are read, and on every call until the
        # endpoint's options are settled: the first call finds out whether it takes them.
        if options.logprobs and (output.logprobs or not self._settled):
            params["logprobs"] = True
            params["top_logprobs"] = TOP_LOGPROBS
        mode = options.structured_output
        if mode == "json_schema":
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": output.name, "schema": dict(output.json_schema)},
            }
        elif mode == "json_object_schema":
            params["response_format"] = {"type": "json_object", "schema": dict(output.json_schema)}
        elif mode == "json_object":
            params["response_format"] = {"type": "json_object"}
        return params

    def reply_from(
        self, completion: object, options: RequestOptions, latency_s: float
    ) -> ChatReply:
        """The reply a completion's JSON body (a live call's, or a batch result's) gives.
        Any JSON may come back: every field is checked here, and a body of another shape is
        a :class:`CallFailedError` (a judge error), never a crash."""
        if not isinstance(completion, dict):
            what = f"{a_json_type(completion)} with no choices"
            raise CallFailedError(f"the endpoint's reply is unusable: {what}")
        choices = completion.get("choices")
        if not isinstance(choices, list):
            what = "no choices" if choices is None else f"choices that are {a_json_type(choices)}"
            raise CallFailedError(f"the endpoint's reply is unusable: a completion with {what}")
        if not choices:
            raise CallFailedError("the endpoint returned no choices")
        choice = choices[0]
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise CallFailedError("the endpoint's reply is unusable: its choice has no message")
        usage = completion.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return ChatReply(
            text=received_text(message.get("content") or "", self._api_key),
            usage=Usage(
                calls=1,
                input_tokens=count(usage.get("prompt_tokens", 0)),
                output_tokens=count(usage.get("completion_tokens", 0)),
            ),
            latency_s=latency_s,
            model=self.model_of(completion.get("model")),
            truncated=choice.get("finish_reason") == "length",
            tokens=_tokens(choice) if options.logprobs else (),
        )

    async def _complete_with(
        self, options: RequestOptions, messages: Sequence[ChatMessage], output: OutputSpec
    ) -> ChatReply:
        client = self.client()
        params = self.request_params(options, messages, output)
        started = time.perf_counter()
        body = await self.call(lambda: _post_completion(client, params))
        return self.reply_from(body, options, time.perf_counter() - started)


async def _post_completion(client: openai.AsyncOpenAI, params: dict[str, Any]) -> object:
    """The JSON body of a chat completion, through the SDK's documented raw request
    (``client.post`` with ``cast_to=httpx.Response``): the same client, headers, errors and
    bounds as ``client.chat.completions.create``, without its walk over the request (which
    is already in the API's shape) and its model of the reply, token log-probabilities and
    all: on a fast endpoint the two took a third of the judge's CPU time. A body that is no
    JSON raises :class:`json.JSONDecodeError`, retried like a broken connection."""
    response = await client.post("/chat/completions", body=params, cast_to=sdk_response())
    return json.loads(response.content)


@functools.cache
def sdk_response() -> Any:
    """The response class of the HTTP library the SDK's client is built on (httpx, or
    httpx2 from openai 3): importing the other one would only cost a process 40 ms."""
    import openai

    for base in openai.DefaultAsyncHttpxClient.__mro__:
        library = sys.modules[base.__module__.partition(".")[0]]
        if library is not openai and isinstance(getattr(library, "Response", None), type):
            return library.Response
    import httpx  # an SDK of another make-up: the library it documented

    return httpx.Response


def _tokens(choice: dict[str, Any]) -> tuple[TokenLogprob, ...]:
    """The reply's token log-probabilities; none when they are not of the expected shape
    (the verdicts then stay hard, as from an endpoint that gives none)."""
    logprobs = choice.get("logprobs")
    content = (logprobs.get("content") if isinstance(logprobs, dict) else None) or ()
    try:
        return tuple(
            TokenLogprob(
                token=str(item["token"]),
                logprob=float(item["logprob"]),
                top=tuple(
                    (str(alt["token"]), float(alt["logprob"]))
                    for alt in (item.get("top_logprobs") or ())
                ),
            )
            for item in content
        )
    except (AttributeError, KeyError, TypeError, ValueError):
        return ()


def _message_param(message: ChatMessage) -> ChatCompletionMessageParam:
    if message.role == "system":
        return {"role": "system", "content": message.content}
    if message.role == "assistant":
        return {"role": "assistant", "content": message.content}
    return {"role": "user", "content": message.content}
