"""Agreement of veracity's scores with people's labels, and calibration to them.

``agree`` measures how far one run (or two, paired) agrees with the labels;
``calibrate_run`` fits a map from each result's signals to P(people call the answer
good); ``read_calibration`` reads such a map for ``RunConfig(calibration=...)``.

The calibration file loads with numpy alone; the rest (scikit-learn, scipy) is imported
when first used, so ``import veracity`` stays quick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "AgreementError",
    "AgreementReport",
    "CalibrationFile",
    "CalibrationFileError",
    "CalibrationMismatchError",
    "CalibrationWarning",
    "Fitted",
    "agree",
    "calibrate_run",
    "read_calibration",
]

if TYPE_CHECKING:
    from veracity.agreement.calibration_file import (
        CalibrationFile,
        CalibrationFileError,
        CalibrationMismatchError,
        CalibrationWarning,
        read_calibration,
    )
    from veracity.agreement.report import AgreementReport
    from veracity.agreement.runs import AgreementError, Fitted, agree, calibrate_run
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
