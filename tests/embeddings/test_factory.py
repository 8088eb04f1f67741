"""Embedders and BERT scorers from their names."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from veracity.embeddings import (
    BertScorer,
    LocalEmbedder,
    MissingLocalModelError,
    OpenAIEmbedder,
    default_minilm_dir,
    local_bert_scorer_available,
    local_embedder_available,
    make_bert_scorer,
    make_embedder,
)
from veracity.testing.embedders import HashingEmbedder


def test_auto_and_local_give_the_local_models_when_installed() -> None:
    assert local_embedder_available()
    assert local_bert_scorer_available()
    for spec in ("auto", "local", "local/all-MiniLM-L6-v2"):
        embedder = make_embedder(spec)
        assert isinstance(embedder, LocalEmbedder)
        assert embedder.name == "local/all-MiniLM-L6-v2"
        assert isinstance(make_bert_scorer(spec), BertScorer)


def test_objects_and_none_pass_through() -> None:
    hashing = HashingEmbedder()
    assert make_embedder(hashing) is hashing
    assert make_embedder(None) is None
    scorer = BertScorer()
    assert make_bert_scorer(scorer) is scorer
    assert make_bert_scorer(None) is None


def test_a_local_directory() -> None:
    embedder = make_embedder(f"local:{default_minilm_dir()}")
    assert isinstance(embedder, LocalEmbedder)
    assert embedder.describe()["sha256"] is None  # the user's own choice: not pinned
    scorer = make_bert_scorer(f"local:{default_minilm_dir()}")
    assert isinstance(scorer, BertScorer)
    assert scorer.num_layers == 6


def test_openai_model_with_base_url() -> None:
    embedder = make_embedder(
        "openai/text-embedding-3-small", base_url="http://127.0.0.1:9/v1", concurrency=3
    )
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.model == "text-embedding-3-small"
    assert embedder.limiter.concurrency == 3


@pytest.mark.parametrize("spec", ["openai/", "local:", "hashing", "sentence-transformers"])
def test_unknown_names_are_refused(spec: str) -> None:
    with pytest.raises(ValueError, match="unknown embedder"):
        make_embedder(spec)


def test_unknown_scorer_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown BERT scorer"):
        make_bert_scorer("openai/some-model")


def test_without_the_local_extra_auto_gives_none_and_local_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    monkeypatch.setitem(sys.modules, "bert_score", None)
    assert not local_embedder_available()
    assert make_embedder("auto") is None
    assert make_bert_scorer("auto") is None
    with pytest.raises(MissingLocalModelError, match=r"tokenizers.*veracity\[local\]"):
        make_embedder("local")
    # A directory of the user's loads through sentence-transformers.
    with pytest.raises(MissingLocalModelError, match=r"sentence_transformers.*veracity\[local\]"):
        make_embedder(f"local:{default_minilm_dir()}")
    with pytest.raises(MissingLocalModelError, match=r"bert_score.*veracity\[local\]"):
        make_bert_scorer(f"local:{default_minilm_dir()}")


def test_a_missing_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        make_embedder(f"local:{tmp_path / 'missing'}")
