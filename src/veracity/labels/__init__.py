"""People's judgements ("labels") of samples, for ``veracity agree`` and ``calibrate``.

Labels come from a file (JSONL, JSON, CSV), rows in memory, a DataFrame, or the
``label`` / ``human_<target>`` fields of a dataset. Each is a yes/no, a 0–1 probability,
or a grade on a declared scale, per target (a metric, e.g. faithfulness), optionally by
an annotator and within a group. Bad rows are reported, located, never dropped silently;
a source with no usable label raises ``LabelError``.
"""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "InterAnnotator",
    "ItemLabel",
    "LabelError",
    "LabelKind",
    "LabelRow",
    "LabelSet",
    "Scale",
    "labels_from_samples",
    "parse_scales",
    "read_labels",
]

if TYPE_CHECKING:
    from veracity.labels.model import InterAnnotator, ItemLabel, LabelError, LabelRow, LabelSet
    from veracity.labels.reader import labels_from_samples, read_labels
    from veracity.labels.scale import LabelKind, Scale, parse_scales
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
