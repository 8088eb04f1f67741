"""``read_labels`` and ``labels_from_samples``: people's labels from a file, rows in memory,
a DataFrame, or a dataset's samples."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from veracity.dataset.raw import RawRow
from veracity.labels.aggregate import agreement, build_items, infer_scales
from veracity.labels.collect import Collected, Collector
from veracity.labels.model import LabelError, LabelSet
from veracity.labels.names import is_metric_like, target_name
from veracity.labels.rows import DatasetView, RowRules
from veracity.labels.scale import Scale, number_text
from veracity.labels.sources import csv_dataset_view, file_rows, frame_rows, memory_rows
from veracity.labels.values import grade_hint
from veracity.types.sample import Sample

if TYPE_CHECKING:
    import pandas

_EXPECTED: Final = (
    "rows with an id (id, sample_id, queryLogId or query_id) and labels: a column named "
    "after a metric (e.g. faithfulness), human_<metric>, label (a value, or an object "
    "{metric: value}), or metric plus value"
)
_SHOWN_BAD = 3


def _checked_scales(scales: Mapping[str, Scale] | None) -> dict[str, Scale]:
    """The declared scales by target name (aliases resolved); ``ValueError`` if not scales."""
    checked: dict[str, Scale] = {}
    for name, scale in (scales or {}).items():
        if not isinstance(scale, Scale):
            raise ValueError(f"scales[{name!r}] must be a Scale, got {type(scale).__name__}")
        if not isinstance(name, str) or not is_metric_like(target_name(name)):
            raise ValueError(f"scales: {name!r} is not a metric name (letters, digits, _ : . -)")
        checked[target_name(name)] = scale
    return checked


def _is_frame(value: object) -> bool:
    return type(value).__module__.partition(".")[0] == "pandas" and hasattr(value, "itertuples")


def _label_set(
    source: str,
    raw_rows: Iterator[RawRow],
    scales: Mapping[str, Scale] | None,
    default_target: str,
    *,
    dataset: bool = False,
    view: DatasetView | None = None,
) -> LabelSet:
    declared = _checked_scales(scales)
    if not isinstance(default_target, str) or not is_metric_like(target_name(default_target)):
        raise ValueError(f"default_target must be a metric name, got {default_target!r}")
    rules = RowRules(declared, default_target, dataset=dataset, dataset_view=view)
    collector = Collector(source, rules)
    collector.add_all(raw_rows)
    collected = collector.finish()
    if collected.graded:
        raise _graded(source, collected)
    if not collected.labels:
        raise _no_label(source, collected)
    target_scales = infer_scales(collected.labels, declared)
    items = build_items(collected.labels, target_scales, collected.groups)
    return LabelSet(
        source=source,
        items=items,
        scales=target_scales,
        bad_rows=tuple(collected.bad_rows),
        inter_annotator=agreement(items, target_scales),
        rows=collected.rows,
        unlabelled=collected.unlabelled,
        ignored=dict(collected.ignored),
        labels=tuple(collected.labels),
    )


def _graded(source: str, collected: Collected) -> LabelError:
    """Numbers outside 0–1 without a declared scale: grades, most likely, so the target's
    other numbers cannot be read as yes/no either (a grade 1, the worst, would be a yes)."""
    parts = []
    for target, graded in collected.graded.items():
        lowest = min([graded.lowest, *(x.value for x in collected.labels if x.target == target)])
        parts.append(
            f"{target} has {graded.count} number(s) outside 0–1 (values from "
            f"{number_text(lowest)} to {number_text(graded.highest)}, the first at "
            f"{graded.first}): declare its scale, e.g. {grade_hint(target, graded.highest, lowest)}"
        )
    return LabelError(
        f"{source}: labels that look like grades, on a scale nobody declared — read as "
        f"yes/no, a grade 1 (the worst) would count as good. {'; '.join(parts)}",
        collected.bad_rows,
    )


def _no_label(source: str, collected: Collected) -> LabelError:
    bad = collected.bad_rows
    if bad:
        shown = "; ".join(str(row) for row in bad[:_SHOWN_BAD])
        more = f" (and {len(bad) - _SHOWN_BAD} more)" if len(bad) > _SHOWN_BAD else ""
        return LabelError(f"no valid label in {source}: {len(bad)} bad row(s): {shown}{more}", bad)
    ignored = "; ".join(f"{name}: {why}" for name, why in list(collected.ignored.items())[:5])
    not_read = f" (not read: {ignored})" if ignored else ""
    rows = "no row" if not collected.rows else f"{collected.rows} row(s) but no label"
    return LabelError(f"no label in {source}: {rows}{not_read}; expected {_EXPECTED}")


def read_labels(
    source: str | Path | LabelSet | Sequence[Mapping[str, object]] | pandas.DataFrame,
    *,
    scales: Mapping[str, Scale] | None = None,
    default_target: str = "faithfulness",
) -> LabelSet:
    """People's labels of samples, read and aggregated per (sample, system, target).

    ``source``: a ``.jsonl``/``.ndjson``, ``.json`` (an array, or an object with a
    ``labels`` or ``samples`` array) or ``.csv`` file; rows in memory (dicts, or samples);
    a pandas DataFrame; or a ``LabelSet`` (returned as it is). ``scales`` declares
    targets' scales (a grade's must be declared); ``default_target`` is what a bare
    ``label`` value labels. Bad rows are in ``bad_rows``, located; a source that cannot
    be read, or holds no usable label, raises ``LabelError``.
    """
    if isinstance(source, LabelSet):
        return source
    if isinstance(source, str | Path):
        name = str(source)
        path = Path(source)
        view = csv_dataset_view if path.suffix.lower() == ".csv" else None
        return _label_set(name, file_rows(path, name), scales, default_target, view=view)
    if _is_frame(source):
        return _label_set("DataFrame", frame_rows(source), scales, default_target)
    if isinstance(source, Mapping) or not isinstance(source, Iterable):
        raise TypeError(
            "labels must be a file path, a list of dicts, a pandas DataFrame or a LabelSet, "
            f"not {type(source).__name__}"
        )
    return _label_set("labels", memory_rows(source), scales, default_target)


def labels_from_samples(
    samples: Iterable[Sample],
    *,
    scales: Mapping[str, Scale] | None = None,
    default_target: str = "faithfulness",
    source: str = "samples",
) -> LabelSet:
    """The labels a dataset carries: its rows' ``label`` and ``human_<target>`` fields
    (and columns named after a metric), which the dataset reader keeps in each sample's
    ``metadata``. Rows are located as ``samples row N`` (0-based), or under ``source``."""
    return _label_set(source, memory_rows(samples), scales, default_target, dataset=True)
