"""Which column of a row holds which field: the aliases, or the user's own column mapping."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from veracity.dataset.fields import ANSWERS_FIELD, CANONICAL_FIELDS, FIELD_OF

#: The fields a column mapping may name.
MAPPABLE_FIELDS: Final = (*CANONICAL_FIELDS, ANSWERS_FIELD)


@dataclass(frozen=True)
class Columns:
    """``field_of`` maps a column name to the field it holds (``answers`` included);
    ``mapped`` is the user's mapping, field → column, for messages about a missing one."""

    field_of: Mapping[str, str]
    mapped: Mapping[str, str] = field(default_factory=dict)

    def named(self, canonical: str) -> str:
        """How a message names a field: with the column it was mapped from, if it was."""
        column = self.mapped.get(canonical)
        return repr(canonical) if column is None else f"{canonical!r} (column {column!r})"


#: The columns every dataset understands: canonical names and their aliases.
DEFAULT_COLUMNS: Final = Columns(field_of={**FIELD_OF, ANSWERS_FIELD: ANSWERS_FIELD})


def columns_from(column_map: Mapping[str, str] | None) -> Columns:
    """The columns of rows whose fields ``column_map`` (field → column) places.

    A mapped field is read from its column only: its own name and aliases in other
    columns are then ordinary extra fields (they go to ``metadata``). A mapping that
    names an unknown field, a column twice, or something other than a column name raises
    ``ValueError``.
    """
    if not column_map:
        return DEFAULT_COLUMNS
    if not isinstance(column_map, Mapping):
        raise ValueError(
            f"column_map must be a dict {{field: column}}, got {type(column_map).__name__}"
        )
    taken: dict[str, str] = {}
    for canonical, column in column_map.items():
        if canonical not in MAPPABLE_FIELDS:
            raise ValueError(
                f"column_map: {canonical!r} is not a field (fields: {', '.join(MAPPABLE_FIELDS)}); "
                "it maps a field to your column, e.g. {'question': 'query'}"
            )
        if not isinstance(column, str) or not column:
            raise ValueError(f"column_map: the column of {canonical!r} must be a non-empty string")
        if column in taken:
            raise ValueError(
                f"column_map: column {column!r} is given for both {taken[column]!r} "
                f"and {canonical!r}"
            )
        taken[column] = canonical
    unmapped = {name: f for name, f in DEFAULT_COLUMNS.field_of.items() if f not in column_map}
    return Columns(field_of=unmapped | taken, mapped=dict(column_map))
