"""Verdicts from the three pre-JSON text formats SPEC §3 names: ragas' "Final verdict for
each statement in order: Yes. No.", "Verdict: yes" lines, and numbered label lines."""

from __future__ import annotations

import re
from collections.abc import Callable

from veracity.judges.parsing.reader import ParsedValue
from veracity.prompts.faithfulness import ClaimJudgements
from veracity.prompts.reply import VERDICTS, normalise_verdict, preview
from veracity.types.results import Verdict

# A verdict as read from text: the fields of a ClaimJudgement.
_Item = dict[str, object]
_MARKDOWN = re.compile(r"\*{2,}|__|`")
_TOKEN = re.compile(r"\S+")
_TRAIL = ".,;:!-\u2013\u2014)*"
_MAX_LABEL_WORDS = max(len(k.split()) for k in VERDICTS)


def leading_label(text: str) -> tuple[Verdict, str, str] | None:
    """A label at the start of ``text``: ``(verdict, label_as_written, rest)``, the longest
    run of leading words that is one (``"not supported - no mention"``)."""
    tokens = list(_TOKEN.finditer(text))
    for n in range(min(len(tokens), _MAX_LABEL_WORDS), 0, -1):
        end = tokens[n - 1].end()
        label = text[:end].strip().rstrip(_TRAIL).strip()
        verdict = normalise_verdict(label)
        if verdict is not None:
            return verdict, label, text[end:].strip().lstrip(_TRAIL + "(").strip()
    return None


def _item(claim: str | None, label: str, reason: str = "", evidence: str = "") -> _Item:
    return {"claim": claim, "verdict": label, "reason": reason, "evidence": evidence}


_FINAL = re.compile(
    r"final\s+verdicts?\s+for\s+(?:each|all|every)\s+(?:of\s+the\s+)?(?:statements?|claims?)"
    r"(?:\s+in\s+order)?\s*[:\-]?",
    re.IGNORECASE,
)
_INLINE_NUMBER = re.compile(r"(?<![\w.])\(?\d{1,3}[.):](?=\s)")


def _final_verdict(text: str) -> tuple[list[_Item], list[str]]:
    """ragas: "Final verdict for each statement in order: Yes. No. Yes."; the last such
    line, up to the first word that is not a label."""
    for m in reversed(list(_FINAL.finditer(text))):
        items: list[_Item] = []
        for segment in re.split(r"[.,;\n]+", _INLINE_NUMBER.sub(" ", text[m.end() :])):
            if normalise_verdict(segment) is not None:
                items.append(_item(None, " ".join(segment.split())))
            elif all(normalise_verdict(w) is not None for w in segment.split()):
                items.extend(_item(None, word) for word in segment.split())
            else:
                break  # the labels have ended: prose follows
        if items:
            return items, []
    return [], []


_KINDS = {
    **dict.fromkeys(("statement", "claim"), "claim"),
    **dict.fromkeys(("verdict", "label", "answer"), "verdict"),
    **dict.fromkeys(("reason", "reasoning", "explanation"), "reason"),
    "evidence": "evidence",
}
_KEY = re.compile(
    rf"(?:^|(?<=[\s,;|(]))({'|'.join(_KINDS)})[\s_#]*\d{{0,3}}\s*[:=]\s*", re.IGNORECASE
)
# A leading list marker: "- ", "* ", "• ", "1. ", "1) ", "(1) ".
_LIST_MARKER = re.compile(r"^\s*(?:[-*\u2022+]|\(?\d{1,3}[.)]|\(\d{1,3}\))\s+")


def _verdict_lines(text: str) -> tuple[list[_Item], list[str]]:
    """ "Verdict: yes" lines. The statement, reason and evidence are given on the verdict's
    line or on the lines before it, keyed ("Statement: …") or, for the statement, not."""
    items: list[_Item] = []
    notes: list[str] = []
    given: dict[str, str] = {}  # what the lines since the last verdict said
    for line in filter(str.strip, text.splitlines()):
        body = _LIST_MARKER.sub("", line).strip()
        keys = list(_KEY.finditer(body))
        before = body[: keys[0].start() if keys else len(body)].strip(" ,;|")
        if before or any(_KINDS[k[1].casefold()] == "claim" for k in keys):
            given = {"claim": before} if before else {}
        for key, nxt in zip(keys, [*keys[1:], None], strict=False):
            given[_KINDS[key[1].casefold()]] = body[key.end() : nxt.start() if nxt else None].strip(
                " ,;|"
            )
        if "verdict" not in given:
            continue
        found = leading_label(given["verdict"])
        if found is None:
            notes.append(f"skipped a verdict line: unknown label {preview(given['verdict'])}")
        else:
            reason = " ".join(filter(None, (found[2], given.get("reason", ""))))
            items.append(_item(given.get("claim"), found[1], reason, given.get("evidence", "")))
        given = {}
    return items, notes


_NUMBERED = re.compile(
    r"^\s*(?:(?:claim|statement)\s*)?#?\(?(?P<n>\d{1,3})\s*[.):\-]\s*(?P<rest>.+)$", re.IGNORECASE
)


def _numbered(text: str) -> tuple[list[_Item], list[str]]:
    """Numbered label lines: "1. Supported", "2: No", "3) contradicted - reason"."""
    items: list[_Item] = []
    notes: list[str] = []
    seen: list[int] = []
    for m in filter(None, map(_NUMBERED.match, text.splitlines())):
        found = leading_label(m["rest"])
        if found is None:
            continue
        if int(m["n"]) in seen:
            notes.append(f"ignored a second label line numbered {m['n']}")
            continue
        seen.append(int(m["n"]))
        items.append(_item(None, found[1], found[2]))
    if items and sorted(seen) != list(range(1, len(seen) + 1)):
        notes.append(f"label lines are numbered {sorted(seen)}; matched by their order")
    return items, notes


def _labels(items: list[_Item]) -> list[Verdict | None]:
    return [normalise_verdict(item["verdict"]) for item in items]


_Format = Callable[[str], tuple[list[_Item], list[str]]]
_FORMATS: tuple[tuple[str, _Format], ...] = (
    ("legacy_verdict_lines", _verdict_lines),
    ("legacy_final_verdict", _final_verdict),
    ("legacy_numbered", _numbered),
)


def parse_legacy_verdicts(text: str) -> ParsedValue[ClaimJudgements] | None:
    """Verdicts from a reply in one of the legacy text formats, or ``None``: the first
    format, in :data:`_FORMATS` order, that gives any. "Verdict:" lines come first as they
    carry the statements and reasons, unless a final verdict line disagrees with them."""
    clean = _MARKDOWN.sub("", text)
    final = _labels(_final_verdict(clean)[0])
    for method, read in _FORMATS:
        items, notes = read(clean)
        if method == "legacy_verdict_lines" and final and _labels(items) != final:
            continue
        if items:
            verdicts = ClaimJudgements.model_validate({"verdicts": items})
            return ParsedValue(verdicts, method, tuple(notes))
    return None
