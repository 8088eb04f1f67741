"""Hostile run files against the readers and printers of runs: escape sequences, formula
cells, damaged files, stdout that cannot be written."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.in_process import veracity
from veracity import evaluate
from veracity.cli.app import app
from veracity.config import RunConfig

ESC = "\x1b"
# Screen clear, window title, hyperlink, cursor up + erase line (a faked "all passed").
HOSTILE = (f"{ESC}[2J", f"{ESC}]0;pwned{ESC}\\", f"{ESC}]8;;http://x{ESC}\\", f"{ESC}[1A{ESC}[2K")
FORMULAS = ('=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\tcell", "\rcell")


def _rows(n: int, text: str = "") -> list[dict[str, object]]:
    return [
        {
            "id": f"s{i}{text}",
            "question": "Where is the tower?",
            "contexts": ["The grey tower is in Paris."],
            "answers": {f"A{text}": "It is in Paris.", "B": f"It is in Rome.{text}"},
            "question_type": f"lookup{text}" if i % 2 else "other",
        }
        for i in range(n)
    ]


def _run(path: Path, rows: list[dict[str, object]]) -> Path:
    evaluate(rows, "faithfulness", config=RunConfig(cache=False), judge="offline", out=path)
    return path


def _cli(*args: str) -> tuple[int, str, str]:
    done = veracity(*args)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("payload", HOSTILE)
def test_report_and_compare_print_no_escape_sequence(tmp_path: Path, payload: str) -> None:
    a = _run(tmp_path / "a", _rows(4, payload))
    b = _run(tmp_path / "b", _rows(4, payload))
    for args in (("report", str(a)), ("compare", str(a), str(b)), ("compare", str(a),
                 "--systems", f"A{payload},B")):  # fmt: skip
        code, out, err = _cli(*args)
        assert code == 0, err
        assert ESC not in out + err, args
    (a / "summary.json").unlink()  # rebuilt from the results: the same holds
    code, out, err = _cli("report", str(a))
    assert code == 0 and ESC not in out + err


def test_error_messages_print_no_escape_sequence(tmp_path: Path) -> None:
    missing = tmp_path / f"gone{ESC}[2J{ESC}]0;pwned{ESC}\\"
    for args in (("report", str(missing)), ("export", str(missing)),
                 ("compare", str(missing), str(missing))):  # fmt: skip
        code, out, err = _cli(*args)
        assert code == 2 and "Traceback" not in err, err
        assert ESC not in out + err and "\\x1b[2J" in err, args


def test_csv_export_neutralises_formula_cells(tmp_path: Path) -> None:
    rows = _rows(len(FORMULAS))
    for row, formula in zip(rows, FORMULAS, strict=True):
        row["id"], row["question_type"] = formula, formula
    run = _run(tmp_path / "run", rows)
    code, _, err = _cli("export", str(run), "--out", str(tmp_path / "safe.csv"))
    assert code == 0, err
    with (tmp_path / "safe.csv").open(newline="", encoding="utf-8") as handle:
        cells = [cell for row in csv.reader(handle) for cell in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert '\'=HYPERLINK("http://x")' in cells and "'-2+3" in cells
    code, _, err = _cli("export", str(run), "--raw-cells", "--out", str(tmp_path / "raw.csv"))
    assert code == 0, err
    with (tmp_path / "raw.csv").open(newline="", encoding="utf-8") as handle:
        ids = {row["sample_id"] for row in csv.DictReader(handle)}
    assert ids == set(FORMULAS)


def test_csv_export_keeps_negative_numbers_numbers() -> None:
    from veracity.report.export import safe_cell

    assert safe_cell(-0.5) == -0.5 and safe_cell(-3) == -3
    assert safe_cell("-0.5") == "'-0.5"


@pytest.mark.parametrize(
    "field, value",
    [("judge", "x"), ("dataset", 5), ("metrics", 5), ("settings", []), ("attempts", "x"),
     ("bad_rows", "x"), ("status", 3), ("metrics", [1, {}]), ("judge", {"prompts": 7})],
)  # fmt: skip
def test_html_report_of_a_damaged_manifest(tmp_path: Path, field: str, value: object) -> None:
    from veracity.store import RunFileWarning

    run = _run(tmp_path / "run", _rows(2))
    manifest = json.loads((run / "run.json").read_text())
    manifest[field] = value
    (run / "run.json").write_text(json.dumps(manifest))
    # A field of the wrong type, or with a part of the wrong type inside (the judge's
    # prompts), is named (once a process) and left out.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for summary in (True, False):
            if not summary:
                (run / "summary.json").unlink()
            result = CliRunner().invoke(app, ["report", str(run), "--html"])
            assert result.exit_code == 0, (field, result.output, result.exception)
            assert (run / "report.html").is_file()
    damaged = [str(w.message) for w in caught if issubclass(w.category, RunFileWarning)]
    assert len(damaged) == 1, [str(w.message) for w in caught]
    assert all(f"wrong type: {field}" in message for message in damaged)


def test_duplicated_result_lines_count_once_everywhere(tmp_path: Path) -> None:
    run = _run(tmp_path / "run", _rows(3))
    lines = (run / "results.jsonl").read_text().splitlines(keepends=True)
    (run / "results.jsonl").write_text("".join(lines + lines[:2]))
    (run / "summary.json").unlink()
    code, out, err = _cli("report", str(run))
    assert code == 0, err
    assert f"{len(lines)}/{len(lines)}" in out and f"{len(lines) + 2}/" not in out
    assert "2 duplicate" in err
    code, out, err = _cli("compare", str(run), str(run))
    assert code == 0 and "2 duplicate" in err


def test_report_and_compare_into_a_full_stdout(tmp_path: Path) -> None:
    run = _run(tmp_path / "run", _rows(2))
    for args in (("report", str(run)), ("compare", str(run), str(run))):
        with Path("/dev/full").open("w") as full:
            done = subprocess.run(
                [sys.executable, "-m", "veracity", *args],
                check=False, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
            )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and "standard output" in done.stderr


def test_report_and_compare_into_a_closed_pipe(tmp_path: Path) -> None:
    run = _run(tmp_path / "run", _rows(2))
    for args in (("report", str(run)), ("compare", str(run), str(run))):
        read, write = os.pipe()
        os.close(read)  # the reader is gone before the first line: | head -0
        done = subprocess.run(
            [sys.executable, "-m", "veracity", *args],
            check=False, stdout=write, stderr=subprocess.PIPE, text=True, timeout=120,
        )  # fmt: skip
        os.close(write)
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""


def test_all_bad_dataset_leaves_a_failed_run(tmp_path: Path) -> None:
    dataset = tmp_path / "bad.jsonl"
    dataset.write_text('{"id": "x"}\n{"question": 5}\n')
    out = tmp_path / "run"
    code, _, err = _cli("run", str(dataset), "--judge", "offline", "--out", str(out), "--no-cache")
    assert code == 2, err
    assert json.loads((out / "run.json").read_text())["status"] == "failed"
    code, _, err = _cli("report", str(out))
    assert code == 2 and "no result" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: s["metrics"]["faithfulness"]["overall"].update(mean="x"),
        lambda s: s.update(analysis={"severity": 5}),
        lambda s: s.update(usage=3),
        lambda s: s["metrics"]["faithfulness"].update(threshold={"source": "given", "value": "x"}),
    ],
)
def test_a_damaged_summary_is_rebuilt_not_a_crash(tmp_path: Path, damage: Any) -> None:
    run = _run(tmp_path / "run", _rows(2))
    summary = json.loads((run / "summary.json").read_text())
    damage(summary)
    (run / "summary.json").write_text(json.dumps(summary))
    for html in ((), ("--html",)):
        code, out, err = _cli("report", str(run), *html)
        assert code == 0 and "Traceback" not in err, err
        assert err.count("summary.json holds values of a wrong type") == 1 and "4/4" in out
