"""The generator over real HTTP: the fake LLM server, the OpenAI SDK, the CLI."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.testset.fakes import MADE_UP, GeneratingJudge, write_docs
from veracity.chat import OpenAIChat
from veracity.cli import testset as testset_cli
from veracity.config import RunConfig
from veracity.dataset import read_dataset
from veracity.evaluation import aevaluate
from veracity.judges import LLMJudge
from veracity.testing import FakeLLMServer
from veracity.testset import agenerate_testset, load_chunks, write_jsonl
from veracity.testset.fake import FakeTestsetResponder
from veracity.types import Sample

EXAMPLE_DOCS = Path(__file__).parents[2] / "src" / "veracity" / "examples" / "docs"


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no config file of the repository applies


async def test_generation_over_http_drops_the_unsupported_item(tmp_path: Path) -> None:
    fake = GeneratingJudge(made_up={"complex_reasoning"})
    with FakeLLMServer(fake) as server:
        judge = LLMJudge(OpenAIChat("fake-model", base_url=server.base_url, api_key="test"))
        result = await agenerate_testset(write_docs(tmp_path / "docs"), judge, count=8, cache=False)
        stats, bodies = server.stats, server.requests
    report = result.report
    assert report.dropped == Counter({"unsupported": 1})
    assert any("penguins" in problem for problem in report.problems)
    assert report.kept == 8
    assert all(MADE_UP not in (s.reference or "") for s in result.samples)
    assert stats.completions == report.usage.calls
    formats = [b["response_format"]["json_schema"]["name"] for b in bodies]
    assert formats.count("testset_generation") == len(fake.generation_calls) == report.calls
    assert {"claim_extraction", "claim_verification"} <= set(formats)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(testset_cli.testset_app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_generate_writes_a_loadable_test_set_and_reruns_from_the_cache(
    tmp_path: Path,
) -> None:
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "testset.jsonl"
    fake = GeneratingJudge(made_up={"fact_retrieval"})
    with FakeLLMServer(fake) as server:
        args = ("generate", str(docs), "--count", "6", "--judge", "openai/fake-model",
                "--base-url", server.base_url, "--out", str(out), "--seed", "7")  # fmt: skip
        code, stdout, stderr = invoke(*args)
        assert code == 0, stderr
        served = server.stats.completions
        assert served > 0
        assert re.search(r"\n  dropped +\d+  \(.*unsupported 1", stdout), stdout
        assert re.search(r"\n  kept +6 of 6 asked", stdout), stdout
        assert "unsupported" in stderr and "penguins" in stderr
        first = out.read_text()

        code, stdout, _ = invoke(*args)
        assert code == 0
        assert server.stats.completions == served  # zero calls: all from the cache
        assert "endpoint calls 0," in stdout
        assert out.read_text() == first

        code, stdout, _ = invoke(*args, "--no-cache")
        assert code == 0
        assert server.stats.completions > served
    samples = list(read_dataset(out))
    assert len(samples) == 6
    assert all(isinstance(s, Sample) and s.answer == "" and s.reference for s in samples)
    assert {s.question_type for s in samples if isinstance(s, Sample)} == {
        "fact_retrieval", "complex_reasoning", "contextual_summary", "creative_generation"
    }  # fmt: skip


def test_cli_generate_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    code, _, stderr = invoke(
        "generate", str(tmp_path / "nowhere"), "--count", "2", "--out", str(tmp_path / "o.jsonl")
    )
    assert code == 2 and "not found" in stderr
    docs = write_docs(tmp_path / "docs")
    code, _, stderr = invoke("generate", str(docs), "--count", "2", "--out", "o.jsonl")
    assert code == 2 and "needs an LLM" in stderr  # no key, no base URL: offline
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, stderr = invoke(
        "generate", str(empty), "--count", "2", "--out", "o.jsonl",
        "--judge", "openai/m", "--base-url", "http://127.0.0.1:9/v1",
    )  # fmt: skip
    assert code == 2 and "no .txt, .md or .markdown document" in stderr


async def test_bundled_docs_generate_answer_and_evaluate(tmp_path: Path) -> None:
    """The docs example: generate from the bundled folder, answer, evaluate."""
    assert len({c.source for c in load_chunks(EXAMPLE_DOCS)}) >= 4
    with FakeLLMServer(FakeTestsetResponder()) as server:
        judge = LLMJudge(OpenAIChat("fake-model", base_url=server.base_url, api_key="test"))
        result = await agenerate_testset(EXAMPLE_DOCS, judge, count=8, seed=1, cache=False)
        assert result.report.kept == 8
        testset = tmp_path / "testset.jsonl"
        write_jsonl(testset, result.samples)
        answered = tmp_path / "answered.jsonl"
        with testset.open() as src, answered.open("w") as dst:
            for line in src:
                row = json.loads(line)
                row["answer"] = row["reference"]  # a stand-in system that knows the answer
                row["system"] = "oracle"
                dst.write(json.dumps(row) + "\n")
        evaluation = await aevaluate(
            answered,
            ["faithfulness", "context_recall"],
            judge,
            config=RunConfig(embedder="none", bert_scorer=None, cache=False),
            out=tmp_path / "run",
        )
        await judge.aclose()  # the caller's judge: the caller closes it
    records = evaluation.results
    assert len(records) == 16
    assert all(r.status == "scored" and r.score == 1.0 for r in records)
