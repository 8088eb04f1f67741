"""The public API: what ``veracity`` exports, and ``evaluate`` in Python."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import veracity
from tests.helpers import claims_reply, verdicts_reply
from veracity import LLMJudge, Sample, ScriptedChat, Status, evaluate

EXPECTED_API = {
    "AnthropicChat",
    "ClaimVerdict",
    "DatasetError",
    "EvaluationResult",
    "Faithfulness",
    "Judge",
    "JudgeFatalError",
    "LLMJudge",
    "Metric",
    "MetricResult",
    "OpenAIChat",
    "ResultRecord",
    "RetryPolicy",
    "RowError",
    "Sample",
    "ScriptedChat",
    "Status",
    "Usage",
    "Verdict",
    "__version__",
    "aevaluate",
    "evaluate",
    "make_judge",
    "read_dataset",
}


def test_all_is_the_documented_public_api() -> None:
    assert set(veracity.__all__) == EXPECTED_API
    for name in veracity.__all__:
        assert getattr(veracity, name) is not None


def scripted_judge() -> LLMJudge:
    def respond(messages: object, output: object) -> str:
        name = getattr(output, "name", "")
        if name == "claim_extraction":
            return claims_reply("Paris is the capital of France.")
        return verdicts_reply(("Paris is the capital of France.", "supported", "stated", "Paris"))

    return LLMJudge(ScriptedChat(responder=respond))


def test_evaluate_accepts_dicts_reports_bad_ones_and_writes_a_run(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "user_input": "q?", "retrieved_contexts": ["Paris..."], "response": "Paris."},
        {"id": "b", "question": "q?", "answer": "", "contexts": []},
        {"id": "c", "question": 3, "answer": "x"},
    ]
    result = evaluate(rows, ["faithfulness"], scripted_judge(), out=tmp_path / "run")
    assert [r.sample_id for r in result.results] == ["a", "b"] or {
        r.sample_id for r in result.results
    } == {"a", "b"}
    by_id = {r.sample_id: r for r in result.results}
    assert by_id["a"].score == 1.0 and by_id["a"].status is Status.SCORED
    assert by_id["b"].status is Status.NO_CLAIMS
    assert len(result.bad_rows) == 1
    assert "item 3" in str(result.bad_rows[0]) and "question" in str(result.bad_rows[0])
    assert result.summary["bad_rows"] == 1
    lines = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["metric"] == "faithfulness"


def test_iterations_repeat_the_judging_with_their_index() -> None:
    result = evaluate(
        [{"id": "a", "question": "q", "answer": "Paris.", "contexts": ["Paris"]}],
        ["faithfulness"],
        scripted_judge(),
        iterations=3,
    )
    assert sorted(r.iteration for r in result.results) == [0, 1, 2]


def test_to_pandas_has_one_row_per_result() -> None:
    pytest.importorskip("pandas")
    result = evaluate(
        [{"id": "a", "question": "q", "answer": "Paris.", "contexts": ["Paris"]}],
        ["faithfulness"],
        scripted_judge(),
    )
    frame = result.to_pandas()
    assert list(frame["score"]) == [1.0]
    assert frame.loc[0, "usage_calls"] == 2


def test_unknown_metric_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown metric"):
        evaluate([], ["nope"], scripted_judge())


def test_importing_veracity_loads_no_model_sdk() -> None:
    """The pytest plugin imports veracity in every test session of a project that has it
    installed: the openai and anthropic SDKs (half a second or more each) and the local
    model libraries wait until a judge or model is made."""
    code = (
        "import sys, veracity, veracity.pytest_plugin\n"
        "heavy = ('openai', 'anthropic', 'torch', 'transformers', 'sentence_transformers')\n"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("in_a_run_dir", [False, True])
def test_a_second_sample_with_the_same_id_in_memory_is_a_bad_row_like_in_a_file(
    tmp_path: Path, in_a_run_dir: bool
) -> None:
    """Issue 14 item 4: in a run directory the second one was silently dropped (neither
    scored nor reported); without one it was scored twice under the same key."""
    rows: list[dict[str, object] | Sample] = [
        {"id": "a", "question": "q", "answer": "Paris.", "contexts": ["Paris"]},
        {"id": "a", "question": "q2", "answer": "Lyon.", "contexts": ["Lyon"]},
        {"id": "a", "question": "q", "answer": "Paris.", "contexts": ["Paris"], "system": "B"},
        Sample(id="a", question="q3", answer="Nice.", contexts=("Nice",)),
    ]
    out = tmp_path / "run" if in_a_run_dir else None
    result = evaluate(rows, ["faithfulness"], scripted_judge(), out=out)
    assert {(r.sample_id, r.system) for r in result.results} == {("a", None), ("a", "B")}
    assert len(result.results) == 2
    assert [str(row) for row in result.bad_rows] == [
        "<samples> item 2: duplicate sample (id 'a') first seen at item 1",
        "<samples> item 4: duplicate sample (id 'a') first seen at item 1",
    ]
    assert result.summary["bad_rows"] == 2


@pytest.mark.parametrize("metrics", [[], [""], ()])
def test_no_metric_is_an_error_not_an_empty_run(metrics: list[str]) -> None:
    rows = [{"id": "a", "question": "q", "answer": "Paris.", "contexts": ["Paris"]}]
    with pytest.raises(ValueError, match=r"no metric named .*available: faithfulness"):
        evaluate(rows, metrics, scripted_judge())
