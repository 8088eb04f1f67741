"""``evaluate``: the Python API of ``veracity run``."""

from __future__ import annotations

import asyncio
import platform
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity._version import __version__
from veracity.dataset import RowError, dataset_fingerprint, read_dataset
from veracity.dataset.normalize import normalize_row
from veracity.embeddings import BertScorer, Embedder, make_bert_scorer, make_embedder
from veracity.judges import Judge, JudgeFatalError, default_judge_spec, make_judge
from veracity.metrics import Metric, Models, Need, resolve_metrics
from veracity.report import SummaryBuilder
from veracity.runner import run_metrics
from veracity.store import RunDirectory
from veracity.types import ResultRecord, Rubric, Sample

if TYPE_CHECKING:
    import pandas as pd

SampleInput = Sample | Mapping[str, Any]


@dataclass(frozen=True)
class EvaluationResult:
    """What a run produced: the summary, every result, and the rows that could not run."""

    summary: dict[str, Any]
    results: tuple[ResultRecord, ...]
    bad_rows: tuple[RowError, ...]
    run_dir: Path | None = None
    manifest: dict[str, Any] = field(default_factory=dict)

    def to_pandas(self) -> pd.DataFrame:
        """One row per result; ``details`` stays a dict column. Needs ``pandas``."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("to_pandas() needs pandas: pip install pandas") from exc
        rows = []
        for record in self.results:
            row = record.model_dump(mode="json", exclude={"usage"})
            row.update({f"usage_{k}": v for k, v in record.usage.model_dump().items()})
            rows.append(row)
        return pd.DataFrame(rows)


def _items_from(
    samples: str | Path | Iterable[SampleInput],
) -> tuple[Iterator[Sample | RowError], str | None]:
    if isinstance(samples, str | Path):
        return iter(read_dataset(samples)), str(samples)

    def from_objects() -> Iterator[Sample | RowError]:
        for index, item in enumerate(samples, start=1):
            if isinstance(item, Sample):
                yield item
                continue
            normalized = normalize_row(item)
            if isinstance(normalized, str):
                yield RowError(path="<samples>", line=None, item=index, message=normalized)
            else:
                yield from normalized

    return from_objects(), None


async def aevaluate(
    samples: str | Path | Iterable[SampleInput],
    metrics: Sequence[str | Metric] = ("faithfulness",),
    judge: Judge | str | None = None,
    *,
    out: str | Path | None = None,
    iterations: int = 1,
    base_url: str | None = None,
    concurrency: int = 16,
    embedder: Embedder | str | None = "auto",
    bert_scorer: BertScorer | str | None = "auto",
    rubrics: Mapping[str, Rubric] | None = None,
    keep_results: bool = True,
    settings: Mapping[str, Any] | None = None,
) -> EvaluationResult:
    """Evaluate ``samples`` (a dataset path, or samples / dicts) with ``metrics``.

    ``embedder`` and ``bert_scorer`` are made only when a chosen metric needs them:
    ``"auto"`` is the local model when ``veracity[local]`` is installed (else none, and
    the metrics say so), ``"local"`` insists on it, ``"openai/MODEL"`` is an embeddings
    endpoint. ``rubrics`` are the user rubrics that ``rubric:NAME`` metrics name. With
    ``out``, results are written to that run directory as they finish. A judge that
    cannot work at all (bad key, unknown model) raises
    :class:`~veracity.judges.JudgeFatalError` after recording what was done.
    """
    chosen = [resolve_metrics([m], rubrics)[0] if isinstance(m, str) else m for m in metrics]
    needs = frozenset[Need]().union(*(m.needs for m in chosen))
    the_judge = (
        judge
        if judge is not None and not isinstance(judge, str)
        else make_judge(judge or default_judge_spec(), base_url=base_url, concurrency=concurrency)
    )
    models = Models(
        judge=the_judge,
        embedder=make_embedder(embedder, base_url=base_url, concurrency=concurrency)
        if Need.EMBEDDER in needs
        else None,
        bert_scorer=make_bert_scorer(bert_scorer) if Need.BERT_SCORER in needs else None,
    )
    items, dataset_path = _items_from(samples)
    manifest: dict[str, Any] = {
        "veracity_version": __version__,
        "python": platform.python_version(),
        "judge": {"name": the_judge.name, **the_judge.describe()},
        "embedder": models.embedder.describe() if models.embedder else None,
        "bert_scorer": models.bert_scorer.describe() if models.bert_scorer else None,
        "metrics": [m.name for m in chosen],
        "settings": {"iterations": iterations, **(settings or {})},
        "dataset": {
            "path": dataset_path,
            "sha256": dataset_fingerprint(dataset_path) if dataset_path else None,
        },
        "started_at": _now(),
        "status": "running",
    }
    run_dir = RunDirectory(Path(out)) if out is not None else None
    if run_dir is not None:
        run_dir.create(manifest)

    builder = SummaryBuilder([m.name for m in chosen])
    results: list[ResultRecord] = []
    bad_rows: list[RowError] = []

    def on_result(record: ResultRecord) -> None:
        if run_dir is not None:
            run_dir.append(record)
        builder.add(record)
        if keep_results:
            results.append(record)

    status, error = "completed", None
    try:
        await run_metrics(
            items,
            chosen,
            models,
            on_result=on_result,
            on_bad_row=bad_rows.append,
            iterations=iterations,
        )
    except JudgeFatalError as exc:
        status, error = "failed", str(exc)
        raise
    except (KeyboardInterrupt, asyncio.CancelledError):
        status, error = "interrupted", "the run was interrupted"
        raise
    except Exception as exc:
        status, error = "failed", f"{type(exc).__name__}: {exc}"
        raise
    finally:
        summary = builder.build(bad_rows=len(bad_rows))
        manifest.update(status=status, finished_at=_now(), bad_rows=len(bad_rows))
        if error:
            manifest["error"] = error
        if run_dir is not None:
            run_dir.write_summary(summary)
            run_dir.update_manifest(**manifest)
            run_dir.close()
        # Connections belong to this event loop; the judge opens new ones if used again.
        await the_judge.aclose()
        for model in (models.embedder, models.bert_scorer):
            if model is not None:
                await model.aclose()
    return EvaluationResult(
        summary=summary,
        results=tuple(results),
        bad_rows=tuple(bad_rows),
        run_dir=run_dir.path if run_dir else None,
        manifest=manifest,
    )


def evaluate(
    samples: str | Path | Iterable[SampleInput],
    metrics: Sequence[str | Metric] = ("faithfulness",),
    judge: Judge | str | None = None,
    **options: Any,
) -> EvaluationResult:
    """Synchronous :func:`aevaluate` (not for use inside a running event loop)."""
    return asyncio.run(aevaluate(samples, metrics, judge, **options))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
