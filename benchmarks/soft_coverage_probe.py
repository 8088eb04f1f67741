"""Does soft word coverage from MiniLM's token vectors separate rewordings from wrong
claims? (issue 50 item 2, a probe: nothing here is in the judge.)

For every claim, the judge's own features (best window, the words it lacks) and MiniLM's
last-layer token vectors of the claim and of its best window (each text encoded alone).
A claim word's vector is the mean of its word pieces'; its soft match is its best cosine
with a token of the window (BERTScore's greedy recall, per word). Candidates:

- ``soft_best``: the mean soft match of the claim's content words against the best window;
- ``soft_gain``: ``soft_best`` minus the hard coverage of the best window;
- ``soft_lacking``: the mean soft match of the content words the window lacks (1 when it
  lacks none), the words a rewording changes; ``soft_lacking_min``: the weakest one's;
- ``soft_theirs``: those words matched against the window's content words the claim
  lacks only (where a rewording's words went);
- ``soft_idf``, ``soft_idf_gain``: ``soft_best`` and ``soft_gain`` with rare words
  weighing more (7 minus the word's Zipf frequency, at least 1);
- ``soft_cov_50`` / ``_60`` / ``_70``: the share of the claim's content words in the
  window or soft-matched at 0.5 / 0.6 / 0.7 (hard coverage made soft).

Printed: each candidate per category of the constructed claims, with its AUROC of
paraphrases against contradictions; its CPU cost an answer on each fit half; on the dev
sets' fit halves, each candidate's AUROC on single-claim answers, and inside the "looks
like a paraphrase" band (cosine ≥ 0.75, 40–80 % of the content words in the best window,
nothing blocking); then, for each candidate and each ``--combos`` set, ``offline_fit.py``'s
fit with it appended to the features (``=name``: in coverage_best's place): the
cross-validated mean AUROC (the fit's criterion), the fit halves' AUROC of the score, and
the constructed claims' mean P under that fit.

Run:  python benchmarks/soft_coverage_probe.py [--data DIR] [--cache emb.npz] [--items F]
                                              [--layers N] [--combos A+B ...]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import pickle
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from statistics import mean
from typing import Any

import numpy as np

import offline_fit
from constructed_claims import DEFAULT_FILE as CONSTRUCTED_FILE
from offline_data import DEFAULT_DATA, FIT_SETS, DiskCachedEmbedder, Row, auroc, load_set
from veracity.embeddings import LocalEmbedder
from veracity.embeddings.minilm import MiniLM, _product
from veracity.judges.offline import FEATURES, OfflineJudge, OfflineParams
from veracity.judges.offline.features import ClaimFeatures
from veracity.judges.offline.params import load_params
from veracity.judges.offline.verdicts import blocked, probability
from veracity.text import analysis as tx

CANDIDATES = (
    "soft_best",
    "soft_gain",
    "soft_lacking",
    "soft_lacking_min",
    "soft_theirs",
    "soft_idf",
    "soft_idf_gain",
    "soft_cov_50",
    "soft_cov_60",
    "soft_cov_70",
)


def token_states(model: MiniLM, texts: Sequence[str]) -> list[tuple[Any, np.ndarray]]:
    """Each text's tokenizer encoding and unit-length last-layer token vectors (batched
    by length, padding masked as MiniLM._forward masks it)."""
    import torch
    import torch.nn.functional as F

    encodings = model._tokenizer.encode_batch([t.strip() for t in texts])
    order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
    out: list[Any] = [None] * len(texts)
    start = 0
    with torch.inference_mode():
        while start < len(order):
            size = max(1, 1024 // len(encodings[order[start]].ids))
            batch = order[start : start + size]
            start += size
            rows = [encodings[i].ids for i in batch]
            length = max(len(r) for r in rows)
            ids = torch.zeros((len(rows), length), dtype=torch.long)
            mask = torch.zeros((len(rows), length), dtype=torch.bool)
            for i, row in enumerate(rows):
                ids[i, : len(row)] = torch.tensor(row, dtype=torch.long)
                mask[i, : len(row)] = True
            bias = torch.zeros((len(rows), 1, 1, length)).masked_fill(
                ~mask[:, None, None, :], torch.finfo(torch.float32).min
            )
            words, positions, token_type, norm_w, norm_b = model._embeddings
            hidden = words.shape[1]
            x = F.embedding(ids, words) + token_type + positions[:length]
            x = F.layer_norm(x, (hidden,), norm_w, norm_b, model._eps)
            heads, size_h = model._heads, hidden // model._heads
            for (
                qkv_w,
                qkv_b,
                ao_w,
                ao_b,
                an_w,
                an_b,
                i_w,
                i_b,
                o_w,
                o_b,
                on_w,
                on_b,
            ) in model._layers:
                q, k, v = (
                    _product(x, qkv_w, qkv_b)
                    .view(len(rows), length, 3, heads, size_h)
                    .permute(2, 0, 3, 1, 4)
                    .unbind(0)
                )
                context = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
                context = context.transpose(1, 2).reshape(len(rows), length, hidden)
                x = F.layer_norm(
                    _product(context, ao_w, ao_b) + x, (hidden,), an_w, an_b, model._eps
                )
                inner = F.gelu(_product(x, i_w, i_b))
                x = F.layer_norm(_product(inner, o_w, o_b) + x, (hidden,), on_w, on_b, model._eps)
            states = x.float().numpy()
            for j, i in enumerate(batch):
                m = states[j, : len(rows[j])]
                out[i] = (
                    encodings[i],
                    m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9),
                )
    return out


def word_vectors(text: str, enc: Any, m: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """(stemmed content word, its vector: the mean of its pieces) for each content word."""
    import re

    out = []
    for match in re.finditer(r"[^\W_]+(?:'[^\W\d_]+)?", text.strip()):
        word = tx.casefolded(match.group())
        if word in tx.STOPWORDS:
            continue
        pieces = [
            i for i, (s, e) in enumerate(enc.offsets) if e > s >= match.start() and e <= match.end()
        ]
        if not pieces:
            continue
        v = m[pieces].mean(axis=0)
        out.append((tx.token(word), v / max(float(np.linalg.norm(v)), 1e-9)))
    return out


def candidates(
    claim: str, f: ClaimFeatures, states: dict[str, tuple[Any, np.ndarray]]
) -> dict[str, float]:
    if f.best is None:
        return dict.fromkeys(CANDIDATES, 0.0)
    enc, m = states[claim]
    wenc, wm = states[f.best.text]
    inner = wm[1:-1] if len(wm) > 2 else wm  # [CLS] and [SEP] left out
    words = word_vectors(claim, enc, m)
    if not words:
        return dict.fromkeys(CANDIDATES, 0.0)
    matches = {w: float((inner @ v).max()) for w, v in words}
    soft = mean(matches.values())
    hard = f.value("coverage_best")
    lacking = [s for w, s in matches.items() if w not in f.best.content]
    # the window's own content words the claim lacks: where a rewording's words went
    own = {w for w, _ in words}
    theirs = [v for w, v in word_vectors(f.best.text, wenc, wm) if w not in own]
    lacking_vs_theirs = [
        float(max(float(v @ t) for t in theirs)) if theirs else 0.0
        for w, v in words
        if w not in f.best.content
    ]
    # rare words weigh more (wordfreq's Zipf: 7 minus it, at least 1)
    weight = {w: max(1.0, 7.0 - _zipf(w)) for w in matches}
    total = sum(weight.values())
    soft_idf = sum(weight[w] * s for w, s in matches.items()) / total
    hard_idf = sum(weight[w] for w in matches if w in f.best.content) / total
    return {
        "soft_best": soft,
        "soft_gain": soft - hard,
        "soft_lacking": mean(lacking) if lacking else 1.0,
        "soft_lacking_min": min(lacking) if lacking else 1.0,
        "soft_theirs": mean(lacking_vs_theirs) if lacking_vs_theirs else 1.0,
        "soft_idf": soft_idf,
        "soft_idf_gain": soft_idf - hard_idf,
        # a word counts as in the window when it is, or its soft match reaches the bound
        **{
            f"soft_cov_{round(bound * 100)}": mean(
                float(w in f.best.content or s >= bound) for w, s in matches.items()
            )
            for bound in (0.5, 0.6, 0.7)
        },
    }


def _zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


def add_candidates(
    items: list[offline_fit.Features], model: MiniLM
) -> list[list[dict[str, float]]]:
    texts = sorted({t for it in items for c, f in zip(it.texts, it.claims, strict=True)
                    for t in (c, *(() if f.best is None else (f.best.text,)))})  # fmt: skip
    states = dict(zip(texts, token_states(model, texts), strict=True))
    return [[candidates(c, f, states) for c, f in zip(it.texts, it.claims, strict=True)]
            for it in items]  # fmt: skip


def paraphrase_like(f: ClaimFeatures) -> bool:
    return f.cosine >= 0.75 and 0.4 <= f.value("coverage_best") <= 0.8 and not blocked(f)


def extended(
    items: list[offline_fit.Features], extra: list[list[dict[str, float]]], names: tuple[str, ...]
) -> list[offline_fit.Features]:
    """``items`` with the candidates ``names`` appended to every claim's values."""
    out = []
    k = FEATURES.index("coverage_best")
    for it, cands in zip(items, extra, strict=True):
        # "=name" stands in coverage_best's place instead of being appended
        claims = tuple(
            replace(
                f,
                values=tuple(
                    next((c[n[1:]] for n in names if n.startswith("=")), v) if i == k else v
                    for i, v in enumerate(f.values)
                )
                + tuple(c[n] for n in names if not n.startswith("=")),
            )
            for f, c in zip(it.claims, cands, strict=True)
        )
        x = np.array([f.values for f in claims], dtype=np.float64)
        out.append(replace(it, claims=claims, x=x.reshape(len(claims), len(_names(names)))))
    return out


def expected_score(item: offline_fit.Features, params: OfflineParams) -> float:
    """The metric's score: the mean of the claims' P(supported); no claims, 1.0."""
    return mean(probability(f, params) for f in item.claims) if item.claims else 1.0


def _names(names: tuple[str, ...]) -> tuple[str, ...]:
    return (*FEATURES, *(n for n in names if not n.startswith("=")))


def refit(
    items: list[offline_fit.Features], extra: list[list[dict[str, float]]], names: tuple[str, ...]
) -> tuple[OfflineParams, dict[str, Any], list[offline_fit.Features]]:
    """offline_fit's fit (L2 by cross-validation, then t_support) with ``names`` appended."""
    offline_fit.FEATURES = _names(names)  # type: ignore[attr-defined]
    try:
        patched = extended(items, extra, names)
        params, info = offline_fit.fit(patched)
    finally:
        offline_fit.FEATURES = FEATURES  # type: ignore[attr-defined]
    return params, info, patched


def report_constructed(
    built: list[offline_fit.Features], extra: list[list[dict[str, float]]], category: dict[str, str]
) -> None:
    """Each candidate per category (mean [min, max]), and how it ranks paraphrases above
    contradictions."""
    per: dict[str, list[dict[str, float]]] = {}
    for it, cands in zip(built, extra, strict=True):
        per.setdefault(category[it.row.id], []).extend(cands)
    print("constructed claims: each candidate's mean [min, max] per category")
    for name in CANDIDATES:
        shown = "  ".join(
            f"{cat[:14]} {mean(v[name] for v in vals):.3f} "
            f"[{min(v[name] for v in vals):.2f}, {max(v[name] for v in vals):.2f}]"
            for cat, vals in per.items()
        )
        para = [v[name] for v in per["paraphrase"]]
        contra = [v[name] for k, vs in per.items() if k.startswith("contradicted") for v in vs]
        names = [v[name] for v in per["contradicted_name"]]
        ranked = auroc(para + contra, [True] * len(para) + [False] * len(contra))
        by_name = auroc(para + names, [True] * len(para) + [False] * len(names))
        print(f"  {name}: {shown}")
        print(f"    AUROC paraphrase vs contradicted {ranked:.3f}, vs wrong names {by_name:.3f}")


def report_words(
    built: list[offline_fit.Features], category: dict[str, str], model: MiniLM
) -> None:
    """Word by word: the soft match of each content word the best window lacks, in the
    paraphrases (the reworded words) against the wrong names and things."""
    texts = sorted({t for it in built for c, f in zip(it.texts, it.claims, strict=True)
                    for t in (c, *(() if f.best is None else (f.best.text,)))})  # fmt: skip
    states = dict(zip(texts, token_states(model, texts), strict=True))
    found: dict[str, list[tuple[float, str, str]]] = {"paraphrase": [], "contradicted_name": []}
    for it in built:
        kind = category[it.row.id]
        for claim, f in zip(it.texts, it.claims, strict=True):
            if kind not in found or f.best is None:
                continue
            window = word_vectors(f.best.text, *states[f.best.text])
            for word, v in word_vectors(claim, *states[claim]):
                if word not in f.best.content and window:
                    score, theirs = max((float(v @ t), w) for w, t in window)
                    found[kind].append((round(score, 2), word, theirs))
    for kind, matches in found.items():
        values = [m[0] for m in matches]
        quartiles = np.percentile(values, [25, 50, 75]).round(2).tolist()
        shown = sorted(matches, reverse=True)
        print(f"{kind}: {len(values)} words the window lacks, mean soft match "
              f"{mean(values):.3f}, quartiles {quartiles}; {shown}")  # fmt: skip
    ours, wrong = ([m[0] for m in found[k]] for k in found)
    labels = [True] * len(ours) + [False] * len(wrong)
    print(f"word-level AUROC, reworded against wrong names: {auroc(ours + wrong, labels):.3f}")


COVERAGE = ("coverage_best", "coverage_window", "coverage_all", "coverage_words")
GRAMS = ("bigram_all", "trigram_all")


def report_ceiling(
    built: list[offline_fit.Features], category: dict[str, str], params: OfflineParams
) -> None:
    """The paraphrases' mean P under the shipped model if every one of their words counted
    as in the contexts (the most any coverage that reads rewordings could give them): the
    coverage features at 1 and no word uncovered; then the n-grams found too; then with
    the rules' caps, which a claim with higher coverage may meet."""

    def covered(f: ClaimFeatures, names: tuple[str, ...]) -> ClaimFeatures:
        zero = {"log_uncovered", *(("log_bigrams_missing",) if GRAMS[0] in names else ())}
        values = tuple(
            1.0 if n in names else 0.0 if n in zero else v
            for n, v in zip(FEATURES, f.values, strict=True)
        )
        return replace(f, values=values)

    claims = [f for it in built if category[it.row.id] == "paraphrase" for f in it.claims]
    now = mean(probability(f, params) for f in claims)
    words = mean(params.probability(covered(f, COVERAGE).values) for f in claims)
    grams = mean(params.probability(covered(f, COVERAGE + GRAMS).values) for f in claims)
    capped = mean(probability(covered(f, COVERAGE + GRAMS), params) for f in claims)
    print(f"paraphrases' mean P {now:.3f}; every word covered {words:.3f}; and every n-gram "
          f"{grams:.3f}; with the rules' caps {capped:.3f}")  # fmt: skip


def report_fit_halves(
    built: list[offline_fit.Features], extra: list[list[dict[str, float]]]
) -> None:
    """Each candidate's AUROC on single-claim answers, then inside the paraphrase band."""
    print("fit halves, single-claim answers: AUROC of each candidate, all / in the band")
    for name in FIT_SETS:
        single = [(it, c[0]) for it, c in zip(built, extra, strict=True)
                  if it.row.set == name and len(it.claims) == 1]  # fmt: skip
        band = [(it, c) for it, c in single if paraphrase_like(it.claims[0])]
        faithful = sum(it.row.label for it, _ in band)
        line = [f"{name}: {len(single)} answers, band {len(band)} ({faithful} faithful)"]
        for n in CANDIDATES:
            a = auroc([c[n] for _, c in single], [it.row.label for it, _ in single])
            b = auroc([c[n] for _, c in band], [it.row.label for it, _ in band])
            line.append(f"{n} {a:.3f}/{b:.3f}")
        print("  " + "  ".join(line))


def report_refits(
    fit: tuple[list[offline_fit.Features], list[list[dict[str, float]]]],
    constructed: tuple[list[offline_fit.Features], list[list[dict[str, float]]]],
    category: dict[str, str],
    combos: list[tuple[str, ...]],
) -> None:
    """For each set of candidates: offline_fit's fit with them, its cross-validated mean
    AUROC, the fit halves' AUROC of the score, and the constructed claims' mean P."""
    for names in combos:
        params, info, patched = refit(*fit, names)
        cv = info["l2_cv_mean_auroc"]
        best = max(cv, key=lambda k: cv[k])
        sets = {
            n: round(auroc([expected_score(f, params) for f in patched if f.row.set == n],
                           [f.row.label for f in patched if f.row.set == n]), 4)
            for n in FIT_SETS
        }  # fmt: skip
        cats: dict[str, list[float]] = {}
        for it in extended(*constructed, names):
            cats.setdefault(category[it.row.id], []).append(expected_score(it, params))
        weights = dict(zip(params.features, params.weights, strict=True))
        shown = {
            n: round(weights[n], 3) for n in (*names, "cosine", "coverage_best") if n in weights
        }
        contra = mean(p for k, v in cats.items() if k.startswith("contradicted") for p in v)
        means = ", ".join(f"{k} {mean(v):.3f}" for k, v in cats.items())
        print(f"+ {' + '.join(names) or 'v9 features'}: CV {cv[best]} at L2 {best}, "
              f"fit halves {sets}, weights a standard deviation {shown}")  # fmt: skip
        print(f"    constructed mean P: contradicted (61) {contra:.3f}; {means}")


async def main_async(args: argparse.Namespace) -> None:
    base = LocalEmbedder()
    embedder = DiskCachedEmbedder(base, args.cache) if args.cache else base
    judge = OfflineJudge(embedder, load_params())
    model = base._ensure_model()
    assert isinstance(model, MiniLM)
    if args.layers is not None:  # token vectors of an earlier layer (the judge's stay whole)
        model = copy.copy(model)
        model._layers = model._layers[: args.layers]
    items = [json.loads(line) for line in CONSTRUCTED_FILE.open(encoding="utf-8") if line.strip()]
    category = {i["id"]: i["category"] for i in items}
    rows = [Row("constructed", i["id"], "", i["claim"], tuple(i["contexts"]), True, "fit")
            for i in items]  # fmt: skip
    built_c = await offline_fit.collect(judge, rows)
    extra_c = add_candidates(built_c, model)
    report_constructed(built_c, extra_c, category)
    report_ceiling(built_c, category, judge.params)
    report_words(built_c, category, model)
    rows = [r for name in FIT_SETS for r in load_set(args.data, name) if r.split == "fit"]
    if args.items is not None and args.items.exists():
        built = pickle.loads(args.items.read_bytes())
    else:
        built = await offline_fit.collect(judge, rows)
        if args.items is not None:
            args.items.write_bytes(pickle.dumps(built))
    if isinstance(embedder, DiskCachedEmbedder):
        embedder.save()
    await embedder.aclose()
    extra = add_candidates(built, model)
    for name in FIT_SETS:  # the cost an answer, set by set (token vectors and alignment)
        subset = [it for it in built if it.row.set == name]
        started = time.process_time()
        add_candidates(subset, model)
        cost = (time.process_time() - started) / len(subset)
        print(f"{name}: {len(subset)} answers, {cost * 1000:.1f} ms of CPU an answer")
    report_fit_halves(built, extra)
    combos = [(), *((n,) for n in CANDIDATES if n not in args.skip)]
    combos += [tuple(c.split("+")) for c in args.combos]
    report_refits((built, extra), (built_c, extra_c), category, combos)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=Path, help="keep embeddings in this .npz file")
    parser.add_argument("--items", type=Path, help="keep the fit halves' judge features here")
    parser.add_argument("--layers", type=int, help="token vectors after this many layers")
    parser.add_argument("--skip", nargs="*", default=[], help="candidates not refitted alone")
    parser.add_argument("--combos", nargs="*", default=[],
                        help="candidates refitted together, joined by + ('=name' replaces "
                             "coverage_best)")  # fmt: skip
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
