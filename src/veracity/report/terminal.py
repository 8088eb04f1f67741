"""Text from a run on a terminal: control characters are shown escaped, never sent raw.

An id, a system name or a judge's reason holding ESC sequences could otherwise clear the
screen, retitle the window, plant a hyperlink or move the cursor up and erase a line
(faking an "all passed"). Bidirectional overrides are escaped too: they reorder text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]  # \x1b, \n, \t, \u202e


def visible(text: object) -> str:
    """``text`` on one line with control characters escaped."""
    return _CONTROL.sub(_escaped, str(text))


def visible_lines(text: object) -> str:
    """``text`` with control characters escaped but its line breaks kept (messages)."""
    return "\n".join(visible(line) for line in str(text).split("\n"))


def visible_tree(value: Any) -> Any:
    """``value`` (a summary: mappings, lists, scalars) with every string made
    :func:`visible`, keys included; numbers and the rest as they are."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, Mapping):
        return {visible_tree(key): visible_tree(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [visible_tree(item) for item in value]
    return value
