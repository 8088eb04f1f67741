"""Judge-free abstention checks: phrases on word boundaries, and whole answers that abstain.

A phrase is lower-case words; ``{a|b|c}`` offers alternatives, and an empty alternative
makes a part optional (``"i {don't|do not} have {any |}information"``). Matching ignores
case, collapses whitespace, treats straight, curly and missing apostrophes alike, and
"cannot" as "can not".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

_DOCUMENTS = (
    "{document|documents|context|contexts|passage|passages|source|sources|text|texts|"
    "article|articles|information|search results|materials}"
)
_GIVEN = "{provided |given |retrieved |available |supplied |}"

DEFAULT_ABSTENTION_PHRASES: tuple[str, ...] = (
    "i don't know",
    "i do not know",
    "i'm not sure",
    "i am not sure",
    "cannot determine",
    "can't determine",
    "cannot be determined",
    "cannot answer",
    "can't answer",
    "unable to answer",
    "unable to determine",
    "no information",
    "not enough information",
    "insufficient information",
    "don't have enough information",
    "do not have enough information",
    "not mentioned in the context",
    "not provided in the context",
    "the context does not say",
    "i cannot find",
    "i can't find",
    "i could not find",
    "i couldn't find",
    # "I do not have that information", "I don't have a specific recommendation".
    "i {don't|do not} have {any |a |an |the |that |this |such |much |}"
    "{specific |exact |detailed |more |further |}"
    "{information|details|knowledge|access|answer|recommendation|list|name|names}",
    # "I do not have real-time data on …" ("I don't have data loss" says something).
    "i {don't|do not} have {any |}{real-time|current|up-to-date|live} {data|information}",
    "i have no {information|details|knowledge|access}",
    "{there is |}no {relevant|specific|further|detailed} information",
    "{unable|not able} to {find|locate|provide|help|assist}",
    "i {cannot|can't|could not|couldn't} {locate|help|assist|provide|say|tell|explain|"
    "confirm|verify|advise|do that}",
    f"{{the|these|this|those}} {_GIVEN}{_DOCUMENTS} "
    "{don't|do not|doesn't|does not|didn't|did not} "
    "{say|mention|answer|contain|provide|specify|state|address|discuss|indicate|give|tell}",
    "{not|never|nowhere} {mentioned|provided|specified|stated|given|found|available|"
    "discussed|addressed|covered|included} in the " + _GIVEN + _DOCUMENTS,
    f"{{no|none of the}} {_GIVEN}{_DOCUMENTS} {{mention|mentions|says|say|contain|contains}}",
    "there is no mention",
)

# A whole answer that only says there is no answer ("Unknown.", "N/A"): abstentions as
# answers, never inside a sentence ("The cause is unknown" claims something).
_NO_ANSWER = re.compile(
    r"(?:unknown|not known|n/a|not applicable|not available|no answer|no data|idk"
    r"|(?:no|not) (?:idea|sure))",
)
_NO_ANSWER_CHARS = 40
# A sentence that is only courtesy: greetings, thanks, apologies, sign-offs, offers of
# more help. Matched against a whole sentence (or clause), never inside one.
_COURTESY = re.compile(
    r"(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening))(?: there| everyone)?"
    r"|(?:thanks|thank you)(?: (?:so|very) much)?(?: for\b.*)?"
    r"|(?:you're|you are) (?:very |most )?welcome|no problem|my pleasure"
    r"|(?:i'm |i am |we're |we are )?(?:very |so |really )?(?:sorry|afraid)(?: about that)?"
    r"|(?:i |we )?(?:apologi[sz]e|apologies)(?: for\b.*)?"
    r"|(?:i |we )?hope (?:this|that|it) helps?\b.*"
    r"|(?:i'm |i am )?(?:glad|happy) (?:i could |to )?(?:help|assist)\b.*"
    r"|(?:please )?(?:let me know|feel free)\b.*"
    r"|(?:is there )?anything else\b.*|good luck|have a (?:good|great|nice) (?:day|one)|bye"
)
# Several in a row: "Thanks, glad I could help!"
_COURTESIES = re.compile(rf"(?:{_COURTESY.pattern})(?:[,!.]* (?:and )?(?:{_COURTESY.pattern}))*")
# Where a hedge turns to an answer: "I'm not sure, but it was 1889."
_HEDGE = re.compile(r",?\s+\b(?:but|though|although|however)\b,?\s+")
# A clause of its own after an abstention, with a subject: "I don't know, he was there."
_CLAUSE = re.compile(r"\s*,\s*(?=(?:i|you|he|she|it|we|they|there)\s+\w)")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")
# Apostrophe look-alikes judges and users type: right/left single quotes, modifier
# letter apostrophe, prime, backtick and acute accent.
_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc\u2032`\u00b4", "'"))


def _normalised(text: str) -> str:
    return text.translate(_APOSTROPHES).casefold()


def _words_pattern(words: str) -> str:
    """Words joined by any whitespace, apostrophes optional, "cannot" also "can not"."""
    return r"\s+".join(
        r"can\s*not" if w == "cannot" else re.escape(w).replace("'", "'?") for w in words.split()
    )


def _phrase_pattern(phrase: str) -> str:
    """A phrase as a regex: literal words, ``{a|b}`` groups as alternations (an empty
    alternative makes the group optional; a space inside an alternative stays a gap)."""
    out: list[str] = []
    for literal, group in re.findall(r"([^{]+)|\{([^}]*)\}", _normalised(phrase)):
        if literal:
            # Spaces at a group's edge are written inside the group ("{any |}"), so each
            # literal's own edges are gaps too.
            lead = r"\s+" if literal[:1].isspace() else ""
            tail = r"\s+" if literal[-1:].isspace() and literal.strip() else ""
            out.append(lead + _words_pattern(literal) + tail if literal.strip() else r"\s+")
        else:
            options = []
            for option in group.split("|"):
                gap = r"\s+" if option.endswith(" ") else ""
                options.append(_words_pattern(option) + gap if option.strip() else "")
            out.append("(?:" + "|".join(options) + ")")
    return "".join(out)


@lru_cache(maxsize=32)
def _compiled(
    phrases: tuple[str, ...],
) -> tuple[re.Pattern[str], tuple[tuple[str, re.Pattern[str]], ...]]:
    """One pattern for any phrase (a single scan finds the first place one starts, however
    long the answer), and each phrase's own pattern (which of them match there)."""
    patterns = {phrase: _phrase_pattern(phrase) for phrase in phrases if phrase.strip()}
    each = tuple((p, re.compile(rf"(?<!\w){body}(?!\w)")) for p, body in patterns.items())
    alternatives = "|".join(f"(?:{body})" for body in patterns.values())
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)"), each


def _first_match(answer: str, phrases: Sequence[str]) -> tuple[str, str] | None:
    """The phrase found first in ``answer`` (the longest there), with the text it matched."""
    text = _normalised(answer)
    any_phrase, each = _compiled(tuple(phrases))
    first = any_phrase.search(text) if each else None
    if first is None:
        return None
    best: tuple[str, str] | None = None
    for phrase, pattern in each:
        m = pattern.match(text, first.start())
        if m is not None and (best is None or len(m.group()) > len(best[1])):
            best = (phrase, m.group())
    assert best is not None  # the phrase the scan found matches there
    return best


def find_abstention(answer: str, phrases: Sequence[str] = DEFAULT_ABSTENTION_PHRASES) -> str | None:
    """The abstention phrase ``answer`` contains, or ``None``.

    Phrases match whole words only (``"no information"`` is not found in ``"piano
    information"``), in any case, across any whitespace, with straight, curly or missing
    apostrophes (``"I don’t know"`` and ``"I dont know"`` match ``"i don't know"``). When
    several match, the one starting first in the answer wins, then the longest.
    """
    found = _first_match(answer, phrases)
    return None if found is None else found[0]


def is_courtesy(sentence: str) -> bool:
    """Whether ``sentence`` is only a greeting, thanks, an apology or a sign-off."""
    text = _normalised(sentence).strip().strip(".!?,;: ")
    return bool(text) and _COURTESIES.fullmatch(re.sub(r"\s+", " ", text)) is not None


def _parts(text: str) -> Iterator[str]:
    """``text``'s sentences, lazily: most answers are told apart by their first one."""
    start = 0
    for end in _SENTENCE_END.finditer(text):
        yield text[start : end.start()]
        start = end.end()
    yield text[start:]


def abstains(answer: str, phrases: Sequence[str] = DEFAULT_ABSTENTION_PHRASES) -> str | None:
    """What shows that the whole ``answer`` says nothing to check, or ``None``.

    Every sentence (and every part between ``;`` or ``:``) must be an abstention ("I'm
    sorry, I don't have information about X", "The documents don't answer this"), courtesy
    ("Thanks!", "You're welcome", "Hope this helps") or a question (the question repeated
    before "I'm not sure"); or the whole answer says there is none ("Unknown.", "N/A").
    The result is the first
    abstention found, else the first courtesy sentence, as the answer words it
    (lower-cased). A hedge that goes on to answer ("I'm not sure, but it was 1889"; "I
    don't know, he was there before") is an answer, not an abstention.
    """
    if len(answer) <= _NO_ANSWER_CHARS:  # a long answer is never one of these: no copy
        bare = re.sub(r"\s+", " ", _normalised(answer).strip().strip(".!?,;: "))
        if _NO_ANSWER.fullmatch(bare):
            return bare
    phrase: str | None = None
    courtesy: str | None = None
    for part in _parts(answer):
        if not part.strip():
            continue
        if is_courtesy(part):
            courtesy = courtesy or _normalised(part).strip().strip(".!?,;: ")
            continue
        if part.rstrip().endswith("?"):
            continue  # a question asks, it claims nothing: "Who wrote it? I'm not sure."
        found = _first_match(part, phrases)
        if found is None:
            return None
        text = _normalised(part)
        after = text[text.find(found[1]) + len(found[1]) :]
        sides = [*_HEDGE.split(text)[1:], *_CLAUSE.split(after)[1:]]
        for side in sides:
            if side.strip() and not is_courtesy(side) and find_abstention(side, phrases) is None:
                return None
        phrase = phrase or re.sub(r"\s+", " ", found[1])
    return phrase or courtesy
