"""``veracity label`` on the command line: the address it prints, what it refuses (exit 2,
one line), and the labels it writes read by ``agree`` and ``calibrate``."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner

from tests.label.conftest import people_say
from veracity.cli import label as label_command
from veracity.cli.app import app
from veracity.review.app import Session
from veracity.review.labelfile import LabelFile

runner = CliRunner()
Served = list[tuple[Session, tuple[str, int]]]


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Served:
    """What ``serve`` was given, instead of serving."""
    calls: Served = []

    def record(session: Session, sock: socket.socket) -> None:
        calls.append((session, sock.getsockname()))
        sock.close()

    monkeypatch.setattr(label_command, "serve", record)
    return calls


def test_it_prints_the_address_with_its_token_first_and_binds_loopback(
    run: Path, tmp_path: Path, served: Served
) -> None:
    out = tmp_path / "labels.jsonl"
    result = runner.invoke(app, ["label", str(run), "--out", str(out), "--no-browser"])
    assert result.exit_code == 0, result.output
    url = next(line for line in result.output.splitlines() if "http" in line).split()[-1]
    ((session, (host, port)),) = served
    assert host == "127.0.0.1"
    parts = urlsplit(url)
    assert parts.hostname == "127.0.0.1" and parts.port == port
    assert parse_qs(parts.query)["token"] == [session.token] and len(session.token) >= 32
    assert session.review.order == "random" and "warning" not in result.output


def test_another_host_is_warned_of(run: Path, tmp_path: Path, served: Served) -> None:
    out = tmp_path / "labels.jsonl"
    result = runner.invoke(
        app, ["label", str(run), "--out", str(out), "--no-browser", "--host", "0.0.0.0"]
    )
    assert result.exit_code == 0 and "not loopback only" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--order", "best"], "--order must be one of"),
        (["--order", "disagreement"], "needs a second run"),
    ],
)
def test_bad_flags_are_a_usage_error(
    run: Path, tmp_path: Path, served: Served, args: list[str], message: str
) -> None:
    out = tmp_path / "labels.jsonl"
    result = runner.invoke(app, ["label", str(run), "--out", str(out), "--no-browser", *args])
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output and not served


def test_a_directory_that_is_no_run_is_a_usage_error(tmp_path: Path, served: Served) -> None:
    result = runner.invoke(app, ["label", str(tmp_path), "--out", str(tmp_path / "l.jsonl")])
    assert result.exit_code == 2 and "not a run directory" in result.output


def test_two_runs_are_shown_where_their_judges_differ_most(
    run: Path, tmp_path: Path, served: Served
) -> None:
    out = tmp_path / "labels.jsonl"
    result = runner.invoke(app, ["label", str(run), str(run), "--out", str(out), "--no-browser"])
    assert result.exit_code == 0, result.output
    ((session, _address),) = served
    assert session.review.order == "disagreement"


def test_worst_and_uncertain_orders_rank_by_score(
    run: Path, tmp_path: Path, served: Served
) -> None:
    for order in ("worst", "uncertain"):
        out = tmp_path / f"{order}.jsonl"
        args = ["label", str(run), "--out", str(out), "--no-browser", "--order", order]
        assert runner.invoke(app, args).exit_code == 0
    worst, uncertain = (session.review for session, _address in served)
    scores = [item.score for item in worst.items]
    assert scores == sorted(scores, key=lambda s: float("inf") if s is None else s)
    assert uncertain.items != worst.items or len(set(scores)) == 1


def test_the_labels_written_are_what_agree_and_calibrate_read(
    run: Path, tmp_path: Path, served: Served
) -> None:
    out = tmp_path / "labels.jsonl"
    args = ["label", str(run), "--out", str(out), "--no-browser", "--order", "uncertain"]
    assert runner.invoke(app, args).exit_code == 0
    ((session, _address),) = served
    labels = LabelFile(out)
    for item in session.review.items:
        value = 1.0 if people_say(item.sample_id) == "y" else 0.0
        labels.label(item.key, "ann", value, order=session.review.order)
    labels.undo("ann")  # the last one withdrawn, then given again
    last = session.review.items[-1]
    labels.label(last.key, "ann", 1.0 if people_say(last.sample_id) == "y" else 0.0,
                 order="uncertain")  # fmt: skip
    agreed = runner.invoke(app, ["agree", str(run), "--labels", str(out), "--json",
                                 str(tmp_path / "figures.json")])  # fmt: skip
    assert agreed.exit_code == 0, agreed.output
    assert "not an unbiased estimate" in agreed.output
    figures = json.loads((tmp_path / "figures.json").read_text())
    assert figures["labels"]["items"] == len(session.review.items)
    assert figures["labels"]["bad_rows"] == 0
    fitted = runner.invoke(app, ["calibrate", str(run), "--labels", str(out), "--out",
                                 str(tmp_path / "calibration.json")])  # fmt: skip
    assert fitted.exit_code == 0, fitted.output
    assert (tmp_path / "calibration.json").is_file()
