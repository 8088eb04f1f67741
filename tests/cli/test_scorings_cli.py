"""``veracity run --calibration NAME``: a scoring veracity ships, chosen by name."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.agreement.test_scorings import OFFLINE, rows
from veracity.cli import app


def test_an_unknown_name_is_a_message_listing_the_scorings(cli: CliRunner, tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(rows()[0]) + "\n")
    args = ["run", str(data), "--judge", "offline", "--out", str(tmp_path / "run")]
    result = cli.invoke(app, [*args, "--calibration", "offline-combind"])
    assert result.exit_code == 2, result.output
    assert OFFLINE in result.output and "Traceback" not in result.output


def test_the_cli_applies_a_named_scoring_and_gates_on_it(cli: CliRunner, tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows()[:2]))
    result = cli.invoke(app, ["run", str(data), "--judge", "offline", "--out",
                              str(tmp_path / "run"), "--calibration", OFFLINE,
                              "--threshold", "faithfulness:calibrated=0.99"])  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "faithfulness:calibrated ≥ 0.99: NOT met" in result.output


def test_a_scoring_for_the_other_kind_of_judge_is_exit_2_before_any_run(
    cli: CliRunner, tmp_path: Path
) -> None:
    from veracity.agreement import read_calibration

    offline = read_calibration(OFFLINE)
    assert offline.scoring is not None
    for_llm = offline.model_copy(
        update={"scoring": offline.scoring.model_copy(update={"judges": "llm"})}
    )
    scoring = tmp_path / "for-llm.json"
    scoring.write_text(for_llm.model_dump_json())
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(rows()[0]) + "\n")
    out = tmp_path / "run"
    args = ["run", str(data), "--judge", "offline", "--out", str(out)]
    result = cli.invoke(app, [*args, "--calibration", str(scoring)])
    assert result.exit_code == 2, result.output
    assert "is for LLM judges" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not (out / "results.jsonl").exists()
