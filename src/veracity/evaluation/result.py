"""What a run hands back to Python."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity.dataset import RowError
from veracity.evaluation.notebook import summary_html
from veracity.report import DEFAULT_MAX_ERROR_RATE, ErrorRateCheck, check_error_rate
from veracity.report.table import RESULT_COLUMNS, flat_result
from veracity.types import ResultRecord, Sample

if TYPE_CHECKING:
    import pandas as pd

    from veracity.agreement import AgreementReport, Fitted

# to_pandas() has the flat result's columns, with the sample's texts after its keys.
_COLUMNS = (*RESULT_COLUMNS[:2], "question", "answer", *RESULT_COLUMNS[2:])
_CLAIM_KEYS = ("sample_id", "system", "question", "answer", "metric", "iteration", "score",
               "status")  # fmt: skip
_CLAIM_COLUMNS = ("claim", "verdict", "p_supported", "probabilities", "reason", "evidence")


@dataclass(frozen=True)
class EvaluationResult:
    """What a run produced: the summary, every result, and the rows that could not run.

    ``len(result)`` and ``for record in result`` go over the per-item results;
    :meth:`mean` and :meth:`ci` read a metric's overall figures from the summary.
    ``max_error_rate`` is the share of results judge errors may leave unscored; see
    :attr:`error_check`.
    """

    summary: dict[str, Any]
    results: tuple[ResultRecord, ...]
    bad_rows: tuple[RowError, ...]
    run_dir: Path | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE
    samples: tuple[Sample, ...] = ()

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[ResultRecord]:
        return iter(self.results)

    def __repr__(self) -> str:
        means = ", ".join(
            f"{name} {m:.3f}" if (m := self.mean(name)) is not None else f"{name} unscored"
            for name in self.summary.get("metrics", {})
        )
        where = f", run_dir={str(self.run_dir)!r}" if self.run_dir else ""
        return (
            f"<EvaluationResult {len(self.results)} result(s); mean {means or 'none'}; "
            f"{len(self.bad_rows)} bad row(s){where}>"
        )

    def _repr_html_(self) -> str:
        """The summary table, as a notebook shows the result."""
        return summary_html(self.summary, str(self.run_dir) if self.run_dir else None)

    def _overall(self, metric: str) -> dict[str, Any]:
        metrics = self.summary.get("metrics", {})
        if metric not in metrics:
            known = ", ".join(metrics) or "none"
            raise KeyError(f"no metric {metric!r} in this result (metrics: {known})")
        overall: dict[str, Any] = metrics[metric]["overall"]
        return overall

    def mean(self, metric: str) -> float | None:
        """The mean score of ``metric`` over its scored results (``None``: none scored)."""
        value = self._overall(metric).get("mean")
        return None if value is None else float(value)

    def ci(self, metric: str) -> tuple[float, float] | None:
        """The 95 % confidence interval of ``metric``'s mean (``None``: too few scores)."""
        bounds = self._overall(metric).get("ci95")
        return None if bounds is None else (float(bounds[0]), float(bounds[1]))

    @property
    def error_check(self) -> ErrorRateCheck:
        """The judge errors against ``max_error_rate``: ``error_check.met`` is false when
        they left more than that share of the results unscored, or nothing was scored
        (``veracity run`` exits 3 then)."""
        return check_error_rate(self.summary, self.max_error_rate)

    def agreement(
        self, labels: Any = None, *, other: EvaluationResult | None = None, **options: Any
    ) -> AgreementReport:
        """How far this run agrees with people's ``labels`` (a file, a DataFrame, a list
        of dicts; default: the ``label`` / ``human_<metric>`` fields of its samples); with
        ``other``, a second run on the same labels, paired. ``options`` are those of
        :func:`veracity.agreement.agree` (``scales``, ``default_target``, ``top``,
        ``resamples``, ``dataset``). The report prints as tables, has ``as_dict()`` and
        ``to_pandas()``, and shows as a page in a notebook."""
        from veracity.agreement import agree

        return agree([self] if other is None else [self, other], labels, **options)

    def calibrate(self, labels: Any = None, **options: Any) -> Fitted:
        """Fit a calibration of this run's scores to people's ``labels`` (cross-validated;
        options as :func:`veracity.agreement.calibrate_run`). ``fitted.calibration`` is the
        file's content, ``fitted.helpful()`` the metrics it helps; pass either to
        ``evaluate(..., config=RunConfig(calibration=...))``."""
        from veracity.agreement import calibrate_run

        return calibrate_run(self, labels, **options)

    def to_pandas(self, *, claims: bool = False) -> pd.DataFrame:
        """One row per result: id, system, question, answer, metric, iteration, score,
        status, reason, question type, latency, cost, usage and ``details`` (a dict
        column) — the columns of ``veracity export``, with the texts. With
        ``claims=True``, one row per judged claim instead: the result's keys and the
        claim, its verdict, P(supported), the probability of each verdict (a decision
        judge's; else empty), reason and evidence. Needs ``pandas``."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("to_pandas() needs pandas: pip install pandas") from exc
        texts = {(s.id, s.system): (s.question, s.answer) for s in self.samples}
        rows = []
        for record in self.results:
            question, answer = texts.get((record.sample_id, record.system), (None, None))
            row = flat_result(record) | {"question": question, "answer": answer}
            if not claims:
                rows.append(row)
                continue
            keys = {key: row[key] for key in _CLAIM_KEYS}
            for claim in row["details"].get("claims") or ():
                if isinstance(claim, dict):
                    rows.append(keys | {c: claim.get(c) for c in _CLAIM_COLUMNS})
        columns = [*_CLAIM_KEYS, *_CLAIM_COLUMNS] if claims else list(_COLUMNS)
        return pd.DataFrame(rows, columns=columns)
