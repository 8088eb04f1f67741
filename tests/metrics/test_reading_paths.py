"""Which reading path each judge reply took: recorded per result, counted in the summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import claims_reply, make_sample, verdicts_reply
from veracity.chat import ScriptedChat
from veracity.config import RunConfig
from veracity.evaluation import evaluate
from veracity.judges import LLMJudge
from veracity.judges.offline import OfflineJudge
from veracity.metrics import Faithfulness, Models, SampleWork
from veracity.types import MetricResult, Status

CLAIM = "Paris is the capital of France."
STRICT_CLAIMS = claims_reply(CLAIM)
STRICT_VERDICTS = verdicts_reply((CLAIM, "supported", "r", "Paris is the capital"))


async def faithfulness(*script: str) -> MetricResult:
    sample = make_sample(answer=CLAIM)
    metric = Faithfulness()
    work = SampleWork(sample, Models(LLMJudge(ScriptedChat(script))), 0, {metric.name: metric})
    return await metric.score(work)


@pytest.mark.parametrize(
    ("reply", "path"),
    [
        (STRICT_CLAIMS, "strict"),
        (f"```json\n{STRICT_CLAIMS}\n```", "fenced"),
        (f"The claims: {STRICT_CLAIMS} That is all.", "embedded"),
        (f"{{'claims': ['{CLAIM}'],}}", "repaired"),
    ],
)
async def test_each_claim_extraction_path_is_recorded(reply: str, path: str) -> None:
    result = await faithfulness(reply, STRICT_VERDICTS)
    assert result.status is Status.SCORED
    assert result.details["reading"] == {
        "claim_extraction": [path],
        "claim_verification": ["strict"],
    }


@pytest.mark.parametrize(
    ("reply", "path"),
    [
        ("Final verdict for each statement in order: Yes.", "legacy_final_verdict"),
        (f"Statement: {CLAIM}\nVerdict: supported", "legacy_verdict_lines"),
        ("1. Supported - the context says so", "legacy_numbered"),
    ],
)
async def test_each_legacy_verdict_format_is_recorded_by_name(reply: str, path: str) -> None:
    result = await faithfulness(STRICT_CLAIMS, reply)
    assert result.status is Status.SCORED
    assert result.details["reading"]["claim_verification"] == [path]


async def test_a_refusal_and_its_reask_are_both_recorded() -> None:
    result = await faithfulness("I cannot help with that.", STRICT_CLAIMS, STRICT_VERDICTS)
    assert result.details["reading"]["claim_extraction"] == ["refusal", "strict"]


async def test_a_judge_error_records_the_replies_it_could_not_read() -> None:
    result = await faithfulness(STRICT_CLAIMS, "I cannot say.", "no idea at all")
    assert result.status is Status.JUDGE_ERROR
    assert result.details["reading"] == {
        "claim_extraction": ["strict"],
        "claim_verification": ["refusal", "unparseable"],
    }


def test_a_judge_without_text_replies_records_no_reading() -> None:
    result = evaluate([make_sample()], ["faithfulness"], OfflineJudge(), progress=False)
    assert "reading" not in result.results[0].details
    assert result.summary["metrics"]["faithfulness"]["overall"].get("reading") is None


def test_results_jsonl_and_a_resumed_run_keep_the_reading(tmp_path: Path) -> None:
    fenced = f"```json\n{STRICT_VERDICTS}\n```"
    first = evaluate(
        [make_sample(answer=CLAIM)],
        ["faithfulness"],
        LLMJudge(ScriptedChat([STRICT_CLAIMS, fenced])),
        out=tmp_path,
        config=RunConfig(cache=False),
        progress=False,
    )
    expected = {"claim_extraction": ["strict"], "claim_verification": ["fenced"]}
    assert first.results[0].details["reading"] == expected
    (written,) = [
        json.loads(line)
        for path in tmp_path.rglob("results.jsonl")
        for line in path.read_text().splitlines()
    ]
    assert written["details"]["reading"] == expected
    # Run again: everything is done, no call is made (the script is empty), and the
    # results and their summary are read back from the run directory.
    resumed = evaluate(
        [make_sample(answer=CLAIM)],
        ["faithfulness"],
        LLMJudge(ScriptedChat([])),
        out=tmp_path,
        config=RunConfig(cache=False),
        progress=False,
    )
    assert resumed.results[0].details["reading"] == expected
    overall = resumed.summary["metrics"]["faithfulness"]["overall"]
    assert overall["reading"] == {
        "claim_extraction": {"strict": 1},
        "claim_verification": {"fenced": 1},
    }
