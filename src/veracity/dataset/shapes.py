"""Files that hold something other than samples (traces, chat logs): recognised from their
first rows, and named with what reads them, instead of a "missing required field" a row.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Final

from veracity.dataset.columns import Columns

#: How many rows are looked at before a file is judged to be of another shape.
FIRST_ROWS: Final = 5

OTLP: Final = (
    "this looks like OTLP trace JSON ('resourceSpans'), not samples: "
    "use `veracity run --from otlp FILE` (in Python, veracity.traces.samples_from_traces)"
)
LANGFUSE: Final = (
    "this looks like a Langfuse export (traces with 'observations'), not samples: "
    "use `veracity run --from langfuse FILE`"
)


def _chat_log(columns_given: Collection[str]) -> str:
    named = ", ".join(f"'{name}'" for name in sorted(columns_given))
    return (
        f"the rows hold {named} (a chat log) and no question: give 'question', 'answer' and "
        "'contexts' fields; or give the whole conversation as 'question' (rename "
        f"{named} to 'question'): its last user turn is the question, the turns before it "
        "the history and the assistant's reply after it the answer"
    )


def row_shape(value: object, columns: Columns) -> str | None:
    """What a row that is no sample looks like and what reads it; ``None`` when it looks
    like a sample (or like nothing known)."""
    if not isinstance(value, Mapping):
        return None
    if "resourceSpans" in value:
        return OTLP
    if "observations" in value or (
        isinstance(value.get("data"), list)
        and any(isinstance(item, Mapping) and "observations" in item for item in value["data"])
    ):
        return LANGFUSE
    fields = {str(key): columns.field_of.get(str(key)) for key in value}
    if "question" in fields.values() or "answers" in fields.values():
        return None
    history = [key for key, field in fields.items() if field == "history"]
    return _chat_log(history) if history else None


def top_level_shape(keys: Collection[str]) -> str | None:
    """What a JSON file's top-level object (its ``keys``, no ``samples`` among them) looks
    like and what reads it."""
    if "resourceSpans" in keys:
        return OTLP
    if "observations" in keys:
        return LANGFUSE
    if "data" in keys:  # a Langfuse export's shape, among others
        return "if it is a Langfuse export, use `veracity run --from langfuse FILE`"
    return None
