"""Text analysis: sentences, clauses, tokens, numbers, names, negation.

Everything here is plain Python on short strings; it is cheap next to the embeddings.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Collection, Sequence
from functools import lru_cache
from typing import Any

_lock = threading.Lock()
_stemmers = threading.local()

# Two sentences glued without a space ("…19th century.First for Women is …").
_GLUED = re.compile(r"(?<=[a-z0-9)\]][.!?])(?=[A-Z][a-z])")
# pysbd keeps "… in general! do you …" together; chat text often skips the capital.
_LOWER_START = re.compile(r"(?<=[!?])\s+(?=[a-z])")
# A number with its decimal point or thousands separators ("0.20", "1,000": one word, not
# "0" and "20"); else letters of any alphabet ("Schönbrunn", "Reykjavík" are one word each,
# not "sch" and "nbrunn"), digits, and an apostrophe inside a word.
_WORD = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+(?:'[^\W\d_]+)?")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
# A span of years written short ("2018–19"): the second is its century's ("2019").
_YEAR_SPAN = re.compile(r"\b(1[5-9]|20)(\d\d)\s*[-–—/]\s*(\d\d)\b(?![-–—/.,]?\d)")
# Where one sentence's clauses meet: each may say something of its own, negated or not.
_CLAUSE_BREAK = re.compile(
    r"\s*[;:]\s+|\s+[–—]\s+|,\s+(?:but|so|while|whereas|although|though|because|and)\s+"
)
# Word characters only: a name written "L.F." or "Green-Ellis" is checked part by part, as
# the context's tokens are.
_UPPER = "".join(c for c in map(chr, range(0x250)) if c.isupper())  # Latin alphabets
_CAPITALISED = re.compile(rf"\b[{_UPPER}](?:[^\W_]|')*")
_INITIAL = re.compile(r"(?:^|[\s(])[A-Za-z]\.$")
_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc\u2032`\u00b4", "'"))
_NEGATION = re.compile(
    r"\b(?:not|no|never|without|nobody|nothing|none|neither|nor|cannot|nowhere)\b|n't\b"
)
# A bound, not a negation: "no later than thirty days" is "within thirty days".
_BOUND = re.compile(
    r"\bno(?:t)?\s+(?:later|earlier|sooner|more|less|fewer|greater|higher|lower|longer|"
    r"shorter|older|younger|bigger|smaller|larger)\s+than\b"
)


def wordlist(text: str) -> list[str]:
    return text.split()


STOPWORDS = frozenset(
    wordlist(
        """a about above after again against all also am an and any are as at be because been
        before being below between both but by can could did do does doing down during each
        few for from further had has have having he her here hers herself him himself his how
        i if in into is it its itself just let me more most my myself of off on once only or
        other our ours ourselves out over own same she should so some such than that the their
        theirs them themselves then there these they this those through to too under until up
        very was we were what when where which while who whom why will with would you your
        yours yourself yourselves yes yeah yep ok okay oh well really like get got one s t
        don didn doesn isn wasn weren aren won wouldn couldn shouldn hasn haven hadn i'm it's
        that's there's he's she's they're we're you're i've i'd i'll think know much many
        may might must shall lot lots thing things"""
    )
)

_NUMBER_NAMES = wordlist(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty"""
)
NUMBER_WORDS = {word: str(value) for value, word in enumerate(_NUMBER_NAMES)} | {
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "sixty": "60",
    "seventy": "70",
    "eighty": "80",
    "ninety": "90",
    "hundred": "100",
}


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    from veracity.text.segmenter import fast_segmenter

    return fast_segmenter()


# A dot after a space, a slash or a tilde, and a word right after it, start a file's name
# (".env", "~/.bashrc", ".NET"), where pysbd ends a sentence.
_DOTFILE_START = re.compile(r"(?:^|[\s/~(\"'])\.$")


@lru_cache(maxsize=4096)
def sentences(text: str) -> tuple[str, ...]:
    """The sentences of ``text`` (pysbd, after unglueing "end.Start", and also split after
    "!" or "?" before a lower-case word), stripped, non-empty."""
    text = _GLUED.sub(" ", text.strip())
    if not text:
        return ()
    segmenter = _segmenter()
    with _lock:  # pysbd keeps state while segmenting
        parts = segmenter.segment(text)
    merged: list[str] = []
    for part in (p.strip() for chunk in parts for p in _LOWER_START.split(chunk)):
        if merged and _DOTFILE_START.search(merged[-1]) and f".{part[:12]}" in text:
            merged[-1] += part  # ".env", "~/.bashrc": a name, not a sentence's end
        elif merged and _unfinished(merged[-1]):
            merged[-1] = f"{merged[-1]} {part}"
        else:
            merged.append(part)
    return tuple(s for s in merged if re.search(r"\w", s))


def _unfinished(segment: str) -> bool:
    """pysbd split after an initial ("J. R. Cash") or inside parentheses."""
    return bool(_INITIAL.search(segment)) or segment.count("(") > segment.count(")")


def casefolded(text: str) -> str:
    """``text`` in lower case with its apostrophes normalised, as words are read."""
    return text.translate(_APOSTROPHES).casefold()


def words(text: str) -> list[str]:
    """Lower-case word tokens (apostrophes normalised)."""
    return _WORD.findall(casefolded(text))


@lru_cache(maxsize=65536)  # names and rare words are stemmed without token()'s cache
def stem(word: str) -> str:
    """The Snowball English stem of a word of four letters or more; others as they are."""
    if len(word) <= 3 or not word.isalpha():
        return word
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:  # one per thread: a stemmer keeps state while stemming
        import snowballstemmer

        stemmer = _stemmers.english = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word))


# Months and weekdays (stemmed): a date, not an entity.
CALENDAR = frozenset(
    stem(w)
    for w in wordlist(
        """january february march april may june july august september october november
        december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday
        thursday friday saturday sunday"""
    )
)


# Texts share most of their words: each is stemmed once (a few MB at most).
@lru_cache(maxsize=65536)
def token(word: str) -> str:
    """A word (from :func:`words`) as it is compared: a number as :func:`numbers` writes it
    ("0.20" → "0.2", "1,000" → "1000"), a number word as digits, without its possessive
    "'s", stemmed."""
    if word[:1].isdigit():
        return _decimal(word.replace(",", ""))
    return stem(NUMBER_WORDS.get(word, word).removesuffix("'s"))


def content_tokens(text: str) -> list[str]:
    """Stemmed words that are not stopwords (numbers included, number words as digits)."""
    return [token(w) for w in words(text) if w not in STOPWORDS]


def all_tokens(text: str) -> list[str]:
    return [token(w) for w in words(text)]


def numbers(text: str, *, read: Sequence[str] | None = None) -> set[str]:
    """Numbers in ``text``, normalised ("1,000" → "1000", "0.20" → "0.2", "5.0" → "5",
    "2018–19" → "2018", "2019"), with number words as digits. ``read``: ``text``'s
    :func:`words`, if the caller has them."""
    found = {m.group().replace(",", "") for m in _NUMBER.finditer(text)}
    spans = list(_YEAR_SPAN.finditer(text))
    found = (found - {m[3] for m in spans}) | {m[1] + m[3] for m in spans}
    read = words(text) if read is None else read
    found |= {NUMBER_WORDS[w] for w in read if w in NUMBER_WORDS and w != "one"}
    return {_decimal(n.rstrip(".")) for n in found if n}


def _decimal(number: str) -> str:
    """A decimal without the zeros that end it, which say nothing of its value (a version,
    "2.10.0", is left as it is)."""
    if number.count(".") != 1:
        return number
    return number.rstrip("0").rstrip(".") or "0"


# A number, a word, or a sign that says what a number counts ("%", "£", "$", "€", "°").
_SLOT_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:'[^\W\d_]+)?|[%£$€¥°]")
# A slot: a number, the side of it a word stands on ("<" before, ">" after), that word
# (stemmed), and whether the number reads as a year (four digits, no comma, 1500–2100).
Slot = tuple[str, str, str, bool]


def number_slots(text: str) -> set[Slot]:
    """Each number of ``text`` with what stands beside it, no stopword: "within 30 days"
    gives ("30", ">", "day", False) and ("30", "<", "within", False), "£20,000" gives
    ("20000", "<", "£", False). Two texts that put different numbers in one slot ("60
    days" against "30 days") disagree on that number; a number beside another word ("six
    hours") says nothing of the slot ("6 grams")."""
    text = _YEAR_SPAN.sub(lambda m: f"{m[1]}{m[2]}–{m[1]}{m[3]}", text)  # "2018–19"
    tokens = _SLOT_TOKEN.findall(casefolded(text))
    read: list[tuple[str, bool] | None] = []  # a number and whether it is a year; None: a word
    for found in tokens:
        if found[0].isdigit():
            year = found.isdigit() and len(found) == 4 and 1500 <= int(found) <= 2100
            read.append((_decimal(found.replace(",", "")), year))
        elif found in NUMBER_WORDS and found != "one":
            read.append((NUMBER_WORDS[found], False))
        else:
            read.append(None)
    slots = set()
    for i, number in enumerate(read):
        if number is None:
            continue
        for side, j in (("<", i - 1), (">", i + 1)):
            if 0 <= j < len(read) and read[j] is None and tokens[j] not in STOPWORDS:
                slots.add((number[0], side, token(tokens[j]), number[1]))
    return slots


# A claim may round its context's figure ("4,650 km" as "about 5,000 km", "$6.86" as
# "$6.90") by at most this share of the rounded figure; "20 days" is no rounding of "15".
ROUNDING = 0.1


def rounds_to(precise: str, rough: str) -> bool:
    """Whether ``rough`` is ``precise``, or ``precise`` rounded to ``rough``'s last digit
    and within :data:`ROUNDING` of it."""
    if precise == rough:
        return True
    value, target = _value(precise), _value(rough)
    if math.inf in (value, target):
        return False
    if "." in rough:
        step = 10.0 ** -len(rough.split(".")[1])
    else:
        zeros = len(rough) - len(rough.rstrip("0"))
        if not zeros or not target:
            return False
        step = 10.0**zeros
    rounded = math.floor(value / step + 0.5) * step
    return abs(rounded - target) < step / 1000 and abs(value - target) <= ROUNDING * abs(target)


def changed_numbers(
    claim: str, window: str, held: set[Slot] | frozenset[Slot]
) -> tuple[tuple[str, str], ...]:
    """The claim's numbers that ``window`` replaces, as (claim's, window's) pairs: the
    window has another number in the same slot (beside the same word on the same side:
    "within 60 days" against "within 30 days"), of the same kind (a year against a year,
    not a day of the month against a year), that does not round to the claim's; and no
    context (``held``: their :func:`number_slots`) has the claim's number, or one that
    rounds to it, in that slot."""
    theirs = number_slots(window)
    found: dict[str, str] = {}
    for number, side, word, year in sorted(number_slots(claim)):
        if any(s == side and w == word and rounds_to(m, number) for m, s, w, _ in held):
            continue
        same = sorted(m for m, s, w, y in theirs if (s, w, y) == (side, word, year))
        if same and not any(rounds_to(m, number) for m in same):
            # The window's nearest figure is the one the claim changed ("3.9%" against
            # "4.9% … at least 25%").
            found.setdefault(number, min(same, key=lambda m: abs(_value(m) - _value(number))))
    return tuple(found.items())


def _value(number: str) -> float:
    try:
        return float(number)
    except ValueError:  # a version, "2.10.0"
        return math.inf


def names(text: str) -> dict[str, str]:
    """Capitalised words (two letters or more) that do not start a sentence: likely names,
    as {stemmed lower-case form: the word as written}."""
    found: dict[str, str] = {}
    for m in _CAPITALISED.finditer(text.translate(_APOSTROPHES)):
        before = text[: m.start()].rstrip()
        if not before or before[-1] in ".!?:;\"'(“‘-–—":
            continue
        surface = m.group().rstrip("'").removesuffix("'s")
        word = surface.casefold()
        common = word in STOPWORDS or word in NUMBER_WORDS
        if len(word) > 1 and not common and not word.isdigit():
            found.setdefault(stem(word), surface)
    return found


def rival_names(claim: str, window: str, missing: Sequence[str]) -> tuple[str, ...]:
    """The names of ``window`` (as written) in the place of a ``missing`` name of the
    claim (beside a word it stands beside: "Schönbrunn Palace" against "the Palace of
    Versailles" gives Versailles, though the claim names it elsewhere), then the others the
    claim lacks ("June", which stands only by figures)."""
    claim_names, theirs = names(claim), names(window)
    ours, rivals = _neighbours(claim), _neighbours(window)
    beside = {w for m in missing for w in ours.get(stem(casefolded(m)), ())}
    # Not a name beside the missing one, nor one standing where it stands in the claim.
    in_place = sorted(
        v
        for k, v in theirs.items()
        if k not in beside
        and (shared := rivals.get(k, set()) & beside)
        and not shared & ours.get(k, set())
    )
    lacked = sorted(v for k, v in theirs.items() if k not in claim_names and v not in in_place)
    return (*in_place, *lacked)


def _neighbours(text: str) -> dict[str, set[str]]:
    """Each word's nearest content words on either side (stopwords skipped), all stemmed,
    by the word's stem."""
    words = [stem(w) for w in _SLOT_TOKEN.findall(casefolded(text)) if w.isalpha()]
    content = [w for w in words if w not in STOPWORDS]
    found: dict[str, set[str]] = {}
    for at, word in enumerate(content):
        sides = content[max(0, at - 1) : at] + content[at + 1 : at + 2]
        found.setdefault(word, set()).update(sides)
    return found


# Words rarer than this in English (Zipf scale: 4.5 is about 30 per million words, e.g.
# "liver", "tallest", "refund") name something specific: a claim's that no context has is
# not supported (chosen on the development sets' fit halves; see docs/offline_judge.md).
SPECIFIC_ZIPF = 4.5
# Verb forms and adverbs ("hosted", "founding", "mainly") are how a paraphrase rewords a
# context; the specific words that matter are things: entities, organs, places.
_VERB_OR_ADVERB = re.compile(r"\w{4,}(?:ed|ing|ly)")


@lru_cache(maxsize=65536)
def specific(word: str) -> bool:
    """Whether ``word`` (lower-case, not a number) is a rare, specific word in English."""
    from veracity.text.frequencies import zipf

    if any(ch.isdigit() for ch in word) or word in STOPWORDS or _VERB_OR_ADVERB.fullmatch(word):
        return False
    return zipf(word) < SPECIFIC_ZIPF


# Two things said to be alike: "X and Y have the same nationality", "the same length as Y".
_SAMENESS = re.compile(r"\b(?:both|and)\b.*\bthe same\b|\bthe same\b.*\bas\b")


def compares(text: str) -> bool:
    """Whether ``text`` says two things are the same in some respect."""
    return _SAMENESS.search(casefolded(text)) is not None


def negated(text: str) -> bool:
    """Whether ``text`` has a negation word (not, never, no, n't, without, …)."""
    return negations(text) > 0


# "without" negates the phrase it opens alone: "can be repaid early without a penalty"
# does not negate the repaying. ("No" reaches further: "there is no evidence that tea
# extends life" denies that tea extends life.)
_PHRASE_NEGATIONS = frozenset({"without"})
PHRASE_WORDS = 3  # a negated noun phrase's content words, at most
PHRASE_CHARS = 200  # and where they are looked for


def negated_about(text: str, concerning: Collection[str]) -> bool:
    """Whether a negation of ``text`` bears on one of the tokens ``concerning``: any
    negation does, but "without" only when the phrase it opens holds one
    (as :func:`negated` when ``concerning`` is empty)."""
    read = _BOUND.sub(" ", casefolded(text))
    for cue in _NEGATION.finditer(read):
        if cue.group() not in _PHRASE_NEGATIONS or not concerning:
            return True
        phrase = _phrase(words(read[cue.end() : cue.end() + PHRASE_CHARS]))
        if not phrase or any(token(w) in concerning for w in phrase):
            return True
    return False


def _phrase(following: Sequence[str]) -> list[str]:
    """The content words of the noun phrase that opens ``following``: stopwords before
    the first are skipped ("without any further charge"); the first one after ends it."""
    found: list[str] = []
    for word in following:
        if word in STOPWORDS or _NEGATION.fullmatch(word):
            if found:
                break
            continue
        found.append(word)
        if len(found) == PHRASE_WORDS:
            break
    return found


def sentence_clauses(text: str) -> list[str]:
    """``text`` cut where its clauses meet (";", ":", a dash, ", but", ", so", ", and", …):
    cheap and broad, for telling which part of a sentence a claim speaks of."""
    return [part for part in _CLAUSE_BREAK.split(text) if words(part)] or [text]


def negations(text: str) -> int:
    """How many negation words ``text`` has: "is not" added to a sentence that already
    has a "not" elsewhere leaves it negated, one more negation."""
    return len(_NEGATION.findall(_BOUND.sub(" ", casefolded(text))))


# Words that join two participants without ordering them ("Paris and Lyon" is "Lyon and
# Paris", "the team that is the offense" is "the offense, which is the team"), and
# articles: none of them links a predicate's two participants.
_NOT_LINKS = frozenset(
    wordlist("and or nor both either neither the a an is are was were be been being that which")
)


def swapped_roles(claim: str, context: str) -> bool:
    """Whether ``claim`` is ``context``'s statement with two participants exchanged around
    their predicate ("Acme sued Paris" against "Paris sued Acme"): over the content words
    the two share (each word where it first occurs), the claim reads P + X + M + Y + S where
    the context reads P + Y + M + X + S, with X and Y non-empty and without numbers, and M
    (the predicate) non-empty or, when empty, the same linking word between X and Y in both
    ("replaced X with Y"; not "and", not an article). One passive against an active ("was
    sued by") undoes the exchange."""
    own = [t for t in dict.fromkeys(content_tokens(claim)) if not t.isdigit()]
    context_tokens = content_tokens(context)
    theirs_all = list(dict.fromkeys(context_tokens))
    shared = set(own) & set(theirs_all)
    mine = [t for t in own if t in shared]
    theirs = [t for t in theirs_all if t in shared]
    n = len(mine)
    if n < 3 or len(shared) < 0.8 * len(own):
        return False
    start = 0
    while start < n and mine[start] == theirs[start]:
        start += 1
    end = n
    while end > start and mine[end - 1] == theirs[end - 1]:
        end -= 1
    middle_claim, middle_context = mine[start:end], theirs[start:end]
    for x in range(1, len(middle_claim)):
        first = middle_claim[:x]
        for y in range(1, len(middle_claim) - x + 1):
            second = middle_claim[len(middle_claim) - y :]
            link = middle_claim[x : len(middle_claim) - y]
            if middle_context != second + link + first:
                continue
            links = set(_between(claim, first[-1], second[0]))
            links &= set(_between(context, second[-1], first[0]))
            if not link and not links - _NOT_LINKS:
                continue
            if any(context_tokens.count(t) > 1 for t in first + second):
                continue  # a participant named twice has no one place to swap from
            return _passive(claim, first[-1], second[0]) == _passive(context, second[-1], first[0])
    return False


def _between(text: str, left: str, right: str) -> list[str]:
    """The words of ``text`` between the first ``left`` token and the next ``right``."""
    tokens = all_tokens(text)
    try:
        i = tokens.index(left)
        j = tokens.index(right, i + 1)
    except ValueError:
        return []
    return tokens[i + 1 : j]


def _passive(text: str, left: str, right: str) -> bool:
    """A "by" between the predicate's two participants: the first is its object."""
    return "by" in _between(text, left, right)
