"""A conversation's turns in the shapes people have them, read as :class:`Turn`\\ s.

A conversation of two or more plain strings alternates user and assistant, the user's
first (as question-and-answer datasets write them); a string alone, or among turns of
other shapes, has no known role. Otherwise a turn is an object whose role and text come
under the keys the common formats use: ``{role, content}`` (OpenAI, with content as a
string or a list of text parts), ``{speaker, text}`` (MTRAG),
``{type: human|ai, content}`` (LangChain and ragas messages, also serialised with a
``data`` object), ``{from, value}`` (ShareGPT). Role names are read by what they mean
(``human`` is the user, ``ai``/``agent``/``bot``/``gpt`` the assistant). Anything else
is a :class:`TurnProblem` naming the turn and the shapes accepted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from veracity.dataset.fields import a_json_type
from veracity.types.sample import Turn, TurnRole

__all__ = ["SHAPES", "TurnProblem", "read_turns", "split_conversation"]

ROLE_KEYS = ("role", "speaker", "type", "from", "author")
TEXT_KEYS = ("content", "text", "value", "message")
ROLE_NAMES: Mapping[str, TurnRole] = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "agent": "assistant",
    "bot": "assistant",
    "gpt": "assistant",
    "model": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
}
SHAPES = (
    "strings, or objects {role, content} (OpenAI), {speaker, text} (MTRAG), "
    "{type: human|ai, content} (LangChain, ragas) or {from, value} (ShareGPT)"
)


class TurnProblem(ValueError):
    """A turn veracity cannot read; the message names it and the shapes accepted."""


def _first(item: Mapping[str, object], keys: Sequence[str]) -> tuple[str, object] | None:
    return next(((key, item[key]) for key in keys if key in item), None)


def _text(value: object) -> str | None:
    """A turn's text: a string, or the text parts of a list of content parts."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""  # an assistant turn that only called a tool
    if isinstance(value, list):
        parts = [_text_part(part) for part in value]
        if all(part is not None for part in parts):
            return "\n".join(part for part in parts if part)
    return None


def _text_part(part: object) -> str | None:
    if isinstance(part, str):
        return part
    if isinstance(part, Mapping) and isinstance(part.get("text"), str):
        return str(part["text"])
    if isinstance(part, Mapping) and part.get("type") not in (None, "text"):
        return ""  # an image or a file: not text a judge reads
    return None


def _turn(item: object, where: str) -> Turn:
    if isinstance(item, str):
        return Turn(content=item)
    if isinstance(item, Turn):
        return item
    if not isinstance(item, Mapping):
        raise TurnProblem(f"{where} is {a_json_type(item)}; a turn is one of: {SHAPES}")
    body = item.get("data") if isinstance(item.get("data"), Mapping) else item
    assert isinstance(body, Mapping)
    found_text = _first(body, TEXT_KEYS)
    if found_text is None:
        keys = ", ".join(repr(str(k)) for k in list(item)[:5])
        raise TurnProblem(f"{where} has no text (keys {keys}); a turn is one of: {SHAPES}")
    text = _text(found_text[1])
    if text is None:
        raise TurnProblem(
            f"{where} '{found_text[0]}' must be a string or a list of text parts, "
            f"got {a_json_type(found_text[1])}"
        )
    found_role = _first(item, ROLE_KEYS) or _first(body, ROLE_KEYS)
    if found_role is None or found_role[1] is None:
        return Turn(content=text)
    key, name = found_role
    role = ROLE_NAMES.get(name.strip().casefold()) if isinstance(name, str) else None
    if role is None:
        shown = repr(name) if isinstance(name, str) else a_json_type(name)
        known = ", ".join(sorted(ROLE_NAMES))
        raise TurnProblem(f"{where} has an unknown {key} {shown} (known: {known})")
    return Turn(role=role, content=text)


def read_turns(name: str, value: object) -> tuple[Turn, ...]:
    """The turns of the field ``name``: a list of turns, or one string (one turn, whose
    role is not known)."""
    if isinstance(value, str):
        return (Turn(content=value),)
    if not isinstance(value, list | tuple):
        raise TurnProblem(
            f"field '{name}' must be a list of turns ({SHAPES}), got {a_json_type(value)}"
        )
    if len(value) > 1 and all(isinstance(item, str) for item in value):
        roles: tuple[TurnRole, TurnRole] = ("user", "assistant")
        return tuple(Turn(role=roles[n % 2], content=str(item)) for n, item in enumerate(value))
    return tuple(_turn(item, f"field '{name}' item {n}") for n, item in enumerate(value, 1))


def split_conversation(
    name: str, turns: Sequence[Turn]
) -> tuple[tuple[Turn, ...], str, tuple[Turn, ...]]:
    """A whole conversation given as the question (ragas' multi-turn ``user_input``): the
    turns before the last user turn, its text, and the turns after it (the answer)."""
    last_user = max((i for i, turn in enumerate(turns) if turn.role == "user"), default=None)
    if last_user is None:
        raise TurnProblem(
            f"field '{name}' must be a string, or a conversation whose last user turn is the "
            f"question; got {len(turns)} turn(s), none of them the user's"
        )
    return tuple(turns[:last_user]), turns[last_user].content, tuple(turns[last_user + 1 :])
