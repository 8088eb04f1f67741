"""Arize Phoenix's client, without the Phoenix server.

The full ``arize-phoenix`` package's ``phoenix/__init__.py`` imports its server (FastAPI,
SQLAlchemy, GraphQL, model SDKs: ten seconds and more) before anything else, though
``phoenix.client`` (the ``arize-phoenix-client`` package) needs none of it. So when nothing
has imported ``phoenix`` yet, the package is entered without running that ``__init__``;
the first attribute asked of it that it does not have (``phoenix.launch_app``…) runs the
``__init__`` then, in the same module, so code that uses ``phoenix`` later gets the whole
package as usual.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
import types
from typing import Any, cast

__all__ = ["phoenix_client"]


class _DeferredPackage(types.ModuleType):
    """A package whose ``__init__`` runs at the first attribute it is asked for and does
    not have (its submodules, ``__path__`` and the like it has)."""

    def __getattr__(self, name: str) -> Any:
        spec = self.__spec__
        self.__class__ = cast(Any, types.ModuleType)  # once: a plain module from here on
        if spec is not None and spec.loader is not None:
            spec.loader.exec_module(self)
        return getattr(self, name)


def phoenix_client() -> types.ModuleType:
    """The ``phoenix.client`` module; an ``ImportError`` when it is not installed."""
    if "phoenix" not in sys.modules:
        spec = importlib.util.find_spec("phoenix")
        if spec is not None and spec.origin is not None and spec.submodule_search_locations:
            # A regular package (the full arize-phoenix); the client alone is a namespace
            # package, with no __init__ to keep from running.
            package = importlib.util.module_from_spec(spec)
            package.__path__ = pkgutil.extend_path(list(spec.submodule_search_locations), "phoenix")
            package.__class__ = _DeferredPackage
            sys.modules["phoenix"] = package
    return importlib.import_module("phoenix.client")
