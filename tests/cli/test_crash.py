"""Issue 48 item 25: an error no command handles exits 4 (never 1, the code of a quality
gate) with one line naming what failed and where its full report was written."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from veracity.cli.app import main

KEY = "sk-test-crash-0123456789abcdef"


def _crash(*_: object, **__: object) -> None:
    raise RuntimeError(f"the loader broke with key {KEY}\nsecond line")


def run_main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["veracity", *args])
    with pytest.raises(SystemExit) as stopped:
        main()
    return int(stopped.value.code or 0)


def test_an_unhandled_error_exits_4_with_one_line_and_a_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # TMPDIR is read again
    monkeypatch.setattr("veracity.report.run_data.load_run", _crash)

    code = run_main(monkeypatch, "report", str(tmp_path))

    err = capsys.readouterr().err
    assert code == 4
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and KEY not in err
    assert "RuntimeError" in lines[0] and "veracity/cli/report.py:" in lines[0]
    found = re.search(r"full report in (\S+)", lines[0])
    assert found is not None, lines[0]
    report = Path(found.group(1))
    assert report.parent == tmp_path and report.is_file()
    text = report.read_text(encoding="utf-8")
    assert "Traceback" in text and "RuntimeError: the loader broke" in text
    assert "_crash" in text  # the frame that raised
    assert KEY not in text


def test_typer_and_usage_exits_are_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert run_main(monkeypatch, "report", str(tmp_path / "missing")) == 2
    assert run_main(monkeypatch, "no-such-command") == 2
    assert run_main(monkeypatch, "version") == 0


def test_ctrl_c_still_exits_130(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def interrupt(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("veracity.report.run_data.load_run", interrupt)
    assert run_main(monkeypatch, "report", str(tmp_path)) == 130
