"""The unit of evaluation: one answer to one question, with what was retrieved for it."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: Who said a turn (``tool``: what a tool the assistant called returned). A turn given as
#: a plain string has no role: veracity does not guess one (from alternation, say), it
#: shows the turn without it.
TurnRole = Literal["user", "assistant", "system", "tool"]
ROLES: tuple[TurnRole, ...] = get_args(TurnRole)


class Turn(BaseModel):
    """One earlier turn of the conversation a question belongs to."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: TurnRole | None = None
    content: str


class Citation(BaseModel):
    """Which contexts a sentence (or claim) of the answer cites, where the answer does not
    mark them inline: the indices as the dataset gives them (1-based unless the run
    declares 0, ``citation_index_base``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    contexts: tuple[int, ...]


class Sample(BaseModel):
    """One answer from one RAG system to one question.

    ``id`` plus ``system`` identifies a sample; the same question answered by two systems
    shares its ``id`` when the dataset gives one. ``history`` holds the conversation's
    earlier turns, oldest first (a follow-up question is often unreadable without them);
    a turn given as a string has no role.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    question: str
    contexts: tuple[str, ...] = ()
    answer: str
    reference: str | None = None
    history: tuple[Turn, ...] = ()
    citations: tuple[Citation, ...] = ()
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

    @field_validator("history", mode="before")
    @classmethod
    def _history_as_turns(cls, value: object) -> object:
        # A lone string is one turn; a string turn is a turn without a role.
        if isinstance(value, str):
            value = (value,)
        if isinstance(value, list | tuple):
            return tuple(Turn(content=t) if isinstance(t, str) else t for t in value)
        return value
