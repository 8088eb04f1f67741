"""``veracity export`` (issue 17 item 5): a run's results as flat CSV, JSON Lines and
Parquet, the columns of ``to_pandas()``, the details as JSON text."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner, Result

from tests.helpers import claims_reply, verdicts_reply
from veracity import EvaluationResult, LLMJudge, ScriptedChat, evaluate
from veracity.cli.app import app
from veracity.config import RunConfig
from veracity.report.table import RESULT_COLUMNS
from veracity.transport.pricing import Price

READ = {
    "csv": lambda path: pd.read_csv(path, keep_default_na=False, na_values=[""]),
    "jsonl": lambda path: pd.read_json(path, lines=True, dtype=False, precise_float=True),
    "parquet": pd.read_parquet,
}


def respond(messages: Sequence[Any], output: Any) -> str:
    prompt = messages[-1].content
    if getattr(output, "name", "") == "claim_extraction":
        return claims_reply("It is green." if "green" in prompt else "It is in Paris.")
    if "green" in prompt:
        return verdicts_reply(("It is green.", "contradicted", "it is grey", "grey"))
    return verdicts_reply(("It is in Paris.", "supported", "stated", "Paris"))


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, EvaluationResult]:
    rows = [
        {
            "id": f"s{i}",
            "question": "Where is the tower, and what colour?",
            "contexts": ["The grey tower is in Paris."],
            "answers": {"A": "It is in Paris.", "B": "It is green." if i else "In Paris."},
            "question_type": "lookup" if i else None,
        }
        for i in range(3)
    ]
    result = evaluate(
        rows,
        "faithfulness",
        LLMJudge(ScriptedChat(responder=respond)),
        config=RunConfig(
            prices={"scripted": Price(1.0, 2.0)},
            iterations=2,
            cache=False,  # every call is made and paid for
        ),
        out=tmp_path / "run",
    )
    return tmp_path / "run", result


def invoke(runner: CliRunner, *args: str) -> Result:
    return runner.invoke(app, ["export", *args])


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_each_format_holds_the_rows_of_to_pandas(
    cli: CliRunner, run: tuple[Path, EvaluationResult], fmt: str
) -> None:
    run_dir, result = run
    done = invoke(cli, str(run_dir), "--format", fmt)
    assert done.exit_code == 0, done.output
    path = run_dir / f"results.flat.{fmt}"
    assert f"exported 12 result(s) to {path}" in done.stdout
    exported = READ[fmt](path)
    assert list(exported.columns) == list(RESULT_COLUMNS)
    assert exported["details"].map(type).eq(str).all()  # JSON text, one cell
    exported["details"] = exported["details"].map(json.loads)

    expected = result.to_pandas().drop(columns=["question", "answer"])
    key = ["sample_id", "system", "iteration"]
    # Sorted alike, floats to 12 digits (a CSV parser may be one unit off in the last).
    exported = exported.sort_values(key, ignore_index=True).round(12)
    expected = expected.sort_values(key, ignore_index=True).round(12)
    assert exported.astype(object).where(exported.notna(), None).to_dict("records") == (
        expected.astype(object).where(expected.notna(), None).to_dict("records")
    )
    assert sorted(set(exported["status"])) == ["scored"]
    assert set(exported["score"]) == {0.0, 1.0}
    assert (exported["cost_usd"] > 0).any()
    tokens = exported["usage_input_tokens"] * 1.0 + exported["usage_output_tokens"] * 2.0
    assert (exported["cost_usd"] - tokens / 1e6).abs().max() < 1e-12
    assert set(exported["iteration"]) == {0, 1}


def test_the_export_goes_to_the_file_given_or_to_stdout(
    cli: CliRunner, run: tuple[Path, EvaluationResult], tmp_path: Path
) -> None:
    run_dir, _ = run
    done = invoke(cli, str(run_dir), "--format", "jsonl", "--out", str(tmp_path / "x.jsonl"))
    assert done.exit_code == 0, done.output
    assert len((tmp_path / "x.jsonl").read_text().splitlines()) == 12
    done = invoke(cli, str(run_dir), "--out", "-")
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[0] == ",".join(RESULT_COLUMNS) and len(lines) == 13


def test_parquet_without_pyarrow_names_the_extra(
    cli: CliRunner, run: tuple[Path, EvaluationResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)  # importing it raises ImportError
    done = invoke(cli, str(run[0]), "--format", "parquet")
    assert done.exit_code == 2
    assert "--format parquet needs pyarrow: pip install 'veracity[parquet]'" in done.stderr
    assert not list(run[0].glob("*parquet*"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "xlsx"], "--format must be one of csv, jsonl, parquet, not 'xlsx'"),
        (["--out", "{run}/results.jsonl"], "--out would overwrite the run's own results.jsonl"),
        (["--format", "parquet", "--out", "-"], "--format parquet writes a file: give --out"),
        (["--out", "{run}/missing/x.csv"], "cannot write {run}/missing/x.csv"),
    ],
)
def test_a_bad_request_is_exit_2_with_a_message(
    cli: CliRunner, run: tuple[Path, EvaluationResult], args: list[str], message: str
) -> None:
    run_dir = str(run[0])
    done = invoke(cli, run_dir, *(arg.format(run=run_dir) for arg in args))
    assert done.exit_code == 2
    assert message.format(run=run_dir) in done.stderr
    assert "Traceback" not in done.output


def test_a_directory_without_results_or_with_a_bad_line_is_named(
    cli: CliRunner, run: tuple[Path, EvaluationResult], tmp_path: Path
) -> None:
    done = invoke(cli, str(tmp_path / "nowhere"))
    assert done.exit_code == 2
    assert f"not a run directory (no results.jsonl): {tmp_path / 'nowhere'}" in done.stderr
    results = run[0] / "results.jsonl"
    results.write_text(results.read_text() + "{not json}\n")
    done = invoke(cli, str(run[0]))
    assert done.exit_code == 2
    assert f"{results}:13: invalid JSON" in done.stderr
    assert not (run[0] / "results.flat.csv").exists()  # all or nothing
