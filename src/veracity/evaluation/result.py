"""What a run hands back to Python."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity.dataset import RowError
from veracity.report import DEFAULT_MAX_ERROR_RATE, ErrorRateCheck, check_error_rate
from veracity.types import ResultRecord

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class EvaluationResult:
    """What a run produced: the summary, every result, and the rows that could not run.

    ``max_error_rate`` is the share of results judge errors may leave unscored; see
    :attr:`error_check`.
    """

    summary: dict[str, Any]
    results: tuple[ResultRecord, ...]
    bad_rows: tuple[RowError, ...]
    run_dir: Path | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE

    @property
    def error_check(self) -> ErrorRateCheck:
        """The judge errors against ``max_error_rate``: ``error_check.met`` is false when
        they left more than that share of the results unscored, or nothing was scored
        (``veracity run`` exits 3 then)."""
        return check_error_rate(self.summary, self.max_error_rate)

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
