"""``veracity run --prompt-budget / --truncate-contexts`` (issue 14 item 13): what is over
the budget is never sent, and is ``invalid_input`` with its size."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.in_process import veracity
from veracity.prompts.budget import CUT_MARK
from veracity.testing import FakeLLMServer

ROWS: list[dict[str, Any]] = [
    {
        "id": "huge-answer",
        "question": "Where is Paris?",
        "answer": "Paris is in France. " * 50_000,  # 1,000,000 characters
        "contexts": ["Paris is in France."],
    },
    {
        "id": "huge-context",
        "question": "Where is Paris?",
        "answer": "Paris is in France.",
        "contexts": ["Paris is in France.", "filler. " * 25_000],  # 200,000 characters
    },
    {
        "id": "small",
        "question": "Where is Paris?",
        "answer": "Paris is in France.",
        "contexts": ["Paris is in France."],
    },
]


def _run(tmp_path: Path, name: str, *args: str) -> tuple[Any, list[dict[str, Any]], dict[str, Any]]:
    dataset = tmp_path / "data.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    out = tmp_path / name
    with FakeLLMServer() as server:
        proc = veracity(
            "run", str(dataset), "--judge", "openai/m", "--base-url", server.base_url,
            "--out", str(out), "--no-cache", *args,
        )  # fmt: skip
        requests = server.requests
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return (
        proc,
        requests,
        {r["sample_id"]: r for r in results}
        | {"manifest": json.loads((out / "run.json").read_text())},
    )


def _sent_chars(request: dict[str, Any]) -> int:
    return sum(len(message["content"]) for message in request["messages"])


def test_over_the_budget_is_invalid_input_and_never_sent(tmp_path: Path) -> None:
    _, requests, results = _run(tmp_path, "default")
    for sample in ("huge-answer", "huge-context"):
        assert results[sample]["status"] == "invalid_input"
        assert results[sample]["score"] is None
        assert (
            "over its prompt budget of 32,000 tokens a call: not sent"
            in (results[sample]["reason"])
        )
    assert "about 250," in results["huge-answer"]["reason"]
    assert results["small"]["status"] == "scored"
    # The small sample's two calls, the huge context's claim extraction being the small
    # sample's own prompt (asked once, for both); nothing bigger.
    assert len(requests) == 2
    assert max(_sent_chars(r) for r in requests) < 32_000 * 4
    settings = results["manifest"]["settings"]
    assert (settings["prompt_budget"], settings["truncate_contexts"]) == (32_000, False)


def test_a_smaller_budget_and_cut_contexts(tmp_path: Path) -> None:
    _, requests, results = _run(tmp_path, "cut", "--prompt-budget", "6000", "--truncate-contexts")
    assert results["huge-answer"]["status"] == "invalid_input"  # an answer is never cut
    assert "budget of 6,000 tokens" in results["huge-answer"]["reason"]
    cut = results["huge-context"]
    assert cut["status"] == "scored", cut
    assert any("context(s) 2 (200,000) cut to" in note for note in cut["details"]["notes"])
    assert max(_sent_chars(r) for r in requests) < 6000 * 4
    assert any(CUT_MARK in json.dumps(r, ensure_ascii=False) for r in requests)
    assert results["manifest"]["judge"]["prompt_budget"] == {
        "tokens": 6000,
        "truncate_contexts": True,
    }


def test_the_budget_from_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "veracity.yaml"
    config.write_text("prompt_budget: 6000\ntruncate_contexts: true\n")
    _, _, results = _run(tmp_path, "config", "--config", str(config))
    assert results["huge-context"]["status"] == "scored"
    assert results["manifest"]["settings"]["prompt_budget"] == 6000


@pytest.mark.parametrize(
    ("args", "config", "message"),
    [
        (["--prompt-budget", "0"], None, "--prompt-budget"),
        ([], "prompt_budget: 0\n", "prompt_budget: Input should be greater than or equal to 1"),
        ([], "prompt_budget: lots\n", "prompt_budget"),
        ([], "truncate_contexts: maybe\n", "truncate_contexts"),
    ],
)
def test_a_bad_budget_is_a_usage_error(
    tmp_path: Path, args: list[str], config: str | None, message: str
) -> None:
    dataset = tmp_path / "data.jsonl"
    dataset.write_text(json.dumps(ROWS[2]) + "\n")
    if config is not None:
        (tmp_path / "veracity.yaml").write_text(config)
        args = [*args, "--config", str(tmp_path / "veracity.yaml")]
    proc = veracity("run", str(dataset), "--judge", "openai/m", "--base-url",
                    "http://127.0.0.1:9/v1", "--out", str(tmp_path / "run"), *args)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
