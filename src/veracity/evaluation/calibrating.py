"""A run's calibration: read and checked against the run's judge before any judge call,
applied to each result as it arrives, and re-applied to the results a resumed run already
holds, so every result of a run directory is calibrated by the calibration its
``run.json`` names.

One rule for a calibration file and a shipped scoring alike: fitted on another judge (or,
for a file, other prompts of the metrics it calibrates), it is refused with a
:class:`~veracity.agreement.calibration_file.CalibrationMismatchError` unless forced.
Re-applying needs no judge call: a result keeps the signals its probability is computed
from.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from veracity.agreement.calibration_file import (
    CALIBRATION_ERROR,
    CalibrationFile,
    CalibrationMismatchError,
    CalibrationWarning,
    checked_calibration_file,
    judge_identity,
    judge_kind,
    read_calibration,
    with_calibration,
)
from veracity.agreement.scorings import DEFAULTS, NO_CALIBRATION
from veracity.store import RunDirectory
from veracity.types import ResultRecord

# The attempt's fields in run.json: which calibration it applied, and how many results it
# already held were given that calibration's probabilities.
ATTEMPT_CALIBRATION = "calibration"
ATTEMPT_RECALIBRATED = "results_recalibrated"
ATTEMPT_FINGERPRINT = "calibration_sha256"
_FORCE = "--force, or RunConfig(force_calibration=True) in Python, applies it anyway"


class Calibrating:
    """The calibration of one run (or none), applied to its results; counts those it
    could not calibrate (each keeps its raw score and says why in its details; the first
    is a warning)."""

    def __init__(
        self, calibration: CalibrationFile | None, source: str | None, note: str | None = None
    ) -> None:
        self.calibration = calibration
        self.source = source if calibration is not None else None
        self.note = note  # why a judge's default calibration was not applied
        # What the calibration computes, whatever its file is called ("none": no calibration).
        self.fingerprint = (
            hashlib.sha256(calibration.model_dump_json().encode()).hexdigest()[:16]
            if calibration is not None
            else "none"
        )
        self.failed = 0

    def __call__(self, record: ResultRecord) -> ResultRecord:
        done = with_calibration(record, self.calibration)
        why = done.details.get(CALIBRATION_ERROR)
        if why is not None and not self.failed:
            warnings.warn(
                f"result {record.sample_id!r} ({record.metric}) keeps its raw score only: "
                f"{why} (details.{CALIBRATION_ERROR} of every result it befalls says why)",
                CalibrationWarning,
                stacklevel=2,
            )
        self.failed += why is not None
        return done

    def settings(self) -> dict[str, Any]:
        """What run.json's settings say of the calibration."""
        found = self.calibration
        if found is None:
            return {"calibration": {"source": None, "note": self.note}} if self.note else {}
        return {
            "calibration": {
                "source": self.source,
                "metrics": sorted(found.metrics),
                "judge": found.judge.name,
                "labels": found.labels,
                **({"scoring": found.scoring.name} if found.scoring else {}),
                "created_at": found.created_at,
            }
        }

    def reapply(self, run_dir: RunDirectory) -> int:
        """Give every result ``run_dir`` already holds this calibration's probability (or
        none, without a calibration), durably, before any judge call: a resumed run never
        mixes two calibrations. Recorded in the attempt; the count of results changed.

        The attempt records the calibration's fingerprint once its results are rewritten
        (never before: a run killed midway rolls back): where the last attempt's is this
        one's, every result already has it, and the store is not read again."""
        note = {ATTEMPT_CALIBRATION: self.source, ATTEMPT_FINGERPRINT: self.fingerprint}
        earlier = run_dir.manifest["attempts"][:-1]
        if earlier and earlier[-1].get(ATTEMPT_FINGERPRINT) == self.fingerprint:
            run_dir.note_attempt({**note, ATTEMPT_RECALIBRATED: 0})
            return 0
        return run_dir.rewrite(self, note, counted_as=ATTEMPT_RECALIBRATED)


def checked_calibration(
    given: str | Path | CalibrationFile | None,
    source: str | None,
    judge: Callable[[], Mapping[str, Any]],
    metrics: Sequence[str],
    *,
    force: bool,
) -> Calibrating:
    """The calibration ``given`` (a path, a scoring's name or a file's contents; ``source``
    names a file's contents), read and checked against the run's ``judge`` (a function
    describing it as run.json does: called only when there is a calibration to check, or
    none is given, to find the judge's default) and ``metrics`` before the run opens."""
    if given is None:  # the judge's default, if it has one
        return default_calibration(judge, metrics)
    if given == NO_CALIBRATION:
        return Calibrating(None, None)
    if isinstance(given, CalibrationFile):
        name = source or (given.scoring.name if given.scoring else "given in Python")
        found = checked_calibration_file(given, name)
    else:
        name = str(given)
        found = read_calibration(given)
    differences = found.differences(judge_identity(dict(judge())), metrics)
    if differences and not force:
        raise CalibrationMismatchError(
            f"calibration {name}: {'; '.join(differences)}: its probabilities would not "
            f"hold for this run ({_FORCE})"
        )
    if differences:
        warnings.warn(
            f"calibration {name} applied although {'; '.join(differences)} (forced): its "
            "probabilities may not hold for this run",
            CalibrationWarning,
            stacklevel=3,
        )
    if not any(metric in found for metric in metrics):
        warnings.warn(
            f"calibration {name} covers {', '.join(sorted(found.metrics)) or 'no metric'}, "
            "none of this run's metrics: nothing is calibrated",
            CalibrationWarning,
            stacklevel=3,
        )
    return Calibrating(found, name)


def default_scoring(judge_name: str, metrics: Sequence[str]) -> CalibrationFile | None:
    """The named scoring a run of ``metrics`` by the judge ``judge_name`` is calibrated
    with when it names no calibration (the offline judge's faithfulness), or ``None``."""
    name = DEFAULTS.get(judge_kind(judge_name))
    if name is None:
        return None
    found = read_calibration(name)
    return found if any(m in found for m in metrics) else None


def default_calibration(
    judge: Callable[[], Mapping[str, Any]], metrics: Sequence[str]
) -> Calibrating:
    """The judge's default calibration: its kind's scoring, applied only to the very judge
    it was fitted on (same name and parameters; an offline judge with another embedder or
    parameters gets none, and run.json says why)."""
    described = dict(judge())
    found = default_scoring(str(described.get("name", "")), metrics)
    if found is None or found.scoring is None:
        return Calibrating(None, None)
    name = found.scoring.name
    identity = judge_identity(described)
    if identity != found.judge:
        note = (
            f"the default calibration {name} was fitted on judge {found.judge.name!r} with "
            f"parameters {found.judge.fingerprints}; this run's judge is {identity.name!r} with "
            f"{identity.fingerprints}: no calibrated probability (veracity calibrate fits one "
            "for it)"
        )
        return Calibrating(None, None, note)
    return Calibrating(found, f"{name} (the default for {described.get('name')})")
