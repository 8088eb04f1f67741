"""``veracity cache info`` and ``veracity cache clear``: the judge-response cache."""

from __future__ import annotations

import time
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veracity._suggest import did_you_mean
from veracity._units import format_size, parse_age
from veracity.cli.common import Command, ConfigOption, Group, fail, out_console

if TYPE_CHECKING:  # the cache and the config load when a command runs, not for --help
    from veracity.chat.cache import ResponseCache
    from veracity.config import RunConfig

cache_app = typer.Typer(
    cls=Group, help="Inspect or clear the judge-response cache.", no_args_is_help=True
)


def _config(config: Path | None) -> RunConfig:
    from veracity.config import ConfigError, load_config

    try:
        return load_config(config)
    except ConfigError as exc:
        raise fail(str(exc)) from exc


def _path(settings: RunConfig) -> Path:
    from veracity.chat.cache import default_cache_path

    """The cache file a run would use: the config's ``cache:`` path, else the default."""
    return Path(settings.cache) if isinstance(settings.cache, str) else default_cache_path()


def _open(path: Path) -> ResponseCache:
    from veracity.chat.cache import ResponseCache, ResponseCacheError

    """The cache, unbounded: looking at it or clearing part of it evicts nothing else. A
    damaged file is set aside with a warning (and a new one started), as a run does."""
    try:
        return ResponseCache(path)
    except ResponseCacheError as exc:
        raise fail(str(exc)) from exc


def _date(moment: float | None) -> str:
    return "-" if moment is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(moment))


def _say(text: str) -> None:
    # soft_wrap: a path stays on one line, whole, whatever the terminal's width.
    out_console.print(text, highlight=False, markup=False, soft_wrap=True)


def _line(label: str, value: str) -> None:
    _say(f"{label:<22}{value}")


@cache_app.command(cls=Command)
def info(config: ConfigOption = None) -> None:
    """Show the cache: where, its size and bound, its entries by judge and model.

    Also when its replies were written and last used, and whether a run is using it now.
    """
    from veracity.chat.cache import cache_file_size, cache_max_bytes

    settings = _config(config)
    try:
        bound = cache_max_bytes(settings.cache_max_size)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    path = _path(settings)
    if not path.exists():
        _line("response cache", f"{path} (not created yet: nothing cached)")
        return
    with closing(_open(path)) as cache:
        stats = cache.stats()
    limit = "no bound" if bound is None else f"bound {format_size(bound)}"
    _line("response cache", str(path))
    free = stats.free_bytes
    reused = f" ({format_size(free)} of it free, reused before the file grows)" if free else ""
    _line("size on disk", format_size(cache_file_size(path)) + reused)
    _line("replies", f"{format_size(stats.bytes)} ({limit}; least recently used go first)")
    _line("entries", f"{stats.entries:,}")
    _line("written", f"{_date(stats.first_written)} to {_date(stats.last_written)}")
    _line("least recently used", _date(stats.least_recently_used))
    others = stats.sessions - 1  # this command's own
    if others > 0:
        _line("in use", f"by {others} other process(es) now (their replies are kept)")
    if stats.by_model:
        _say("by judge and model:")
        width = max(len(share.judge or "-") for share in stats.by_model)
        model_width = max(len(share.model) for share in stats.by_model)
        for share in stats.by_model:
            _say(
                f"  {share.judge or '-':<{width}}  {share.model:<{model_width}}  "
                f"{share.entries:>8,} entries  {format_size(share.bytes):>10}"
            )


def _models(cache: ResponseCache) -> list[str]:
    """Every name --model matches: judges, their model parts, the models endpoints named."""
    names = {
        name
        for share in cache.stats().by_model
        for name in (share.judge, share.judge.partition("/")[2], share.model)
        if name
    }
    return sorted(names)


@cache_app.command(cls=Command)
def clear(
    older_than: Annotated[
        str | None,
        typer.Option(
            metavar="AGE", help="Only the replies not used for this long: 30d, 12h, 90m, 2w."
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            help="Only the replies of this judge or model (openai/gpt-4o-mini or gpt-4o-mini)."
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Clear without asking.")] = False,
    config: ConfigOption = None,
) -> None:
    """Delete cached replies: all, or those of --model, or unused for --older-than.

    Both options: the replies matching both. Asks first unless --yes. The file then
    shrinks, unless a run holds it open (its freed pages are reused).
    """
    try:
        age = None if older_than is None else parse_age(older_than)
    except ValueError as exc:
        raise fail(f"--older-than: {exc}") from exc
    path = _path(_config(config))
    if not path.exists():
        _say(f"nothing to clear: no response cache at {path}")
        return
    what = "".join(
        [
            f" of {model}" if model is not None else "",
            f" not used for {older_than}" if older_than is not None else "",
        ]
    )
    with closing(_open(path)) as cache:
        used_before = None if age is None else time.time() - age
        count, size = cache.measure(used_before, model)
        if count == 0:
            known = _models(cache)
            if model is not None and known and cache.measure(None, model)[0] == 0:
                raise fail(
                    f"no cached reply of {model!r}; {did_you_mean(model, known)}"
                    f"judges and models in the cache: {', '.join(known)}"
                )
            _say(f"nothing to clear: no cached reply{what}")
            return
        question = f"Clear {count:,} cached replies{what} ({format_size(size)}) from {path}?"
        if not yes and not _confirmed(question):
            _say("nothing cleared")
            return
        count, size = cache.clear(used_before, model)
        left = len(cache)
    _say(f"cleared {count:,} cached replies{what} ({format_size(size)}) from {path}; {left:,} left")


def _confirmed(question: str) -> bool:
    try:
        return typer.confirm(question)
    except typer.Abort as exc:  # no answer: stdin closed (a script, CI)
        raise fail("no answer to the confirmation; add --yes to clear without asking") from exc
