"""A calibration file is input like any other: damaged, huge, deeply nested, of odd
types or numbers, it is a clear error naming the file, never a traceback or a silent
load."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from veracity.agreement import CalibrationFileError, read_calibration
from veracity.agreement.calibration_file import (
    CALIBRATION_ERROR,
    MAX_BYTES,
    CalibrationFailed,
    with_calibration,
)

GOOD: dict[str, Any] = {
    "veracity_calibration": 1,
    "veracity_version": "0.1.0",
    "created_at": "2026-11-26T00:00:00+00:00",
    "run": "runs/x",
    "labels": "labels.jsonl",
    "judge": {"name": "offline/minilm-v4", "fingerprints": {"params": "abc"}},
    "metrics": {
        "faithfulness": {
            "metric": "faithfulness",
            "target": "faithfulness",
            "n": 40,
            "n_positive": 20,
            "model": {
                "kind": "logistic",
                "signals": ["score", "answer_overlap"],
                "mean": [0.5, 0.7],
                "scale": [0.2, 0.1],
                "coef": [1.5, 2.0],
                "intercept": -0.1,
            },
            "cv": {"folds": 5, "auroc_raw": 0.7, "auroc_calibrated": 0.8},
            "helps": True,
            "verdict": "helps",
        }
    },
}


def write(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "calibration.json"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def changed(path: list[Any], value: Any) -> str:
    data = json.loads(json.dumps(GOOD))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return json.dumps(data)


def test_a_good_file_reads(tmp_path: Path) -> None:
    loaded = read_calibration(write(tmp_path, json.dumps(GOOD)))
    assert loaded.metrics["faithfulness"].model.kind == "logistic"


MODEL = ["metrics", "faithfulness", "model"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "not JSON"),
        (b"\xff\xfe\x00", "not UTF-8"),
        ("{" * 3, "not JSON"),
        ("[" * 100_000 + "]" * 100_000, "not JSON"),
        ("[1, 2]", "is not a veracity calibration file"),
        ('{"hello": 1}', "is not a veracity calibration file"),
        (changed(["veracity_calibration"], 2), "veracity_calibration"),
        (changed([*MODEL, "coef"], [1.0]), "one number per signal"),
        (changed([*MODEL, "signals"], ["score", "rm -rf"]), "unknown signal"),
        (changed([*MODEL, "scale"], [0.0, 1.0]), "scale must be positive"),
        (changed([*MODEL, "kind"], "neural"), "kind"),
        (changed([*MODEL, "intercept"], "0.1"), "intercept"),
        (changed(["metrics", "faithfulness", "n"], -1), "n"),
        (changed(["surprise"], True), "surprise"),
        (
            changed(MODEL, {"kind": "isotonic", "x": [0, 0.5, 0.4], "y": [0, 0.5, 1]}),
            "non-decreasing",
        ),
        (changed(MODEL, {"kind": "isotonic", "x": [0, 1], "y": [0, 2]}), "y"),
        (
            changed(
                ["metrics", "context_recall"],
                GOOD["metrics"]["faithfulness"] | {"metric": "context_recall"},
            ),
            "not signals of context_recall",
        ),
    ],
)
def test_a_bad_file_is_a_located_error(tmp_path: Path, content: str | bytes, expected: str) -> None:
    path = write(tmp_path, content)
    with pytest.raises(CalibrationFileError) as caught:
        read_calibration(path)
    message = str(caught.value)
    assert str(path) in message
    assert expected in message


def test_nan_and_infinity_are_not_numbers(tmp_path: Path) -> None:
    text = changed([*MODEL, "intercept"], 0.5).replace('"intercept": 0.5', '"intercept": NaN')
    with pytest.raises(CalibrationFileError, match="NaN is not a number"):
        read_calibration(write(tmp_path, text))
    text = changed([*MODEL, "intercept"], 0.5).replace('"intercept": 0.5', '"intercept": 1e999')
    with pytest.raises(CalibrationFileError, match="intercept"):
        read_calibration(write(tmp_path, text))


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, changed(["run"], "x"))
    with path.open("ab") as handle:
        handle.truncate(MAX_BYTES + 1)
    with pytest.raises(CalibrationFileError, match=r"larger than .*not a calibration file"):
        read_calibration(path)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_device_is_refused_having_read_no_more_than_the_limit() -> None:
    """``stat`` says 0 bytes of /dev/zero: the read itself is bounded, not the size."""
    with pytest.raises(CalibrationFileError, match=f"/dev/zero: larger than {MAX_BYTES:,}"):
        read_calibration("/dev/zero")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_pipe_of_many_megabytes_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    pipe = tmp_path / "calibration.json"
    os.mkfifo(pipe)
    written = []

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), pipe.open("wb") as handle:
            for _ in range(64):  # 64 MiB offered; the reader stops after the limit
                handle.write(b" " * (1 << 20))
                written.append(1)

    writer = threading.Thread(target=feed)
    writer.start()
    with pytest.raises(CalibrationFileError, match="larger than"):
        read_calibration(pipe)
    writer.join(timeout=30)
    assert not writer.is_alive()
    assert len(written) < 64


def test_a_missing_file_and_a_directory_are_named(tmp_path: Path) -> None:
    with pytest.raises(CalibrationFileError, match="not found"):
        read_calibration(tmp_path / "nope.json")
    with pytest.raises(CalibrationFileError, match="cannot read"):
        read_calibration(tmp_path)


def test_control_characters_in_names_survive_as_data(tmp_path: Path) -> None:
    loaded = read_calibration(write(tmp_path, changed(["run"], "runs/\x1b[2Jx")))
    assert loaded.run == "runs/\x1b[2Jx"


def test_concurrent_readers_see_the_same_file(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(GOOD))
    seen: list[object] = []

    def read() -> None:
        seen.append(read_calibration(path))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and all(s == seen[0] for s in seen)


def test_a_result_with_damaged_signals_gets_no_calibrated_probability(tmp_path: Path) -> None:
    """A signal missing from a result's details is never filled in with a made-up value."""
    from veracity.agreement.signals import MissingSignals, signals_of
    from veracity.types import ResultRecord, Status

    record = ResultRecord(
        metric="faithfulness", score=0.8, status=Status.SCORED, reason="r",
        details={"claims": [], "local_signals": {}}, sample_id="s", system=None, iteration=0,
    )  # fmt: skip
    with pytest.raises(MissingSignals, match="answer_overlap"):
        signals_of(record)
    loaded = read_calibration(write(tmp_path, json.dumps(GOOD)))
    with pytest.raises(CalibrationFailed, match="answer_overlap"):
        loaded.calibrated(record)
    # Applied, it keeps its raw score and says why it has no probability.
    applied = with_calibration(record, loaded)
    assert applied.score == 0.8 and applied.calibrated is None
    assert "answer_overlap" in applied.details[CALIBRATION_ERROR]


def test_a_result_written_before_the_yes_no_signal_gets_it_from_its_sample_only() -> None:
    """An answer with claims is no bare yes or no; one without, written before the signal
    existed, has it computed from its sample, and without the sample it is missing."""
    from veracity.agreement.signals import MissingSignals, signal_matrix, signals_of
    from veracity.types import ResultRecord, Sample, Status

    def record(claims: list[dict[str, object]]) -> ResultRecord:
        return ResultRecord(
            metric="faithfulness", score=1.0, status=Status.SCORED, reason="r",
            details={"claims": claims, "local_signals": {"answer_overlap": 0.0}},
            sample_id="s", system=None, iteration=0,
        )  # fmt: skip

    claimed = record([{"claim": "The tower is in Paris.", "verdict": "supported"}])
    assert (signals_of(claimed) or {})["yes_no_reply"] == 0.0
    bare = record([])
    signals = signals_of(bare)
    assert signals is not None and "yes_no_reply" not in signals
    with pytest.raises(MissingSignals, match="yes_no_reply"):
        signal_matrix([[bare]], ["score", "yes_no_reply"])
    sample = Sample(id="s", question="Is the tower in Paris?", contexts=["It is."], answer="Yes.")
    assert (signals_of(bare, sample) or {})["yes_no_reply"] == 1.0


def test_the_abstention_signal_is_an_abstention_not_courtesy() -> None:
    from veracity.agreement.signals import signals_of
    from veracity.types import ResultRecord, Status

    def abstaining(said: object) -> float:
        details: dict[str, object] = {
            "claims": [],
            "local_signals": {"answer_overlap": 0.0, "yes_no_reply": False},
        }
        if said is not None:
            details["abstention"] = said
        record = ResultRecord(
            metric="faithfulness", score=1.0, status=Status.NO_CLAIMS, reason="r",
            details=details, sample_id="s", system=None, iteration=0,
        )  # fmt: skip
        return (signals_of(record) or {})["abstention"]

    assert abstaining("i don't have information") == 1.0
    assert abstaining("unknown") == 1.0
    assert abstaining("thanks") == 0.0
    assert abstaining(None) == 0.0
    assert abstaining(["i don't know"]) == 0.0  # damaged details: no abstention read into it
