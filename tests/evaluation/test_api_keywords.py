"""Issue 52 item 2: ``evaluate`` and ``aevaluate`` take what is not a setting, and
``config``; the setting keywords of the last release still work for one more, each with a
DeprecationWarning naming its RunConfig field, and behave as they did."""

from __future__ import annotations

import asyncio
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import claims_reply, verdicts_reply
from veracity import LLMJudge, ScriptedChat, aevaluate, evaluate
from veracity.chat.batching import BatchSettings
from veracity.config import RunConfig
from veracity.evaluation import run as run_module
from veracity.evaluation.deprecated import DeprecatedKeywords
from veracity.prompts.rubric import DEFAULT_RUBRIC
from veracity.transport.pricing import Price

ROWS = [
    {"id": f"s{i}", "question": "Where is Paris?", "contexts": ["Paris is in France."],
     "answer": f"Paris is in France. {i}"}
    for i in range(3)
]  # fmt: skip


def _judge() -> LLMJudge:
    def respond(messages: object, output: object) -> str:
        if getattr(output, "name", "") == "claim_extraction":
            return claims_reply("Paris is in France.")
        return verdicts_reply(("Paris is in France.", "supported", "stated", "Paris"))

    return LLMJudge(ScriptedChat(responder=respond))


@pytest.mark.parametrize("function", [evaluate, aevaluate])
def test_at_most_ten_parameters(function: Any) -> None:
    parameters = inspect.signature(function).parameters
    assert len(parameters) <= 10, list(parameters)
    assert list(parameters)[:6] == ["samples", "metrics", "judge", "config", "out", "on_result"]


# keyword, its value, the field it names, the field's value in the run's settings
CASES: list[tuple[str, Any, str, Any]] = [
    ("iterations", 2, "iterations", 2),
    ("base_url", "http://127.0.0.1:9/v1", "base_url", "http://127.0.0.1:9/v1"),
    ("concurrency", 3, "concurrency", 3),
    ("rpm", 60.0, "rpm", 60.0),
    ("embedder", None, "embedder", "none"),
    ("embedder", "local", "embedder", "local"),
    ("bert_scorer", None, "bert_scorer", None),
    ("rubrics", {"mine": DEFAULT_RUBRIC}, "rubrics", {"mine": DEFAULT_RUBRIC}),
    ("cache", False, "cache", False),
    ("cache", Path("replies.sqlite3"), "cache", "replies.sqlite3"),
    ("cache_max_size", "1GiB", "cache_max_size", "1GiB"),
    ("prices", {"m": Price(1.0, 2.0)}, "prices", {"m": Price(1.0, 2.0)}),
    ("keep_results", False, "keep_results", False),
    ("settings", {"strict": True}, "extra_settings", {"strict": True}),
    ("prompt_budget", 900, "prompt_budget", 900),
    ("truncate_contexts", True, "truncate_contexts", True),
    ("max_error_rate", 0.2, "max_error_rate", 0.2),
    ("executor", "local", "executor", "local"),
    ("ray_address", "127.0.0.1:9", "ray_address", "127.0.0.1:9"),
    ("batch", True, "batch", True),
    ("batch", BatchSettings(poll_s=1.0), "batch", BatchSettings(poll_s=1.0)),
    ("calibration", "none", "calibration", "none"),
    ("calibration", Path("cal.json"), "calibration", "cal.json"),
    ("force_calibration", True, "force_calibration", True),
]


def test_every_deprecated_keyword_is_a_case() -> None:
    assert {case[0] for case in CASES} == set(DeprecatedKeywords.__annotations__)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The calls that reach the evaluation, which does not run."""
    seen: list[Any] = []

    async def evaluated(samples: object, metrics: object, judge: object, call: Any) -> Any:
        seen.append(call)
        return None

    monkeypatch.setattr(run_module, "_evaluated", evaluated)
    return seen


@pytest.mark.parametrize(("keyword", "value", "field", "setting"), CASES)
def test_a_deprecated_keyword_warns_naming_its_field_and_sets_it(
    calls: list[Any], keyword: str, value: Any, field: str, setting: Any
) -> None:
    with pytest.warns(DeprecationWarning) as warned:
        evaluate(ROWS, "faithfulness", "offline", **{keyword: value})

    async def main() -> None:
        await aevaluate(ROWS, "faithfulness", "offline", **{keyword: value})

    with pytest.warns(DeprecationWarning) as warned_async:
        asyncio.run(main())
    for found in (warned, warned_async):
        (warning,) = found
        assert str(warning.message).startswith(
            f"{keyword}= is deprecated; use RunConfig({field}=...)"
        )
        assert warning.filename == __file__  # where the keyword was passed: shown there
    for call in calls:
        assert getattr(call.run, field) == setting


def test_a_deprecated_keyword_is_laid_over_the_config(calls: list[Any]) -> None:
    config = RunConfig(
        iterations=3, calibration="offline-combined",
        prices={"a": Price(1.0, 1.0)}, extra_settings={"team": "search"},
    )  # fmt: skip
    with pytest.warns(DeprecationWarning):
        evaluate(ROWS, config=config, iterations=1, prices={"b": Price(2.0, 2.0)},
                 settings={"strict": True}, calibration=None)  # fmt: skip
    run = calls[0].run
    assert run.iterations == 1  # given: it wins, even at its default
    assert run.price_table == {"a": Price(1.0, 1.0), "b": Price(2.0, 2.0)}  # tables merge
    assert run.extra_settings == {"team": "search", "strict": True}
    assert run.calibration == "offline-combined"  # None was "not given", as before


@pytest.mark.parametrize("function", [evaluate, aevaluate])
def test_an_unknown_keyword_is_a_type_error_naming_it(function: Any) -> None:
    name = function.__name__
    with pytest.raises(
        TypeError, match=rf"^{name}\(\) got an unexpected keyword argument 'iteration'$"
    ):
        result = function(ROWS, "faithfulness", iteration=2)
        if inspect.iscoroutine(result):
            asyncio.run(result)


def _run(tmp_path: Path, name: str, config: RunConfig | None = None, **keywords: Any) -> Any:
    result = evaluate(ROWS, "faithfulness", _judge(), config=config, out=tmp_path / name,
                      **keywords)  # fmt: skip
    manifest = json.loads((tmp_path / name / "run.json").read_text())
    return (
        [(r.sample_id, r.iteration, r.status, r.score, r.cost_usd) for r in result.results],
        len(result.samples),
        manifest["settings"],
        result.summary["metrics"],
        manifest["price_per_million_tokens"],
    )


@pytest.mark.parametrize(
    ("keywords", "settings"),
    [
        ({"iterations": 2}, {"iterations": 2}),
        ({"keep_results": False}, {"keep_results": False}),
        (
            {"settings": {"thresholds": {"faithfulness": 0.9}}},
            {"extra_settings": {"thresholds": {"faithfulness": 0.9}}},
        ),
        ({"prices": {"scripted": Price(1.0, 2.0)}}, {"prices": {"scripted": Price(1.0, 2.0)}}),
        ({"max_error_rate": 0.5}, {"max_error_rate": 0.5}),
    ],
)
def test_a_deprecated_keyword_runs_as_its_field_does(
    tmp_path: Path, keywords: dict[str, Any], settings: dict[str, Any]
) -> None:
    # No reply from a cache: each run pays for its calls.
    with pytest.warns(DeprecationWarning):
        old = _run(tmp_path, "old", RunConfig(cache=False), **keywords)
    assert old == _run(tmp_path, "new", RunConfig(cache=False, **settings))
