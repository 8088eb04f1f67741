"""Exceptions that carry more than a message, pickled whole."""

from __future__ import annotations

from typing import Any


def _rebuilt(
    cls: type[BaseException], args: tuple[Any, ...], state: dict[str, Any]
) -> BaseException:
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class PickledWhole:
    """For an exception whose ``__init__`` takes more than its message: pickle (on its way
    from a Ray worker or a process pool) would call ``__init__`` with the message alone and
    fail; this rebuilds it from its ``args`` and attributes instead. Put it first among
    the bases."""

    def __reduce__(self) -> tuple[Any, ...]:
        assert isinstance(self, BaseException)
        return (_rebuilt, (type(self), self.args, dict(self.__dict__)))
