"""``veracity agree`` and ``veracity calibrate`` on run directories written by real runs,
and ``veracity run --calibration``: outputs, files, and every error a message with
exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from tests.agreement import scenario
from veracity.agreement import CalibrationWarning
from veracity.cli.agree import agree, calibrate
from veracity.cli.common import Command
from veracity.cli.run import run as run_command


def invoke(runner: CliRunner, *args: str) -> Result:
    app = typer.Typer()
    app.command(cls=Command)(agree)
    app.command()(calibrate)
    app.command("run")(run_command)
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("agree") / "run"
    scenario.run(out)
    return out


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("labels") / "labels.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in scenario.labels()))
    return path


def test_agree_prints_the_figures_and_writes_json_markdown_and_html(
    cli: CliRunner, run_dir: Path, labels: Path, tmp_path: Path
) -> None:
    result = invoke(
        cli, "agree", str(run_dir), "--labels", str(labels), "--json", str(tmp_path / "a.json"),
        "--markdown", str(tmp_path / "a.md"), "--html", "--resamples", "200",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "AUROC" in result.output and "0.750" in result.output
    assert "labelled bad, scored highest" in result.output
    figures = json.loads((tmp_path / "a.json").read_text())
    assert figures["metrics"][0][0]["overall"]["figures"]["auroc"]["value"] == pytest.approx(0.75)
    assert (
        "| AUROC" in (tmp_path / "a.md").read_text() or "AUROC |" in (tmp_path / "a.md").read_text()
    )
    page = (run_dir / "agreement.html").read_text()
    assert "<svg" in page and "0.750" in page


def test_agree_pairs_two_runs(cli: CliRunner, run_dir: Path, labels: Path) -> None:
    result = invoke(cli, "agree", str(run_dir), str(run_dir), "--labels", str(labels),
                    "--resamples", "200")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "B − A" in result.output


def test_calibrate_writes_a_file_that_run_applies(
    cli: CliRunner, run_dir: Path, labels: Path, tmp_path: Path
) -> None:
    out = tmp_path / "calibration.json"
    result = invoke(cli, "calibrate", str(run_dir), "--labels", str(labels), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "helps" in result.output and out.is_file()
    # The console names the model the file holds.
    for entry in json.loads(out.read_text())["metrics"].values():
        kind, signals = entry["model"]["kind"], entry["model"]["signals"]
        named = (
            "isotonic on the score"
            if kind == "isotonic"
            else f"logistic regression on {signals[0]} alone"
            if len(signals) == 1
            else "logistic regression on its signals"
        )
        assert named in " ".join(result.output.split())
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in scenario.rows(3)))
    # The CLI run uses the offline judge here: another judge than the file's, so it is
    # refused unless forced, and forced it warns.
    with pytest.warns(CalibrationWarning, match="forced"):
        applied = invoke(cli, "run", str(data), "--judge", "offline", "--out",
                         str(tmp_path / "r"), "--calibration", str(out), "--force")  # fmt: skip
    assert applied.exit_code == 0, applied.output
    assert "calibrated P(people call it good)" in applied.output
    lines = (tmp_path / "r" / "results.jsonl").read_text().splitlines()
    assert all(json.loads(line)["calibrated"] is not None for line in lines)
    # Every report says it: the Markdown summary, the HTML summary and each result's card.
    from veracity.report.html import write_report
    from veracity.report.markdown import markdown_summary
    from veracity.report.run_data import load_run

    assert "calibrated P\\(people call it good\\)" in markdown_summary(load_run(tmp_path / "r"))
    page = write_report(tmp_path / "r").read_text()
    assert "calibrated P(people call it good)" in page and '"calibrated":0.' in page


def test_calibrate_writes_nothing_where_it_cannot_help_unless_forced(
    cli: CliRunner, run_dir: Path, tmp_path: Path
) -> None:
    # People agree with the judge on every item: the raw score cannot be bettered.
    perfect = tmp_path / "perfect.csv"
    perfect.write_text(
        "id,faithfulness\n"
        + "".join(f"s{i},{int(scenario.kind_of(i) != 'wrong')}\n" for i in range(30))
    )
    out = tmp_path / "c.json"
    result = invoke(cli, "calibrate", str(run_dir), "--labels", str(perfect), "--out", str(out))
    assert result.exit_code == 2, result.output  # `calibrate … && run …` stops here
    assert "nothing written" in result.output and not out.exists()
    forced = invoke(cli, "calibrate", str(run_dir), "--labels", str(perfect), "--out", str(out),
                    "--force")  # fmt: skip
    assert forced.exit_code == 0 and out.is_file()
    # Run again unforced: the older file goes, so no run applies a stale calibration.
    again = invoke(cli, "calibrate", str(run_dir), "--labels", str(perfect), "--out", str(out))
    assert again.exit_code == 2 and not out.exists()
    assert f"the older {out} was removed" in " ".join(again.output.split())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["agree", "{missing}", "--labels", "{labels}"], "not a run directory"),
        (["agree", "{run}", "--labels", "{missing}"], "not found"),
        (["agree", "{run}", "--labels", "{bad}"], "bad.jsonl:2: invalid JSON"),
        (["agree", "{run}", "--labels", "{other}"], "no metric of the run has labels"),
        (["agree", "{run}", "--labels", "{labels}", "--scale", "faithfulness=4:1"], "scale"),
        (["agree", "{run}"], "give --labels"),
        (["agree", "{run}", "--labels", "{grades}"], "--scale faithfulness=1:4"),
        (["calibrate", "{run}", "--labels", "{grades}", "--out", "{out}"], "look like grades"),
        (["calibrate", "{run}", "--labels", "{other}", "--out", "{out}"], "no metric"),
        (["run", "{data}", "--judge", "offline", "--calibration", "{bad}"], "calibration"),
        (["run", "{data}", "--judge", "offline", "--calibration", "{missing}"], "not found"),
    ],
)
def test_every_mistake_is_a_message_with_exit_2(
    cli: CliRunner, run_dir: Path, labels: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "s1"}\nnot json\n')
    other = tmp_path / "other.jsonl"
    other.write_text('{"id": "s1", "answer_relevance": true}\n')
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(scenario.rows(1)[0]) + "\n")
    # Grades 1–4 and no --scale: read as yes/no, the worst grade would count as good.
    grades = tmp_path / "grades.csv"
    grades.write_text("id,faithfulness\n" + "".join(f"s{i},{1 + i % 4}\n" for i in range(8)))
    names = {"missing": tmp_path / "missing", "labels": labels, "bad": bad, "other": other,
             "run": run_dir, "out": tmp_path / "o.json", "data": data,
             "grades": grades}  # fmt: skip
    result = invoke(cli, *[a.format(**{k: str(v) for k, v in names.items()}) for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_gate_on_the_calibrated_probability(
    cli: CliRunner, run_dir: Path, labels: Path, tmp_path: Path
) -> None:
    out = tmp_path / "calibration.json"
    invoke(cli, "calibrate", str(run_dir), "--labels", str(labels), "--out", str(out))
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in scenario.rows(3)))
    common = ["run", str(data), "--judge", "offline", "--calibration", str(out), "--force"]
    with pytest.warns(CalibrationWarning):
        missed = invoke(cli, *common, "--out", str(tmp_path / "a"),
                        "--threshold", "faithfulness:calibrated=0.99")  # fmt: skip
    assert missed.exit_code == 1, missed.output
    assert "faithfulness:calibrated ≥ 0.99: NOT met" in missed.output
    with pytest.warns(CalibrationWarning):
        met = invoke(cli, *common, "--out", str(tmp_path / "b"),
                     "--threshold", "faithfulness:calibrated=0.01")  # fmt: skip
    assert met.exit_code == 0, met.output
    refused = invoke(cli, "run", str(data), "--judge", "offline", "--out", str(tmp_path / "c"),
                     "--calibration", "none",
                     "--threshold", "faithfulness:calibrated=0.5")  # fmt: skip
    assert refused.exit_code == 2
    assert "needs calibrated probabilities" in refused.output


def test_agree_into_a_closed_pipe_or_a_full_stdout(run_dir: Path, labels: Path) -> None:
    """As report and compare: a reader that stops early is no error, a full stdout is
    exit 2 with a message; never a traceback."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "veracity", "agree", str(run_dir), "--labels", str(labels),
               "--resamples", "100"]  # fmt: skip
    piped = subprocess.run(
        f"{subprocess.list2cmdline(command)} | head -1", shell=True, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    assert "Traceback" not in piped.stderr
    with Path("/dev/full").open("w") as full:
        result = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True,
                                check=False)  # fmt: skip
    assert result.returncode == 2
    assert "cannot write to standard output" in result.stderr
    assert "Traceback" not in result.stderr


def test_agree_on_grades_whose_annotators_split_between_two(
    cli: CliRunner, run_dir: Path, tmp_path: Path
) -> None:
    """Two annotators grade s0 3 and 4 (median 3.5): agree works as calibrate does, the
    half step counting half at each grade for weighted κ."""
    rows = []
    for i in range(30):
        grade = 4 if scenario.kind_of(i) == "right" else 1
        second = 3 if i == 0 else grade
        rows += [{"id": f"s{i}", "annotator": "a", "faithfulness": grade},
                 {"id": f"s{i}", "annotator": "b", "faithfulness": second}]  # fmt: skip
    path = tmp_path / "grades.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "figures.json"
    result = invoke(cli, "agree", str(run_dir), "--labels", str(path), "--scale",
                    "faithfulness=1:4", "--resamples", "200", "--json", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    overall = json.loads(out.read_text())["metrics"][0][0]["overall"]["figures"]
    assert overall["n"] == 30 and overall["weighted_kappa"]["value"] is not None
    assert overall["spearman"]["value"] is not None
    # A vote that is no whole grade is a located bad row, not a crash.
    path.write_text(path.read_text() + json.dumps({"id": "s1", "annotator": "c",
                                                    "faithfulness": 2.5}) + "\n")  # fmt: skip
    halves = invoke(cli, "agree", str(run_dir), "--labels", str(path), "--scale",
                    "faithfulness=1:4", "--resamples", "100")  # fmt: skip
    assert halves.exit_code == 0, halves.output
    assert "2.5 is not a whole grade" in " ".join(halves.output.split())


def test_labels_of_other_ids_say_so_with_ids_of_each_side(
    cli: CliRunner, run_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "other-ids.csv"
    path.write_text("id,faithfulness\nq1,1\nq2,0\nq3,1\nq4,0\n")
    for command in ("agree", "calibrate"):
        result = invoke(cli, command, str(run_dir), "--labels", str(path), "--out",
                        str(tmp_path / "c.json")) if command == "calibrate" else invoke(
            cli, command, str(run_dir), "--labels", str(path))  # fmt: skip
        assert result.exit_code == 2, result.output
        said = " ".join(result.output.split())
        assert "none of the 4 labelled sample id(s) is a sample the run scored" in said
        assert "labels: 'q1', 'q2', 'q3', … (4 in all)" in said
        assert "run: 's0', 's1', 's2', … (30 in all)" in said
        assert "no metric of the run has labels" not in said


def test_a_small_sample_is_flagged_and_agree_ends_with_the_next_step(
    cli: CliRunner, run_dir: Path, tmp_path: Path
) -> None:
    # Twelve items, the contradicted ones against the right ones: the score separates
    # them perfectly, so every resample does too and AUROC's interval is 1.00–1.00.
    rows = [{"id": f"s{i}", "faithfulness": scenario.kind_of(i) == "right"}
            for i in range(18) if scenario.kind_of(i) != "swapped"]  # fmt: skip
    path = tmp_path / "few.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "few.json"
    result = invoke(cli, "agree", str(run_dir), "--labels", str(path), "--resamples", "300",
                    "--json", str(out), "--markdown", str(tmp_path / "few.md"))  # fmt: skip
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "few labelled items (all: 12; below 30)" in said
    assert "an interval of zero width (e.g. 1.00–1.00)" in said
    # The count of resamples is the one asked for (the docs' 1,000 by default).
    assert "(300 resamples of items)" in said
    assert said.endswith(
        f"next: veracity calibrate {run_dir} --labels {path} --out calibration.json — fits a "
        "map from each result's signals to P(people call it good), cross-validated, and says "
        "whether it beats the raw score"
    )
    metric = json.loads(out.read_text())["metrics"][0][0]
    assert metric["overall"]["figures"]["resamples_drawn"] == 300
    assert any("few labelled items" in caveat for caveat in metric["caveats"])
    assert "few labelled items" in (tmp_path / "few.md").read_text()


def test_a_calibrated_run_reports_the_calibrated_probability_beside_the_raw_score(
    cli: CliRunner, labels: Path, tmp_path: Path
) -> None:
    calibration = scenario.run().calibrate(scenario.labels()).helpful()
    calibrated_run = tmp_path / "calibrated"
    scenario.run(calibrated_run, calibration=calibration)
    out, md, page = tmp_path / "c.json", tmp_path / "c.md", tmp_path / "c.html"
    result = invoke(cli, "agree", str(calibrated_run), "--labels", str(labels),
                    "--resamples", "200", "--json", str(out), "--markdown", str(md),
                    "--html", str(page))  # fmt: skip
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "faithfulness:calibrated against people's 'faithfulness'" in said
    assert "faithfulness: calibrated − raw on the same 30 item(s)" in said
    raw, calibrated = json.loads(out.read_text())["metrics"][0]
    assert (raw["metric"], calibrated["metric"]) == ("faithfulness", "faithfulness:calibrated")
    assert raw["overall"]["figures"]["auroc"]["value"] == pytest.approx(0.75)
    # The calibration learnt the swapped city: it ranks better than the raw score, and the
    # paired check says by how much, on the same items.
    check = calibrated["against_raw"]["figures"]["auroc"]
    assert check["a"] == pytest.approx(0.75) and check["b"] > 0.9
    assert check["diff"] == pytest.approx(check["b"] - check["a"]) and check["ci95"][0] > 0
    assert (
        calibrated["overall"]["figures"]["brier"]["value"]
        < raw["overall"]["figures"]["brier"]["value"]
    )
    assert "Calibrated − raw on the same 30 item(s)" in md.read_text()
    assert "faithfulness:calibrated" in md.read_text()
    text = page.read_text()
    assert "Calibrated − raw on the same 30 item(s)" in text and "calibrated better" in text


def test_a_gate_on_agreement_fails_ci_below_the_interval(
    cli: CliRunner, run_dir: Path, labels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    md, out = tmp_path / "gate.md", tmp_path / "gate.json"
    common = ["agree", str(run_dir), "--labels", str(labels), "--resamples", "200"]
    # AUROC 0.75 on 30 items: its interval's lower bound is below 0.8 (and above 0.5).
    missed = invoke(cli, *common, "--min", "auroc=0.8", "--min", "κ=0.1", "--markdown",
                    str(md), "--json", str(out), "--github")  # fmt: skip
    assert missed.exit_code == 1, missed.output
    said = " ".join(missed.output.split())
    assert "gate: AUROC ≥ 0.8 (faithfulness · all, n=30): 95 % lower bound 0." in said
    assert "1 of 2 gate(s) NOT met" in said
    checks = {c["gate"]["figure"]: c for c in json.loads(out.read_text())["gates"]}
    assert checks["auroc"]["met"] is False and checks["auroc"]["low"] < 0.8
    assert checks["kappa"]["met"] is True and checks["kappa"]["low"] >= 0.1
    for text in (md.read_text(), summary.read_text()):
        assert "### Gates: 1 NOT met" in text
        assert "| AUROC ≥ 0.8 |" in text and "✗ NOT met" in text and "✓ met" in text
    (annotation,) = [line for line in missed.output.splitlines() if line.startswith("::")]
    assert annotation.startswith("::error title=veracity agree%3A AUROC ≥ 0.8 not met::")
    met = invoke(cli, *common, "--min", "auroc=0.5", "--min", "faithfulness:balanced_accuracy=0.5")
    assert met.exit_code == 0, met.output
    assert "all 2 gate(s) met" in " ".join(met.output.split())


def test_a_gate_on_a_figure_that_cannot_be_computed_fails_with_the_reason(
    cli: CliRunner, run_dir: Path, tmp_path: Path
) -> None:
    # Every item labelled good: no AUROC, so the gate cannot pass.
    good = tmp_path / "good.csv"
    good.write_text("id,faithfulness\n" + "".join(f"s{i},1\n" for i in range(30)))
    result = invoke(cli, "agree", str(run_dir), "--labels", str(good), "--resamples", "100",
                    "--min", "auroc=0.1")  # fmt: skip
    assert result.exit_code == 1, result.output
    said = " ".join(result.output.split())
    assert "AUROC ≥ 0.1 (faithfulness · all, n=30): NOT met, no lower bound to compare" in said
    assert "needs both positive and negative labels" in said


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("brier=0.2", "'brier' is not a figure a gate can name (allowed: auroc, balanced_accuracy"),
        ("auroc=1.5", "AUROC runs from 0 to 1"),
        ("auroc", "expected FIGURE=VALUE or METRIC:FIGURE=VALUE"),
        ("auroc=high", "'high' is not a number"),
        ("nope:auroc=0.8", "no metric 'nope' to gate (the report has faithfulness)"),
        ("auroc=0.8 --min AUROC=0.7", "is already a gate"),
    ],
)
def test_a_bad_gate_is_exit_2_naming_what_is_allowed(
    cli: CliRunner, run_dir: Path, labels: Path, spec: str, message: str
) -> None:
    mins = [word for part in spec.split(" --min ") for word in ("--min", part)]
    result = invoke(cli, "agree", str(run_dir), "--labels", str(labels), "--resamples", "100",
                    *mins)  # fmt: skip
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_the_help_names_the_gate_and_scale_forms(cli: CliRunner) -> None:
    result = invoke(cli, "agree", "--help")
    assert result.exit_code == 0
    assert "FIGURE=V" in result.output and "NAME=LOW:HIGH" in result.output
    assert "list[str]" not in result.output
