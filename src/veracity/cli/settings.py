"""The run settings as flags of a command, made from :class:`~veracity.config.RunConfig`.

A flag's name, type, help and default come from the setting's declaration in the model;
written here is only how a flag's text becomes a setting's value, for the few settings
whose flag is not the value itself. One precedence for every setting: the flag given,
else the config file, else the environment variable its help names, else the default.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import typer
from pydantic.fields import FieldInfo
from rich.markup import escape

from veracity.cli.common import ConfigOption, fail
from veracity.config.model import RunConfig

__all__ = ["run_settings", "settings_from"]

Command = Callable[..., None]
# A flag's text → the setting's value, given the config file's settings.
Reader = Callable[[Any, RunConfig], object]


def _flag(name: str) -> str:
    return "--" + _FLAG_NAMES.get(name, name).replace("_", "-")


def _metric_names(given: str, _: RunConfig) -> tuple[str, ...]:
    """``--metrics`` as names; one naming none (``""``, ``","``) is an error, not the default."""
    names = tuple(name.strip() for name in given.split(",") if name.strip())
    if not names:
        raise ValueError(
            f"--metrics {given!r} names no metric: give comma-separated names, "
            "e.g. --metrics faithfulness,context_recall"
        )
    return names


def _reply_bounds(specs: list[str], config: RunConfig) -> dict[str, int]:
    """``--max-tokens question=N`` flags over the config file's bounds."""
    bounds = dict(config.max_tokens)
    for spec in specs:
        question, sep, value = spec.partition("=")
        if not sep or not value.strip().isdigit():
            raise ValueError(
                f"bad --max-tokens {spec!r}: expected question=N, e.g. claim_verification=2048"
            )
        bounds[question.strip()] = int(value)
    return bounds


def _thresholds(specs: list[str], config: RunConfig) -> dict[str, float]:
    from veracity.report.thresholds import parse_thresholds

    return {**config.thresholds, **parse_thresholds(specs)}


def _url(name: str) -> Reader:
    """A base URL, checked before any call: one no request can go to would be retried."""

    def read(url: str, _: RunConfig) -> str | None:
        from veracity.transport.urls import checked_base_url

        return checked_base_url(url, _flag(name)) if url else None

    return read


def _choice(name: str) -> Reader:
    """A setting whose values are a ``Literal``'s: the flag must name one."""
    from veracity._suggest import one_of

    choices = get_args(RunConfig.model_fields[name].annotation)
    return lambda value, _: one_of(value, choices, _flag(name))


# Flags whose text is not the setting's value as it is.
_READERS: dict[str, Reader] = {
    "metrics": _metric_names,
    "max_tokens": _reply_bounds,
    "thresholds": _thresholds,
    "base_url": _url("base_url"),
    "claims_base_url": _url("claims_base_url"),
    "cache": lambda on, _: None if on else False,  # --cache keeps the file's cache setting
}
_FLAG_NAMES = {"thresholds": "threshold", "bert_scorer": "bert_model", "force_calibration": "force"}
_METAVARS = {"cache_max_size": "SIZE", "thresholds": "METRIC=V", "max_tokens": "QUESTION=N"}


def _flag_type(field: FieldInfo, name: str) -> Any:
    """The type a flag's text is read as, before its reader: ``bool`` is an on/off pair."""
    annotation = field.annotation
    if get_origin(annotation) in (Union, UnionType):
        kinds = [kind for kind in get_args(annotation) if kind is not type(None)]
        annotation = bool if bool in kinds else kinds[0]
    if get_origin(annotation) is Literal:
        return str
    # A list or a table has a flag only with a reader of its text: comma-separated, or
    # a repeated key=value.
    if name in _READERS and get_origin(annotation) in (tuple, dict):
        return str if get_origin(annotation) is tuple else list[str]
    if annotation in (bool, int, float, str):
        return annotation
    raise TypeError(f"setting {name!r} has no flag type; give it a reader")


def _choices(field: FieldInfo) -> str | None:
    """The values a setting of a ``Literal`` takes, shown beside its flag in the help
    where its description does not name them."""
    annotation = field.annotation
    if get_origin(annotation) in (Union, UnionType):
        annotation = next(k for k in get_args(annotation) if k is not type(None))
    choices = [str(choice) for choice in get_args(annotation)]
    if get_origin(annotation) is not Literal or all(
        choice in (field.description or "") for choice in choices
    ):
        return None  # not a choice, or one the help already names every value of
    return "<" + "|".join(choices) + ">"


def _default_text(field: FieldInfo, kind: Any) -> str:
    default = field.get_default(call_default_factory=True)
    if kind is bool or default in (None, {}, ()):
        return ""
    if isinstance(default, tuple):
        shown = ",".join(default)
    elif isinstance(default, float):
        shown = f"{default:g}"
    elif isinstance(default, int):
        shown = f"{default:,}"
    else:
        shown = str(default)
    return f" Default: {shown}."


def _option(name: str) -> inspect.Parameter:
    field = RunConfig.model_fields[name]
    kind = _flag_type(field, name)
    flag = _flag(name)
    declared = f"{flag}/--no-{flag[2:]}" if kind is bool else flag
    # Escaped: help is rich markup, where the [ray] of veracity[ray] would be a tag.
    help_text = escape(f"{field.description or ''}{_default_text(field, kind)}")
    option = typer.Option(declared, help=help_text, metavar=_METAVARS.get(name) or _choices(field))
    return inspect.Parameter(
        name,
        inspect.Parameter.KEYWORD_ONLY,
        default=None,  # not given: the config file's value applies, else the default
        annotation=Annotated[kind | None, option],
    )


def _reader(name: str) -> Reader | None:
    if name in _READERS:
        return _READERS[name]
    if get_origin(RunConfig.model_fields[name].annotation) is Literal:
        return _choice(name)
    return None


def settings_from(config_path: Path | None, flags: Mapping[str, object]) -> RunConfig:
    """The run's settings: the flags given (not ``None``) over the config file over the
    defaults, each checked before any call: a run that cannot start should not half-start.
    Raises ``ValueError`` (or :class:`~veracity.config.ConfigError`) naming the setting."""
    from veracity.chat.cache import cache_max_bytes
    from veracity.config import load_config
    from veracity.runner import checked_executor
    from veracity.transport.urls import checked_base_url

    config = load_config(config_path)
    given: dict[str, object] = {}
    for name, value in flags.items():
        reader = _reader(name)
        read = value if value is None or reader is None else reader(value, config)
        if read is not None:
            given[name] = read
    for name in ("base_url", "claims_base_url"):
        if getattr(config, name) and name not in given:
            checked_base_url(getattr(config, name), f"{name} of the config file")
    # The file's values are checked already: what fails here is a flag.
    settings = config.overridden(given, _flag)
    cache_max_bytes(settings.cache_max_size)  # a bad $VERACITY_CACHE_MAX_SIZE fails now
    checked_executor(settings.executor)
    if settings.ray_address and settings.executor != "ray":
        raise ValueError("--ray-address is for --executor ray")
    return settings


def _settings_errors() -> tuple[type[Exception], ...]:
    from veracity.config import ConfigError
    from veracity.runner import ExecutorError

    return (ConfigError, ExecutorError, ValueError)


def run_settings(*names: str) -> Callable[[Command], Command]:
    """Give a command the run settings ``names`` as flags, and ``--config``: it is called
    with ``settings``, the :class:`RunConfig` they make, or the command fails (exit 2)
    naming the flag or the config file's key that is wrong."""

    def decorate(command: Command) -> Command:
        own = inspect.signature(command, eval_str=True)
        params = [p for p in own.parameters.values() if p.name != "settings"]
        params += [_option(name) for name in names]
        params.append(
            inspect.Parameter(
                "config", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=ConfigOption
            )
        )

        @functools.wraps(command)
        def with_settings(**given: Any) -> None:
            flags = {name: given.pop(name) for name in names}
            try:
                settings = settings_from(given.pop("config"), flags)
            except _settings_errors() as exc:
                raise fail(str(exc)) from exc
            command(settings=settings, **given)

        with_settings.__signature__ = own.replace(parameters=params)  # type: ignore[attr-defined]
        with_settings.__annotations__ = {p.name: p.annotation for p in params}
        return with_settings

    return decorate
