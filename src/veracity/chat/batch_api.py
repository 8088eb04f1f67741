"""The providers' batch APIs behind one shape: OpenAI's Batch API (a JSONL file of chat
completion requests) and Anthropic's Message Batches. Each builds a request's line from
the same body a live call sends, and reads each result back into the same
:class:`ChatReply` a live call gives."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from veracity.chat.base import ChatReply
from veracity.prompts import ChatMessage, OutputSpec
from veracity.transport import CallFailedError

if TYPE_CHECKING:
    from veracity.chat.anthropic_chat import AnthropicChat
    from veracity.chat.openai_chat import OpenAIChat

# Uploading a file of many megabytes, or reading one back, takes longer than a chat call.
TRANSFER_TIMEOUT_S = 600.0


@dataclass(frozen=True, slots=True)
class BatchState:
    """A batch as its provider describes it: its status in the provider's words, whether
    it has ended, its request counts, and (``error``) why it failed as a whole."""

    status: str
    ended: bool
    done: int = 0
    failed: int = 0
    total: int = 0
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Failed:
    """A request of a batch that the provider answered with an error (``status``: its
    HTTP status, where known)."""

    message: str
    status: int | None = None


# What a batch gives for a request: a reply, an error, or nothing (expired or cancelled
# before its turn: the request is sent again).
Outcome = ChatReply | Failed


class BatchApi(Protocol):
    """One provider's batch API; ``max_requests`` and ``max_bytes`` bound one batch."""

    max_requests: int
    max_bytes: int

    def line(self, custom_id: str, messages: Sequence[ChatMessage], output: OutputSpec) -> bytes:
        """The request as it goes into a batch (its size counts towards ``max_bytes``)."""
        ...

    async def submit(self, lines: Sequence[bytes]) -> str:
        """Create a batch of ``lines``; its id."""
        ...

    async def state(self, batch_id: str) -> BatchState: ...

    async def results(self, batch_id: str, latency_s: float) -> dict[str, Outcome]:
        """The outcome of each request of an ended batch, by ``custom_id``."""
        ...

    async def discard(self, batch_id: str) -> None:
        """Delete what the provider keeps of an ended batch whose results are in hand
        (the prompts hold the user's contexts)."""
        ...


class OpenAIBatches:
    """OpenAI's Batch API: a JSONL file uploaded, a batch made of it, results in files."""

    max_requests = 50_000
    max_bytes = 200 * 1024 * 1024

    def __init__(self, chat: OpenAIChat) -> None:
        self.chat = chat

    def line(self, custom_id: str, messages: Sequence[ChatMessage], output: OutputSpec) -> bytes:
        body = self.chat.request_params(self.chat.options, messages, output)
        request = {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions"}
        return json.dumps({**request, "body": body}, ensure_ascii=False).encode()

    async def submit(self, lines: Sequence[bytes]) -> str:
        client = self.chat.client()
        content = b"\n".join(lines) + b"\n"
        uploaded = await self.chat.call(
            lambda: client.files.create(file=("veracity-batch.jsonl", content), purpose="batch"),
            timeout_s=TRANSFER_TIMEOUT_S,
        )
        batch = await self.chat.call(
            lambda: client.batches.create(
                input_file_id=uploaded.id,
                endpoint="/v1/chat/completions",
                completion_window="24h",
                metadata={"created_by": "veracity"},
            )
        )
        return str(batch.id)

    async def state(self, batch_id: str) -> BatchState:
        client = self.chat.client()
        batch = await self.chat.call(lambda: client.batches.retrieve(batch_id))
        counts = batch.request_counts
        error = None
        if batch.status == "failed":
            found = (
                [e.message or e.code or "" for e in (batch.errors.data or [])]
                if batch.errors
                else []
            )
            error = self.chat.scrubbed("; ".join(found) or "the batch failed")
        return BatchState(
            status=batch.status,
            ended=batch.status in ("completed", "expired", "cancelled", "failed"),
            done=counts.completed if counts else 0,
            failed=counts.failed if counts else 0,
            total=counts.total if counts else 0,
            error=error,
        )

    async def results(self, batch_id: str, latency_s: float) -> dict[str, Outcome]:
        client = self.chat.client()
        batch = await self.chat.call(lambda: client.batches.retrieve(batch_id))
        found: dict[str, Outcome] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            text = await self.chat.call(
                functools.partial(_file_text, client, file_id), timeout_s=TRANSFER_TIMEOUT_S
            )
            for raw in text.splitlines():
                if not raw.strip():
                    continue
                line = json.loads(raw)
                response = line.get("response") or {}
                error = line.get("error") or {}
                if error.get("code") in ("batch_expired", "batch_cancelled"):
                    continue  # never tried: sent again
                if response.get("status_code") == 200 and not error:
                    try:
                        options = self.chat.options
                        reply = self.chat.reply_from(response.get("body"), options, latency_s)
                    except (CallFailedError, ValueError) as exc:  # a body of another shape
                        found[line["custom_id"]] = Failed(self.chat.scrubbed(str(exc)), None)
                    else:
                        found[line["custom_id"]] = reply
                    continue
                message = ((response.get("body") or {}).get("error") or {}).get("message")
                status = response.get("status_code")
                text = message or error.get("message") or "no reply"
                prefix = f"HTTP {status}: " if status else ""
                found[line["custom_id"]] = Failed(prefix + self.chat.scrubbed(text), status)
        return found

    async def discard(self, batch_id: str) -> None:
        # A batch itself cannot be deleted; its input and result files can.
        client = self.chat.client()
        batch = await self.chat.call(lambda: client.batches.retrieve(batch_id))
        for file_id in (batch.input_file_id, batch.output_file_id, batch.error_file_id):
            if file_id:
                await self.chat.call(functools.partial(client.files.delete, file_id))


async def _file_text(client: Any, file_id: str) -> str:
    content = await client.files.content(file_id)
    return str(content.text)


class AnthropicBatches:
    """Anthropic's Message Batches: the requests sent in the create call itself."""

    max_requests = 100_000
    max_bytes = 256 * 1024 * 1024

    def __init__(self, chat: AnthropicChat) -> None:
        self.chat = chat

    def line(self, custom_id: str, messages: Sequence[ChatMessage], output: OutputSpec) -> bytes:
        params = self.chat.request_params(self.chat.options, messages, output)
        return json.dumps({"custom_id": custom_id, "params": params}, ensure_ascii=False).encode()

    async def submit(self, lines: Sequence[bytes]) -> str:
        client = self.chat.client()
        requests: Any = [json.loads(line) for line in lines]
        batch = await self.chat.call(
            lambda: client.messages.batches.create(requests=requests),
            timeout_s=TRANSFER_TIMEOUT_S,
        )
        return str(batch.id)

    async def state(self, batch_id: str) -> BatchState:
        client = self.chat.client()
        batch = await self.chat.call(lambda: client.messages.batches.retrieve(batch_id))
        counts = batch.request_counts
        total = (
            counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired
        )
        return BatchState(
            status=batch.processing_status,
            ended=batch.processing_status == "ended",
            done=counts.succeeded,
            failed=counts.errored + counts.expired + counts.canceled,
            total=total,
        )

    async def results(self, batch_id: str, latency_s: float) -> dict[str, Outcome]:
        client = self.chat.client()

        async def read() -> list[Any]:
            return [item async for item in await client.messages.batches.results(batch_id)]

        found: dict[str, Outcome] = {}
        for item in await self.chat.call(read, timeout_s=TRANSFER_TIMEOUT_S):
            result = item.result
            if result.type == "succeeded":
                try:
                    found[item.custom_id] = self.chat.reply_from(result.message, latency_s)
                except CallFailedError as exc:  # a message of another shape, or too large
                    found[item.custom_id] = Failed(str(exc), None)
            elif result.type == "errored":
                error = result.error.error
                text = f"{error.type}: {error.message}"
                # A batch result carries no HTTP status; this error type is a 400's.
                status = 400 if error.type == "invalid_request_error" else None
                found[item.custom_id] = Failed(self.chat.scrubbed(text), status)
            # canceled or expired: never tried, sent again
        return found

    async def discard(self, batch_id: str) -> None:
        client = self.chat.client()
        await self.chat.call(lambda: client.messages.batches.delete(batch_id))


def batch_api(chat: object) -> BatchApi | None:
    """The batch API of ``chat``'s provider; ``None`` for a chat model without one."""
    from veracity.chat.openai_chat import OpenAIChat

    if isinstance(chat, OpenAIChat):
        return OpenAIBatches(chat)
    if getattr(chat, "provider", None) == "anthropic":
        from veracity.chat.anthropic_chat import AnthropicChat

        if isinstance(chat, AnthropicChat):
            return AnthropicBatches(chat)
    return None
