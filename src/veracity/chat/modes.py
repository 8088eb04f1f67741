"""The reply formats a chat endpoint may be asked for, in a module of their own: the run
settings name them without loading the chat models."""

from __future__ import annotations

from typing import Literal, get_args

# json_object_schema: JSON mode with the schema beside it, the form llama.cpp's servers
# (and some hosted ones) turn into a grammar, so a small model cannot leave a field out.
StructuredOutput = Literal["json_schema", "json_object_schema", "json_object", "text"]
STRUCTURED_OUTPUT_MODES: tuple[StructuredOutput, ...] = get_args(StructuredOutput)
# Each mode falls back to the next when an endpoint rejects it.
STRUCTURED_OUTPUT_FALLBACK: dict[StructuredOutput, StructuredOutput | None] = {
    "json_schema": "json_object_schema",
    "json_object_schema": "json_object",
    "json_object": "text",
    "text": None,
}
