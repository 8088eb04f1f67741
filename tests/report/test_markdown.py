"""The Markdown summary and the GitHub Actions annotations."""

from __future__ import annotations

from pathlib import Path

from tests.report.ci_runs import HOSTILE, records, result
from tests.report.factory import rec
from veracity.report.markdown import github_annotations, markdown_summary, md
from veracity.report.run_data import load_run


def table(text: str) -> list[list[str]]:
    """The rows of the Markdown table in ``text``, as lists of cells."""
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]


def test_table_has_means_cis_counts_pass_rates_and_gates_per_system() -> None:
    run = load_run(result())
    text = markdown_summary(run, "veracity: nightly")
    assert text.startswith("### veracity: nightly\n")
    header, _, *rows = table(text)
    assert header == ["metric", "mean", "95 % CI", "scored", "pass rate", "threshold"]
    names = [row[0] for row in rows]
    assert names == ["**faithfulness**", "↳ base", "↳ rerank", "**context\\_recall**", "↳ base",
                     "↳ rerank"]  # fmt: skip
    by_name = {row[0]: row for row in rows[:3]}
    overall = run.metrics["faithfulness"]["overall"]
    low, high = overall["ci95"]
    # 2 systems × (0.9, 1.0, 0.5) → mean 0.8, pass rate 4/6 at 0.7; the mean meets 0.7.
    assert by_name["**faithfulness**"] == [
        "**faithfulness**", "0.800", f"{low:.3f}–{high:.3f}", "6/8", "66.7 %", "✓ ≥ 0.7",
    ]  # fmt: skip
    assert by_name["↳ base"][1:] == ["0.800", by_name["↳ base"][2], "3/4", "66.7 %", "✓ ≥ 0.7"]
    # No threshold given for context_recall: no gate, and the footer names the default.
    assert rows[3][-1] == "—"
    assert "no threshold given: context\\_recall 0.5 by default" in text
    assert "judge `openai/gpt\\-4o\\-mini`" not in text  # '-' is no markup
    assert "judge `openai/gpt-4o-mini`" in text
    assert "12 results" in text


def test_one_system_gives_no_system_rows_and_a_miss_shows_a_cross() -> None:
    items = [rec(0.2, sample_id="a"), rec(0.4, sample_id="b")]
    rows = table(markdown_summary(load_run(result(items, faithfulness=0.5))))[2:]
    assert [row[0] for row in rows] == ["**faithfulness**"]
    assert rows[0][-1] == "✗ < 0.5"
    assert rows[0][2] == "0.200–0.400"


def test_data_cannot_break_the_table() -> None:
    items = [rec(0.9, sample_id="a", system=HOSTILE), rec(0.1, sample_id="a", system="b")]
    text = markdown_summary(load_run(result(items, faithfulness=0.5)))
    rows = table(text)
    # Every row keeps its six cells: the '|' in the name is escaped, its newline gone.
    assert {len(row) for row in rows} == {6}
    # The bell is shown escaped (its backslash escaped in turn), never sent raw.
    assert md(HOSTILE) == 'a \\<b\\>\\&amp; "q" \\| \\*x\\* \\`y\\` 50% \\\\x07bell ::error::'


def test_annotations_for_missed_thresholds_and_judge_errors() -> None:
    run = load_run(result(), {"faithfulness": 0.9})
    lines = github_annotations(run)
    assert lines[0] == (
        "::error title=veracity%3A faithfulness below its threshold::"
        "faithfulness ≥ 0.9: NOT met (mean 0.8000)"
    )
    # 2 judge errors in 12 results: more than the run's max_error_rate of 0.1.
    assert lines[1].startswith("::warning title=veracity%3A judge errors::judge errors left 2")
    assert "(16.7%25)" in lines[1]  # '%' escaped, as workflow commands need
    assert len(lines) == 2
    met = load_run(result(records()[:3], faithfulness=0.5))
    assert github_annotations(met) == []


def test_scored_is_what_the_mean_is_over_and_by_rule_is_said() -> None:
    """Issue 48 item 11: one definition of scored (n_scored) in every report."""
    from veracity.types import Status

    items = [
        rec(0.5, sample_id="a"),
        rec(1.0, sample_id="b", status=Status.NO_CLAIMS),
        rec(None, sample_id="c"),
    ]
    run = load_run(result(items, faithfulness=0.5))
    overall = run.metrics["faithfulness"]["overall"]
    assert overall["n_scored"] == 2
    row = table(markdown_summary(run))[2]
    assert row[3] == "2/3 (1 by rule)"
    assert row[1] == f"{overall['mean']:.3f}"


def test_a_calibrated_gate_is_shown_as_github_checks_it() -> None:
    """Issue 48 item 11: ``--threshold faithfulness:calibrated=V`` in the Markdown."""
    items = [
        rec(0.9, sample_id="a").model_copy(update={"calibrated": 0.6}),
        rec(0.8, sample_id="b").model_copy(update={"calibrated": 0.4}),
    ]
    gates = {"faithfulness": 0.5, "faithfulness:calibrated": 0.7}
    run = load_run(result(items, **gates))
    text = markdown_summary(run)
    rows = {row[0]: row for row in table(text)[2:]}
    calibrated = rows["↳ *calibrated* (faithfulness:calibrated)"]
    assert calibrated[1] == "0.500" and calibrated[3] == "2/2"
    assert calibrated[-1] == "✗ < 0.7"
    assert rows["**faithfulness**"][-1] == "✓ ≥ 0.5"
    # The same verdict as the GitHub annotation's.
    (annotation,) = github_annotations(run)
    assert "faithfulness:calibrated" in annotation and "NOT met" in annotation


# An OSC 8 hyperlink, a clear-screen and a bidirectional override, as data might hold them.
TERMINAL_ATTACK = "rag\x1b]8;;http://evil.example\x07click\x1b]8;;\x07\x1b[2J\u202eok"


def _raw_controls(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F
            or c == "\u202e"]  # fmt: skip


def test_report_markdown_escapes_control_characters_from_the_data() -> None:
    """Issue 48 item 22: the Markdown escapes what the console escapes."""
    items = [rec(0.9, sample_id="a", system=TERMINAL_ATTACK), rec(0.1, sample_id="a", system="b")]
    run = load_run(result(items, faithfulness=0.5))
    text = markdown_summary(run, title=TERMINAL_ATTACK)
    assert _raw_controls(text) == []
    assert "\\\\x1b" in text  # shown, escaped, so a reader sees what was there
    for line in github_annotations(load_run(result(items, faithfulness=0.95))):
        assert _raw_controls(line) == []


def test_agree_markdown_escapes_control_characters_from_the_data(tmp_path: Path) -> None:
    import json

    from tests.agreement import scenario
    from veracity import LLMJudge, ScriptedChat, evaluate
    from veracity.agreement.markdown import markdown_agreement
    from veracity.agreement.runs import agree

    rows = [dict(row, id=f"{row['id']}{TERMINAL_ATTACK}") for row in scenario.rows()]
    judge = LLMJudge(ScriptedChat(responder=scenario.respond), unfounded_support="flag")
    evaluate(rows, "faithfulness", judge, out=tmp_path / "run", progress=False)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(
        json.dumps(dict(label, id=f"{label['id']}{TERMINAL_ATTACK}")) + "\n"
        for label in scenario.labels()
    ))  # fmt: skip
    report = agree([tmp_path / "run"], labels, resamples=100)
    text = markdown_agreement(report)
    assert "worst disagreements" in text and "\\\\x1b" in text
    assert _raw_controls(text) == []
