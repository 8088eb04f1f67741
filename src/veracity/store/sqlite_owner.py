"""Whether a SQLite file is veracity's, found without changing it: a foreign database
given as a run store or a cache must be refused before a table is added to it or its
journal mode switched."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Collection, Mapping
from pathlib import Path


def foreign_database(path: Path, tables: Mapping[str, Collection[str]]) -> str | None:
    """Why the SQLite file ``path`` is not one of ours (``tables``: each of our tables
    with the columns it has always had), or ``None`` when it is, or is empty or missing.
    A file SQLite cannot read is left to the caller (it is damaged, or not SQLite)."""
    try:
        if path.stat().st_size == 0:
            return None
    except OSError:
        return None
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            names = [
                name
                for (name,) in db.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
                )
            ]
            columns = {
                name: {row[1] for row in db.execute("SELECT * FROM pragma_table_info(?)", (name,))}
                for name in names
                if name in tables
            }
    except (sqlite3.Error, ValueError):
        return None
    others = [name for name in names if name not in tables]
    if others:
        return f"it holds table(s) {', '.join(map(repr, sorted(others)))}"
    for name, found in columns.items():
        missing = sorted(set(tables[name]) - found)
        if missing:
            return f"its table {name!r} lacks column(s) {', '.join(missing)}"
    return None
