"""The shortcuts that make the evidence cheaper give what the long way gives."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

import numpy as np
import pytest

pytest.importorskip("pysbd")

from veracity.embeddings import Matrix
from veracity.judges.offline.features import UNALIGNED, Evidence, features_of
from veracity.text import analysis as tx


def test_a_pair_of_sentences_reads_as_its_joined_text() -> None:
    contexts = [
        "Insulin is not made by the liver. It is made in the pancreas, 2 ounces a day. "
        "Twenty cells didn't respond.",
        "The tower, 300 m tall, opened in 1889. Nobody climbed it that year.",
    ]
    evidence = Evidence.build(contexts)
    pairs = [w for w in evidence.windows if len(w.sentences) == 2]
    assert len(pairs) == 3  # pairs stay within a context
    for window in evidence.windows:
        assert window.text == " ".join(evidence.sentences[i] for i in window.sentences)
        assert window.content == frozenset(tx.content_tokens(window.text))
        assert window.numbers == frozenset(tx.numbers(window.text))
        assert window.negated == tx.negated(window.text)


def _recording_embed(asked: list[str]) -> Callable[[Sequence[str]], Awaitable[Matrix]]:
    async def embed(texts: Sequence[str]) -> Matrix:
        asked.extend(texts)
        rng = np.random.default_rng(len(asked))
        rows = rng.normal(size=(len(texts), 8)).astype(np.float32)
        return np.asarray(rows / np.linalg.norm(rows, axis=1, keepdims=True), dtype=np.float32)

    return embed


CONTEXT = (
    "The weather was mild. Insulin is made in the pancreas. Its cells respond to sugar. "
    "Rain fell all week. Markets closed early. Prices rose by 5 percent."
)


def test_sentences_of_windows_sharing_no_word_with_a_claim_are_not_embedded() -> None:
    asked: list[str] = []
    claims = ["Insulin comes from the pancreas.", "Prices went up 5 percent."]
    found = asyncio.run(features_of(_recording_embed(asked), claims, [CONTEXT]))
    sentences = Evidence.build([CONTEXT]).sentences
    # Every window holding "insulin"/"pancreas" or "price"/"5"/"percent", with its pair.
    assert asked[2:] == [s for s in sentences if s != "Rain fell all week."]
    # A window not embedded is never a claim's best.
    assert all(f.best is not None and f.best.text != "Rain fell all week." for f in found)
    assert all(f.cosine > UNALIGNED for f in found)


def test_a_claim_sharing_no_word_with_any_window_has_every_sentence_embedded() -> None:
    asked: list[str] = []
    claims = ["Insulin comes from the pancreas.", "Glaciers melt slowly."]
    found = asyncio.run(features_of(_recording_embed(asked), claims, [CONTEXT]))
    sentences = list(Evidence.build([CONTEXT]).sentences)
    # The first call: the claims, then every sentence (a claim's word substitutions, if
    # any, come in a second call).
    assert asked[2 : 2 + len(sentences)] == sentences
    assert found[1].best is not None  # the nearest by meaning alone
