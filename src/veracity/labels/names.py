"""Names in a labels row: which fields say what is labelled, by whom, and which hold labels."""

from __future__ import annotations

import re
from collections.abc import Container
from functools import lru_cache
from typing import Final

from veracity.dataset.fields import ANSWERS_FIELD, FIELD_OF
from veracity.metrics.registry import label_targets

#: Fields that name the labelled sample, in the order they are looked at (as datasets).
ID_FIELDS: Final = ("id", "sample_id", "queryLogId", "query_id")
MISSING_ID: Final = "missing id (field id, sample_id, queryLogId or query_id)"
ANNOTATOR_FIELDS: Final = ("annotator", "rater", "annotator_id")
GROUP_FIELDS: Final = ("group", "group_id")
SYSTEM_FIELD: Final = "system"
LABEL_FIELD: Final = "label"
#: Long form: one row per label, ``metric`` (or ``target``) naming what ``label``/``value`` labels.
METRIC_FIELDS: Final = ("metric", "target")
VALUE_FIELD: Final = "value"
HUMAN_PREFIX: Final = "human_"
#: How the item was chosen for labelling (veracity label's --order): random, uncertain, …
ORDER_FIELD: Final = "order"
#: ``true``: the row withdraws the annotator's earlier label of the item (an undo).
RETRACT_FIELD: Final = "retract"

#: Other names people use for a target (lower case).
TARGET_ALIASES: Final[dict[str, str]] = {
    "faithful": "faithfulness",
    "grounded": "faithfulness",
    "supported": "faithfulness",
    "correct": "correctness",
    "relevant": "answer_relevance",
    "relevance": "answer_relevance",
}

#: The fields a labels row is read by besides its labels (compared in lower case): what a
#: dataset row holds, which sample, who labelled it, long form, order and retraction.
READ_FIELDS: Final = frozenset(
    {name.lower() for name in (*FIELD_OF, ANSWERS_FIELD, *ID_FIELDS, *ANNOTATOR_FIELDS)}
    | {*GROUP_FIELDS, SYSTEM_FIELD, LABEL_FIELD, *METRIC_FIELDS, VALUE_FIELD}
    | {ORDER_FIELD, RETRACT_FIELD}
)

#: Fields whose presence makes a row a dataset row: then only ``label``, ``human_<target>``
#: and known target columns are labels (its other columns are the sample's metadata).
DATASET_FIELDS: Final = frozenset(
    {n for n, f in FIELD_OF.items() if f in ("question", "answer", "contexts")} | {ANSWERS_FIELD}
)

_METRIC_LIKE = re.compile(r"[a-z][a-z0-9_:.\-]{0,99}")


@lru_cache(maxsize=4096)  # a file repeats its column names on every row
def is_metric_like(name: str) -> bool:
    """Whether ``name`` (lower case) could name a metric: ``faithfulness``, ``rubric:clarity``."""
    return _METRIC_LIKE.fullmatch(name) is not None


@lru_cache(maxsize=4096)
def target_name(name: str) -> str:
    """The target a name labels: lower case, aliases resolved (faithful → faithfulness)."""
    lowered = name.strip().lower()
    return TARGET_ALIASES.get(lowered, lowered)


def is_known_target(target: str, declared: Container[str]) -> bool:
    """Whether a (resolved) target name is read wherever it appears: a metric (its own
    rubrics too), correctness, or a target whose scale is ``declared``."""
    return target in label_targets() or target in declared or target.startswith("rubric:")


def not_read(name: str) -> str:
    """Why a field of a labels row that is not read was left: it names no known metric (a
    declared scale would read it), or it is no metric's name at all."""
    target = target_name(name)
    if is_metric_like(target):
        return (
            f"not a known metric: declare its scale to read it, e.g. --scale {target}=binary "
            f"(or {target}=1:5 for grades)"
        )
    return "not a label: the name is no metric's (letters, digits, _ : . -)"
