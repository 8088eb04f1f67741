"""BERTScore over texts of any length: token embeddings read in overlapping windows.

BERTScore matches every token of one text to its most similar token of the other by the
cosine of their contextual embeddings; precision and recall average those best matches.
The model reads at most its input limit (512 tokens with the special ones for BERT-like
models) and ``bert-score`` truncates anything longer, so the tail of a long text never
counted. Here a longer text is read in windows of the limit that overlap by half, and
each token keeps its embedding from the window where it has the most context on both
sides, as BERT's authors advise for long inputs (google-research/bert issue 66, the
"max context" rule of their SQuAD code). Every token then sees at least a quarter window
(127 tokens) on each side that the text has, more than the sentences BERTScore was
designed for, and precision and recall are taken over all tokens. A text that fits is
one window: exactly ``bert-score``'s input. The matching follows ``bert-score``'s
``greedy_cos_idf`` without idf: every token weighs 1 except the model's CLS and SEP
tokens (0), which still count as tokens to match.

torch and transformers are imported inside the functions: this module is imported with
``veracity.embeddings``, the functions run only on the scorer's worker thread.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

# Rows of the candidate's similarity matrix computed at once, so two long texts never
# need their whole (n × m) matrix in memory.
_MATCH_ROWS = 1024


@dataclass(frozen=True, slots=True)
class Layout:
    """How the model's inputs are built: special tokens around a window of text tokens."""

    prefix: tuple[int, ...]
    """Special token ids before the text (BERT: [CLS])."""
    suffix: tuple[int, ...]
    """Special token ids after it (BERT: [SEP])."""
    window: int
    """Text tokens per window: the model's input limit less the special tokens."""
    weightless: frozenset[int]
    """Token ids that weigh 0 in precision and recall (CLS and SEP, as in bert-score)."""
    prefix_space: bool
    """GPT-2 and RoBERTa tokenizers are given a leading space, as bert-score does."""

    def inputs(self, tokens: Sequence[int]) -> list[int]:
        return [*self.prefix, *tokens, *self.suffix]


@dataclass(frozen=True, slots=True)
class Encoded:
    """One text's token embeddings (unit rows, special tokens included) and weights."""

    vectors: torch.Tensor
    weights: torch.Tensor
    windows: int


def layout_of(tokenizer: Any, model: Any) -> Layout:
    """The :class:`Layout` of a ``bert-score`` tokenizer and model."""
    from transformers import GPT2Tokenizer, RobertaTokenizer

    prefix_space = isinstance(tokenizer, GPT2Tokenizer | RobertaTokenizer)
    options = {"add_prefix_space": True} if prefix_space else {}
    # The special tokens are what encoding adds around a word's ids.
    bare = list(tokenizer.encode("a", add_special_tokens=False, **options))
    full = list(tokenizer.encode("a", add_special_tokens=True, **options))
    at = next(i for i in range(len(full) - len(bare) + 1) if full[i : i + len(bare)] == bare)
    prefix, suffix = tuple(full[:at]), tuple(full[at + len(bare) :])
    limits = [tokenizer.model_max_length, getattr(model.config, "max_position_embeddings", None)]
    limit = min(value for value in limits if isinstance(value, int) and value > 0)
    window = limit - len(prefix) - len(suffix)
    if window < 2:
        raise ValueError(f"the model reads {limit} tokens at most: too few to score text")
    special = {tokenizer.cls_token_id, tokenizer.sep_token_id}
    return Layout(
        prefix=prefix,
        suffix=suffix,
        window=window,
        weightless=frozenset(i for i in special if isinstance(i, int)),
        prefix_space=prefix_space,
    )


def text_ids(tokenizer: Any, layout: Layout, text: str) -> list[int]:
    """The token ids of ``text`` without special tokens and without truncation
    (``verbose=False``: no warning on stderr that the text exceeds the model's limit)."""
    options = {"add_prefix_space": True} if layout.prefix_space else {}
    ids = tokenizer.encode(text.strip(), add_special_tokens=False, verbose=False, **options)
    return [int(i) for i in ids]


def window_starts(length: int, window: int) -> list[int]:
    """Where the windows over ``length`` tokens start: one if the text fits, else every
    half window, the last one flush with the end so that it is full too."""
    if length <= window:
        return [0]
    stride = max(1, window // 2)
    return [*range(0, length - window, stride), length - window]


def best_windows(length: int, starts: Sequence[int], window: int) -> list[int]:
    """For each token, the window (index into ``starts``) where it has the most context:
    where the nearer of the window's two ends is farthest from it; ties go to the first."""
    best: list[int] = []
    for position in range(length):
        # Only the few windows starting within a window's length before it hold it.
        last = bisect.bisect_right(starts, position) - 1
        holding = range(bisect.bisect_right(starts, position - window), last + 1)
        best.append(
            max(
                holding,
                key=lambda i: (min(position - starts[i], starts[i] + window - 1 - position), -i),
            )
        )
    return best


def encode(
    model: Any, tokenizer: Any, layout: Layout, texts: Sequence[str], batch_size: int
) -> list[Encoded | None]:
    """Every text's :class:`Encoded` (``None`` for one with no tokens). Windows of all
    texts are run through the model together, longest first, ``batch_size`` at a time."""
    import torch

    ids = [text_ids(tokenizer, layout, text) for text in texts]
    windows: list[list[int]] = []  # model inputs, special tokens included
    spans: list[tuple[int, list[int]]] = []  # per text: first window's index, starts
    for tokens in ids:
        starts = window_starts(len(tokens), layout.window) if tokens else []
        spans.append((len(windows), starts))
        for start in starts:
            windows.append(layout.inputs(tokens[start : start + layout.window]))
    outputs = _run(model, tokenizer, windows, batch_size)
    encoded: list[Encoded | None] = []
    for tokens, (first, starts) in zip(ids, spans, strict=True):
        if not tokens:
            encoded.append(None)
            continue
        pieces = outputs[first : first + len(starts)]
        bases = [0]
        for piece in pieces[:-1]:
            bases.append(bases[-1] + len(piece))
        # Rows of the windows' outputs stacked: the first window's leading special tokens,
        # each text token from its best window, the last window's trailing ones.
        head, tail = len(layout.prefix), bases[-1] + len(pieces[-1]) - len(layout.suffix)
        rows = [*range(head)]
        for position, which in enumerate(best_windows(len(tokens), starts, layout.window)):
            rows.append(bases[which] + head + position - starts[which])
        rows.extend(range(tail, tail + len(layout.suffix)))
        vectors = torch.cat(pieces)[torch.tensor(rows)]
        token_ids = layout.inputs(tokens)
        weights = torch.tensor(
            [0.0 if i in layout.weightless else 1.0 for i in token_ids], dtype=vectors.dtype
        )
        encoded.append(
            Encoded(
                vectors=vectors / vectors.norm(dim=-1, keepdim=True),
                weights=weights,
                windows=len(starts),
            )
        )
    return encoded


def _run(model: Any, tokenizer: Any, windows: list[list[int]], batch_size: int) -> list[Any]:
    """The model's last (kept) layer for each window, one tensor of rows per window."""
    import torch

    device = next(model.parameters()).device
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    order = sorted(range(len(windows)), key=lambda i: len(windows[i]), reverse=True)
    outputs: list[Any] = [None] * len(windows)
    model.eval()
    with torch.inference_mode():
        for begin in range(0, len(order), batch_size):
            batch = order[begin : begin + batch_size]
            width = len(windows[batch[0]])
            input_ids = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for row, index in enumerate(batch):
                input_ids[row, : len(windows[index])] = torch.tensor(windows[index])
                mask[row, : len(windows[index])] = 1
            hidden = model(input_ids.to(device), attention_mask=mask.to(device))[0].cpu()
            for row, index in enumerate(batch):
                outputs[index] = hidden[row, : len(windows[index])]
    return outputs


def greedy_match(candidate: Encoded, reference: Encoded) -> tuple[float, float, float]:
    """BERTScore (P, R, F1): each weighted token's best cosine with any token of the
    other text, averaged by weight; a side whose tokens all weigh 0 scores 0."""
    import torch

    best_for_candidate = torch.empty(len(candidate.vectors))
    best_for_reference = torch.full((len(reference.vectors),), -1.0)
    for begin in range(0, len(candidate.vectors), _MATCH_ROWS):
        similarity = candidate.vectors[begin : begin + _MATCH_ROWS] @ reference.vectors.T
        best_for_candidate[begin : begin + _MATCH_ROWS] = similarity.max(dim=1).values
        best_for_reference = torch.maximum(best_for_reference, similarity.max(dim=0).values)
    precision = _weighted_mean(best_for_candidate, candidate.weights)
    recall = _weighted_mean(best_for_reference, reference.weights)
    total = precision + recall
    return precision, recall, (2 * precision * recall / total if total > 0 else 0.0)


def _weighted_mean(values: torch.Tensor, weights: torch.Tensor) -> float:
    total = float(weights.sum())
    return float((values * weights).sum()) / total if total > 0 else 0.0
