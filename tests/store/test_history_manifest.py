"""Prompt fingerprints of samples with history: recorded, held to on resume, and a run
directory of an earlier veracity (which did not record them) still resumed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.report.factory import rec
from veracity.store import RunDirectory, RunDirectoryError

JUDGE: dict[str, object] = {"name": "j", "prompts": {"claim_extraction": "a"}}
EARLIER: dict[str, object] = {
    "dataset": {"sha256": "x"},
    "judge": JUDGE,
    "metrics": ["faithfulness"],
}


def recording(fingerprint: str) -> dict[str, object]:
    """A manifest that records the prompts for samples with history (``fingerprint``)."""
    return EARLIER | {"judge": JUDGE | {"conversation_prompts": {"claim_extraction": fingerprint}}}


NOW = recording("b")


def with_one_result(path: Path, manifest: dict[str, object]) -> None:
    store = RunDirectory(path)
    store.open(manifest)
    store.add(rec(1.0, sample_id="a"), 0)
    store.close()


def test_a_run_of_an_earlier_veracity_is_resumed(tmp_path: Path) -> None:
    with_one_result(tmp_path / "run", EARLIER)
    again = RunDirectory(tmp_path / "run")
    again.open(NOW)
    assert again.resumed_results == 1
    again.close()


def test_other_prompts_for_samples_with_history_are_not_resumed_into(tmp_path: Path) -> None:
    with_one_result(tmp_path / "run", NOW)
    changed = recording("c")
    with pytest.raises(RunDirectoryError, match="different judge conversation_prompts"):
        RunDirectory(tmp_path / "run").open(changed)
    # Nor, once recorded, is a run without them (another judge, an older veracity).
    with pytest.raises(RunDirectoryError, match="different judge conversation_prompts"):
        RunDirectory(tmp_path / "run").open(EARLIER)
