"""The configuration file: ``veracity.yaml`` / ``veracity.yml`` or ``[tool.veracity]``.

The file is validated against a model of its layout (:class:`_FileSpec`), so every error
names the file and the key path; the result is a :class:`VeracityConfig`. To add a
section, add a field to both models (and a converter in ``_CONVERTERS`` if the layout
differs from the value type).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from veracity._units import parse_size
from veracity.prompts import checked_reply_bounds
from veracity.prompts.rubric import DEFAULT_RUBRIC
from veracity.transport.pricing import Price
from veracity.types.judgements import Rubric, RubricDimension

__all__ = ["CONFIG_FILE_NAMES", "ConfigError", "VeracityConfig", "load_config"]

CONFIG_FILE_NAMES = ("veracity.yaml", "veracity.yml")
PYPROJECT = "pyproject.toml"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RubricName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$")]


class ConfigError(ValueError):
    """A configuration file that cannot be used: ``file: key.path: problem``."""

    def __init__(self, file: str, key_path: str, problem: str) -> None:
        self.file, self.key_path, self.problem = file, key_path, problem
        super().__init__(f"{file}: {key_path}: {problem}" if key_path else f"{file}: {problem}")


class VeracityConfig(BaseModel):
    """Everything the configuration file sets; an empty file is the default config."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rubrics: dict[str, Rubric] = Field(default_factory=dict)
    judge: str | None = None
    base_url: str | None = None
    metrics: tuple[str, ...] | None = None
    thresholds: dict[str, float] = Field(default_factory=dict)
    weights: dict[str, float] | None = None
    prices: dict[str, Price] = Field(default_factory=dict)
    concurrency: int | None = None
    rpm: float | None = None
    iterations: int | None = None
    timeout: float | None = None
    embedder: str | None = None
    cache: bool | str | None = None
    cache_max_size: str | int | None = None
    max_tokens: dict[str, int] = Field(default_factory=dict)
    unfounded_support: Literal["flag", "downgrade"] | None = None
    prompt_budget: int | None = None
    truncate_contexts: bool | None = None
    max_error_rate: float | None = None
    abstention_phrases: tuple[str, ...] | None = None
    executor: Literal["local", "ray"] | None = None
    ray_address: str | None = None
    batch: bool | None = None
    batch_poll_s: float | None = None
    calibration: str | None = None

    @model_validator(mode="after")
    def _named_by_key(self) -> VeracityConfig:
        for key, rubric in self.rubrics.items():
            if rubric.name != key:
                raise ValueError(f"rubric {rubric.name!r} is filed under the key {key!r}")
        return self

    def rubric(self, name: str = DEFAULT_RUBRIC.name) -> Rubric:
        """The rubric called ``name``; ``"default"`` is the built-in one unless overridden."""
        if name in self.rubrics:
            return self.rubrics[name]
        if name == DEFAULT_RUBRIC.name:
            return DEFAULT_RUBRIC
        known = sorted({DEFAULT_RUBRIC.name, *self.rubrics})
        raise KeyError(f"no rubric {name!r}; known rubrics: {', '.join(known)}")


class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _DimensionSpec(_Spec):
    name: str
    description: str
    levels: dict[int, str]

    @field_validator("name")
    @classmethod
    def _identifier(cls, name: str) -> str:
        if not _IDENTIFIER.match(name):
            raise ValueError("must be an identifier (letters, digits and underscores)")
        return name

    @field_validator("levels")
    @classmethod
    def _one_to_five(cls, levels: dict[int, str]) -> dict[int, str]:
        if set(levels) != {1, 2, 3, 4, 5}:
            raise ValueError("levels must describe exactly 1 to 5")
        return levels


class _RubricSpec(_Spec):
    dimensions: list[_DimensionSpec] = Field(min_length=1)
    default_pass_min: StrictInt = Field(default=4, ge=1, le=5)
    pass_min: dict[str, Annotated[StrictInt, Field(ge=1, le=5)]] = Field(default_factory=dict)

    @field_validator("dimensions")
    @classmethod
    def _unique(cls, dimensions: list[_DimensionSpec]) -> list[_DimensionSpec]:
        names = [d.name for d in dimensions]
        if len(set(names)) != len(names):
            raise ValueError("dimension names must be unique")
        return dimensions

    @field_validator("pass_min")
    @classmethod
    def _known(cls, pass_min: dict[str, int], info: ValidationInfo) -> dict[str, int]:
        dimensions = info.data.get("dimensions")
        unknown = [] if dimensions is None else sorted(set(pass_min) - {d.name for d in dimensions})
        if unknown:
            raise ValueError(f"names no dimension of this rubric: {', '.join(unknown)}")
        return pass_min


class _PriceSpec(_Spec):
    input_per_million: float = Field(ge=0)
    output_per_million: float = Field(ge=0)


Fraction = Annotated[float, Field(ge=0.0, le=1.0)]


class _FileSpec(_Spec):
    rubrics: dict[RubricName, _RubricSpec] = Field(default_factory=dict)
    judge: str | None = None
    base_url: str | None = None
    metrics: list[str] | None = Field(default=None, min_length=1)
    thresholds: dict[str, Fraction] = Field(default_factory=dict)
    weights: dict[str, Annotated[float, Field(ge=0.0)]] | None = None
    prices: dict[str, _PriceSpec] = Field(default_factory=dict)
    concurrency: StrictInt | None = Field(default=None, ge=1)
    rpm: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    iterations: StrictInt | None = Field(default=None, ge=1)
    timeout: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    embedder: str | None = None
    cache: bool | str | None = None
    cache_max_size: str | StrictInt | None = None
    max_tokens: dict[str, StrictInt] = Field(default_factory=dict)
    unfounded_support: Literal["flag", "downgrade"] | None = None
    prompt_budget: StrictInt | None = Field(default=None, ge=1)
    truncate_contexts: bool | None = None
    max_error_rate: Fraction | None = None
    abstention_phrases: list[Annotated[str, Field(min_length=1)]] | None = Field(
        default=None, min_length=1
    )
    executor: Literal["local", "ray"] | None = None
    ray_address: str | None = Field(default=None, min_length=1)
    batch: bool | None = None
    batch_poll_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    calibration: str | None = Field(default=None, min_length=1)

    @field_validator("cache_max_size")
    @classmethod
    def _size(cls, size: str | int | None) -> str | int | None:
        if size is not None:
            parse_size(size)  # kept as written; checked here, so the error names the key
        return size

    @field_validator("max_tokens")
    @classmethod
    def _known_questions(cls, bounds: dict[str, int]) -> dict[str, int]:
        return checked_reply_bounds(bounds)


def _rubrics(specs: Mapping[str, _RubricSpec]) -> dict[str, Rubric]:
    return {
        name: Rubric(
            name=name,
            dimensions=tuple(RubricDimension(**d.model_dump()) for d in spec.dimensions),
            default_pass_min=spec.default_pass_min,
            pass_min=spec.pass_min,
        )
        for name, spec in specs.items()
    }


def _prices(specs: Mapping[str, _PriceSpec]) -> dict[str, Price]:
    return {name: Price(s.input_per_million, s.output_per_million) for name, s in specs.items()}


_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "rubrics": _rubrics,
    "prices": _prices,
    "metrics": lambda names: None if names is None else tuple(names),
    "abstention_phrases": lambda phrases: None if phrases is None else tuple(phrases),
}


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
    current: Any = _FileSpec
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


def _validate(data: object, file: str, prefix: str) -> VeracityConfig:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(file, prefix, f"the configuration must be a mapping, not {_kind(data)}")
    try:
        spec = _FileSpec.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        path = _key_path((*([prefix] if prefix else []), *error["loc"]))
        raise ConfigError(file, path, _problem(error)) from None
    values = {
        name: _CONVERTERS.get(name, lambda v: v)(getattr(spec, name))
        for name in type(spec).model_fields
    }
    return VeracityConfig(**values)


def _read(path: Path, file: str) -> object:
    """The parsed YAML or TOML data of ``path``."""
    suffix = path.suffix.casefold()
    if suffix not in (".yaml", ".yml", ".toml"):
        raise ConfigError(file, "", "unsupported file type (use .yaml, .yml or .toml)")
    try:
        text = path.read_text(encoding="utf-8")
        return tomllib.loads(text) if suffix == ".toml" else yaml.safe_load(text)
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


def _load_file(path: Path, file: str) -> VeracityConfig:
    data = _read(path, file)
    if path.name != PYPROJECT or not isinstance(data, dict):
        return _validate(data, file, "")
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(file, "tool", f"must be a table, not {_kind(tool)}")
    return _validate(tool.get("veracity"), file, "tool.veracity")


def load_config(path: str | Path | None = None, *, start: Path | None = None) -> VeracityConfig:
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
    return VeracityConfig()
