"""A run logged to MLflow: its parameters, metrics, results table and per-item feedback.

- params: the judge (name, provider, model, prompt fingerprints…), the run's settings,
  the metrics, the dataset's hash and veracity's version, flattened to dotted keys;
- metrics: per metric the mean, median, std, 95 % CI bounds, pass rate, counts and
  threshold (and whether a given threshold is met), the same per system when there are
  several, and the run's cost, calls and tokens;
- artifacts under ``veracity/``: ``results.csv`` (a row per result, details as JSON text),
  ``summary.json`` and ``run.json``;
- with MLflow 3's GenAI assessments (``mlflow.log_feedback``): a trace per item (sample,
  system, iteration) holding one feedback per metric — its score, the reason as the
  rationale, a judge error as the feedback's error.

The tracking URI and experiment are MLflow's own (``MLFLOW_TRACKING_URI``,
``mlflow.set_tracking_uri``), so this logs wherever the team's other runs go.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from veracity._version import __version__
from veracity.report.export import write_export
from veracity.report.keys import OVERALL
from veracity.report.run_data import RunData, RunLike, load_run
from veracity.report.thresholds import check_thresholds
from veracity.types import ResultRecord, Status

ARTIFACTS = "veracity"
# MLflow's limit on a parameter's value.
PARAM_LIMIT = 6000
_NOT_IN_KEY = re.compile(r"[^\w\-. /]")
STATS = ("mean", "median", "std", "pass_rate", "n", "n_scored")


def _key(*parts: object) -> str:
    """An MLflow key: characters it refuses in a name (a system's, say) become '_'."""
    return "/".join(_NOT_IN_KEY.sub("_", str(part)) for part in parts)


def _flat(prefix: str, value: object) -> Iterator[tuple[str, str]]:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _flat(f"{prefix}.{key}", inner)
    elif value is not None:
        text = value if isinstance(value, str) else json.dumps(value)
        yield _NOT_IN_KEY.sub("_", prefix), text[:PARAM_LIMIT]


def run_params(run: RunData) -> dict[str, str]:
    """The run's parameters, nested mappings flattened to dotted keys."""
    manifest = run.manifest
    params = dict(_flat("judge", run.judge))
    params |= dict(_flat("settings", manifest.settings))
    params |= dict(_flat("dataset.sha256", manifest.dataset.sha256))
    params["metrics"] = ",".join(run.metrics)
    params["veracity_version"] = manifest.veracity_version or __version__
    return params


def _stats_metrics(prefix: tuple[str, ...], stats: Mapping[str, Any]) -> dict[str, float]:
    found = {_key(*prefix, name): stats.get(name) for name in STATS}
    bounds = stats.get("ci95")
    if bounds:
        found[_key(*prefix, "ci95_low")], found[_key(*prefix, "ci95_high")] = bounds
    found[_key(*prefix, "judge_errors")] = stats["counts_by_status"][Status.JUDGE_ERROR.value]
    return {
        key: float(value)
        for key, value in found.items()
        if isinstance(value, int | float) and math.isfinite(value)
    }


def run_metrics(run: RunData) -> dict[str, float]:
    """Per metric (and system, when there are several): the summary's statistics; the
    thresholds and gates; the run's results, calls, tokens and cost."""
    found: dict[str, float] = {}
    for metric, groups in run.metrics.items():
        found |= _stats_metrics((metric,), groups[OVERALL])
        found[_key(metric, "threshold")] = run.threshold(metric)
        systems = groups.get("by_system") or {}
        if len(systems) > 1:
            for system, stats in systems.items():
                found |= _stats_metrics((metric, "system", system), stats)
    for check in check_thresholds(run.summary, run.thresholds):
        found[_key(check.metric, "threshold_met")] = float(check.met)
    summary = run.summary
    found["results"] = float(summary["results"])
    found["bad_rows"] = float(summary.get("bad_rows", 0))
    for name in ("calls", "cached_calls", "input_tokens", "output_tokens"):
        found[f"judge_{name}"] = float(summary["usage"][name])
    cost = summary["cost"]["total_usd"]
    if cost is not None:
        found["cost_usd"] = float(cost)
    return found


def results_csv(run: RunData) -> str:
    """A row per result, the columns of ``veracity export`` (details as JSON text)."""
    buffer = io.StringIO()
    write_export(run.records(), "csv", buffer)
    return buffer.getvalue()


@contextmanager
def _mlflow_run(mlflow: Any, experiment: str | None, run_name: str | None) -> Iterator[Any]:
    """The active MLflow run if there is one (logged into, left open), else a new one."""
    active = mlflow.active_run()
    if active is not None:
        yield active
        return
    if experiment is not None:
        mlflow.set_experiment(experiment)
    with mlflow.start_run(run_name=run_name) as started:
        yield started


def log_run(
    source: Path | str | RunLike,
    *,
    experiment: str | None = None,
    run_name: str | None = None,
    thresholds: Mapping[str, float] | None = None,
    feedback: bool = True,
) -> str:
    """Log ``source`` (a run directory or the result of ``evaluate``) to MLflow and
    return the MLflow run id. Logs into the active MLflow run if there is one, else
    starts one (in ``experiment`` when given). ``thresholds`` on top of the run's set
    pass rates and gates. ``feedback=False`` skips the per-item traces and feedback (a
    trace per item is the slow part on a large run)."""
    try:
        import mlflow
    except ImportError as exc:
        raise ImportError("logging to MLflow needs it: pip install 'veracity[mlflow]'") from exc
    run = load_run(source, thresholds)
    if run_name is None and run.run_dir is not None:
        run_name = run.run_dir.name
    with _mlflow_run(mlflow, experiment, run_name) as active:
        mlflow.log_params(run_params(run))
        mlflow.log_metrics(run_metrics(run))
        mlflow.log_text(results_csv(run), f"{ARTIFACTS}/results.csv")
        mlflow.log_dict(run.summary, f"{ARTIFACTS}/summary.json")
        mlflow.log_dict(run.manifest.as_dict(), f"{ARTIFACTS}/run.json")
        if feedback and hasattr(mlflow, "log_feedback"):
            _log_feedback(mlflow, run)
        run_id: str = active.info.run_id
    return run_id


def _log_feedback(mlflow: Any, run: RunData) -> None:
    """A trace per item (sample, system, iteration) and a feedback per metric on it."""
    from mlflow.entities import AssessmentError, AssessmentSource

    items: dict[tuple[str, str | None, int], list[ResultRecord]] = defaultdict(list)
    for record in run.records():
        items[record.sample_id, record.system, record.iteration].append(record)
    judge = run.judge
    source = AssessmentSource(
        source_type="CODE" if judge.get("provider") == "offline" else "LLM_JUDGE",
        source_id=str(judge.get("name", "veracity")),
    )
    traces = []
    for (sample_id, system, iteration), found in items.items():
        with mlflow.start_span(name=f"veracity {sample_id}") as span:
            span.set_inputs({"sample_id": sample_id, "system": system, "iteration": iteration})
            span.set_outputs({record.metric: record.score for record in found})
            traces.append((span.trace_id, found))
    # Traces are written in the background: each must be stored before feedback names it.
    mlflow.flush_trace_async_logging()
    for trace_id, found in traces:
        for record in found:
            error = None
            if record.status is Status.JUDGE_ERROR:
                error = AssessmentError(error_code=record.status.value, error_message=record.reason)
            mlflow.log_feedback(
                trace_id=trace_id,
                name=record.metric,
                value=record.score,
                source=source,
                error=error,
                rationale=record.reason,
                # Strings: MLflow stores assessment metadata as text.
                metadata={
                    "status": record.status.value,
                    "threshold": f"{run.threshold(record.metric):g}",
                },
            )
