"""Verdicts from the pre-JSON text formats judges still fall back to (SPEC §3)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from veracity.judges.parsing.reader import ParsedValue
from veracity.prompts.faithfulness import ClaimJudgements
from veracity.prompts.reply import VERDICTS, leading, normalise_verdict, preview
from veracity.types.results import Verdict

__all__ = ["leading_label", "parse_legacy_verdicts"]

# A verdict as read from text: the fields of a ClaimJudgement.
_Item = dict[str, object]
_MARKDOWN = re.compile(r"\*{2,}|__|`")
# A leading list marker: "- ", "* ", "• ", "1. ", "1) ", "(1) ".
_LIST_MARKER = re.compile(r"^\s*(?:[-*\u2022\u2023\u25e6\u2043+]|\(?\d{1,3}[.)]|\(\d{1,3}\))\s+")
_TRAIL = ".,;:!-\u2013\u2014)*"
_MAX_LABEL_WORDS = max(len(k.split()) for k in VERDICTS) + 2  # room for a "verdict" prefix


def _item(claim: str | None, label: str, reason: str = "", evidence: str = "") -> _Item:
    return {"claim": claim, "verdict": label, "reason": reason, "evidence": evidence}


def leading_label(text: str) -> tuple[Verdict, str, str] | None:
    """A label at the start of ``text``: ``(verdict, label_as_written, rest)``, the longest
    run of leading words that is one (``"not supported - no mention"``)."""
    found = leading(text, normalise_verdict, _MAX_LABEL_WORDS)
    if found is None:
        return None
    verdict, end = found
    label = text[:end].strip().rstrip(_TRAIL).strip()
    return verdict, label, text[end:].strip().lstrip(_TRAIL + "(").strip()


_FINAL = re.compile(
    r"final\s+verdicts?\s+for\s+(?:each|all|every)\s+(?:of\s+the\s+)?(?:statements?|claims?)"
    r"(?:\s+in\s+order)?\s*[:\-]?",
    re.IGNORECASE,
)
_INLINE_NUMBER = re.compile(r"(?<![\w.])\(?\d{1,3}[.):](?=\s)")
_KINDS = {
    **dict.fromkeys(("statement", "claim"), "claim"),
    **dict.fromkeys(("verdict", "label", "answer"), "verdict"),
    **dict.fromkeys(("reason", "reasoning", "explanation", "rationale"), "reason"),
    **dict.fromkeys(("evidence", "quote"), "evidence"),
}
_KEY = re.compile(
    rf"(?:^|(?<=[\s,;|(]))(?P<key>{'|'.join(_KINDS)})[\s_#]*\d{{0,3}}\s*[:=]\s*", re.IGNORECASE
)
_NUMBERED = re.compile(
    r"^\s*(?:(?:claim|statement)\s*)?#?\(?(?P<n>\d{1,3})\s*[.):\-]\s*(?P<rest>.+)$", re.IGNORECASE
)


def _final_verdict(text: str) -> list[_Item]:
    """(a) ragas: "Final verdict for each statement in order: Yes. No. Yes."."""
    for m in reversed(list(_FINAL.finditer(text))):
        rest = _INLINE_NUMBER.sub(" ", text[m.end() :])
        items: list[_Item] = []
        for segment in re.split(r"[.,;\n]+", rest):
            words = segment.split()
            if not words:
                continue
            whole = normalise_verdict(segment)
            if whole is not None:
                items.append(_item(None, " ".join(segment.split())))
                continue
            each = [normalise_verdict(w) for w in words]
            if not all(each):
                break  # the labels have ended: prose follows
            items.extend(_item(None, word) for word in words)
        if items:
            return items
    return []


@dataclass
class _Block:
    claim: str | None = None
    claim_keyed: bool = False
    label: str | None = None
    reason: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)


@dataclass
class _Blocks:
    """(b) "Statement: … / Verdict: yes" lines or blocks, read line by line."""

    items: list[_Item] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cur: _Block = field(default_factory=_Block)
    saw_verdict: bool = False

    def flush(self) -> None:
        block, self.cur = self.cur, _Block()
        if block.label is None:
            return  # a statement without a verdict: it will count as missing
        found = leading_label(block.label)
        if found is None:
            self.notes.append(f"skipped a verdict line: unknown label {preview(block.label)}")
            return
        _, label, rest = found
        reason = " ".join([rest, *block.reason] if rest else block.reason)
        self.items.append(_item(block.claim, label, reason, " ".join(block.evidence)))

    def add(self, kind: str, value: str, numbered: bool = False) -> None:
        cur = self.cur
        if kind == "claim":
            if cur.claim is not None or cur.label is not None:
                self.flush()
            self.cur.claim, self.cur.claim_keyed = value, True
        elif kind == "plain":
            if cur.label == "":
                cur.label = value  # "Verdict:" with the label on the next line
            elif cur.label is not None or (numbered and cur.claim is not None):
                self.flush()
                self.cur.claim = value
            elif cur.claim is None or not cur.claim_keyed:
                cur.claim = value  # the line nearest the verdict is the statement
            else:
                cur.reason.append(value)
        elif kind == "verdict":
            self.saw_verdict = True
            if cur.label is not None:
                self.flush()
            self.cur.label = value
        elif value:
            (cur.reason if kind == "reason" else cur.evidence).append(value)

    def feed(self, line: str) -> None:
        marker = _LIST_MARKER.match(line)
        body = line[marker.end() :] if marker else line.strip()
        keys = list(_KEY.finditer(body))
        if not keys:
            self.add("plain", body.strip(), numbered=marker is not None)
            return
        if body[: keys[0].start()].strip():
            self.add("plain", body[: keys[0].start()].strip(" ,;|"), numbered=marker is not None)
        for m, nxt in zip(keys, [*keys[1:], None], strict=True):
            value = body[m.end() : nxt.start() if nxt else len(body)].strip(" ,;|")
            self.add(_KINDS[m.group("key").casefold()], value)


def _verdict_lines(text: str) -> tuple[list[_Item], list[str]]:
    blocks = _Blocks()
    for line in text.splitlines():
        if line.strip():
            blocks.feed(line)
    blocks.flush()
    return (blocks.items, blocks.notes) if blocks.saw_verdict else ([], [])


def _numbered(text: str) -> tuple[list[_Item], list[str]]:
    """(c) numbered label lines: "1. Supported", "2: No", "3) contradicted - reason"."""
    items: list[_Item] = []
    notes: list[str] = []
    seen: set[int] = set()
    for line in text.splitlines():
        m = _NUMBERED.match(line)
        found = leading_label(m.group("rest")) if m else None
        if m is None or found is None:
            continue
        number = int(m.group("n"))
        if number in seen:
            notes.append(f"ignored a second label line numbered {number}")
            continue
        seen.add(number)
        _, label, rest = found
        items.append(_item(None, label, rest))
    if items and sorted(seen) != list(range(1, len(seen) + 1)):
        notes.append(f"label lines are numbered {sorted(seen)}; matched by their order")
    return items, notes


def parse_legacy_verdicts(text: str) -> ParsedValue[ClaimJudgements] | None:
    """Verdicts from a reply in one of the legacy text formats, or ``None``.

    Tried in order: (a) "Final verdict for each statement in order: …" (but when the
    reply also has per-statement "Verdict:" lines agreeing with it, those win, as they
    carry the statements and reasons); (b) "Statement: … Verdict: …" lines and blocks;
    (c) numbered label lines; (d) a reply that is just one label.
    """
    clean = _MARKDOWN.sub("", text)
    final = _final_verdict(clean)
    lines, notes = _verdict_lines(clean)
    if lines and (not final or _labels(lines) == _labels(final)):
        found = lines, "legacy_verdict_lines", notes
    elif final:
        found = final, "legacy_final_verdict", []
    elif (numbered := _numbered(clean))[0]:
        found = numbered[0], "legacy_numbered", numbered[1]
    elif normalise_verdict(clean) is not None:
        found = [_item(None, " ".join(clean.split()))], "legacy_label", []
    else:
        return None
    items, method, said = found
    return ParsedValue(ClaimJudgements.model_validate({"verdicts": items}), method, tuple(said))


def _labels(items: list[_Item]) -> list[Verdict | None]:
    return [normalise_verdict(item["verdict"]) for item in items]
