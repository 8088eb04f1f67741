"""Embedders and BERT scorers from their names: ``auto``, ``local``, ``openai/MODEL``."""

from __future__ import annotations

from pathlib import Path

from veracity.embeddings.base import Embedder
from veracity.embeddings.bertscore import BertScorer, BertScoring
from veracity.embeddings.local import LocalEmbedder
from veracity.embeddings.openai_embeddings import OpenAIEmbedder
from veracity.embeddings.weights import (
    MINILM_LIBS,
    MINILM_PACKAGE,
    SCORER_LIBS,
    ModelSpecError,
    missing_modules,
)
from veracity.transport.limits import DEFAULT_CONCURRENCY

EMBEDDER_SPECS = "'auto', 'local', 'local:DIR' or 'openai/MODEL'"
SCORER_SPECS = "'auto', 'local' or 'local:DIR'"


def local_embedder_available() -> bool:
    """Whether the default local embedder is installed (``veracity[local]``)."""
    return not missing_modules((*MINILM_LIBS, MINILM_PACKAGE))


def local_bert_scorer_available() -> bool:
    """Whether the default local BERT scorer is installed (``veracity[local]``)."""
    return not missing_modules((*SCORER_LIBS, MINILM_PACKAGE))


def make_embedder(
    spec: Embedder | str | None = "auto",
    *,
    base_url: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> Embedder | None:
    """The embedder ``spec`` names.

    - ``None``: none; an :class:`Embedder` is returned as is;
    - ``"auto"``: the local all-MiniLM-L6-v2 if ``veracity[local]`` is installed, else none;
    - ``"local"`` (or ``"local/all-MiniLM-L6-v2"``): that model, or
      :class:`~veracity.embeddings.weights.MissingLocalModelError` if it is not installed;
    - ``"local:DIR"``: a sentence-transformers model directory of the user's (not pinned);
    - ``"openai/MODEL"``: an OpenAI-compatible embeddings endpoint, at ``base_url`` (else
      ``OPENAI_BASE_URL``) with ``OPENAI_API_KEY``, at most ``concurrency`` calls at once.
    """
    if spec is None or not isinstance(spec, str):
        return spec
    name = spec.strip()
    if name == "auto":
        return LocalEmbedder() if local_embedder_available() else None
    if name in {"local", "local/all-MiniLM-L6-v2"}:
        return LocalEmbedder()
    if name.startswith("local:") and name[len("local:") :].strip():
        return LocalEmbedder(Path(name[len("local:") :].strip()))
    if name.startswith("openai/") and name[len("openai/") :].strip():
        model = name[len("openai/") :].strip()
        return OpenAIEmbedder(model, base_url=base_url, concurrency=concurrency)
    raise ModelSpecError(f"unknown embedder {spec!r}: use {EMBEDDER_SPECS}")


def make_bert_scorer(spec: BertScoring | str | None = "auto") -> BertScoring | None:
    """The BERT scorer ``spec`` names.

    ``None``; a scorer (a :class:`BertScorer` or a stand-in: as is); ``"auto"`` (the
    local all-MiniLM-L6-v2 if installed, else none); ``"local"`` (that model, or
    :class:`~veracity.embeddings.weights.MissingLocalModelError`); ``"local:DIR"`` (a
    model directory of the user's, all of its layers).
    """
    if spec is None or not isinstance(spec, str):
        return spec
    name = spec.strip()
    if name == "auto":
        return BertScorer() if local_bert_scorer_available() else None
    if name in {"local", "local/all-MiniLM-L6-v2"}:
        return BertScorer()
    if name.startswith("local:") and name[len("local:") :].strip():
        return BertScorer(Path(name[len("local:") :].strip()))
    raise ModelSpecError(f"unknown BERT scorer {spec!r}: use {SCORER_SPECS}")
