"""The fake server's batch endpoints: OpenAI's Batch API (a JSONL file uploaded, a batch
made of it, an output and an error file) and Anthropic's Message Batches, each request
answered by the server's own responder as a live call would be.

A batch is done ``delay_s`` after it was created (it says ``validating``, then
``in_progress`` until then); its requests are answered when it is first seen done. What
:class:`BatchBehaviour` says can make some requests fail and batches expire part-done.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from veracity.testing._request import Api
from veracity.testing.payloads import dumps, error_body

# A request's body in, its HTTP status and JSON reply out (the server's live path).
Answer = Callable[[Api, Mapping[str, Any]], tuple[int, dict[str, Any]]]
BatchReply = tuple[int, bytes]

FAILED_MESSAGE = "Injected batch request failure."
EXPIRED_MESSAGE = "This request could not be executed before the completion window expired."


@dataclass
class BatchBehaviour:
    """How the fake's batches behave (change it between or during runs).

    ``delay_s``: how long a batch takes. ``fail_every``: every n-th request of each batch
    fails (0: none), with ``fail_message``. ``expire``: the next that many batches expire
    with only their first half of requests answered. ``refuse``: OpenAI batches fail
    validation with this message (as one over the organisation's queued-token limit
    does). ``available``: without, the batch endpoints answer 404, as a server with no
    batch API does.
    """

    delay_s: float = 0.0
    fail_every: int = 0
    fail_message: str = FAILED_MESSAGE
    expire: int = 0
    refuse: str | None = None
    available: bool = True


@dataclass
class _Batch:
    id: str
    api: Api
    requests: list[tuple[str, dict[str, Any]]]
    created: float
    delay_s: float
    input_file_id: str = ""
    expires: bool = False
    cancelled: bool = False
    refused: str | None = None
    # custom_id → the result line, once answered.
    results: dict[str, dict[str, Any]] | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    counts: dict[str, int] = field(default_factory=dict)


class FakeBatches:
    """Files and batches in memory, thread-safe; :meth:`handle` serves one HTTP request."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.behaviour = BatchBehaviour()
        self.created = 0  # batches created since the start (or the last reset)
        self._lock = threading.Lock()
        self._files: dict[str, bytes] = {}
        self._batches: dict[str, _Batch] = {}

    def reset(self) -> None:
        with self._lock:
            self.created = 0

    def kept(self) -> int:
        """Files (OpenAI) and batches (Anthropic) stored and not deleted."""
        with self._lock:
            anthropic = sum(batch.api == "anthropic" for batch in self._batches.values())
            return len(self._files) + anthropic

    @staticmethod
    def serves(path: str) -> bool:
        path = path.split("?", 1)[0]
        return path.startswith(("/v1/files", "/v1/batches", "/v1/messages/batches"))

    def handle(self, method: str, path: str, body: bytes, headers: Mapping[str, str]) -> BatchReply:
        parts = path.split("?", 1)[0].strip("/").split("/")
        api: Api = "anthropic" if parts[:3] == ["v1", "messages", "batches"] else "openai"
        if not self.behaviour.available:
            return _error(api, 404, f"Unknown request URL: {method} {path}")
        lowered = {k.lower(): v for k, v in headers.items()}
        with self._lock:
            try:
                if api == "anthropic":
                    return self._anthropic(method, parts[3:], body, lowered)
                return self._openai(method, parts[1:], body, lowered)
            except (ValueError, KeyError, TypeError) as exc:
                return _error(api, 400, f"Bad batch request: {exc}")

    # ------------------------------------------------------------------ OpenAI

    def _openai(
        self, method: str, parts: list[str], body: bytes, headers: Mapping[str, str]
    ) -> BatchReply:
        match method, parts:
            case "POST", ["files"]:
                return self._upload(body, headers.get("content-type", ""))
            case "GET", ["files", file_id, "content"] if file_id in self._files:
                return 200, self._files[file_id]
            case "DELETE", ["files", file_id] if file_id in self._files:
                del self._files[file_id]
                return 200, dumps({"id": file_id, "object": "file", "deleted": True})
            case "POST", ["batches"]:
                request = json.loads(body)
                content = self._files[request["input_file_id"]]
                lines = [json.loads(line) for line in content.splitlines() if line.strip()]
                batch = self._new("openai", [(ln["custom_id"], ln["body"]) for ln in lines])
                batch.input_file_id = request["input_file_id"]
                return 200, dumps(self._openai_batch(batch))
            case "GET", ["batches", batch_id] if batch_id in self._batches:
                return 200, dumps(self._openai_batch(self._batches[batch_id]))
            case "POST", ["batches", batch_id, "cancel"] if batch_id in self._batches:
                self._batches[batch_id].cancelled = True
                return 200, dumps(self._openai_batch(self._batches[batch_id]))
        return _error("openai", 404, f"No such object or URL: {method} /{'/'.join(parts)}")

    def _upload(self, body: bytes, content_type: str) -> BatchReply:
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + body
        )
        fields: dict[str, bytes] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(name, str) and isinstance(payload, bytes):
                fields[name] = payload
        if fields.get("purpose") != b"batch" or "file" not in fields:
            raise ValueError("expected a file with purpose 'batch'")
        file_id = f"file-{uuid.uuid4().hex[:24]}"
        self._files[file_id] = fields["file"]
        return 200, dumps(_file_object(file_id, "batch_input.jsonl", len(fields["file"])))

    def _openai_batch(self, batch: _Batch) -> dict[str, Any]:
        if batch.refused is not None:
            error = {"code": "token_limit_exceeded", "message": batch.refused, "line": None}
            return {
                **self._openai_fields(batch),
                "status": "failed",
                "errors": {"object": "list", "data": [error]},
            }
        status: str = self._status(batch)
        if status == "ended":
            status = "cancelled" if batch.cancelled else "expired" if batch.expires else "completed"
        elif status == "canceling":
            status = "cancelling"
        counts = batch.counts
        return {
            **self._openai_fields(batch),
            "status": status,
            "output_file_id": batch.output_file_id,
            "error_file_id": batch.error_file_id,
            "request_counts": {
                "total": len(batch.requests),
                "completed": counts.get("succeeded", 0),
                "failed": len(batch.requests) - counts.get("succeeded", 0) if counts else 0,
            },
        }

    @staticmethod
    def _openai_fields(batch: _Batch) -> dict[str, Any]:
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "input_file_id": batch.input_file_id,
            "completion_window": "24h",
            "created_at": int(batch.created),
        }

    # ------------------------------------------------------------------ Anthropic

    def _anthropic(
        self, method: str, parts: list[str], body: bytes, headers: Mapping[str, str]
    ) -> BatchReply:
        match method, parts:
            case "POST", []:
                requests = json.loads(body)["requests"]
                batch = self._new("anthropic", [(r["custom_id"], r["params"]) for r in requests])
                return 200, dumps(self._anthropic_batch(batch, headers))
            case "GET", [batch_id] if batch_id in self._batches:
                return 200, dumps(self._anthropic_batch(self._batches[batch_id], headers))
            case "POST", [batch_id, "cancel"] if batch_id in self._batches:
                self._batches[batch_id].cancelled = True
                return 200, dumps(self._anthropic_batch(self._batches[batch_id], headers))
            case "DELETE", [batch_id] if batch_id in self._batches:
                if self._status(self._batches[batch_id]) != "ended":
                    return _error("anthropic", 400, "A batch must end before it is deleted.")
                del self._batches[batch_id]
                return 200, dumps({"id": batch_id, "type": "message_batch_deleted"})
            case "GET", [batch_id, "results"] if batch_id in self._batches:
                batch = self._batches[batch_id]
                if batch.results is None:
                    return _error("anthropic", 400, "The batch has not ended yet.")
                return 200, _jsonl(batch.results.values())
        return _error("anthropic", 404, f"Not found: {method} /v1/messages/batches/{parts}")

    def _anthropic_batch(self, batch: _Batch, headers: Mapping[str, str]) -> dict[str, Any]:
        status: str = self._status(batch)
        if status == "validating":
            status = "in_progress"
        ended = status == "ended"
        counts = batch.counts if ended else {}
        host = headers.get("host", "127.0.0.1")
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": status,
            "created_at": _rfc3339(batch.created),
            "expires_at": _rfc3339(batch.created + 86400),
            "ended_at": _rfc3339(time.time()) if ended else None,
            "request_counts": {
                "processing": 0 if ended else len(batch.requests),
                **{k: counts.get(k, 0) for k in ("succeeded", "errored", "canceled", "expired")},
            },
            "results_url": f"http://{host}/v1/messages/batches/{batch.id}/results"
            if ended
            else None,
        }

    # ------------------------------------------------------------------ both

    def _new(self, api: Api, requests: list[tuple[str, dict[str, Any]]]) -> _Batch:
        if not requests:
            raise ValueError("a batch needs at least one request")
        if len({custom_id for custom_id, _ in requests}) != len(requests):
            raise ValueError("custom_id values must be unique within a batch")
        prefix = "msgbatch_" if api == "anthropic" else "batch_"
        batch = _Batch(
            f"{prefix}{uuid.uuid4().hex[:24]}",
            api,
            requests,
            time.time(),
            self.behaviour.delay_s,
        )
        batch.refused = self.behaviour.refuse if api == "openai" else None
        if self.behaviour.expire > 0:
            self.behaviour.expire -= 1
            batch.expires = True
        self._batches[batch.id] = batch
        self.created += 1
        return batch

    def _status(self, batch: _Batch) -> Literal["validating", "in_progress", "canceling", "ended"]:
        """The batch's state now; answered (once) the first time it is seen done."""
        elapsed = time.time() - batch.created
        if batch.results is None and not batch.cancelled and elapsed < batch.delay_s:
            return "validating" if elapsed < batch.delay_s / 3 else "in_progress"
        if batch.results is None:
            self._finish(batch)
        return "ended"

    def _finish(self, batch: _Batch) -> None:
        answered = len(batch.requests) // 2 if batch.expires else len(batch.requests)
        if batch.cancelled:
            answered = 0
        results: dict[str, dict[str, Any]] = {}
        counts = dict.fromkeys(("succeeded", "errored", "canceled", "expired"), 0)
        every = self.behaviour.fail_every
        for index, (custom_id, body) in enumerate(batch.requests):
            if index >= answered:
                kind = "canceled" if batch.cancelled else "expired"
                results[custom_id] = _unanswered(batch.api, custom_id, kind)
                counts[kind] += 1
                continue
            if every and (index + 1) % every == 0:
                status, reply = 500, error_body(batch.api, 500, self.behaviour.fail_message)
            else:
                status, reply = self.answer(batch.api, body)
            results[custom_id] = _answered(batch.api, custom_id, status, reply)
            counts["succeeded" if status == 200 else "errored"] += 1
        batch.results, batch.counts = results, counts
        if batch.api == "openai":
            good = [r for r in results.values() if r["error"] is None]
            bad = [r for r in results.values() if r["error"] is not None]
            batch.output_file_id = self._store(good)
            batch.error_file_id = self._store(bad)

    def _store(self, lines: list[dict[str, Any]]) -> str | None:
        if not lines:
            return None
        file_id = f"file-{uuid.uuid4().hex[:24]}"
        self._files[file_id] = _jsonl(lines)
        return file_id


def _answered(api: Api, custom_id: str, status: int, reply: dict[str, Any]) -> dict[str, Any]:
    if api == "anthropic":
        if status == 200:
            return {"custom_id": custom_id, "result": {"type": "succeeded", "message": reply}}
        return {"custom_id": custom_id, "result": {"type": "errored", "error": reply}}
    line: dict[str, Any] = {
        "id": f"batch_req_{uuid.uuid4().hex[:24]}",
        "custom_id": custom_id,
        "response": {"status_code": status, "request_id": f"req_{uuid.uuid4().hex}", "body": reply},
        "error": None,
    }
    if status != 200:  # OpenAI puts a failed request in the error file, its response kept
        line["error"] = {"code": "server_error", "message": reply["error"]["message"]}
    return line


def _unanswered(api: Api, custom_id: str, kind: str) -> dict[str, Any]:
    if api == "anthropic":
        return {"custom_id": custom_id, "result": {"type": kind}}
    code, message = (
        ("batch_expired", EXPIRED_MESSAGE)
        if kind == "expired"
        else ("batch_cancelled", "This request was cancelled.")
    )
    return {
        "id": f"batch_req_{uuid.uuid4().hex[:24]}",
        "custom_id": custom_id,
        "response": None,
        "error": {"code": code, "message": message},
    }


def _file_object(file_id: str, name: str, size: int) -> dict[str, Any]:
    return {
        "id": file_id,
        "object": "file",
        "bytes": size,
        "created_at": int(time.time()),
        "filename": name,
        "purpose": "batch",
        "status": "processed",
    }


def _jsonl(lines: Any) -> bytes:
    return b"".join(dumps(line) + b"\n" for line in lines)


def _rfc3339(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


def _error(api: Api, status: int, message: str) -> BatchReply:
    return status, dumps(error_body(api, status, message))
