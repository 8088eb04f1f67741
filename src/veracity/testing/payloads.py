"""Response and error bodies in the OpenAI and Anthropic shapes, and fake embeddings."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import struct
import time
import uuid
from typing import Any

from veracity.testing._request import Api

EMBEDDING_DIM = 64
_TOKEN = re.compile(r"[a-z0-9]+")

_OPENAI_ERROR_TYPES = {400: "invalid_request_error", 404: "invalid_request_error", 429: "requests"}
_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    404: "not_found_error",
    429: "rate_limit_error",
    503: "overloaded_error",
}


def dumps(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode()


def error_body(
    api: Api, status: int, message: str, *, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """An error body as the given API would send it for ``status``."""
    if api == "anthropic":
        kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = _OPENAI_ERROR_TYPES.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def openai_completion(
    model: str,
    content: str,
    prompt_tokens: int,
    completion_tokens: int,
    *,
    cut: bool = False,
    logprobs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "logprobs": None if logprobs is None else {"content": logprobs, "refusal": None},
                "finish_reason": "length" if cut else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


# The fake's tokens: words, and each other character on its own.
_PIECE = re.compile(r"\w+|\W")


def token_logprobs(content: str, body: Any) -> list[dict[str, Any]]:
    """Log-probabilities for ``content`` as OpenAI returns them: every token certain (the
    fake has no other candidates), with ``top_logprobs`` as asked."""
    top = body.get("top_logprobs") if isinstance(body, dict) else None
    wanted = top if isinstance(top, int) and top > 0 else 0
    return [
        {
            "token": piece,
            "logprob": 0.0,
            "bytes": list(piece.encode()),
            "top_logprobs": [{"token": piece, "logprob": 0.0, "bytes": list(piece.encode())}]
            if wanted
            else [],
        }
        for piece in _PIECE.findall(content)
    ]


def reply_bound(body: Any) -> int | None:
    """The ``max_tokens`` (or ``max_completion_tokens``) a request allows, if any."""
    for key in ("max_completion_tokens", "max_tokens"):
        value = body.get(key) if isinstance(body, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def cut_to_bound(content: str, bound: int | None) -> tuple[str, bool]:
    """``content`` cut where a reply of ``bound`` tokens (about four characters each) ends,
    and whether it was cut."""
    if bound is None or len(content) <= 4 * bound:
        return content, False
    return content[: 4 * bound], True


def anthropic_message(
    model: str,
    content: str,
    input_tokens: int,
    output_tokens: int,
    tool: str | None = None,
    *,
    cut: bool = False,
) -> dict[str, Any]:
    """A Messages API reply; with a forced ``tool`` and a JSON-object reply, a tool_use block.

    A reply that is not a JSON object cannot be a tool input, so it comes back as a text
    block (as from a model that ignored the tool), for the client's parser to deal with.
    """
    block: dict[str, Any] = {"type": "text", "text": content}
    stop_reason = "max_tokens" if cut else "end_turn"
    if tool is not None and not cut:
        try:
            parsed = json.loads(content)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            block = {
                "type": "tool_use",
                "id": f"toolu_{uuid.uuid4().hex[:24]}",
                "name": tool,
                "input": parsed,
            }
            stop_reason = "tool_use"
    return {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def hashed_embedding(text: str, dim: int = EMBEDDING_DIM) -> list[float]:
    """A deterministic unit-length bag-of-words vector (all zeros for a text with no words).

    Each lowercase alphanumeric token adds ±1 to one of ``dim`` buckets chosen by its hash,
    so texts sharing words have a positive cosine similarity.
    """
    vector = [0.0] * dim
    for token in _TOKEN.findall(text.lower()):
        digest = hashlib.sha256(token.encode()).digest()
        bucket = int.from_bytes(digest[:4], "little") % dim
        vector[bucket] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(value * value for value in vector))
    return [value / norm for value in vector] if norm else vector


def embeddings_response(
    model: str, inputs: list[str], encoding_format: str | None, prompt_tokens: int
) -> dict[str, Any]:
    data: list[dict[str, Any]] = []
    for index, text in enumerate(inputs):
        vector = hashed_embedding(text)
        embedding: list[float] | str = vector
        if encoding_format == "base64":
            embedding = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
        data.append({"object": "embedding", "index": index, "embedding": embedding})
    return {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens},
    }
