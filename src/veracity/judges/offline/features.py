"""Alignment features of a claim against its contexts: what cosine similarity misses.

The contexts are cut into windows (every sentence, and every pair of neighbouring
sentences). For each claim, the best-aligned window is the one with the highest cosine;
the features then compare the claim's words, numbers, names and negation with that window
and with all the contexts.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from veracity.embeddings import Matrix
from veracity.text import analysis as tx

PERSONAL = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "you", "your"})
FEATURES: tuple[str, ...] = (
    "cosine",
    "coverage_best",
    "coverage_window",
    "coverage_all",
    "coverage_words",
    "bigram_all",
    "trigram_all",
    "log_bigrams_missing",
    "number_missing",
    "name_missing",
    "negation_flip",
    "personal",
    "log_length",
    "log_uncovered",
    "reworded",
)


@dataclass(frozen=True, slots=True)
class Window:
    """One or two neighbouring sentences of one context."""

    text: str
    context: int
    sentences: tuple[int, ...]  # indexes into Evidence.sentences
    content: frozenset[str]
    numbers: frozenset[str]
    negated: bool


@dataclass(frozen=True, slots=True)
class _Reading:
    """What a window needs of one sentence (or of two, joined by a space)."""

    text: str
    tokens: list[str]
    content: frozenset[str]
    numbers: frozenset[str]
    negated: bool

    @classmethod
    def of(cls, sentence: str) -> _Reading:
        read = tx.words(sentence)  # once: the tokens, content words and numbers are of them
        tokens = [tx.token(w) for w in read]
        return cls(
            text=sentence,
            tokens=tokens,
            content=frozenset(
                t for w, t in zip(read, tokens, strict=True) if w not in tx.STOPWORDS
            ),
            numbers=frozenset(tx.numbers(sentence, read=read)),
            negated=tx.negated(sentence),
        )

    def joined(self, next_one: _Reading) -> _Reading:
        return _Reading(
            text=f"{self.text} {next_one.text}",
            tokens=[*self.tokens, *next_one.tokens],
            content=self.content | next_one.content,
            numbers=self.numbers | next_one.numbers,
            negated=self.negated or next_one.negated,
        )

    def window(self, context: int, sentences: tuple[int, ...]) -> Window:
        return Window(self.text, context, sentences, self.content, self.numbers, self.negated)


@dataclass(frozen=True, slots=True)
class Evidence:
    """The contexts of one verification, cut into sentences and windows."""

    sentences: tuple[str, ...]
    windows: tuple[Window, ...]
    content: frozenset[str]
    tokens: frozenset[str]
    words: frozenset[str]
    bigrams: frozenset[tuple[str, str]]
    trigrams: frozenset[tuple[str, str, str]]
    numbers: frozenset[str]
    # Every context's numbers with the words beside them (text.number_slots).
    number_slots: frozenset[tx.Slot] = frozenset()
    # Every context's tokens, space-separated and space-bounded: a claim found word for
    # word is a substring of it.
    token_text: str = ""

    @classmethod
    def build(cls, contexts: Sequence[str]) -> Evidence:
        sentences: list[str] = []
        windows: list[Window] = []
        bigrams: set[tuple[str, str]] = set()
        trigrams: set[tuple[str, str, str]] = set()
        for index, context in enumerate(contexts):
            first = len(sentences)
            sentences.extend(tx.sentences(context))
            # A pair's words, numbers and negation are its two sentences' (none of them
            # spans the space that joins them): each sentence is read once.
            singles = [_Reading.of(s) for s in sentences[first:]]
            for i, one in enumerate(singles, start=first):
                bigrams.update(pairwise(one.tokens))
                trigrams.update(zip(one.tokens, one.tokens[1:], one.tokens[2:], strict=False))
                windows.append(one.window(index, (i,)))
                if i + 1 < len(sentences):
                    windows.append(one.joined(singles[i + 1 - first]).window(index, (i, i + 1)))
        whole = " ".join(contexts)
        read = tx.words(whole)
        tokens = [tx.token(w) for w in read]
        return cls(
            sentences=tuple(sentences),
            windows=tuple(windows),
            content=frozenset(
                t for w, t in zip(read, tokens, strict=True) if w not in tx.STOPWORDS
            ),
            tokens=frozenset(tokens),
            words=frozenset(read),
            bigrams=frozenset(bigrams),
            trigrams=frozenset(trigrams),
            numbers=frozenset(tx.numbers(whole, read=read)),
            number_slots=frozenset(slot for c in contexts for slot in tx.number_slots(c)),
            token_text=" " + " ".join(_token_text(c).strip() for c in contexts) + " ",
        )

    def window_vectors(self, sentence_vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """A window's vector: the normalised sum of its sentences' vectors (one embedding
        per sentence, not one per window, halves the model's work)."""
        out = np.zeros((len(self.windows), sentence_vectors.shape[1]), dtype=np.float32)
        for k, window in enumerate(self.windows):
            out[k] = sentence_vectors[list(window.sentences)].sum(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.asarray(out / np.where(norms > 0, norms, 1.0), dtype=np.float32)


@dataclass(frozen=True, slots=True)
class ClaimFeatures:
    """A claim's feature values (in :data:`FEATURES` order) and what a reason needs."""

    values: tuple[float, ...]
    best: Window | None
    cosine: float
    coverage_all: float
    missing_words: tuple[str, ...]
    missing_numbers: tuple[str, ...]
    other_numbers: tuple[str, ...]  # numbers in the best window that the claim lacks
    missing_names: tuple[str, ...]
    # Names of the best window in a missing name's place, then those the claim lacks.
    other_names: tuple[str, ...]
    missing_specific: tuple[str, ...]  # rare words of the claim that no context has
    other_specific: tuple[str, ...]  # rare words in the best window that the claim lacks
    negation_flip: bool
    claim_negated: bool
    # The claim's words, in order, are in a context; none of its content words is in any.
    verbatim: bool = False
    all_absent: bool = False
    # The best-aligned window says the same with two participants exchanged.
    swapped_roles: bool = False
    # The negation flip holds in the clause of that sentence the claim speaks of.
    clause_negation_flip: bool = False
    # The claim says two things are the same ("X and Y have the same nationality") and its
    # best-aligned window does not: word alignment cannot tell whether the two agree.
    unstated_sameness: bool = False
    # The claim is its best-aligned window but for one or two names or rare words, in
    # place of the window's own ("discovered by Pasteur" against "discovered by Fleming").
    swapped_terms: tuple[str, ...] = ()
    # The largest rise of the cosine with the best window when one of the claim's words
    # the window lacks is put in place by one of the window's words the claim lacks
    # (:func:`substitutions`); None when not measured.
    substitution_gain: float | None = None
    # The same over the pairs of two things (rare words or names, not of one root: a
    # "liver" where the window has a "pancreas"), and that pair (claim's, window's).
    swap_gain: float | None = None
    substituted: tuple[str, str] = ("", "")
    # The claim's numbers its best window replaces by others in the same slot, as
    # (claim's, window's) pairs ("60 days" against "30 days"; text.changed_numbers).
    changed_numbers: tuple[tuple[str, str], ...] = ()
    # The claim's content words (stemmed) that its best window lacks.
    window_lacks: tuple[str, ...] = ()

    def value(self, name: str) -> float:
        return self.values[FEATURES.index(name)]


def _share(part: set[str] | frozenset[str], whole: Sequence[str]) -> float:
    return sum(t in part for t in whole) / len(whole) if whole else 0.0


def claim_features(
    claim: str, similarities: npt.NDArray[np.float32], ev: Evidence
) -> ClaimFeatures:
    """Features of ``claim`` given its cosine with every window of ``ev``."""
    words = list(dict.fromkeys(tx.content_tokens(claim))) or list(
        dict.fromkeys(tx.all_tokens(claim))
    )
    originals = {tx.token(w): w for w in tx.words(claim)}
    claim_numbers = tx.numbers(claim)
    claim_names = tx.names(claim)
    best: Window | None = None
    sentence: Window | None = None  # the best-aligned single sentence
    cosine = 0.0
    tokens = tx.all_tokens(claim)
    quoted = f" {' '.join(tokens)} "
    verbatim = bool(tokens) and quoted in ev.token_text
    if ev.windows:
        k = int(np.argmax(similarities))
        if verbatim:  # the claim's own words: its evidence is where they are
            holding = [i for i, w in enumerate(ev.windows) if quoted in _token_text(w.text)]
            k = max(holding, key=lambda i: float(similarities[i]), default=k)
        best, cosine = ev.windows[k], float(similarities[k])
        singles = [i for i, w in enumerate(ev.windows) if len(w.sentences) == 1]
        sentence = ev.windows[max(singles, key=lambda i: float(similarities[i]))]
    coverage_best = _share(best.content, words) if best else 0.0
    coverage_window = max((_share(w.content, words) for w in ev.windows), default=0.0)
    pool = ev.content | ev.tokens
    coverage_all = _share(pool, words)
    claim_words = tx.words(claim)
    coverage_words = (
        sum(w in ev.words for w in claim_words) / len(claim_words) if claim_words else 0.0
    )
    grams = list(pairwise(tokens))
    bigrams_found = sum(g in ev.bigrams for g in grams)
    bigram_all = bigrams_found / len(grams) if grams else _share(ev.tokens, tokens)
    triples = list(zip(tokens, tokens[1:], tokens[2:], strict=False))
    trigram_all = sum(g in ev.trigrams for g in triples) / len(triples) if triples else bigram_all
    missing_numbers = sorted(n for n in claim_numbers if n not in ev.numbers)
    missing_names = sorted(surface for n, surface in claim_names.items() if n not in ev.tokens)
    # A claim in the contexts' own words cannot disagree with them on negation (its
    # best-aligned single sentence may be another one, the claim a clause of two).
    negation_flip = not verbatim and sentence is not None and tx.negated(claim) != sentence.negated
    # The same in the clause of that sentence the claim speaks of, of what the two share:
    # "machine wash at 30°C; do not tumble dry" does not negate "you can machine wash it
    # at 30°C", nor "repaid early without a penalty" the repaying.
    clause_negation_flip = (
        sentence is not None
        and not verbatim
        and _clause_flip(claim, _closest_clause(sentence.text, words), words)
    )
    personal = any(w in PERSONAL and w not in ev.words for w in claim_words)
    missing = [originals.get(w, w) for w in words if w not in pool]
    missing_specific = tuple(
        w for w in missing if tx.specific(w.casefold()) and tx.stem(w.casefold()) not in claim_names
    )
    values = (
        cosine,
        coverage_best,
        coverage_window,
        coverage_all,
        coverage_words,
        bigram_all,
        trigram_all,
        math.log1p(len(grams) - bigrams_found),
        float(bool(missing_numbers)),
        float(bool(missing_names)),
        float(negation_flip),
        float(personal),
        math.log1p(len(words)),
        math.log1p(len(missing)),
        0.0,  # reworded: set once the substitutions are embedded (_with_substitutions)
    )
    return ClaimFeatures(
        values=values,
        best=best,
        cosine=cosine,
        coverage_all=coverage_all,
        missing_words=tuple(missing),
        missing_numbers=tuple(missing_numbers),
        other_numbers=tuple(sorted(best.numbers - claim_numbers)) if best else (),
        missing_names=tuple(missing_names),
        other_names=tx.rival_names(claim, best.text, missing_names) if best else (),
        missing_specific=missing_specific,
        other_specific=_others_specific(best, words) if best and missing_specific else (),
        negation_flip=negation_flip,
        claim_negated=tx.negated(claim),
        verbatim=verbatim,
        all_absent=bool(words) and not any(w in pool for w in words),
        clause_negation_flip=clause_negation_flip,
        unstated_sameness=best is not None
        and not verbatim
        and tx.compares(claim)
        and "same" not in tx.words(best.text),
        swapped_terms=_swapped_terms(best, words, tokens, originals, claim_names) if best else (),
        swapped_roles=any(
            tx.swapped_roles(claim, w.text) for w in (best, sentence) if w is not None
        ),
        changed_numbers=tx.changed_numbers(claim, best.text, ev.number_slots) if best else (),
        window_lacks=tuple(w for w in words if w not in best.content) if best else (),
    )


def _swapped_terms(
    best: Window,
    claim_words: Sequence[str],
    claim_tokens: Sequence[str],
    originals: dict[str, str],
    names: dict[str, str],
) -> tuple[str, ...]:
    """The claim's words that ``best`` lacks, when they are one name (of one or two words)
    and everything else the claim says is in ``best``, which names or speaks of something
    the claim does not: the claim put another name in the window's place."""
    lacking = [w for w in claim_words if w not in best.content]
    surfaces = [names.get(w) or originals.get(w, w) for w in lacking]
    # One name of one or two words ("Louis Pasteur"), not a date ("in November"), nor a
    # form of one of the window's words ("Dog" for "Dogg", "Motivation" for "motive").
    # Single rare words are not taken: too many are rewordings ("strives" for "aims").
    if not 1 <= len(lacking) <= 2 or not all(w in names and w not in tx.CALENDAR for w in lacking):
        return ()
    if len(lacking) == 2 and " ".join(lacking) not in " ".join(claim_tokens):
        return ()
    window_words = tx.words(best.text)
    if any(_same_root(w, v) for w in lacking for v in window_words):
        return ()
    theirs = set(tx.names(best.text)) | {tx.stem(w) for w in tx.words(best.text) if tx.specific(w)}
    return tuple(surfaces) if theirs - set(claim_words) - set(names) else ()


def _same_root(a: str, b: str) -> bool:
    """Whether two words share a root: one (of three letters or more) starts the other, or
    both begin with the same five letters."""
    short, long = sorted((a, b), key=len)
    return (len(short) >= 3 and long.startswith(short)) or (len(short) >= 5 and a[:5] == b[:5])


def _closest_clause(text: str, claim_words: Sequence[str]) -> str:
    """The clause of ``text`` holding the largest share of the claim's content words (the
    first of equals)."""
    parts = tx.sentence_clauses(text)
    if len(parts) == 1:
        return text
    return max(parts, key=lambda part: _share(set(tx.content_tokens(part)), claim_words))


def _clause_flip(claim: str, clause: str, claim_words: Sequence[str]) -> bool:
    """Whether the claim and the clause differ in negation of what they share ("cannot be
    repaid early" against "can be repaid early without a penalty")."""
    shared = set(claim_words) & set(tx.content_tokens(clause))
    return tx.negated_about(claim, shared) != tx.negated_about(clause, shared)


def _token_text(text: str) -> str:
    return f" {' '.join(tx.all_tokens(text))} "


def _others_specific(best: Window, claim_words: Sequence[str]) -> tuple[str, ...]:
    """The rare words of ``best`` that the claim lacks (its candidates for a swapped term)."""
    own = set(claim_words)
    found = (w for w in tx.words(best.text) if tx.token(w) not in own)
    return tuple(dict.fromkeys(w for w in found if tx.specific(w)))


async def features_of(
    embed: Callable[[Sequence[str]], Awaitable[Matrix]],
    claims: Sequence[str],
    contexts: Sequence[str],
) -> tuple[ClaimFeatures, ...]:
    """Every claim's features against ``contexts``: one embedding call for the claims and
    the sentences of the windows that can align with one (:func:`alignable`); the text
    and numpy work runs on a worker thread."""
    claims = list(claims)
    if not claims:
        return ()
    evidence = await asyncio.to_thread(Evidence.build, [c for c in contexts if c.strip()])
    aligned = alignable(claims, evidence)
    needed = sorted({i for k in aligned for i in evidence.windows[k].sentences})
    vectors = (
        await embed([*claims, *(evidence.sentences[i] for i in needed)])
        if evidence.windows
        else np.zeros((len(claims), 1), dtype=np.float32)
    )

    def compute() -> tuple[tuple[ClaimFeatures, ...], npt.NDArray[np.float32]]:
        n = len(claims)
        if evidence.windows:
            sentence_vectors = np.zeros(
                (len(evidence.sentences), vectors.shape[1]), dtype=np.float32
            )
            sentence_vectors[needed] = vectors[n:]
            windows = evidence.window_vectors(sentence_vectors)
            similarities = np.full((n, len(evidence.windows)), UNALIGNED, dtype=np.float32)
            similarities[:, aligned] = vectors[:n] @ windows[aligned].T
        else:
            windows = np.zeros((0, 1), dtype=np.float32)
            similarities = np.zeros((n, 0), dtype=np.float32)
        found = tuple(claim_features(c, similarities[i], evidence) for i, c in enumerate(claims))
        return found, windows

    found, windows = await asyncio.to_thread(compute)
    return await _with_substitutions(embed, claims, found, evidence, windows)


async def _with_substitutions(
    embed: Callable[[Sequence[str]], Awaitable[Matrix]],
    claims: Sequence[str],
    found: tuple[ClaimFeatures, ...],
    evidence: Evidence,
    windows: npt.NDArray[np.float32],
) -> tuple[ClaimFeatures, ...]:
    """``found`` with each claim's substitution gains where :func:`substitutions` has
    any: one more embedding call for all of them."""
    tried = [substitutions(c, f) for c, f in zip(claims, found, strict=True)]
    texts = [pair.text for pairs in tried for pair in pairs]
    if not texts:
        return found
    vectors = await embed(texts)
    out = []
    start = 0
    for f, pairs in zip(found, tried, strict=True):
        if not pairs or f.best is None:
            out.append(f)
            continue
        k = next(i for i, w in enumerate(evidence.windows) if w is f.best)
        gains = vectors[start : start + len(pairs)] @ windows[k] - f.cosine
        start += len(pairs)
        things = [i for i, pair in enumerate(pairs) if pair.things]
        top = max(things, key=lambda i: float(gains[i]), default=None)
        measured = replace(
            f,
            substitution_gain=float(gains.max()),
            swap_gain=None if top is None else float(gains[top]),
            substituted=("", "") if top is None else (pairs[top].ours, pairs[top].theirs),
        )
        out.append(
            replace(
                measured,
                values=_with_value(measured.values, "reworded", float(reworded(measured))),
            )
        )
    return tuple(out)


def _with_value(values: tuple[float, ...], name: str, value: float) -> tuple[float, ...]:
    k = FEATURES.index(name)
    return (*values[:k], value, *values[k + 1 :])


# A rare word that no context has is a rewording, not a block, when no substitution of
# the window's words in its place raises the cosine with the window by REWORDED_GAIN
# ("absorb" for "take up" +0.06 at most; chosen on the development sets' fit halves from
# 0.06, 0.08, 0.10). The fitted model weighs it too (the feature ``reworded``): on the
# fit halves such claims are more often faithful than their word coverage says.
REWORDED_GAIN = 0.06


def reworded(f: ClaimFeatures) -> bool:
    """The claim's rare words that no context has reword its best window (see
    :data:`REWORDED_GAIN`)."""
    gain = f.substitution_gain
    return bool(f.missing_specific) and gain is not None and gain < REWORDED_GAIN


@dataclass(frozen=True, slots=True)
class Substitution:
    """The claim with its word ``ours`` replaced by its best window's word ``theirs``."""

    ours: str
    theirs: str
    text: str
    # Both words name things (rare words or names) and are not forms of one root.
    things: bool


# At most this many of the claim's words the best window lacks, and of the window's words
# the claim lacks, are tried in each other's place.
SUBSTITUTED_WORDS = 2
SUBSTITUTES = 8
# Substitutions are tried where they can decide something: a claim with a rare word no
# context has, or one strongly aligned with its best window (cosine at least this).
SUBSTITUTION_ALIGN = 0.65


def blocked_by_words(f: ClaimFeatures) -> bool:
    """The claim is blocked from ``supported`` whatever the embedder says of its words: a
    number or a name no context has, another number in one of its numbers' slots, a
    negation flip in the clause the claim speaks of, swapped roles or terms (the rest of
    ``verdicts.blocked`` reads the substitutions)."""
    return bool(
        f.missing_numbers
        or f.changed_numbers
        or f.missing_names
        or f.clause_negation_flip
        or f.unstated_sameness
        or f.swapped_roles
        or f.swapped_terms
    )


def substitutions(claim: str, f: ClaimFeatures) -> list[Substitution]:
    """The claim with one of its words that its best window lacks replaced by one of the
    window's words that the claim lacks (names and rare words of the window first). None
    when another rule already blocks the claim, when the claim lacks more than
    :data:`SUBSTITUTED_WORDS` of the window's words (beyond its rare words), or when it is
    neither strongly aligned nor holding a rare word no context has."""
    best = f.best
    # Another rule already blocks the claim: a substitution would change neither its P nor
    # (but for the reason's words) its verdict, and costs the model's time.
    if best is None or f.verbatim or blocked_by_words(f):
        return []
    own = list(dict.fromkeys(tx.content_tokens(claim)))
    surfaces = {tx.token(w): w for w in tx.words(claim)}
    lacking = [surfaces.get(w, w) for w in own if w not in best.content and not w.isdigit()]
    if len(lacking) > SUBSTITUTED_WORDS:
        lacking = [w for w in f.missing_specific if w.casefold() in lacking]
    if not lacking or len(lacking) > SUBSTITUTED_WORDS:
        return []
    if not f.missing_specific and f.cosine < SUBSTITUTION_ALIGN:
        return []
    theirs: dict[str, str] = {}
    for word in tx.words(best.text):
        key = tx.token(word)
        if word in tx.STOPWORDS or word in tx.NUMBER_WORDS or key.isdigit() or key in own:
            continue
        theirs.setdefault(key, word.removesuffix("'s"))
    names = set(tx.names(best.text))
    thing = {k: k in names or tx.specific(w) for k, w in theirs.items()}
    ranked = sorted(theirs, key=lambda k: not thing[k])
    claim_names = set(tx.names(claim))
    out = []
    for word in lacking:
        pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
        ours = tx.token(word) in claim_names or tx.specific(word)
        for key in ranked[:SUBSTITUTES]:
            text = pattern.sub(theirs[key], claim, count=1)
            things = ours and thing[key] and not _same_root(word, theirs[key])
            # Without a rare word no context has, only a swap of two things can decide
            # anything (verdicts.substituted): the other pairs are not embedded.
            if text != claim and (things or f.missing_specific):
                out.append(Substitution(word, theirs[key], text, things))
    return out


# The cosine given to a window that was not embedded: below any real one.
UNALIGNED = -2.0


def alignable(claims: Sequence[str], evidence: Evidence) -> list[int]:
    """The windows worth embedding: those sharing a content word or a number with some
    claim; every window if a claim shares none with any (its best window is then the
    nearest by meaning alone)."""
    keys = [frozenset(tx.content_tokens(c)) | tx.numbers(c) for c in claims]
    shared = [[bool(key & (w.content | w.numbers)) for w in evidence.windows] for key in keys]
    if not all(any(row) for row in shared):
        return list(range(len(evidence.windows)))
    return [k for k in range(len(evidence.windows)) if any(row[k] for row in shared)]
