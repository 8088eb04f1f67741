"""A package's public names, imported on first use (PEP 562).

A package lists its names in ``__all__`` and imports them in an ``if TYPE_CHECKING:``
block, which type checkers read; at run time :func:`lazy_exports` reads that block from
the package's source (and checks it against ``__all__``) and imports each name's module
only when the name is first looked up. ``import veracity`` and the command line's start
therefore load no model, SDK or numpy they do not use.

lazy_loader's ``attach_stub`` does the same from a ``.pyi`` file, but only for relative
imports inside one package; veracity's packages re-export across packages.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType


def _homes(source: str) -> dict[str, tuple[str, str]]:
    """Each name the ``if TYPE_CHECKING:`` block imports, and its module and name there (an
    ``import … as`` gives another name)."""
    homes: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    for alias in statement.names:
                        homes[alias.asname or alias.name] = (statement.module, alias.name)
    return homes


def _source(package: str, source_file: str) -> str:
    """The package's source, from its loader where it has one (a zip import, say)."""
    spec = sys.modules[package].__spec__
    get_source = getattr(spec.loader, "get_source", None) if spec is not None else None
    source = get_source(package) if get_source is not None else None
    return source if isinstance(source, str) else Path(source_file).read_text(encoding="utf-8")


def lazy_exports(
    package: str, source_file: str, public: Sequence[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose public names ``public``
    (its ``__all__``) are the imports of the ``if TYPE_CHECKING:`` block of
    ``source_file``."""
    homes = _homes(_source(package, source_file))
    eager = {name for name in public if name not in homes}
    if set(homes) - set(public) or not eager <= set(vars(sys.modules[package])):
        raise ImportError(
            f"{package}: __all__ and the names imported under TYPE_CHECKING differ "
            f"({sorted(set(homes).symmetric_difference(public))})"
        )

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, original = home
        value = getattr(importlib.import_module(module), original)
        # Kept on the package: the next look-up is a plain attribute.
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        # The public names and the submodules already imported, not the helpers.
        loaded = {k for k, v in vars(sys.modules[package]).items() if isinstance(v, ModuleType)}
        return sorted({*public, *loaded})

    return __getattr__, __dir__
