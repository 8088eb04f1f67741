"""``veracity run`` as a user runs it, in-process: real HTTP to the fake server."""

from __future__ import annotations

import json
import math
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.in_process import veracity
from veracity.testing import FakeLLMServer, Faults

SECRET = "sk-test-never-written-0123456789"

ROWS: list[dict[str, Any]] = [
    {
        "id": "q1",
        "question": "Where is the Eiffel Tower?",
        "contexts": ["The Eiffel Tower is a wrought-iron tower in Paris, France."],
        "answer": "The Eiffel Tower is in Paris. It was painted green by aliens.",
        "system": "baseline",
    },
    {
        "id": "q1",
        "question": "Where is the Eiffel Tower?",
        "contexts": ["The Eiffel Tower is a wrought-iron tower in Paris, France."],
        "answer": "The Eiffel Tower is a wrought-iron tower in Paris.",
        "system": "improved",
    },
    {
        "id": "q2",
        "question": "Who wrote Hamlet?",
        "contexts": [],
        "answer": "Hamlet was written by William Shakespeare.",
        "system": "baseline",
    },
    {
        "id": "q3",
        "question": "What is the boiling point of water?",
        "contexts": ["Water boils at 100 degrees Celsius at sea level."],
        "answer": "",
        "system": "baseline",
    },
    {"id": "q4", "question": "Broken row without an answer", "contexts": []},
]


def write_dataset(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows) + "{not json\n")
    return path


def _no_nan(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_no_nan(v) for v in value.values())
    if isinstance(value, list):
        return all(_no_nan(v) for v in value)
    return True


def test_run_writes_manifest_results_and_summary(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS)
    out = tmp_path / "run"
    with FakeLLMServer() as server:
        proc = veracity(
            "run",
            str(dataset),
            "--metrics",
            "faithfulness",
            "--judge",
            "openai/fake-judge",
            "--base-url",
            server.base_url,
            "--out",
            str(out),
            "--concurrency",
            "4",
            env={"OPENAI_API_KEY": SECRET},
        )
        requests = server.requests
    assert proc.returncode == 0, proc.stderr
    assert {p.name for p in out.iterdir()} >= {"run.json", "results.jsonl", "summary.json"}

    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "completed"
    assert manifest["judge"]["model"] == "fake-judge"
    assert manifest["judge"]["prompts"]["claim_extraction"]
    assert manifest["dataset"]["sha256"]
    assert manifest["bad_rows"] == 2
    assert manifest["veracity_version"]

    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    by_key = {(r["sample_id"], r["system"]): r for r in results}
    assert len(results) == 4
    partly = by_key["q1", "baseline"]
    assert partly["status"] == "scored"
    assert partly["score"] == 0.5
    assert [c["verdict"] for c in partly["details"]["claims"]] == ["supported", "not_enough_info"]
    assert by_key["q1", "improved"]["score"] == 1.0
    assert by_key["q2", "baseline"]["status"] == "no_contexts"
    assert by_key["q2", "baseline"]["score"] == 0.0
    assert by_key["q3", "baseline"]["status"] == "no_claims"
    assert all(r["usage"]["calls"] <= 2 for r in results)
    # 3 extractions (the empty answer needs none) + 2 verifications (no contexts needs none)
    assert len(requests) == 5

    summary = json.loads((out / "summary.json").read_text())
    overall = summary["metrics"]["faithfulness"]["overall"]
    assert overall["n"] == 4
    assert overall["n_scored"] == 4
    assert overall["mean"] == pytest.approx((0.5 + 1.0 + 0.0 + 1.0) / 4)
    assert overall["counts_by_status"]["no_contexts"] == 1
    by_system = summary["metrics"]["faithfulness"]["by_system"]
    assert by_system["improved"]["mean"] == 1.0
    assert by_system["baseline"]["n"] == 3
    assert summary["bad_rows"] == 2
    assert summary["usage"]["calls"] == 5

    for path in out.iterdir():
        assert SECRET.encode() not in path.read_bytes()
        if path.suffix in {".json", ".jsonl"}:
            assert "NaN" not in path.read_text()
    assert _no_nan(summary) and all(_no_nan(r) for r in results)
    assert "data.jsonl:5" in proc.stderr  # the bad row is named with file and line
    assert "data.jsonl:6" in proc.stderr
    assert "faithfulness" in proc.stdout


def test_malformed_replies_still_end_with_a_status(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS[:3])
    out = tmp_path / "run"
    with FakeLLMServer(faults=Faults(malformed_content=1.0), seed=5) as server:
        proc = veracity(
            "run", str(dataset), "--judge", "openai/m", "--base-url", server.base_url,
            "--out", str(out),
        )  # fmt: skip
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 3
    errors = sum(result["status"] == "judge_error" for result in results)
    # Exit 3 exactly when judge errors left more than the default 10 % unscored.
    assert proc.returncode == (3 if errors > 0 else 0), proc.stderr
    for result in results:
        assert result["status"] in {"scored", "no_contexts", "judge_error"}
        if result["status"] == "judge_error":
            assert result["reason"] and result["details"]["raw_replies"]
        else:
            assert 0.0 <= result["score"] <= 1.0


def test_strict_fails_before_any_judge_call(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS)
    with FakeLLMServer() as server:
        proc = veracity(
            "run", str(dataset), "--strict", "--judge", "openai/m", "--base-url",
            server.base_url, "--out", str(tmp_path / "run"),
        )  # fmt: skip
        requests = server.stats.requests
    assert proc.returncode == 2
    assert requests == 0
    assert "data.jsonl:5" in proc.stderr
    assert "missing required field 'answer'" in proc.stderr


def test_threshold_unmet_exits_1_and_met_exits_0(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS[:2])
    with FakeLLMServer() as server:
        common = ["--judge", "openai/m", "--base-url", server.base_url]
        unmet = veracity(
            "run", str(dataset), *common, "--out", str(tmp_path / "a"),
            "--threshold", "faithfulness=0.9",
        )  # fmt: skip
        met = veracity(
            "run", str(dataset), *common, "--out", str(tmp_path / "b"),
            "--threshold", "faithfulness=0.7",
        )  # fmt: skip
    assert unmet.returncode == 1, unmet.stderr
    assert "NOT met" in unmet.stdout
    assert met.returncode == 0, met.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.jsonl"], "dataset not found"),
        (["{data}", "--metrics", "nonsense"], "unknown metric 'nonsense'"),
        (["{data}", "--judge", "mystery/x"], "unknown judge"),
        (["{data}", "--judge", "openai/m"], "OPENAI_API_KEY"),
        (["{data}", "--threshold", "faithfulness=2"], "bad threshold"),
    ],
)
def test_bad_usage_exits_2_with_a_clear_message(
    tmp_path: Path, args: list[str], message: str
) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS[:1])
    proc = veracity(
        "run", *[a.replace("{data}", str(dataset)) for a in args], "--out", str(tmp_path / "r")
    )
    assert proc.returncode == 2
    assert message in proc.stderr


def test_results_of_another_tool_are_not_overwritten(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS[:1])
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.jsonl").write_text('{"kept": true}\n')
    with FakeLLMServer() as server:
        proc = veracity(
            "run", str(dataset), "--judge", "openai/m", "--base-url", server.base_url,
            "--out", str(out),
        )  # fmt: skip
    assert proc.returncode == 2
    assert "holds results of an older format" in proc.stderr
    assert (out / "results.jsonl").read_text() == '{"kept": true}\n'


def test_fatal_judge_error_stops_the_run_keeps_results_and_exits_2(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS[:3])
    out = tmp_path / "run"
    with FakeLLMServer(api_key="the-right-key") as server:
        proc = veracity(
            "run", str(dataset), "--judge", "openai/m", "--base-url", server.base_url,
            "--out", str(out),
            env={"OPENAI_API_KEY": SECRET},
        )  # fmt: skip
    assert proc.returncode == 2
    assert "the judge cannot work" in proc.stderr and "401" in proc.stderr
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "failed"
    assert "401" in manifest["error"]
    assert (out / "summary.json").exists()
    for path in out.iterdir():
        assert SECRET.encode() not in path.read_bytes()


def test_an_unreachable_judge_stops_the_run_at_once_and_exits_2(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS[:3])
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    out = tmp_path / "run"
    proc = veracity("run", str(dataset), "--judge", "openai/m", "--base-url", url,
                    "--out", str(out), env={"OPENAI_API_KEY": SECRET})  # fmt: skip
    assert proc.returncode == 2
    assert f"cannot connect to {url}" in proc.stderr and "check the base URL" in proc.stderr
    assert json.loads((out / "run.json").read_text())["status"] == "failed"


def test_demo_runs_the_bundled_example(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = veracity("demo", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    overall = summary["metrics"]["faithfulness"]["overall"]
    assert overall["n"] == 17
    assert set(summary["metrics"]["faithfulness"]["by_system"]) == {"baseline", "reranked"}
    assert set(summary["metrics"]) >= {"context_recall", "ragas_score", "answer_classification"}
    assert "rule-based fake" in proc.stderr


def test_demo_shows_the_decision_judge_too(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = veracity("demo", "--decisions", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "fake decision server" in proc.stderr
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["judge"]["provider"] == "systemone"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["usage"]["output_tokens"] == 0 and summary["usage"]["calls"] > 0
    for metric in ("faithfulness", "context_precision", "answer_relevance"):
        assert summary["metrics"][metric]["overall"]["n_scored"] > 0, metric
    claims = [
        claim
        for line in (out / "results.jsonl").read_text().splitlines()
        if (row := json.loads(line))["metric"] == "faithfulness"
        for claim in row["details"].get("claims", [])
    ]
    weighed = [c["probabilities"] for c in claims if "probabilities" in c]
    assert weighed and all(sum(p.values()) == pytest.approx(1.0) for p in weighed)


def test_file_broken_halfway_stops_with_exit_2_and_keeps_results(tmp_path: Path) -> None:
    good = json.dumps(ROWS[0])
    dataset = tmp_path / "data.json"
    dataset.write_text(f"[{good}, {good.replace('q1', 'q9')}, {{broken")
    out = tmp_path / "run"
    with FakeLLMServer() as server:
        proc = veracity(
            "run", str(dataset), "--judge", "openai/m", "--base-url", server.base_url,
            "--out", str(out),
        )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "data.json" in proc.stderr
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "failed"
    assert (out / "summary.json").exists()
