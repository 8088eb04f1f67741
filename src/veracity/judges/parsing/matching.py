"""Assign parsed verdicts to claims: by statement text, then by position."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from types import MappingProxyType

from veracity.judges.parsing.verdicts import RawVerdict
from veracity.prompts.reply import preview
from veracity.types.results import Verdict

FUZZY_THRESHOLD = 0.85


@dataclass(frozen=True)
class VerdictMatch:
    """Verdicts assigned to claims: by claim index, with the leftovers on both sides."""

    assigned: Mapping[int, RawVerdict]
    missing: tuple[int, ...]
    extras: tuple[RawVerdict, ...]
    notes: tuple[str, ...] = ()


# Punctuation, quotes, brackets and markdown emphasis that may wrap a statement.
_WRAP = (
    " \t\r\n!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
    "\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a\u2013\u2014\u2026\u00b7\u2022"
)
# A leading "1.", "1)", "(1)" or "1:" numbering, but not the "1.5" of a number.
_NUMBERING = re.compile(r"^\(?\d{1,3}[.):]\s*(?=\D|$)")


def normalise_statement(text: str) -> str:
    """Comparable form of a statement: NFKC, casefolded, whitespace collapsed, unwrapped."""
    out = " ".join(unicodedata.normalize("NFKC", text).casefold().split()).strip(_WRAP)
    return _NUMBERING.sub("", out).strip(_WRAP)


def _describe(verdict: RawVerdict) -> str:
    if verdict.claim:
        return f"{preview(verdict.claim, 40)} -> {verdict.verdict.value}"
    return verdict.verdict.value


class _Matcher:
    def __init__(self, claims: Sequence[str], verdicts: Sequence[RawVerdict]) -> None:
        self.claims = [normalise_statement(c) for c in claims]
        self.verdicts = verdicts
        self.texts = [normalise_statement(v.claim) if v.claim else "" for v in verdicts]
        self.assigned: dict[int, RawVerdict] = {}
        self.done: set[int] = set()  # verdict indices assigned or dropped as duplicates
        self.duplicates: list[RawVerdict] = []
        self.notes: list[str] = []
        # a claim taken by a verdict quoting it -> the claim that verdict's number named
        self.vacated: dict[int, int] = {}

    def _take(self, i: int, j: int) -> None:
        self.assigned[i] = self.verdicts[j]
        self.done.add(j)

    def _duplicate(self, i: int, j: int) -> None:
        self.done.add(j)
        self.duplicates.append(self.verdicts[j])
        self.notes.append(
            f"dropped a duplicate verdict for claim {i + 1} "
            f"({_describe(self.verdicts[j])}); kept the first"
        )

    def by_exact_text(self) -> None:
        for j, text in enumerate(self.texts):
            hits = [i for i, c in enumerate(self.claims) if text and c == text]
            free = [i for i in hits if i not in self.assigned]
            if free:
                self._take(free[0], j)
            elif hits:
                self._duplicate(hits[0], j)

    def by_fuzzy_text(self) -> None:
        for j, text in enumerate(self.texts):
            if j in self.done or not text:
                continue
            ratios = [
                (SequenceMatcher(None, text, c, autojunk=False).ratio(), i)
                for i, c in enumerate(self.claims)
            ]
            good = [(r, i) for r, i in ratios if r >= FUZZY_THRESHOLD]
            if not good:
                continue
            best = max(r for r, _ in good)
            top = [i for r, i in good if r == best]
            free = [i for i in top if i not in self.assigned]
            if len(free) == 1 and len(top) == 1:
                self._take(free[0], j)
                self.notes.append(
                    f"matched verdict {j + 1} to claim {free[0] + 1} by similar text "
                    f"(ratio {best:.2f})"
                )
            elif not free and len(top) == 1:
                self._duplicate(top[0], j)
            # a tie between claims is ambiguous: leave it to position

    def by_quoted_claim(self) -> None:
        """A supported verdict whose evidence is, word for word, another free claim and does
        not hold its own is that claim's: a small judge that skips a claim numbers the
        rest one short ("1: … evidence: <claim 2>"), or swaps two. The claim it leaves
        goes to the verdict numbered as the claim it took (a swap), else is asked again.
        Only a supported verdict moves: a claim's own words cannot contradict it."""
        for j, verdict in enumerate(self.verdicts):
            if j in self.done or verdict.verdict is not Verdict.SUPPORTED or not verdict.evidence:
                continue
            quoted = normalise_statement(verdict.evidence)
            own = verdict.number - 1 if verdict.number is not None else j
            hits = [i for i, claim in enumerate(self.claims) if claim == quoted]
            if len(hits) != 1 or hits[0] == own or hits[0] in self.assigned:
                continue
            if 0 <= own < len(self.claims) and self.claims[own] in quoted:
                continue
            self._take(hits[0], j)
            self.vacated[hits[0]] = own
            self.notes.append(
                f"matched verdict {j + 1} to claim {hits[0] + 1}, whose words it quotes as "
                f"its evidence, not to claim {own + 1}"
            )

    def by_number(self) -> None:
        for j, verdict in enumerate(self.verdicts):
            n = verdict.number
            if j in self.done or n is None or not 1 <= n <= len(self.claims):
                continue
            swap = self.vacated.get(n - 1)
            if n - 1 not in self.assigned:
                self._take(n - 1, j)
            elif swap is not None and 0 <= swap < len(self.claims) and swap not in self.assigned:
                self._take(swap, j)
                self.notes.append(
                    f"matched verdict {j + 1} to claim {swap + 1}: it swapped numbers with "
                    f"the verdict that quotes claim {n}"
                )
            else:
                self._duplicate(n - 1, j)

    def by_position(self) -> None:
        for j in range(len(self.verdicts)):
            if j in self.done or j >= len(self.claims) or j in self.assigned:
                continue
            self._take(j, j)
            if self.texts[j]:
                self.notes.append(
                    f"matched verdict {j + 1} to claim {j + 1} by position; "
                    f"its text {preview(self.verdicts[j].claim or '', 40)} matched no claim"
                )

    def result(self) -> VerdictMatch:
        extras = [v for j, v in enumerate(self.verdicts) if j not in self.done]
        if extras:
            shown = "; ".join(_describe(v) for v in extras[:3])
            more = "; \u2026" if len(extras) > 3 else ""
            noun = "extra verdict" if len(extras) == 1 else "extra verdicts"
            self.notes.append(f"dropped {len(extras)} {noun}: {shown}{more}")
        missing = tuple(i for i in range(len(self.claims)) if i not in self.assigned)
        return VerdictMatch(
            assigned=MappingProxyType(dict(sorted(self.assigned.items()))),
            missing=missing,
            extras=(*self.duplicates, *extras),
            notes=tuple(self.notes),
        )


def match_verdicts(claims: Sequence[str], verdicts: Sequence[RawVerdict]) -> VerdictMatch:
    """Give each claim at most one verdict: by exact text, by similar text (a difflib
    ratio of at least :data:`FUZZY_THRESHOLD`, one best claim), by the claim its evidence
    quotes, by the claim's number, by position (texts compared by
    :func:`normalise_statement`). Of two verdicts for one claim the first is kept; the
    dropped ones are ``extras``; every decision worth knowing is in ``notes``."""
    matcher = _Matcher(claims, verdicts)
    matcher.by_exact_text()
    matcher.by_fuzzy_text()
    matcher.by_quoted_claim()
    matcher.by_number()
    matcher.by_position()
    return matcher.result()
