"""The calibration's verdict names its cautions: a Brier gain whose interval reaches 0, and
too few labels (the README notebook's ten items no longer show the first with every judge)."""

from __future__ import annotations

from veracity.agreement.calibrate import FEW_LABELS, _verdict
from veracity.agreement.calibration_file import CrossValidated


def _cv(brier_ci: tuple[float, float]) -> CrossValidated:
    return CrossValidated(folds=5, auroc_raw=0.80, auroc_calibrated=0.81, auroc_diff=0.01,
                          brier_raw=0.20, brier_calibrated=0.17, brier_diff=-0.03,
                          brier_diff_ci95=brier_ci)  # fmt: skip


def test_a_brier_gain_whose_interval_reaches_zero_is_named() -> None:
    helps, verdict = _verdict(_cv((-0.06, 0.01)), FEW_LABELS)
    assert helps and verdict.startswith("helps: ")
    assert "the Brier difference's 95 % interval reaches 0" in verdict
    assert "labelled items" not in verdict


def test_a_clear_gain_on_few_labels_names_only_the_count() -> None:
    helps, verdict = _verdict(_cv((-0.06, -0.01)), 10)
    assert helps and "interval reaches 0" not in verdict
    assert f"only 10 labelled items, and below {FEW_LABELS} a fit is unreliable" in verdict
