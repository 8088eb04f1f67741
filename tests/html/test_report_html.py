"""``write_report`` without a browser: escaping, the embedded data, the sample cap, and
run directories whose files are missing or shaped unexpectedly."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.html.conftest import IMG, PAYLOAD, SCRIPT, dataset_rows, make_run, triage_run
from tests.html.page import Element, Row, cell, columns, parse, rows, tags
from veracity.report import summarize
from veracity.report.html import script_json, write_report
from veracity.types import ResultRecord, Status

DATA_RE = re.compile(r'<script type="application/json" id="veracity-data">(.*?)</script>', re.S)


def by_heading(table: Element) -> dict[str, Row]:
    return {row.heading: row for row in rows(table)}


def embedded(page: str) -> dict[str, Any]:
    match = DATA_RE.search(page)
    assert match is not None
    data: dict[str, Any] = json.loads(match.group(1))
    return data


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("small"), dataset_rows(3), metrics=["faithfulness"])


def test_script_json_cannot_close_the_script() -> None:
    value = {"a": "</script><script>alert(1)</script><!-- & \u2028\u2029 >"}
    text = script_json(value)
    for forbidden in ("<", ">", "&", "\u2028", "\u2029"):
        assert forbidden not in text
    assert json.loads(text) == value


def test_user_text_is_escaped_everywhere(small_run: Path) -> None:
    page = write_report(small_run).read_text(encoding="utf-8")
    doc = parse(page)
    assert SCRIPT not in page and IMG not in page  # never in the markup as it came
    assert "img" not in tags(doc)
    # The only scripts are the report's own: its embedded data and its code, inline.
    scripts = [(s.attrs.get("type"), s.attrs.get("id")) for s in doc.find_all("script")]
    assert sorted(scripts, key=str) == [("application/json", "veracity-data"), (None, None)]
    assert page.count("</script>") == 2  # nothing closes a script early
    assert not any(k.startswith("on") for e in doc.descendants() for k in e.attrs)
    assert SCRIPT in doc.text  # server-rendered, shown as text
    data = embedded(page)
    evil = next(s for s in data["samples"] if s["id"].startswith("evil-"))
    assert evil["system"] == f"sys {IMG}"
    assert PAYLOAD in evil["answer"] and PAYLOAD in evil["contexts"][0]
    assert evil["history"] == [
        {"role": "user", "content": f"Tell me about bridges. {PAYLOAD}"},
        {"role": None, "content": f"An earlier turn of no known speaker. {SCRIPT}"},
    ]
    # A sample without history embeds none.
    assert all("history" not in s for s in data["samples"] if s is not evil)
    claims = evil["results"][0]["details"]["claims"]
    assert any(PAYLOAD in claim["reason"] for claim in claims)


def test_page_is_self_contained(small_run: Path) -> None:
    page = write_report(small_run).read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "@import" not in page and "url(" not in page
    csp = parse(page).find("meta", http_equiv="Content-Security-Policy").attrs["content"]
    assert csp is not None and "default-src 'none'" in csp


def test_out_path_and_embedded_results(small_run: Path, tmp_path: Path) -> None:
    target = write_report(small_run, tmp_path / "nested" / "r.html")
    assert target == tmp_path / "nested" / "r.html" and target.is_file()
    data = embedded(target.read_text(encoding="utf-8"))
    assert data["metrics"] == ["faithfulness"]
    assert len(data["samples"]) == data["total_samples"] == 7
    assert not data["truncated"]
    assert all(s["question"] for s in data["samples"])


def test_large_runs_embed_at_most_max_samples(small_run: Path, tmp_path: Path) -> None:
    page = write_report(small_run, tmp_path / "r.html", max_samples=2).read_text("utf-8")
    data = embedded(page)
    assert len(data["samples"]) == 2 and data["total_samples"] == 7 and data["truncated"]
    doc = parse(page)
    assert "The drill-down holds the first 2 of 7 samples" in doc.text
    # The charts still count every result.
    titles = " ".join(bar.find("title").text for bar in doc.find_all("rect", cls="bar"))
    bars = re.findall(r"faithfulness: (\d+) result\(s\) scored", titles)
    assert sum(int(n) for n in bars) == 7


def test_dataset_gone_or_changed(small_run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "run"
    shutil.copytree(small_run, copy)
    manifest = json.loads((copy / "run.json").read_text())
    manifest["dataset"]["path"] = str(tmp_path / "gone.jsonl")
    (copy / "run.json").write_text(json.dumps(manifest))
    page = write_report(copy).read_text("utf-8")
    assert "Questions and answers are not shown" in page and "was not found" in page
    assert all("question" not in s for s in embedded(page)["samples"])

    changed = tmp_path / "gone.jsonl"
    changed.write_text(json.dumps(dataset_rows(1)[0]) + "\n")
    assert "has changed since the run" in write_report(copy).read_text("utf-8")
    # Named explicitly, the dataset is used whatever run.json says.
    page = write_report(copy, dataset=small_run.parent / "data.jsonl").read_text("utf-8")
    assert all(s["question"] for s in embedded(page)["samples"])


def _record(sample: str, score: float | None, **fields: Any) -> str:
    status = Status.SCORED if score is not None else Status.JUDGE_ERROR
    record = ResultRecord(
        metric=fields.pop("metric", "faithfulness"),
        score=score,
        status=status,
        reason="the judge said so" if score is not None else "the judge's reply was not JSON",
        details=fields.pop("details", {}),
        sample_id=sample,
        system=fields.pop("system", None),
        iteration=0,
        **fields,
    )
    return record.model_dump_json() + "\n"


def _odd_run(tmp_path: Path, summary: dict[str, object]) -> str:
    (tmp_path / "run.json").write_text(json.dumps({"judge": {"name": "x/y"}, "status": "done"}))
    (tmp_path / "results.jsonl").write_text(
        _record("a", 0.25, question_type="q1", details={"raw_replies": ["x" * 5000]})
        + _record("b", None, question_type="q2")
        + _record("c", 1.0, metric="rubric", details={"dimensions": "not a list"})
    )
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    return write_report(tmp_path).read_text("utf-8")


def test_a_summary_of_odd_types_is_rebuilt_from_the_results(tmp_path: Path) -> None:
    page = _odd_run(
        tmp_path,
        {
            "metrics": {
                "faithfulness": {
                    "overall": {"mean": 0.25, "ci95": {"low": 0.1, "high": 0.4}},
                    "by_question_type": ["unexpected"],
                    "by_iteration": "unexpected",
                },
                "rubric": "unexpected",
            },
            "analysis": {"recommendations": ["<b>fix</b> retrieval"]},
        },
    )
    doc = parse(page)
    assert "summary.json is missing or is not a summary" in doc.text
    # Nothing of the odd file is shown, as text or as markup.
    assert "fix" not in [b.text for b in doc.find_all("b")]
    assert "retrieval" not in doc.text
    assert "run names no dataset file" in doc.text
    data = embedded(page)
    assert [len(s["results"]) for s in data["samples"]] == [1, 1, 1]
    raw = data["samples"][0]["results"][0]["details"]["raw_replies"][0]
    assert len(raw) < 1100


def test_a_summary_with_sections_of_a_later_version_shows_them(tmp_path: Path) -> None:
    records = [
        ResultRecord.model_validate_json(line)
        for line in (
            _record("a", 0.25, question_type="q1") + _record("b", 0.75, question_type="q2")
        ).splitlines()
    ]
    summary = summarize(records, ["faithfulness"], {"faithfulness": 0.5})
    summary["metrics"]["faithfulness"]["something_new"] = {"k": [1, 2, {"deep": "<b>x</b>"}]}
    summary["cost"] = {"total_usd": 0.5}
    page = _odd_run(tmp_path, summary)
    doc = parse(page)
    assert "summary.json is missing" not in doc.text
    # The unknown section is shown, its text as text, never as markup.
    assert "something_new" in doc.text and "<b>x</b>" in doc.text
    assert "x" not in [b.text for b in doc.find_all("b")]
    assert "$0.5000" in doc.text


def test_missing_summary_is_rebuilt(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text(_record("a", 0.5) + _record("b", 1.0))
    page = write_report(tmp_path).read_text("utf-8")
    doc = parse(page)
    assert "summary.json is missing" in doc.text
    assert cell(doc, "faithfulness", "mean").endswith(" 0.750")  # the rebuilt mean


def test_empty_run(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text("")
    page = write_report(tmp_path).read_text("utf-8")
    assert embedded(page)["samples"] == []


def test_not_a_run_directory(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"has no results\.jsonl"):
        write_report(tmp_path)


def test_triage_facts_are_embedded_and_in_plain_words(tmp_path: Path) -> None:
    page = write_report(triage_run(tmp_path)).read_text("utf-8")
    data = embedded(page)
    assert data["thresholds"] == {"faithfulness": 0.7, "context_precision": 0.5}
    assert data["status_labels"]["no_contexts"] == "no contexts"
    doc = parse(page)
    # The summary's means carry their pass mark against the threshold, as text.
    summary = by_heading(doc.find("table", cls="summary"))
    faithfulness, precision = summary["faithfulness"], summary["context_precision"]
    assert (faithfulness["mean"], faithfulness["threshold"]) == ("✗ 0.625", "0.700")
    assert (precision["mean"], precision["threshold"]) == ("✓ 0.900", "0.500 (default)")
    assert faithfulness["other statuses"] == "no claims 1, no contexts 1, judge error 1"
    # Severity and the worst items read as words, not summary keys.
    severity = doc.find("table", cls="severity")
    assert "failing (below threshold)" in columns(severity)
    claims = by_heading(severity)["faithfulness"]["claims of failing results"]
    assert claims.startswith("1 failing result, 1 with a contradicted claim; claims: 1 contra")
    assert "judge_errors" not in doc.text
    worst = {row["sample"]: row["score"] for row in rows(doc.find("table", cls="worst"))}
    assert worst["unretrieved"] == "✗ no contexts · 0.000"
    assert worst["abstains"] == "✓ no claims · 1.000"
    assert SCRIPT not in page and "img" not in tags(doc)


def test_summary_scored_column_counts_the_results_with_a_score() -> None:
    """Issue 48: scored is n_scored everywhere (what the mean and pass rate are over)."""
    from veracity.report.html_tables import summary_table
    from veracity.report.summary_file import as_read

    stats = {
        "n": 13,
        "n_scored": 13,  # every result has a score, three of them by rule
        "mean": 0.6,
        "counts_by_status": {"scored": 10, "no_claims": 1, "no_contexts": 2},
    }
    table = summary_table(as_read({"metrics": {"faithfulness": {"overall": stats}}})["metrics"])
    [row] = rows(parse(table).find("table"))
    assert (row["results"], row["scored"]) == ("13", "13")
    assert "no claims 1" in row["other statuses"] and "no contexts 2" in row["other statuses"]
