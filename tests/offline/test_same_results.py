"""Speed changes how fast the offline judge is, not what it finds: its results with the
default embedder (all-MiniLM-L6-v2 on torch alone, batched by token count, parallel,
texts in flight shared) equal those with the same model through sentence-transformers,
64 texts a batch, nothing cached (how every vector was computed before)."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import pytest

from veracity import aevaluate
from veracity.config import RunConfig
from veracity.embeddings import LocalEmbedder, default_minilm_dir
from veracity.judges.offline import OfflineJudge
from veracity.testing import synthetic_samples
from veracity.types import ResultRecord

METRICS = ["faithfulness", "context_precision", "context_recall", "answer_relevance"]
# The two embedders' names, which reasons quote: the only words that may differ.
NAMES = ("local/all-MiniLM-L6-v2", "local/model")


def _unnamed(text: str) -> str:
    for name in NAMES:
        text = text.replace(name, "NAME")
    return text


def _same(fast: Any, slow: Any, where: str) -> None:
    if isinstance(fast, dict):
        assert fast.keys() == slow.keys(), where
        for key in fast:
            _same(fast[key], slow[key], f"{where}.{key}")
    elif isinstance(fast, list):
        assert len(fast) == len(slow), where
        for i, (a, b) in enumerate(zip(fast, slow, strict=True)):
            _same(a, b, f"{where}[{i}]")
    elif isinstance(fast, float):
        assert fast == pytest.approx(slow, abs=1e-6), where
    elif isinstance(fast, str):
        assert _unnamed(fast) == _unnamed(slow), where
    else:
        assert fast == slow, where


async def _results(embedder: LocalEmbedder) -> dict[tuple[str, str | None, str], ResultRecord]:
    samples: list[Any] = list(synthetic_samples(24, seed=3))
    samples.append(str(files("veracity") / "examples" / "rag_sample.jsonl"))
    records: dict[tuple[str, str | None, str], ResultRecord] = {}
    for dataset in (samples[:-1], samples[-1]):
        result = await aevaluate(
            dataset,
            METRICS,
            OfflineJudge(embedder),
            config=RunConfig(embedder=embedder, cache=False),
        )
        records |= {(r.sample_id, r.system, r.metric): r for r in result.results}
    return records


async def test_the_fast_embedder_gives_the_offline_judge_the_same_results(
    local_embedder: LocalEmbedder,
) -> None:
    by_library = LocalEmbedder(default_minilm_dir(), batch_size=64, cache_size=0)
    fast, slow = await _results(local_embedder), await _results(by_library)
    await by_library.aclose()
    assert fast.keys() == slow.keys()
    assert len(fast) > 24 * len(METRICS)  # the example file's answers too
    for key, record in fast.items():
        other = slow[key]
        assert record.status == other.status, key
        assert record.score == pytest.approx(other.score, abs=1e-6), key
        _same([record.reason, record.details], [other.reason, other.details], str(key))
