"""A name the user typed, checked: one of a setting's choices, or 'did you mean …?' for a
metric, an option, a status, a model."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TypeVar

Choice = TypeVar("Choice", bound=str)


def one_of(value: str, choices: tuple[Choice, ...], what: str) -> Choice:
    """``value`` as the choice it names (``choices``: a ``Literal``'s values), else
    ``ValueError``: "``what`` must be one of a, b, not 'x'"."""
    for choice in choices:
        if value == choice:
            return choice
    raise ValueError(f"{what} must be one of {', '.join(choices)}, not {value!r}")


def closest(name: str, choices: Iterable[str]) -> str | None:
    """The choice most like ``name`` (difflib's ratio of at least 0.6), if any."""
    found = difflib.get_close_matches(name, list(choices), n=1)
    return found[0] if found else None


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``"did you mean 'x'? "`` for the choice closest to ``name``, or ``""``: the hint to
    put before the list of what is available."""
    match = closest(name, choices)
    return f"did you mean {match!r}? " if match is not None else ""
