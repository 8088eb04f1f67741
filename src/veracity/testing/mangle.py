"""Ways a judge mangles an otherwise correct JSON reply (for the ``malformed_content`` fault).

Most of them are recoverable by a robust parser (fences, prose, trailing commas, single
quotes, the legacy text formats); truncation sometimes is, garbage never.
"""

from __future__ import annotations

import json
from typing import Any, Literal, NamedTuple, get_args

Mangling = Literal[
    "fenced",
    "prose",
    "trailing_comma",
    "single_quotes",
    "truncated",
    "legacy_text",
    "garbage",
]
MANGLINGS: tuple[Mangling, ...] = get_args(Mangling)
GARBAGE = "I am not sure what you mean."


class Mangled(NamedTuple):
    kind: Mangling
    """The mangling actually applied (``fenced`` when the chosen one would change nothing)."""
    text: str


def mangle_content(content: str, kind: Mangling) -> Mangled:
    """Mangle ``content`` the ``kind`` way; the result always differs from ``content``."""
    text = _MANGLERS[kind](content)
    if text == content:
        return Mangled("fenced", _fenced(content))
    return Mangled(kind, text)


def _fenced(content: str) -> str:
    return f"```json\n{content}\n```"


def _prose(content: str) -> str:
    return f"Sure! Here is the result:\n{content}\nHope this helps."


def _trailing_comma(content: str) -> str:
    last = max(content.rfind("}"), content.rfind("]"))
    if last < 0:
        return content
    return content[:last] + "," + content[last:]


def _single_quotes(content: str) -> str:
    return content.replace('"', "'")


def _truncated(content: str) -> str:
    cut = max(1, round(len(content) * 0.15))
    return content[: max(0, len(content) - cut)]


def _legacy_text(content: str) -> str:
    try:
        data: Any = json.loads(content)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("verdicts"), list):
        labels = [
            "Yes." if isinstance(v, dict) and v.get("verdict") == "supported" else "No."
            for v in data["verdicts"]
        ]
        return "Final verdict for each statement in order: " + " ".join(labels)
    if isinstance(data, dict) and isinstance(data.get("claims"), list):
        items = [str(claim) for claim in data["claims"]]
    else:
        items = [line.strip() for line in content.splitlines() if line.strip()]
    if not items:
        return "There are no statements."
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))


def _garbage(content: str) -> str:
    return GARBAGE


_MANGLERS = {
    "fenced": _fenced,
    "prose": _prose,
    "trailing_comma": _trailing_comma,
    "single_quotes": _single_quotes,
    "truncated": _truncated,
    "legacy_text": _legacy_text,
    "garbage": _garbage,
}
