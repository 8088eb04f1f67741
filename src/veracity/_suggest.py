"""'Did you mean …?' for a name the user typed: a metric, an option, a status, a model."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(name: str, choices: Iterable[str]) -> str | None:
    """The choice most like ``name`` (difflib's ratio of at least 0.6), if any."""
    found = difflib.get_close_matches(name, list(choices), n=1)
    return found[0] if found else None


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``"did you mean 'x'? "`` for the choice closest to ``name``, or ``""``: the hint to
    put before the list of what is available."""
    match = closest(name, choices)
    return f"did you mean {match!r}? " if match is not None else ""
