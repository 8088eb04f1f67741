"""BERTScore on texts longer than the model's limit: windows against truncation.

veracity's BERTScore reads a text longer than the model's input limit (510 text tokens for
all-MiniLM-L6-v2) in windows that overlap by half, each token embedded in the window
where it has the most context; ``bert-score`` truncates it. Two checks, on the held-out
("test") half of wice_dev (a claim and the web page it was checked against; nearly every
page is longer than the limit):

1. How much windowing moves a score: pages cut to 500 tokens (one window, exactly
   ``bert-score``'s input) scored again with windows forced to 256, 128 and 64 tokens;
   the mean and largest change of precision and F1 of (claim, page), and the AUROC of
   precision for the label.
2. What reading all of a page buys: AUROC of BERTScore precision of the claim against
   its whole page for the label "supported by the page", with the page truncated at the
   limit (``bert-score`` itself, what veracity did before) and read in windows.

Run:  python benchmarks/bertscore_windows.py [--data DIR] [--split all]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from offline_data import DEFAULT_DATA, auroc, auroc_difference, load_set
from veracity.embeddings import BertScorer
from veracity.embeddings.bertscore_windows import Layout, encode, greedy_match


def scores(
    scorer: Any, layout: Layout, claims: list[str], pages: list[str]
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Precision and F1 of each (claim, page), and how many windows each page took."""
    model, tokenizer = scorer._model, scorer._tokenizer
    claim_codes = encode(model, tokenizer, layout, claims, 32)
    page_codes = encode(model, tokenizer, layout, pages, 32)
    precision, f1, windows = [], [], []
    for claim, page in zip(claim_codes, page_codes, strict=True):
        assert claim is not None and page is not None
        p, _, f = greedy_match(claim, page)
        precision.append(p)
        f1.append(f)
        windows.append(page.windows)
    return np.asarray(precision), np.asarray(f1), windows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--split", choices=("test", "all"), default="test")
    args = parser.parse_args()
    rows = [r for r in load_set(args.data, "wice_dev") if args.split in ("all", r.split)]
    claims = [r.answer for r in rows]
    pages = [" ".join(r.contexts) for r in rows]
    labels = [r.label for r in rows]

    bert = BertScorer()
    scorer = bert._ensure_scorer()  # the loaded bert-score model and tokenizer
    layout = bert._layout
    assert layout is not None
    tokenizer = scorer._tokenizer
    lengths = [len(tokenizer.encode(p, add_special_tokens=False, verbose=False)) for p in pages]
    print(
        f"wice_dev {args.split}: {len(rows)} claims ({sum(labels)} supported); pages of "
        f"{int(np.median(lengths))} tokens (median), {sum(n > layout.window for n in lengths)} "
        f"longer than the limit of {layout.window}"
    )

    print("\n1. windows forced onto pages cut to 500 tokens (change against one window)")
    cut = [
        tokenizer.decode(tokenizer.encode(p, add_special_tokens=False, verbose=False)[:500])
        for p in pages
    ]
    whole_p, whole_f, _ = scores(scorer, layout, claims, cut)
    print(
        f"{'window':>6}  {'windows':>7}  {'mean dP':>8}  {'mean |dP|':>9}  {'max |dP|':>8}  "
        f"{'mean |dF1|':>10}  {'AUROC of P':>10}"
    )
    print(f"{layout.window:>6}  {1:7.1f}  {'':>8}  {'':>9}  {'':>8}  {'':>10}  "
          f"{auroc(whole_p, labels):10.3f}")  # fmt: skip
    for window in (256, 128, 64):
        p, f, windows = scores(scorer, replace(layout, window=window), claims, cut)
        print(
            f"{window:>6}  {np.mean(windows):7.1f}  {np.mean(p - whole_p):+8.4f}  "
            f"{np.mean(abs(p - whole_p)):9.4f}  {np.max(abs(p - whole_p)):8.4f}  "
            f"{np.mean(abs(f - whole_f)):10.4f}  {auroc(p, labels):10.3f}"
        )

    print("\n2. precision of the claim against its whole page, for the label")
    started = time.perf_counter()
    truncated_p, _, _ = (
        np.asarray(t, dtype=np.float64) for t in scorer.score(claims, pages, batch_size=32)
    )
    truncated_s = time.perf_counter() - started
    started = time.perf_counter()
    windowed_p, _, windows = scores(scorer, layout, claims, pages)
    windowed_s = time.perf_counter() - started
    gain, low, high = auroc_difference(windowed_p, truncated_p, labels)
    print(f"truncated (bert-score):  AUROC {auroc(truncated_p, labels):.3f}  {truncated_s:5.1f} s")
    print(
        f"windows (veracity):      AUROC {auroc(windowed_p, labels):.3f}  {windowed_s:5.1f} s  "
        f"({np.mean(windows):.1f} windows a page)"
    )
    print(f"gain {gain:+.3f} (95 % paired bootstrap {low:+.3f} to {high:+.3f})")


if __name__ == "__main__":
    main()
