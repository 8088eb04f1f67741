"""From a claim's features to a three-way verdict, with a reason in words."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.judges.offline.features import ClaimFeatures, blocked_by_words, reworded
from veracity.judges.offline.params import OfflineParams
from veracity.text import analysis as tx
from veracity.types import AnswerClass, ClaimVerdict, Classification, Verdict

NO_TEXT = "the contexts contain no text to check the claim against"


@dataclass(frozen=True, slots=True)
class Assessment:
    """One claim judged: its features, P(supported), verdict and reason."""

    claim: str
    features: ClaimFeatures
    probability: float
    verdict: Verdict
    reason: str

    def to_verdict(self) -> ClaimVerdict:
        best = self.features.best
        return ClaimVerdict(
            claim=self.claim,
            verdict=self.verdict,
            reason=self.reason,
            evidence=best.text if best is not None else "",
            p_supported=round(self.probability, 4),
        )


def _listed(items: tuple[str, ...], limit: int = 4) -> str:
    shown = ", ".join(repr(i) for i in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def conflicts(f: ClaimFeatures) -> list[str]:
    """What the best-aligned context disagrees with the claim on, in words: a different
    number (in the claim's number's slot, or one no context has), a different name or
    specific term (the claim's appears in no context: "liver"
    where the context says "pancreas"), or a negation."""
    found = []
    if f.changed_numbers:
        found.append(
            "says "
            + ", ".join(
                f"{theirs} where the claim says {ours}" for ours, theirs in f.changed_numbers
            )
        )
    elif f.missing_numbers and f.other_numbers:
        found.append(f"says {', '.join(f.other_numbers[:3])}, not {', '.join(f.missing_numbers)}")
    if f.missing_names and f.other_names:
        found.append(
            f"names {_listed(f.other_names, 3)}, and no context names {_listed(f.missing_names)}"
        )
    if f.missing_specific and f.other_specific and not reworded(f):
        found.append(
            f"speaks of {_listed(f.other_specific, 3)}, and no context mentions "
            f"{_listed(f.missing_specific)}"
        )
    if f.swapped_terms and not (f.missing_names or f.missing_specific):
        theirs = f"names {_listed(f.other_names, 3)}, " if f.other_names else ""
        found.append(f"says the same of another: {theirs}not {_listed(f.swapped_terms)}")
    if f.swapped_roles:
        found.append("says it with the roles of two participants swapped")
    if substituted(f):
        claim_word, window_word = f.substituted
        found.append(f"says {window_word!r} where the claim says {claim_word!r}")
    if f.clause_negation_flip:
        side = "the claim is negated, the context is not"
        if not f.claim_negated:
            side = "the context is negated, the claim is not"
        found.append(f"disagrees on negation ({side})")
    return found


# The embedder reads a claim's words that its best window lacks (features.substitutions:
# the claim with the window's words in their place; features.reworded says when a rare
# word no context has is a rewording). A rare word or name where the window has another,
# not of its root, is another thing in the window's place when putting that one in raises
# the cosine by SUBSTITUTED_GAIN ("mitochondria" for "chloroplasts": +0.15; the
# prototype's boundary, 0.10 and 0.12 equal on the fit halves): it blocks `supported`, and
# is contradicted when the window is strongly aligned (docs/benchmarks.md).
SUBSTITUTED_GAIN = 0.10


def substituted(f: ClaimFeatures) -> bool:
    """One of the claim's things stands where its best window has another: putting the
    window's in its place raises the cosine by at least :data:`SUBSTITUTED_GAIN`."""
    gain = f.swap_gain
    return gain is not None and gain >= SUBSTITUTED_GAIN


# A swap is precise when the claim says little else its window lacks (at most this many
# content words, the swapped one among them) and its word is no abbreviation (more than
# three letters: "qb" where the window says "quarterback" is the window's own thing).
# Every swap capped at 0.10 lowered begin_dev's fit half (v7); the precise ones are three
# claims of the fit halves, none in a faithful answer (docs/benchmarks.md).
PRECISE_SWAP_LACKS = 2
ABBREVIATION_LETTERS = 3


def precisely_substituted(f: ClaimFeatures, params: OfflineParams) -> bool:
    """:func:`substituted`, strongly aligned, and precise (see :data:`PRECISE_SWAP_LACKS`)."""
    return (
        substituted(f)
        and f.cosine >= params.t_align
        and len(f.window_lacks) <= PRECISE_SWAP_LACKS
        and len(f.substituted[0]) > ABBREVIATION_LETTERS
    )


def blocked(f: ClaimFeatures) -> bool:
    """A claim with a number, a name or a specific (rare) word that no context has (unless
    the embedder reads the word as a rewording), whose best-aligned window has another
    number in one of its numbers' slots, whose best-aligned sentence differs from it in
    negation in the clause the claim speaks of, or that is its best-aligned window with
    another name or thing or with two participants swapped, is never ``supported``,
    whatever the fitted model says; its P(supported) is capped below ``t_support``."""
    return blocked_by_words(f) or bool(f.missing_specific and not reworded(f)) or substituted(f)


BLOCKED_MARGIN = 0.01  # a blocked claim's P(supported) ends this far below t_support
# A claim the contexts hold word for word is supported (P at least this); one whose
# every content word is in no context is not (P at most 1 − this). The fitted model,
# smooth in its features, would leave them at 0.9 and 0.1 (on the development sets' fit
# halves: AUROC +0.003 halueval, ±0 wice, −0.001 begin; docs/offline_judge.md).
CERTAIN = 0.99
# A precise contradiction is the claim's best-aligned window, strongly aligned (cosine ≥
# t_align), with one thing changed: two participants exchanged (roles), the opposite
# negation in the clause the claim speaks of, holding most of the claim's content words
# (at least NEGATED_COVERAGE), another name or thing in the window's place, or another
# number in one of the claim's number slots. Nothing the fitted model sees (nearly every
# word matches) can say so: P(supported) is at most PRECISE_CAP. Chosen on the
# development sets' fit halves from 0.10, 0.05 and 0.02 (mean AUROC 0.7912, 0.7915,
# 0.7916, within 0.002 of each other on every set; docs/benchmarks.md).
NEGATED_COVERAGE = 0.7
PRECISE_CAP = 0.05


def strongly_negated(f: ClaimFeatures, params: OfflineParams) -> bool:
    """The best-aligned window states the claim with the opposite negation (see
    :data:`PRECISE_CAP`)."""
    return (
        f.clause_negation_flip
        and f.cosine >= params.t_align
        and f.value("coverage_best") >= NEGATED_COVERAGE
    )


def precisely_contradicted(f: ClaimFeatures, params: OfflineParams) -> bool:
    """The claim is its best-aligned window with one thing changed (see
    :data:`PRECISE_CAP`)."""
    aligned = f.cosine >= params.t_align
    return (
        f.swapped_roles
        or strongly_negated(f, params)
        or (aligned and bool(f.swapped_terms or f.changed_numbers))
        or precisely_substituted(f, params)
    )


def probability(f: ClaimFeatures, params: OfflineParams) -> float:
    """P(supported): the fitted model's, capped below ``t_support`` when a rule blocks the
    claim (a verdict of "not supported" is never scored as likely supported), at least
    :data:`CERTAIN` for a claim found word for word, at most 1 − it for one whose every
    content word is absent, and at most :data:`PRECISE_CAP` for a precise contradiction."""
    fitted = params.probability(f.values)
    if f.all_absent:
        return min(fitted, 1 - CERTAIN)
    if precisely_contradicted(f, params):
        return min(fitted, PRECISE_CAP)
    if blocked(f):
        return min(fitted, params.t_support - BLOCKED_MARGIN)
    if f.verbatim:
        return max(fitted, CERTAIN)
    return fitted


def decide(p: float, f: ClaimFeatures, params: OfflineParams) -> Verdict:
    """Supported when the claim is the contexts' own words; contradicted when the
    best-aligned window is strongly aligned (cosine ≥ t_align) yet disagrees on a number, a
    name, a negation or who did what to whom (roles swapped); supported when P ≥ t_support
    and nothing blocks it; else not enough information."""
    if f.best is None:
        return Verdict.NOT_ENOUGH_INFO
    if f.verbatim and not blocked(f):  # the contexts' own words
        return Verdict.SUPPORTED
    if f.cosine >= params.t_align and conflicts(f):
        return Verdict.CONTRADICTED
    if p >= params.t_support and not blocked(f):
        return Verdict.SUPPORTED
    return Verdict.NOT_ENOUGH_INFO


def _gaps(f: ClaimFeatures) -> list[str]:
    gaps = []
    if f.missing_numbers:
        gaps.append(f"number(s) {', '.join(f.missing_numbers)} appear in no context")
    if f.missing_names or f.missing_specific:
        gaps.append(f"the contexts never mention {_listed(f.missing_names + f.missing_specific)}")
    if f.clause_negation_flip:
        gaps.append("the best-aligned context sentence differs from it in negation")
    if f.unstated_sameness:
        gaps.append("no context sentence it aligns with says the two are the same")
    if f.missing_words:
        gaps.append(
            f"{f.coverage_all:.0%} of its content words appear in the contexts "
            f"(missing: {_listed(f.missing_words)})"
        )
    return gaps


def assess(claim: str, f: ClaimFeatures, params: OfflineParams) -> Assessment:
    """The verdict of :func:`decide`, with a reason naming the features that decided it."""
    if f.best is None:
        return Assessment(claim, f, 0.0, Verdict.NOT_ENOUGH_INFO, NO_TEXT)
    fitted, p = params.probability(f.values), probability(f, params)
    verdict = decide(p, f, params)
    head = f"best-aligned context sentence has cosine {f.cosine:.2f}"
    if verdict is Verdict.CONTRADICTED:
        reason = f"{head} but {'; '.join(conflicts(f))} (P(supported) {p:.2f})"
    elif verdict is Verdict.SUPPORTED:
        reason = (
            f"P(supported) {p:.2f} ≥ {params.t_support:.2f}: {head} and contains "
            f"{f.value('coverage_best'):.0%} of the claim's content words "
            f"({f.coverage_all:.0%} across all contexts)"
        )
    else:
        gaps = "; ".join(_gaps(f) or [f"{head}, too weak an alignment"])
        if fitted >= params.t_support and blocked(f):
            reason = (
                f"P(supported) {fitted:.2f} would pass, but {gaps} (so capped at {p:.2f}); {head}"
            )
        else:
            reason = f"P(supported) {p:.2f} < {params.t_support:.2f}: {gaps}; {head}"
    return Assessment(claim, f, p, verdict, reason)


def conjoined(statement: str, parts: Sequence[Assessment]) -> Assessment:
    """The verdict on a statement about two things at once (:func:`claims.conjuncts`) from
    the verdicts on each: contradicted when one is, supported when all are, P the weakest
    one's."""
    if len(parts) == 1:
        return parts[0]
    weakest = min(parts, key=lambda a: a.probability)
    contradicted = [a for a in parts if a.verdict is Verdict.CONTRADICTED]
    if contradicted:
        verdict, named = Verdict.CONTRADICTED, contradicted[0]
    elif all(a.verdict is Verdict.SUPPORTED for a in parts):
        verdict, named = Verdict.SUPPORTED, weakest
    else:
        verdict, named = Verdict.NOT_ENOUGH_INFO, weakest
    reason = f"of {len(parts)} things asked of, {named.claim!r}: {named.reason}"
    return Assessment(statement, named.features, weakest.probability, verdict, reason)


# The sentence that answers a question: the question's best-aligned window, strongly
# aligned (cosine ≥ t_align) and holding at least this share of its content words.
ANSWERING_COVERAGE = 0.5


def answering(
    claim: str,
    alone: Assessment,
    named: str,
    question: Assessment,
    contexts: Sequence[str],
    params: OfflineParams,
) -> Assessment:
    """The verdict on a short reply (:func:`claims.short_reply_claim`): the reply's own
    (``alone``), unless a context sentence answers its question (``question``'s best
    window, see :data:`ANSWERING_COVERAGE`) and its passage never says what the reply
    answers with (its names, numbers and rare words, else any of its words): "Paris" is in
    the contexts, but not in "Berlin is the capital of Germany"."""
    f, own = question.features, dataclasses.replace(alone, claim=claim)
    window = f.best
    if window is None or f.cosine < params.t_align:
        return own
    if f.value("coverage_best") < ANSWERING_COVERAGE:
        return own
    passage = contexts[window.context]
    held = set(tx.all_tokens(passage)) | tx.numbers(passage)
    new, key = _answer_terms(named)
    if not new or (all(t in held for t, _ in key) if key else any(t in held for t, _ in new)):
        return own
    missing = _listed(tuple(w for t, w in (key or new) if t not in held))
    reason = (
        f"the context sentence that answers its question, {window.text!r}, and its passage "
        f"never say {missing} (P(supported) {PRECISE_CAP:.2f})"
    )
    p = min(alone.probability, PRECISE_CAP)
    return Assessment(claim, alone.features, p, Verdict.CONTRADICTED, reason)


def _answer_terms(named: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """A reply's content words as (stem, word), and of those its names, numbers and rare
    words: what it answers with."""
    names = set(tx.names(f", {named}"))  # a reply's first word is a name too
    new = {tx.token(w): w for w in tx.words(named) if w not in tx.STOPWORDS}
    key = [(t, w) for t, w in new.items() if t in names or t[:1].isdigit() or tx.specific(w)]
    return list(new.items()), key


def replied(claim: str, asked: Assessment, yes: bool, params: OfflineParams) -> Assessment:
    """The verdict on a bare yes or no (``claim``) from the verdict on the question's own
    statement (``asked``): a yes stands or falls with it; a no is contradicted where the
    contexts state it, supported where they contradict it, and otherwise unconfirmed,
    P(supported) at most ``t_support``: silence does not say no."""
    if yes:
        return dataclasses.replace(asked, claim=claim, reason=f"a yes: {asked.reason}")
    p = 1.0 - asked.probability
    if asked.verdict is Verdict.SUPPORTED:
        verdict, why = Verdict.CONTRADICTED, "the contexts say yes"
    elif asked.verdict is Verdict.CONTRADICTED:
        verdict, p, why = Verdict.SUPPORTED, max(p, params.t_support), "the contexts say otherwise"
    else:
        verdict, p, why = Verdict.NOT_ENOUGH_INFO, min(p, params.t_support), "not confirmed"
    reason = f"a no, {why} (P(supported) {p:.2f}); on the question itself: {asked.reason}"
    return Assessment(claim, asked.features, p, verdict, reason)


def classify(assessed: Sequence[Assessment]) -> Classification:
    """``correct`` when most claims are supported by the reference and none contradicted."""
    n = len(assessed)
    supported = sum(a.verdict is Verdict.SUPPORTED for a in assessed)
    contradicted = [a for a in assessed if a.verdict is Verdict.CONTRADICTED]
    if contradicted:
        first = contradicted[0]
        why = f"the reference contradicts {first.claim!r}: {first.reason}"
        return Classification(label=AnswerClass.WRONG, reason=why)
    summary = f"{supported} of {n} claim(s) supported by the reference, none contradicted"
    if 2 * supported > n:
        return Classification(label=AnswerClass.CORRECT, reason=summary)
    weakest = min(assessed, key=lambda a: a.probability)
    why = f"{summary}; weakest claim {weakest.claim!r}: {weakest.reason}"
    return Classification(label=AnswerClass.WRONG, reason=why)
