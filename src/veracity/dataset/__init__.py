"""Reading datasets: JSONL, JSON and CSV files into ``Sample`` objects, lazily.

Bad rows do not stop a read: each becomes a ``RowError`` naming the file and line (or
JSON item), in file order among the samples. Problems with the whole file raise
``DatasetError``.
"""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "ALIASES",
    "CANONICAL_FIELDS",
    "BadRowsWarning",
    "DatasetError",
    "NoValidSampleError",
    "RowError",
    "dataset_fingerprint",
    "read_dataset",
    "stable_sample_id",
]

if TYPE_CHECKING:
    from veracity.dataset.errors import BadRowsWarning, DatasetError, NoValidSampleError, RowError
    from veracity.dataset.fields import ALIASES, CANONICAL_FIELDS
    from veracity.dataset.ids import dataset_fingerprint, stable_sample_id
    from veracity.dataset.reader import read_dataset
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
