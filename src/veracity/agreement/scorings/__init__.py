"""Named scorings shipped with veracity: calibration files fitted once on the development
sets' fit halves (``benchmarks/agreement.py --write-scorings``), one per kind of judge."""

from importlib import resources
from importlib.resources.abc import Traversable

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
