"""Named scorings shipped with veracity: calibration files fitted once on the development
sets' fit halves (``benchmarks/agreement.py --write-scorings``), one per kind of judge."""

from collections.abc import Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from types import MappingProxyType

NAMES: tuple[str, ...] = tuple(
    sorted(
        entry.name.removesuffix(".json")
        for entry in resources.files(__name__).iterdir()
        if entry.name.endswith(".json")
    )
)


def scoring_file(name: str) -> Traversable:
    """The file of the named scoring ``name`` (one of ``NAMES``)."""
    return resources.files(__name__).joinpath(f"{name}.json")


# The scoring a run is calibrated with when it names none, by kind of judge: the offline
# judge's, because its refit met the rule on every development set's held-out half (at
# or above the word-overlap floor, never more than 0.01 below the raw score:
# docs/benchmarks.md). LLM judges have none: theirs was fitted on one small model.
DEFAULTS: Mapping[str, str] = MappingProxyType({"offline": "offline-combined"})
# What a run names to have no calibration at all, the default included.
NO_CALIBRATION = "none"
