"""The default sentence model, all-MiniLM-L6-v2, run on torch alone.

sentence-transformers and transformers take about four seconds of CPU to import, most of
the time a one-sample run waits for its result; this model is a plain six-layer BERT with
mean pooling, which takes a page of torch. Its vectors equal sentence-transformers' up
to float rounding (a test compares them). A model directory of the user's (any
architecture) still loads through sentence-transformers (see ``LocalEmbedder``).

Texts are batched by token count, not by number: one long sentence padded a batch of 64
short ones to its length, and padding was most of the model's work on long contexts.
The batches run in parallel on as many threads as torch would use, each with one thread
of its own inside torch: torch's threads within every operation wait for each other at
every step, which costs little on idle cores and many times the work on busy ones.

Precision: on a CPU with native bfloat16 arithmetic (AVX512-BF16 or AMX) the matrix
products run in bfloat16 with float32 sums, the model 1.7 times faster, and everything
else (layer norms, attention, pooling) in float32; the vectors then differ from
float32's by at most about 2e-3 a component (cosine with them above 0.9999), and by up
to about 3e-4 with the batch a text lands in. Elsewhere bfloat16 is emulated and
several times slower than float32, so "auto" keeps float32 there.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np
import numpy.typing as npt

from veracity._suggest import one_of
from veracity.embeddings.weights import ModelIntegrityError, ModelSpecError

if TYPE_CHECKING:
    import torch

# Padded tokens in one forward pass: larger batches cost more CPU per token here (the
# activations leave the cache) and more memory; smaller ones pay per-call overhead.
TOKENS_PER_BATCH = 1024
# What this module implements: sentence-transformers' modules of the model, in order.
MODULES = ("Transformer", "Pooling", "Normalize")

# A forward pass's token rows are padded to a multiple of this (see MiniLM._forward).
ROWS_STEP = 64

Precision = Literal["float32", "bfloat16"]
PrecisionChoice = Literal["auto", "float32", "bfloat16"]
PRECISIONS: tuple[PrecisionChoice, ...] = get_args(PrecisionChoice)
# Overrides "auto" for every default model of the process (the CLI has no other way in).
PRECISION_ENV = "VERACITY_EMBEDDING_PRECISION"


def native_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices natively (else oneDNN emulates it,
    several times slower than float32)."""
    import torch

    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in checks)


def requested_precision(choice: PrecisionChoice) -> PrecisionChoice:
    """``choice``, with ``"auto"`` replaced by ``$VERACITY_EMBEDDING_PRECISION`` if set
    (read without torch: the model's own process resolves the rest)."""
    if choice != "auto":
        return choice
    given = os.environ.get(PRECISION_ENV, "").strip().lower() or "auto"
    try:
        return one_of(given, PRECISIONS, f"${PRECISION_ENV}")
    except ValueError as exc:
        raise ModelSpecError(str(exc)) from exc


def resolve_precision(choice: PrecisionChoice, device: str = "cpu") -> Precision:
    """The precision ``choice`` means here: ``"auto"`` is ``$VERACITY_EMBEDDING_PRECISION``
    if set, else bfloat16 on a CPU that has it natively and float32 otherwise."""
    choice = requested_precision(choice)
    if choice == "auto":
        return "bfloat16" if device == "cpu" and native_bfloat16() else "float32"
    return choice


_threads_lock = threading.Lock()


def _single_threaded() -> None:
    """Make torch's work on this thread single-threaded, and only on this thread.

    ``torch.set_num_threads`` sets the calling thread's own count (OpenMP and MKL keep
    one per thread) and also the count threads started later begin with: that one is
    put back, from a thread of its own, so the user's threads keep torch's default.
    """
    import torch

    with _threads_lock:
        default = torch.get_num_threads()
        torch.set_num_threads(1)
        restore = threading.Thread(target=torch.set_num_threads, args=(default,))
        restore.start()
        restore.join()


def default_threads() -> int:
    """As many threads as torch would use on a thread of its own (the cores, or
    ``OMP_NUM_THREADS``, or what the user gave ``torch.set_num_threads``)."""
    import torch

    found: list[int] = []
    probe = threading.Thread(target=lambda: found.append(torch.get_num_threads()))
    probe.start()
    probe.join()
    return max(1, found[0])


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelIntegrityError(f"cannot read {path} of the model: {exc}") from exc


def _check_architecture(model_dir: Path) -> dict[str, Any]:
    """The model's config, after checking it is what :class:`MiniLM` computes (the
    weights are pinned, the configs beside them are not)."""
    config = _json(model_dir / "config.json")
    modules = _json(model_dir / "modules.json")
    pooling = _json(model_dir / "1_Pooling" / "config.json")
    expected = {"model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute"}
    kinds = tuple(str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules)
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode_") and v is True}
    if (
        any(config.get(k, v) != v for k, v in expected.items())
        or kinds != MODULES
        or modes != {"pooling_mode_mean_tokens"}
    ):
        raise ModelIntegrityError(
            f"{model_dir} does not hold a mean-pooled BERT sentence model (its "
            "config.json, modules.json or 1_Pooling/config.json say otherwise); nothing "
            "was loaded"
        )
    return dict(config)


def _product(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``x @ w.T + b`` in ``w``'s precision (bfloat16, bias included: oneDNN sums in
    float32 and rounds once)."""
    import torch.nn.functional as F

    return F.linear(x.to(w.dtype), w, b)


_shared: dict[tuple[Path, int | None, str, Precision], MiniLM] = {}
_shared_lock = threading.Lock()


def shared_minilm(
    model_dir: Path, *, threads: int | None = None, device: str = "cpu", precision: Precision
) -> MiniLM:
    """The process's one :class:`MiniLM` of ``model_dir`` (and settings): the offline
    judge's embedder and a metric's share its weights (read-only) and threads."""
    key = (model_dir.resolve(), threads, device, precision)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = MiniLM(model_dir, threads=threads, device=device, precision=precision)
        return _shared[key]


class MiniLM:
    """A BERT encoder with mean pooling, from a sentence-transformers directory
    (``model.safetensors``, ``tokenizer.json``, the configs): :meth:`encode` gives what
    ``SentenceTransformer.encode`` gives, unit-length rows."""

    def __init__(
        self,
        model_dir: Path,
        *,
        tokens_per_batch: int = TOKENS_PER_BATCH,
        threads: int | None = None,
        device: str = "cpu",
        precision: Precision = "float32",
    ) -> None:
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        config = _check_architecture(model_dir)
        self.max_tokens = int(_json(model_dir / "sentence_bert_config.json")["max_seq_length"])
        self.tokens_per_batch = max(tokens_per_batch, self.max_tokens)
        self.dimension = int(config["hidden_size"])
        self.threads = threads or default_threads()
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config["layer_norm_eps"])
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # The file's own settings (pad to 128, cut at 128) are not the model's.
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(self.max_tokens)
        self.device = device
        self.precision = precision
        w = load_file(str(model_dir / "model.safetensors"), device=device)
        # The matrices of the products, kept in the precision they are multiplied in.
        matrix_type = torch.bfloat16 if precision == "bfloat16" else torch.float32

        # Every tensor kept is a copy of its own: safetensors maps the whole file, and each
        # page of it that was read stayed resident as long as any tensor of the file lived
        # (in bfloat16, the float32 matrices read once to be converted: 40 MiB for nothing).
        # Copied, the file is unmapped with ``w``.
        def kept(name: str, dtype: torch.dtype | None = None) -> torch.Tensor:
            return w[name].to(dtype or w[name].dtype, copy=True)

        self._embeddings = (
            kept("embeddings.word_embeddings.weight"),
            kept("embeddings.position_embeddings.weight"),
            kept("embeddings.token_type_embeddings.weight")[0],
            kept("embeddings.LayerNorm.weight"),
            kept("embeddings.LayerNorm.bias"),
        )
        self._layers: list[tuple[torch.Tensor, ...]] = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            attention = p + "attention.self."
            self._layers.append(
                (
                    # Query, key and value as one matrix: one product instead of three.
                    torch.cat([w[f"{attention}{n}.weight"] for n in ("query", "key", "value")]).to(
                        matrix_type
                    ),
                    torch.cat([w[f"{attention}{n}.bias"] for n in ("query", "key", "value")]).to(
                        matrix_type
                    ),
                    *(
                        kept(p + name, matrix_type if ".dense." in name else None)
                        for name in (
                            "attention.output.dense.weight",
                            "attention.output.dense.bias",
                            "attention.output.LayerNorm.weight",
                            "attention.output.LayerNorm.bias",
                            "intermediate.dense.weight",
                            "intermediate.dense.bias",
                            "output.dense.weight",
                            "output.dense.bias",
                            "output.LayerNorm.weight",
                            "output.LayerNorm.bias",
                        )
                    ),
                )
            )

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One unit-length row per text (texts are stripped, as sentence-transformers
        does), computed in batches of similar length, in parallel."""
        encoded = [e.ids for e in self._tokenizer.encode_batch([t.strip() for t in texts])]
        order = sorted(range(len(texts)), key=lambda i: -len(encoded[i]))
        # A batch per thread at least, so that a small call keeps every thread busy too.
        total = sum(len(ids) for ids in encoded)
        budget = min(self.tokens_per_batch, -(-total // self.threads))
        batches: list[list[int]] = []
        start = 0
        while start < len(order):  # the longest first: it sets its batch's padded length
            size = max(1, budget // max(len(encoded[order[start]]), 1))
            batches.append(order[start : start + size])
            start += size
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    self.threads, thread_name_prefix="veracity-minilm", initializer=_single_threaded
                )
            pool = self._pool
        pooled = pool.map(self._pooled, [[encoded[i] for i in b] for b in batches])
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for batch, rows in zip(batches, pooled, strict=True):
            out[batch] = rows
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.asarray(out / np.where(norms > 0, norms, 1.0), dtype=np.float32)

    def cut(self, texts: Sequence[str]) -> list[bool]:
        """Which texts are longer than the model reads: their vectors stand for their
        first ``max_tokens`` tokens only."""
        encoded = self._tokenizer.encode_batch([t.strip() for t in texts])
        return [bool(e.overflowing) for e in encoded]

    def close(self) -> None:
        """Stop the threads once their work is done (a later :meth:`encode` starts new
        ones)."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False)

    def _pooled(self, rows: list[list[int]]) -> npt.NDArray[np.float32]:
        """The mean of each row's token vectors (padding left out)."""
        import torch

        with torch.inference_mode():
            return np.asarray(self._forward(rows).cpu().numpy(), dtype=np.float32)

    def _forward(self, rows: list[list[int]]) -> torch.Tensor:
        import torch
        import torch.nn.functional as F

        count, length = len(rows), max(len(r) for r in rows)
        # Built in Python, made tensors at once: a tensor call per row was a third of the
        # operations of a forward.
        ids = torch.tensor([r + [0] * (length - len(r)) for r in rows], device=self.device)
        sizes = torch.tensor([len(r) for r in rows], device=self.device)
        mask = torch.arange(length, device=self.device) < sizes[:, None]
        # Padding gets the most negative float in the attention scores, as transformers does.
        bias = (
            torch.zeros((count, 1, 1, length), device=self.device).masked_fill(
                ~mask[:, None, None, :], torch.finfo(torch.float32).min
            )
            if not bool(mask.all())
            else None
        )
        words, positions, token_type, norm_w, norm_b = self._embeddings
        hidden, tokens = words.shape[1], count * length
        # One row per token, the rows padded once to a multiple of ROWS_STEP: oneDNN keeps
        # a kernel for every shape it multiplies (a few shapes instead of hundreds), and
        # a product is one operation, not a copy into a padded block and back. Every
        # operation is a turn of the GIL for this thread: fewer, the less it waits for
        # the Python threads beside it.
        padded_rows = tokens + -tokens % ROWS_STEP
        x = torch.zeros((padded_rows, hidden), device=self.device)
        embedded = F.embedding(ids, words) + token_type + positions[:length]
        x[:tokens] = F.layer_norm(embedded, (hidden,), norm_w, norm_b, self._eps).view(-1, hidden)
        # The attention's output in the products' precision (the next product would round
        # it to it anyway), laid out as x; its padding rows stay zero.
        context = torch.zeros_like(x, dtype=self._layers[0][0].dtype)
        heads, size = self._heads, hidden // self._heads
        for qkv_w, qkv_b, ao_w, ao_b, an_w, an_b, i_w, i_b, o_w, o_b, on_w, on_b in self._layers:
            q, k, v = (
                _product(x, qkv_w, qkv_b)[:tokens]
                .float()
                .view(count, length, 3, heads, size)
                .permute(2, 0, 3, 1, 4)
                .unbind(0)
            )
            attended = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
            context[:tokens].view(count, length, heads, size).copy_(attended.transpose(1, 2))
            x = F.layer_norm(
                _product(context, ao_w, ao_b).float() + x, (hidden,), an_w, an_b, self._eps
            )
            # The widest activations stay in the products' precision: the next product
            # would round them to it anyway (the same vectors, two copies fewer).
            inner = F.gelu(_product(x, i_w, i_b))
            x = F.layer_norm(
                _product(inner, o_w, o_b).float() + x, (hidden,), on_w, on_b, self._eps
            )
        states = x[:tokens].view(count, length, hidden)
        weights = mask.unsqueeze(-1).to(states.dtype)
        return (states * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)
