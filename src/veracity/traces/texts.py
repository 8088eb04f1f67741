"""The text an attribute holds, as the frameworks write them: plain text, or JSON whose
keys say what it is (a LangChain chain's ``{"query", "result"}``, ``{"input", "context",
"answer"}``, LlamaIndex's ``{"response", …}``), or a list of chat messages in any of the
shapes they serialise (OpenAI's ``{role, content}``, OTel GenAI's ``parts``, LangChain's
``{type, data}``, ``{lc, kwargs}`` and ``["user", "text"]`` pairs, LangGraph's
``{"messages": […]}``).

The question and the answer are read with different keys and roles, so that an answer is
never an echo of the question a chain's output repeats beside it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "AI_ROLES",
    "HUMAN_ROLES",
    "earlier_turns",
    "loaded_json",
    "message_role",
    "message_text",
    "same_text",
    "text_in",
]

AI_ROLES = frozenset({"assistant", "ai", "aimessage", "aimessagechunk", "model", "bot"})
HUMAN_ROLES = frozenset({"user", "human", "humanmessage", "humanmessagechunk"})
# The roles a ("role", "text") pair can name: any other pair is a (human, ai) exchange.
PAIR_ROLES = AI_ROLES | HUMAN_ROLES | {"system", "tool", "function", "developer"}


def loaded_json(text: str) -> Any:
    """``text`` read as JSON, or None where it is not JSON (or nested too deep to read: a
    degenerate answer of a thousand ``[`` is text, not a reason to stop)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _body(message: Mapping[str, Any]) -> Mapping[str, Any]:
    """Where a serialised message keeps its fields: LangChain's ``{type, data}`` (dumped)
    and ``{lc, type: constructor, kwargs}`` (serialised) wrap them."""
    for wrapper in ("kwargs", "data"):
        inner = message.get(wrapper)
        if isinstance(inner, Mapping) and ("content" in inner or "type" in inner):
            return inner
    return message


def _pair(message: Any) -> tuple[str, str] | None:
    """A message written as LangChain accepts it, ``("user", "text")`` (JSON: a list)."""
    if isinstance(message, list | tuple) and len(message) == 2:
        role, text = message
        if isinstance(role, str) and role.casefold() in PAIR_ROLES and isinstance(text, str):
            return role, text
    return None


def message_role(message: Any) -> str:
    """A message's role, casefolded (``""`` where it has none)."""
    if (pair := _pair(message)) is not None:
        return pair[0].casefold()
    if not isinstance(message, Mapping):
        return ""
    body = _body(message)
    role = body.get("role") or body.get("type") or message.get("role") or message.get("type")
    if role == "constructor":  # LangChain's serialised form names the class in "id"
        ids = message.get("id")
        role = ids[-1] if isinstance(ids, list) and ids else ""
    return str(role or "").casefold()


def message_text(message: Any) -> str | None:
    """A message's text: its content (a string, or the text blocks of a list), or the
    text of its GenAI ``parts``."""
    if isinstance(message, str):
        return message.strip() or None
    if (pair := _pair(message)) is not None:
        return pair[1].strip() or None
    if not isinstance(message, Mapping):
        return None
    body = _body(message)
    for key in ("content", "parts", "text"):
        text = _blocks_text(body.get(key))
        if text:
            return text
    return None


def _blocks_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list):
        texts = [
            block if isinstance(block, str) else block.get("text") or block.get("content")
            for block in value
            if isinstance(block, str | Mapping)
        ]
        return "\n".join(t for t in texts if isinstance(t, str) and t.strip()) or None
    return None


def _last_message(messages: Sequence[Any], roles: frozenset[str]) -> str | None:
    """The text of the last message of ``roles`` (or of no role: plain texts)."""
    for message in reversed(messages):
        role = message_role(message)
        if (not role or role in roles) and (text := message_text(message)):
            return text
    return None


def text_in(value: Any, keys: Sequence[str], roles: frozenset[str]) -> str | None:
    """The text ``value`` holds: itself, where it is plain text; in a JSON object, the
    first of ``keys`` that holds text (or a message), else the last message of ``roles``
    in its ``messages``; in a list of messages, the last of ``roles``. None where it holds
    none of these."""
    if isinstance(value, str):
        stripped = value.strip()
        loaded = loaded_json(stripped) if stripped[:1] in ("{", "[") else None
        if loaded is None:
            return stripped or None
        value = loaded
    if isinstance(value, Mapping):
        for key in keys:
            found = value.get(key)
            text = found.strip() if isinstance(found, str) else message_text(found)
            if text:
                return text
        value = value.get("messages")
    if isinstance(value, list):
        return _last_message(value, roles)
    return None


def earlier_turns(value: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The conversation before the question a request's input holds, (role, text) oldest
    first: its ``chat_history`` (messages, or LangChain's ``(human, ai)`` exchanges), else
    its ``messages`` before the last human one."""
    history = value.get("chat_history")
    if isinstance(history, list):
        turns: list[tuple[str, str]] = []
        for item in history:
            role, text = message_role(item), message_text(item)
            if role and text:
                turns.append((role, text))
            elif (
                isinstance(item, list | tuple)
                and len(item) == 2
                and all(isinstance(t, str) for t in item)
            ):
                turns += [("human", item[0]), ("ai", item[1])]
        return turns
    messages = value.get("messages")
    if not isinstance(messages, list):
        return []
    turns = [(message_role(m), text) for m in messages if (text := message_text(m)) is not None]
    last_human = max((i for i, (role, _) in enumerate(turns) if role in HUMAN_ROLES), default=0)
    return turns[:last_human]


def same_text(a: str, b: str) -> bool:
    """Whether two texts say the same, case and spacing aside."""
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())
