"""The unit of evaluation: one answer to one question, with what was retrieved for it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Sample(BaseModel):
    """One answer from one RAG system to one question.

    ``id`` plus ``system`` identifies a sample; the same question answered by two systems
    shares its ``id`` when the dataset gives one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    question: str
    contexts: tuple[str, ...] = ()
    answer: str
    reference: str | None = None
    question_type: str | None = None
    system: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("contexts", mode="before")
    @classmethod
    def _contexts_as_tuple(cls, value: object) -> object:
        # A lone string is one context, not a sequence of characters.
        if isinstance(value, str):
            return (value,)
        if isinstance(value, list):
            return tuple(value)
        return value
