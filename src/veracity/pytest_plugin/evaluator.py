"""``rag_eval``: evaluate samples with the test session's judge, and assert on the scores."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from veracity.chat import ScriptedChat
from veracity.config import RunConfig
from veracity.decisions.scripted import ScriptedDecisions
from veracity.evaluation import EvaluationResult, evaluate
from veracity.evaluation.inputs import SampleInput
from veracity.judges import Judge
from veracity.judges.rechat import chat_of, decisions_of
from veracity.metrics import Metric
from veracity.pytest_plugin.assertions import DEFAULT_MINIMUM, assert_faithful, assert_scores
from veracity.types import Sample

Samples = SampleInput | Iterable[SampleInput] | str | Path


def _as_input(samples: Samples) -> str | Path | Iterable[SampleInput]:
    """One sample (or dict) becomes a list of one; a dataset path or a list stays."""
    if isinstance(samples, Sample | Mapping):
        return [samples]
    return samples


class RagEval:
    """Evaluates with ``judge`` and asserts; minimums default to ``thresholds``.

    ``options`` go to :func:`veracity.evaluate` (``config=RunConfig(embedder=...)``...).
    A minimum left out is the metric's ``--veracity-threshold``, else 0.5; the default
    check is on the mean, which for one sample is its score.
    """

    def __init__(
        self, judge: Judge, thresholds: Mapping[str, float] | None = None, **options: Any
    ) -> None:
        self.judge = judge
        self.thresholds = dict(thresholds or {})
        # A scripted judge's replies are the test's: never answer from the cache.
        self.scripted = isinstance(chat_of(judge), ScriptedChat) or isinstance(
            decisions_of(judge), ScriptedDecisions
        )
        self.options = options
        self.last: EvaluationResult | None = None

    def __repr__(self) -> str:
        return f"RagEval(judge={self.judge.name!r}, thresholds={self.thresholds!r})"

    def threshold(self, metric: str) -> float:
        return self.thresholds.get(metric, DEFAULT_MINIMUM)

    def evaluate(
        self, samples: Samples, metrics: Sequence[str | Metric] = ("faithfulness",), **options: Any
    ) -> EvaluationResult:
        """Every metric on every sample; the result is also kept as ``self.last``."""
        given = {**self.options, **options}
        if self.scripted and "cache" not in given:  # a cache keyword given still decides
            config = given.get("config") or RunConfig()
            given["config"] = config.overridden({"cache": False})
        self.last = evaluate(_as_input(samples), metrics, self.judge, **given)
        return self.last

    def assert_metric(
        self,
        samples: Samples,
        metric: str | Metric,
        *,
        min_score: float | None = None,
        min_mean: float | None = None,
        allow: Sequence[str] = (),
    ) -> EvaluationResult:
        """Evaluate ``metric`` and assert: every result ≥ ``min_score`` and / or the mean
        ≥ ``min_mean`` (with neither, the mean ≥ the configured threshold)."""
        __tracebackhide__ = True
        result = self.evaluate(samples, [metric])
        name = metric if isinstance(metric, str) else metric.name
        if min_score is None and min_mean is None:
            min_mean = self.threshold(name)
        assert_scores(result, min_score, min_mean=min_mean, metrics=[name], allow=allow)
        return result

    def assert_metrics(
        self,
        samples: Samples,
        minimums: Mapping[str, float] | None = None,
        *,
        per_sample: bool = False,
        allow: Sequence[str] = (),
    ) -> EvaluationResult:
        """Evaluate several metrics at once (``minimums``, default the configured
        thresholds) and assert each mean — or with ``per_sample``, each result — meets it;
        a result without a score fails unless its status is in ``allow``."""
        __tracebackhide__ = True
        wanted = dict(minimums if minimums is not None else self.thresholds)
        if not wanted:
            raise ValueError("assert_metrics needs minimums (or --veracity-threshold)")
        result = self.evaluate(samples, list(wanted))
        if per_sample:
            assert_scores(result, wanted, metrics=list(wanted), allow=allow)
        else:
            assert_scores(result, min_mean=wanted, metrics=list(wanted), allow=allow)
        return result

    def assert_faithful(
        self, samples: Samples, min_score: float | None = None, *, allow: Sequence[str] = ()
    ) -> EvaluationResult:
        """Evaluate ``samples`` and assert what :func:`~veracity.pytest_plugin.assert_faithful`
        asserts: every faithfulness result scored (or its status in ``allow``) and ≥
        ``min_score`` (default: the configured threshold, else 0.5)."""
        __tracebackhide__ = True
        floor = self.threshold("faithfulness") if min_score is None else min_score
        result = self.evaluate(samples, ["faithfulness"])
        assert_faithful(result, floor, allow=allow)
        return result
