"""The configuration file: ``veracity.yaml`` / ``veracity.yml`` or ``[tool.veracity]``,
validated against :class:`~veracity.config.model.RunConfig`, so every error names the file
and the key path."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError

from veracity._bounded import FileTooLargeError, read_bounded
from veracity._pickled import PickledWhole
from veracity.config.model import RunConfig

__all__ = ["CONFIG_FILE_NAMES", "ConfigError", "load_config"]

CONFIG_FILE_NAMES = ("veracity.yaml", "veracity.yml")
PYPROJECT = "pyproject.toml"
# Settings and rubrics fill a few pages; a file far larger (or endless: a pipe, a device)
# is not a configuration, and is never read whole to find out.
MAX_BYTES = 4 * 1024 * 1024


class ConfigError(PickledWhole, ValueError):
    """A configuration file that cannot be used: ``file: key.path: problem``."""

    def __init__(self, file: str, key_path: str, problem: str) -> None:
        self.file, self.key_path, self.problem = file, key_path, problem
        super().__init__(f"{file}: {key_path}: {problem}" if key_path else f"{file}: {problem}")


def _key_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part != "[key]":
            path += f".{part}" if path else str(part)
    return path


def _fields_at(loc: tuple[int | str, ...]) -> list[str]:
    """The keys allowed where ``loc`` points (for "unknown key" messages)."""
    current: Any = RunConfig
    for part in loc:
        if isinstance(current, type) and issubclass(current, BaseModel):
            current = current.model_fields[str(part)].annotation
        elif get_origin(current) in (dict, list):
            current = get_args(current)[-1]
        else:
            return []
        while get_origin(current) is Annotated:
            current = get_args(current)[0]
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


_KINDS = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "an integer"}


def _kind(value: object) -> str:
    return {**_KINDS, float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _problem(error: Mapping[str, Any]) -> str:
    kind, loc = str(error["type"]), tuple(error["loc"])
    if kind == "extra_forbidden":
        allowed = _fields_at(loc[:-1])
        return "unknown key" + (f" (expected one of: {', '.join(allowed)})" if allowed else "")
    if kind == "missing":
        return "missing required key"
    message = str(error["msg"]).removeprefix("Value error, ")
    if "[key]" in loc and kind == "string_pattern_mismatch":
        return "bad name: use letters, digits, '_' and '-', not starting with a digit or '-'"
    if "[key]" in loc:
        return f"bad key: {message}"
    if kind.endswith("_type") or kind == "int_from_float":
        return f"{message}, not {_kind(error['input'])}"
    return message


def _validate(data: object, file: str, prefix: str) -> RunConfig:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(file, prefix, f"the configuration must be a mapping, not {_kind(data)}")
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        path = _key_path((*([prefix] if prefix else []), *error["loc"]))
        raise ConfigError(file, path, _problem(error)) from None


def _read(path: Path, file: str) -> object:
    """The parsed YAML or TOML data of ``path``."""
    suffix = path.suffix.casefold()
    if suffix not in (".yaml", ".yml", ".toml"):
        raise ConfigError(file, "", "unsupported file type (use .yaml, .yml or .toml)")
    try:
        text = read_bounded(path, MAX_BYTES).decode("utf-8")
        return tomllib.loads(text) if suffix == ".toml" else yaml.safe_load(text)
    except FileTooLargeError as exc:
        raise ConfigError(file, "", f"{exc}, which is not a configuration file") from None
    except UnicodeDecodeError:
        raise ConfigError(file, "", "not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(file, "", f"cannot read the file: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(file, "", f"invalid TOML: {exc}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(file, "", f"invalid YAML{where}: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(file, "", f"invalid YAML: {exc}") from None


def _load_file(path: Path, file: str) -> RunConfig:
    data = _read(path, file)
    if path.name != PYPROJECT or not isinstance(data, dict):
        return _validate(data, file, "")
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(file, "tool", f"must be a table, not {_kind(tool)}")
    return _validate(tool.get("veracity"), file, "tool.veracity")


def load_config(path: str | Path | None = None, *, start: Path | None = None) -> RunConfig:
    """The configuration from ``path``, or found in ``start`` (default: the current folder).

    Without a path: ``veracity.yaml`` or ``veracity.yml`` (not both) in ``start``, else a
    ``[tool.veracity]`` table in ``start``'s ``pyproject.toml``; nothing found gives the
    empty configuration. A ``.toml`` path reads ``[tool.veracity]`` when the file is a
    ``pyproject.toml`` and the whole file otherwise. Raises :class:`ConfigError`.
    """
    if path is not None:
        return _load_file(Path(path), str(path))
    folder = Path.cwd() if start is None else start

    def shown(name: str) -> str:
        return name if start is None else str(start / name)

    found = [name for name in CONFIG_FILE_NAMES if (folder / name).is_file()]
    if len(found) > 1:
        raise ConfigError(shown(found[0]), "", f"both {' and '.join(found)} exist; keep one")
    if found:
        return _load_file(folder / found[0], shown(found[0]))
    if (folder / PYPROJECT).is_file():
        return _load_file(folder / PYPROJECT, shown(PYPROJECT))
    return RunConfig()
