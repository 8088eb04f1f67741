"""A dataset's ``citations`` field: which contexts each sentence (or claim) of the answer
cites, for answers that do not mark them inline.

Shapes: a list of objects, each a text (``text``, ``sentence``, ``claim`` or
``statement``) and its context indices (``contexts``, ``sources``, ``citations`` or
``indices``: a list of integers, or one); or an object ``{text: [indices]}``.
"""

from __future__ import annotations

from collections.abc import Mapping

from veracity.dataset.fields import a_json_type
from veracity.types.sample import Citation

__all__ = ["SHAPES", "read_citations"]

TEXT_KEYS = ("text", "sentence", "claim", "statement")
INDEX_KEYS = ("contexts", "sources", "citations", "indices")
SHAPES = "a list of {text, contexts: [indices]} objects, or an object {text: [indices]}"


def _indices(where: str, value: object) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int):
            raise ValueError(f"{where} must be context indices (integers), not {a_json_type(item)}")
    return tuple(int(item) for item in items)  # type: ignore[arg-type]


def _entry(where: str, item: object) -> Citation:
    if not isinstance(item, Mapping):
        raise ValueError(f"{where} is {a_json_type(item)}; citations are {SHAPES}")
    text = next((item[k] for k in TEXT_KEYS if k in item), None)
    indices = next((item[k] for k in INDEX_KEYS if k in item), None)
    if not isinstance(text, str) or indices is None:
        raise ValueError(f"{where} needs a text and its contexts; citations are {SHAPES}")
    return Citation(text=text, contexts=_indices(f"{where} contexts", indices))


def read_citations(name: str, value: object) -> tuple[Citation, ...]:
    """The citations of the field ``name``; ``ValueError`` naming what is wrong."""
    if isinstance(value, Mapping):
        return tuple(
            Citation(text=str(text), contexts=_indices(f"field '{name}' entry {text!r}", ids))
            for text, ids in value.items()
        )
    if not isinstance(value, list):
        raise ValueError(f"field '{name}' must be {SHAPES}, got {a_json_type(value)}")
    return tuple(_entry(f"field '{name}' item {n}", item) for n, item in enumerate(value, 1))
