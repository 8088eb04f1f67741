"""The public API: what ``veracity`` exports, and ``evaluate`` in Python."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import veracity
from tests.helpers import claims_reply, verdicts_reply
from veracity import LLMJudge, Sample, ScriptedChat, Status, evaluate
from veracity.config import RunConfig

EXPECTED_API = {
    "AnthropicChat",
    "BadRowsWarning",
    "ClaimVerdict",
    "DatasetError",
    "EvaluationResult",
    "Faithfulness",
    "Judge",
    "JudgeFatalError",
    "LLMJudge",
    "Metric",
    "MetricResult",
    "NoValidSampleError",
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
    "samples_from_traces",
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
    with pytest.warns(veracity.BadRowsWarning, match=r"1 bad row\(s\) left out.*samples row 2"):
        result = evaluate(rows, ["faithfulness"], scripted_judge(), out=tmp_path / "run")
    assert [r.sample_id for r in result.results] == ["a", "b"] or {
        r.sample_id for r in result.results
    } == {"a", "b"}
    by_id = {r.sample_id: r for r in result.results}
    assert by_id["a"].score == 1.0 and by_id["a"].status is Status.SCORED
    assert by_id["b"].status is Status.NO_CLAIMS
    assert len(result.bad_rows) == 1
    assert "samples row 2" in str(result.bad_rows[0]) and "question" in str(result.bad_rows[0])
    assert result.summary["bad_rows"] == 1
    lines = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["metric"] == "faithfulness"


def test_iterations_repeat_the_judging_with_their_index() -> None:
    result = evaluate(
        [{"id": "a", "question": "q", "answer": "Paris.", "contexts": ["Paris"]}],
        ["faithfulness"],
        scripted_judge(),
        config=RunConfig(iterations=3),
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
    with pytest.warns(veracity.BadRowsWarning, match="2 bad row"):
        result = evaluate(rows, ["faithfulness"], scripted_judge(), out=out)
    assert {(r.sample_id, r.system) for r in result.results} == {("a", None), ("a", "B")}
    assert len(result.results) == 2
    assert [str(row) for row in result.bad_rows] == [
        "samples row 1: duplicate sample (id 'a') first seen at row 0",
        "samples row 3: duplicate sample (id 'a') first seen at row 0",
    ]
    assert result.summary["bad_rows"] == 2


@pytest.mark.parametrize("metrics", [[], [""], ()])
def test_no_metric_is_an_error_not_an_empty_run(metrics: list[str]) -> None:
    rows = [{"id": "a", "question": "q", "answer": "Paris.", "contexts": ["Paris"]}]
    with pytest.raises(ValueError, match=r"no metric named .*available: faithfulness"):
        evaluate(rows, metrics, scripted_judge())


def test_dir_of_veracity_shows_only_its_api_and_subpackages() -> None:
    import types

    public = {
        name
        for name in dir(veracity)
        if not name.startswith("_") and not isinstance(getattr(veracity, name), types.ModuleType)
    }
    assert public <= set(veracity.__all__)


def test_a_single_metric_name_is_one_metric() -> None:
    """Issue 16: ``"faithfulness"`` was iterated, ``unknown metric 'f'``."""
    rows = [{"id": "a", "question": "q", "answer": "Paris.", "contexts": ["Paris"]}]
    result = evaluate(rows, "faithfulness", scripted_judge())
    assert [r.metric for r in result] == ["faithfulness"]
    result = evaluate(rows, veracity.Faithfulness(), scripted_judge())
    assert len(result) == 1


def test_samples_that_are_all_bad_raise_naming_the_first_problems() -> None:
    rows = [{"id": "a", "answr": "x", "question": "q"}, {"id": "b", "question": 3, "answer": "y"}]
    with pytest.raises(veracity.NoValidSampleError, match=r"no valid sample.*row 0.*row 1") as e:
        evaluate(rows, "faithfulness", scripted_judge())
    assert isinstance(e.value, veracity.DatasetError)
    assert len(e.value.bad_rows) == 2
    with pytest.raises(veracity.NoValidSampleError, match="no sample in the samples given"):
        evaluate([], "faithfulness", scripted_judge())


def test_the_result_reads_like_a_collection_with_means_and_cis() -> None:
    rows = [
        {"id": str(i), "question": "q", "answer": "Paris.", "contexts": ["Paris"]} for i in range(3)
    ]
    judge = LLMJudge(
        ScriptedChat(
            [claims_reply("Paris."), verdicts_reply(("Paris.", "supported", "ok", "Paris"))] * 3
        ),
        unfounded_support="flag",
    )
    result = evaluate(rows, "faithfulness", judge)
    assert len(result) == 3
    assert {r.sample_id for r in result} == {"0", "1", "2"}
    assert result.mean("faithfulness") == 1.0
    ci = result.ci("faithfulness")
    assert ci is not None and ci[0] <= 1.0 <= ci[1]
    with pytest.raises(KeyError, match=r"no metric 'context_recall'.*faithfulness"):
        result.mean("context_recall")
    shown = repr(result)
    assert shown == "<EvaluationResult 3 result(s); mean faithfulness 1.000; 0 bad row(s)>"


def test_to_pandas_names_the_question_and_answer_and_a_row_per_claim() -> None:
    pytest.importorskip("pandas")
    claims = ("Paris is the capital.", "It has 9 million people.")
    judge = LLMJudge(
        ScriptedChat(
            [
                claims_reply(*claims),
                verdicts_reply(
                    (claims[0], "supported", "stated", "capital"),
                    (claims[1], "not_enough_info", "no population", ""),
                ),
            ]
        ),
        unfounded_support="flag",
    )
    rows = [{"id": "a", "question": "What is Paris?", "answer": "The capital.", "contexts": ["x"]}]
    frame = evaluate(rows, "faithfulness", judge).to_pandas()
    assert list(frame.columns[:9]) == [
        "sample_id", "system", "question", "answer", "metric", "iteration", "score", "status",
        "reason",
    ]  # fmt: skip
    assert frame.loc[0, "question"] == "What is Paris?" and frame.loc[0, "score"] == 0.5
    per_claim = evaluate(rows, "faithfulness", judge).to_pandas(claims=True)
    assert list(per_claim["claim"]) == list(claims)
    assert list(per_claim["verdict"]) == ["supported", "not_enough_info"]
    assert list(per_claim["reason"]) == ["stated", "no population"]
    assert set(per_claim["answer"]) == {"The capital."}


def test_veracity_imports_where_fcntl_does_not_exist() -> None:
    """Issue 16: ``import veracity`` failed on Windows (the run lock imported fcntl)."""
    code = (
        "import sys\n"
        "sys.modules['fcntl'] = None  # as on Windows: importing it raises ImportError\n"
        "import veracity, veracity.store, veracity.cli.app, veracity.evaluation\n"
        "print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "ok", done.stderr


def test_results_in_memory_come_in_sample_order_whatever_finishes_first() -> None:
    """Without a run directory results arrive as they finish; they are given back in the
    samples' order, so the same data always gives the same summary and intervals."""
    import asyncio

    delays = {"s0": 0.2, "s1": 0.0, "s2": 0.1, "s3": 0.0}  # s0 finishes last

    def respond(messages: Any, output: Any) -> str:
        sample = next(s for s in delays if f"answer {s}" in str(messages))
        if output.name == "claim_extraction":
            return claims_reply(f"The answer {sample}.")
        return verdicts_reply((f"The answer {sample}.", "supported", "stated", "x"))

    class Staggered(ScriptedChat):
        async def complete(self, messages: Any, output: Any, *, iteration: int) -> Any:
            await asyncio.sleep(
                next(d for s, d in delays.items() if f"answer {s}" in str(messages))
            )
            return await super().complete(messages, output, iteration=iteration)

    rows = [
        {"id": s, "question": "q", "answer": f"The answer {s}.", "contexts": ["x"]} for s in delays
    ]
    finished: list[str] = []
    result = evaluate(
        rows,
        "faithfulness",
        LLMJudge(Staggered(responder=respond)),
        config=RunConfig(cache=False),
        on_result=lambda record: finished.append(record.sample_id),
    )
    assert finished[-1] == "s0"  # it did finish last
    assert [r.sample_id for r in result] == list(delays)


def test_import_veracity_loads_nothing_heavy_until_a_name_is_used() -> None:
    """Issue 30: every public name is imported on first use."""
    code = (
        "import sys, veracity\n"
        "heavy = ['numpy', 'pydantic', 'veracity.evaluation', 'veracity.judges', 'openai']\n"
        "print([m for m in heavy if m in sys.modules])\n"
        "veracity.evaluate\n"
        "print('veracity.evaluation' in sys.modules, 'evaluate' in vars(veracity))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["[]", "True True"]
    with pytest.raises(AttributeError, match="no attribute 'evaluat'"):
        # the misspelt name is the point: it is not one of veracity's
        veracity.evaluat  # type: ignore[attr-defined]  # noqa: B018
