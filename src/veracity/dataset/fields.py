"""Field names a dataset row may use, and the aliases other tools write for them."""

from __future__ import annotations

from typing import Final

#: The canonical fields of a sample, in the order they are documented.
CANONICAL_FIELDS: Final = (
    "id",
    "question",
    "contexts",
    "answer",
    "reference",
    "history",
    "citations",
    "question_type",
    "system",
    "metadata",
)

#: Alternative names accepted for a canonical field (ragas, query-log and chat exports).
ALIASES: Final[dict[str, tuple[str, ...]]] = {
    "id": ("queryLogId", "query_id"),
    "question": ("user_input", "query"),
    "contexts": ("retrieved_contexts", "context"),
    "answer": ("response",),
    "reference": ("ground_truth", "expected_answer"),
    "history": ("conversation", "messages", "chat_history"),
}

#: The field holding ``{system_name: answer}``; it expands into one sample per system.
ANSWERS_FIELD: Final = "answers"

#: Every accepted name (canonical or alias) mapped to its canonical field.
FIELD_OF: Final[dict[str, str]] = {name: name for name in CANONICAL_FIELDS} | {
    alias: canonical for canonical, aliases in ALIASES.items() for alias in aliases
}

#: Fields a row must give (``answer`` may instead come from ``answers``).
REQUIRED_FIELDS: Final = ("question", "answer")


def json_type(value: object) -> str:
    """The JSON name of a value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def a_json_type(value: object) -> str:
    """The JSON type name with its article: ``a string``, ``an array``, ``null``."""
    name = json_type(value)
    if name == "null":
        return name
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"
