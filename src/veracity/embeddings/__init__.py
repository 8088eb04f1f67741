"""Text embeddings and BERTScore: local models (offline, verified weights) or an
OpenAI-compatible endpoint.

The heavy libraries (torch, sentence-transformers, bert-score) are imported only when a
local model is first used, on its worker thread.
"""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "MINILM_L6_V2",
    "MINILM_NUM_LAYERS",
    "BertScorer",
    "BertScoring",
    "CutsLongTexts",
    "Embedder",
    "LRUCache",
    "LocalEmbedder",
    "Matrix",
    "MicroBatcher",
    "MissingLocalModelError",
    "ModelIntegrityError",
    "ModelOutputError",
    "ModelSpecError",
    "OpenAIEmbedder",
    "PinnedFile",
    "Scores",
    "clipped_cosine",
    "cosine",
    "cut_texts",
    "default_minilm_dir",
    "local_bert_scorer_available",
    "local_embedder_available",
    "make_bert_scorer",
    "make_embedder",
    "normalize_rows",
    "question_vector",
    "verify_weights",
]

if TYPE_CHECKING:
    from veracity.embeddings.base import (
        CutsLongTexts,
        Embedder,
        Matrix,
        ModelOutputError,
        clipped_cosine,
        cosine,
        cut_texts,
        normalize_rows,
        question_vector,
    )
    from veracity.embeddings.batching import MicroBatcher
    from veracity.embeddings.bertscore import (
        MINILM_NUM_LAYERS,
        BertScorer,
        BertScoring,
        Scores,
    )
    from veracity.embeddings.cache import LRUCache
    from veracity.embeddings.factory import (
        local_bert_scorer_available,
        local_embedder_available,
        make_bert_scorer,
        make_embedder,
    )
    from veracity.embeddings.local import LocalEmbedder
    from veracity.embeddings.openai_embeddings import OpenAIEmbedder
    from veracity.embeddings.weights import (
        MINILM_L6_V2,
        MissingLocalModelError,
        ModelIntegrityError,
        ModelSpecError,
        PinnedFile,
        default_minilm_dir,
        verify_weights,
    )
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
