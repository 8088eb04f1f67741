"""evaluate(config=RunConfig(...)): the settings whole, the judge made from them, and the
deprecated setting keywords laid over them as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import paris_rows
from veracity import evaluate
from veracity.config import RunConfig
from veracity.testing import FakeLLMServer


def test_the_run_takes_its_settings_and_judge_from_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeLLMServer() as server:
        config = RunConfig(
            judge="openai/judge-model",
            base_url=server.base_url,
            metrics=("faithfulness",),
            timeout=9,
            structured_output="json_object",
            max_tokens={"claim_extraction": 300},
            iterations=2,
            cache=False,
            embedder="none",
        )
        result = evaluate(paris_rows(2), config=config, out=tmp_path / "run", progress=False)
        bodies = list(server.requests)
    assert len(result.results) == 4  # 2 samples × 2 iterations of the config's metric
    assert {r.status.value for r in result.results} == {"scored"}
    assert all(body["response_format"]["type"] == "json_object" for body in bodies)
    assert 300 in {body["max_tokens"] for body in bodies}  # claim extraction's bound
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["judge"]["timeout_s"] == 9.0
    assert manifest["settings"]["iterations"] == 2
    assert manifest["settings"]["timeout_s"] == 9.0
    assert manifest["settings"]["cache"] is False


def test_a_deprecated_keyword_not_at_its_default_is_laid_over_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeLLMServer() as server:
        config = RunConfig(judge="openai/judge-model", base_url=server.base_url, iterations=3)
        with pytest.warns(DeprecationWarning, match=r"use RunConfig\(iterations=\.\.\.\)"):
            result = evaluate(
                paris_rows(1), "faithfulness", config=config, iterations=1,
                progress=False,
            )  # fmt: skip
    assert len(result.results) == 1
    assert result.manifest["settings"]["iterations"] == 1  # given: it wins, even at 1


def test_an_unknown_keyword_is_a_type_error_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(
        TypeError, match="evaluate\\(\\) got an unexpected keyword argument 'timeout'"
    ):
        evaluate(paris_rows(1), "faithfulness", "offline", out=tmp_path / "r", timeout=5)  # type: ignore[call-arg]
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"concurrency": 0}, "concurrency: Input should be greater than or equal to 1"),
        ({"executor": "rey"}, "unknown executor 'rey'"),
        ({"max_error_rate": 2}, "max_error_rate"),
    ],
)
def test_bad_deprecated_keywords_are_named_before_anything_runs(
    tmp_path: Path, keywords: dict[str, object], message: str
) -> None:
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match=message):
        evaluate(paris_rows(1), "faithfulness", "offline", out=tmp_path / "r", **keywords)  # type: ignore[arg-type]
    assert not (tmp_path / "r").exists()


def test_a_bad_setting_is_named_when_the_config_is_made() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        RunConfig(concurrency=0)


def test_a_judge_object_keeps_its_own_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeLLMServer() as server:
        judge = RunConfig(judge="openai/judge-model", base_url=server.base_url).make_judge()
        result = evaluate(
            paris_rows(1),
            "faithfulness",
            judge,
            config=RunConfig(truncate_contexts=False, cache=False),
            progress=False,
        )
        assert result.results[0].status.value == "scored"
        # The deprecated keyword refuses a judge object as it did; the config's budget
        # (a setting for judges made from a spec) leaves the object its own.
        with (
            pytest.warns(DeprecationWarning, match="prompt_budget"),
            pytest.raises(ValueError, match="shape a judge made from a spec"),
        ):
            evaluate(paris_rows(1), "faithfulness", judge, prompt_budget=900, progress=False)


def test_metrics_named_in_python_get_the_configs_phrases_and_weights(tmp_path: Path) -> None:
    from veracity.judges.offline import OfflineJudge

    config = RunConfig(abstention_phrases=("no idea at all",), weights={"faithfulness": 1.0})
    row = {"id": "a", "question": "q", "answer": "No idea at all.", "contexts": ["c"]}
    result = evaluate(
        [row], ["faithfulness", "ragas_score"], OfflineJudge(), config=config, progress=False
    )
    by_metric = {r.metric: r for r in result.results}
    assert by_metric["faithfulness"].status.value == "no_claims"  # the config's phrase
    assert by_metric["ragas_score"].details["weights_used"] == {"faithfulness": 1.0}
