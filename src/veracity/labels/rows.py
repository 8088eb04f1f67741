"""One row of a labels source, read: what it labels (id, system), by whom, and its labels."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from veracity.dataset.fields import a_json_type
from veracity.dataset.normalize import normalize_row
from veracity.dataset.raw import json_error_message, loads_strict
from veracity.labels.names import (
    ANNOTATOR_FIELDS,
    DATASET_FIELDS,
    GROUP_FIELDS,
    HUMAN_PREFIX,
    ID_FIELDS,
    LABEL_FIELD,
    METRIC_FIELDS,
    MISSING_ID,
    ORDER_FIELD,
    READ_FIELDS,
    RETRACT_FIELD,
    SYSTEM_FIELD,
    VALUE_FIELD,
    is_known_target,
    is_metric_like,
    not_read,
    target_name,
)
from veracity.labels.scale import Scale
from veracity.labels.values import LabelProblem, checked_label, show, unit_label

#: Turns a row into what the dataset reader would see (CSV cells parsed), or says why not.
DatasetView = Callable[[dict[str, object]], dict[str, object] | str]


@dataclass(slots=True)
class ParsedRow:
    """``keys``: the (sample id, system) pairs labelled, empty when the row names none;
    ``labels``: target → (value, field); ``ignored``: the fields not read, with why (the
    unknown columns of a labels file, a ``label`` object's keys that name no metric)."""

    keys: tuple[tuple[str, str | None], ...]
    annotator: str | None
    group: str | None
    labels: dict[str, tuple[float, str]] = field(default_factory=dict)
    ignored: dict[str, str] = field(default_factory=dict)
    order: str | None = None
    #: Targets whose earlier label by the same annotator this row withdraws.
    retracts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RowRules:
    """How rows are read: declared scales, the target of a bare ``label``, and whether
    every row is a dataset row (samples) or that is decided per row."""

    scales: Mapping[str, Scale]
    default_target: str
    dataset: bool = False
    dataset_view: DatasetView | None = None


def _name(field_name: str, value: object, *, numbers: bool) -> str | None:
    """A string (or, if ``numbers``, integer) name; empty is none; else ``LabelProblem``."""
    if isinstance(value, str):
        return value or None
    if numbers and isinstance(value, int) and not isinstance(value, bool):
        try:
            return str(value)
        except ValueError:  # more than 4,300 digits: only a row built in memory has one
            raise LabelProblem(f"field {show(field_name)}: {show(value)} is too long") from None
    if numbers and isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))  # a table's integer column with gaps holds floats
    kinds = "a string or an integer" if numbers else "a string"
    raise LabelProblem(f"field {show(field_name)} must be {kinds}, got {a_json_type(value)}")


def _one_of(row: Mapping[str, object], names: tuple[str, ...], what: str) -> str | None:
    """The value the ``names`` fields agree on (they are aliases), or ``None``."""
    found: tuple[str, str] | None = None
    for name in names:
        raw = row.get(name)
        if raw is None:
            continue
        value = _name(name, raw, numbers=what != "system")
        if value is None:
            continue
        if found is not None and found[1] != value:
            raise LabelProblem(f"fields {show(found[0])} and {show(name)} give different {what}s")
        found = found or (name, value)
    return None if found is None else found[1]


class _Labels:
    """A row's labels by target; two fields labelling one target must agree."""

    def __init__(self, rules: RowRules) -> None:
        self.rules = rules
        self.found: dict[str, tuple[float, str]] = {}

    def add(self, target: str, field_name: str, raw: object) -> None:
        value = checked_label(field_name, raw, target, self.rules.scales.get(target))
        if value is None:
            return
        first = self.found.setdefault(target, (value, field_name))
        if first[0] != value:
            raise LabelProblem(
                f"fields {show(first[1])} and {show(field_name)} both label {target} but differ"
            )


def _label_object(raw: object) -> object:
    """A ``label`` cell holding a JSON object (CSV) as the object; other values as they are."""
    if not (isinstance(raw, str) and raw.lstrip().startswith("{")):
        return raw
    try:
        return loads_strict(raw)
    except ValueError as exc:
        raise LabelProblem(f"field 'label': {json_error_message(exc)}") from None
    except RecursionError:
        raise LabelProblem("field 'label': invalid JSON: nested too deeply") from None


def _read_label_field(raw: object, labels: _Labels, rules: RowRules) -> dict[str, str]:
    """``label``: one value for the default target, or {target: value}. Returns the keys
    of an object that hold labels of targets nobody declared (they are not read), why."""
    raw = _label_object(raw)
    if isinstance(raw, list):
        raise LabelProblem(
            "field 'label' must be a label or an object {target: label}, got an array"
        )
    if not isinstance(raw, dict):
        labels.add(target_name(rules.default_target), LABEL_FIELD, raw)
        return {}
    ignored = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            continue  # only rows built in memory can have such keys; no target is named so
        target = target_name(key)
        if is_metric_like(target) and is_known_target(target, rules.scales):
            labels.add(target, f"label.{key}", value)
        elif is_metric_like(target) and unit_label(value):
            # A label-like value under a name that is no metric (a source's own grading,
            # e.g. wice_label): not guessed at, but reported.
            ignored[f"label.{key}"] = not_read(key)
    return ignored


def _long_form(row: Mapping[str, object], metric_field: str, labels: _Labels) -> None:
    """``metric`` (or ``target``) naming the target, ``label`` or ``value`` its value."""
    metric = row[metric_field]
    if not isinstance(metric, str) or not is_metric_like(metric.strip().lower()):
        shown = show(metric) if isinstance(metric, str) else a_json_type(metric)
        raise LabelProblem(
            f"field {metric_field!r} must name a metric (letters, digits, _ : . -), got {shown}"
        )
    target = target_name(metric)
    for name in (LABEL_FIELD, VALUE_FIELD):
        value = row.get(name)
        if isinstance(value, dict | list):
            raise LabelProblem(
                f"field {name!r} must be one label (the row names its metric in "
                f"{metric_field!r}), got {a_json_type(value)}"
            )
        labels.add(target, name, value)


def _long_form_row(
    row: Mapping[str, object], metric_field: str | None, labels: _Labels, parsed: ParsedRow
) -> None:
    """A row of one metric's label, or a retraction of one (``retract``: an undo)."""
    if row.get(RETRACT_FIELD) is not None:
        parsed.retracts = _retracted(row, metric_field)
        return
    assert metric_field is not None  # the caller's condition
    _long_form(row, metric_field, labels)
    parsed.labels = labels.found


def _retracted(row: Mapping[str, object], metric_field: str | None) -> tuple[str, ...]:
    """The target a retraction row withdraws: ``{"id", "metric", "retract": true}``."""
    if row[RETRACT_FIELD] is not True:
        raise LabelProblem(f"field 'retract' must be true, got {show(row[RETRACT_FIELD])}")
    metric = row.get(metric_field) if metric_field is not None else None
    if not isinstance(metric, str) or not is_metric_like(metric.strip().lower()):
        raise LabelProblem("a retraction needs 'metric' naming the target it withdraws")
    if any(row.get(name) is not None for name in (LABEL_FIELD, VALUE_FIELD)):
        raise LabelProblem("a retraction holds no label ('label'/'value')")
    return (target_name(metric),)


def parse_row(row: object, rules: RowRules) -> ParsedRow:
    """Read one row (a dict from any source); ``LabelProblem`` says why it is bad."""
    if not isinstance(row, dict):
        raise LabelProblem(f"expected a JSON object, got {a_json_type(row)}")
    dataset = rules.dataset or any(row[name] is not None for name in DATASET_FIELDS & row.keys())
    sample_id = _one_of(row, ID_FIELDS, "id")
    system = _one_of(row, (SYSTEM_FIELD,), "system")
    parsed = ParsedRow(
        keys=() if sample_id is None else ((sample_id, system),),
        annotator=_one_of(row, ANNOTATOR_FIELDS, "annotator"),
        group=_one_of(row, GROUP_FIELDS, "group"),
    )
    order = row.get(ORDER_FIELD)
    parsed.order = order if isinstance(order, str) and order else None
    labels = _Labels(rules)
    metric_field = next((name for name in METRIC_FIELDS if row.get(name) is not None), None)
    if not dataset and (metric_field is not None or row.get(RETRACT_FIELD) is not None):
        _long_form_row(row, metric_field, labels, parsed)
        return parsed
    if not dataset and row.get(VALUE_FIELD) is not None:
        raise LabelProblem("field 'value' needs 'metric' (or 'target') naming what it labels")
    for key, value in row.items():
        if not isinstance(key, str):
            continue
        lowered = key.lower()
        if key == LABEL_FIELD:
            if value is not None:
                parsed.ignored = _read_label_field(value, labels, rules)
        elif lowered.startswith(HUMAN_PREFIX) and is_metric_like(lowered[len(HUMAN_PREFIX) :]):
            labels.add(target_name(lowered[len(HUMAN_PREFIX) :]), key, value)
        elif lowered in READ_FIELDS:
            continue
        elif is_metric_like(lowered) and is_known_target(target_name(lowered), rules.scales):
            labels.add(target_name(lowered), key, value)
        elif not dataset:
            # Not guessed at from its values: a labels file's other columns are named as
            # not read (a dataset row's are the sample's metadata).
            parsed.ignored.setdefault(key, not_read(key))
    parsed.labels = labels.found
    if labels.found and not parsed.keys and dataset:
        parsed.keys = _hashed_keys(row, rules)
    return parsed


def _hashed_keys(row: dict[str, object], rules: RowRules) -> tuple[tuple[str, str | None], ...]:
    """The ids the dataset reader gives a row without one (a hash of its content)."""
    view = row if rules.dataset_view is None else rules.dataset_view(row)
    if isinstance(view, str):
        raise LabelProblem(f"{MISSING_ID}, and the row is no sample to give one: {view}")
    try:
        samples = normalize_row(view)
    except (RecursionError, ValueError) as exc:
        raise LabelProblem(f"{MISSING_ID}, and the row is no sample to give one: {exc}") from None
    if isinstance(samples, str):
        raise LabelProblem(f"{MISSING_ID}, and the row is no sample to give one: {samples}")
    if len(samples) != 1:
        raise LabelProblem(f"{MISSING_ID}: the row answers for several systems; give it an id")
    return ((samples[0].id, samples[0].system),)
