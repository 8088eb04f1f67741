"""Claims by sentence segmentation and clause splitting, with nothing to check dropped."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.prompts import find_abstention, is_courtesy
from veracity.text import analysis as tx

NO_PRONOUNS_NOTE = (
    "offline claims are the text's own sentences and clauses: pronouns are not resolved, "
    "so a claim may lean on the sentence before it"
)

_AUXILIARIES = frozenset(
    tx.wordlist(
        """is are was were be been has have had do does did will would can could should may
        might must isn't aren't wasn't weren't hasn't haven't hadn't don't doesn't didn't
        won't wouldn't can't couldn't"""
    )
)
_PERSONS = frozenset(tx.wordlist("i i'm am you he she we they"))
_SUBJECTS = frozenset(
    tx.wordlist(
        """i you he she it we they this that these those there the a an his her its their
        our my your it's he's she's they're there's"""
    )
)
_FILLER = re.compile(
    r"^(?:(?:(?:hi|hello|hey)(?: there| everyone| all)?|thanks|thank you|thank you so much|"
    r"oh|ah|aw|um|uh|well|so|and|"
    r"you too|bye|goodbye|good (?:morning|night|evening|afternoon)|ha(?:ha)+h?|lol|hmm+|"
    r"ok(?:ay)?|sure|cool|wow|nice|great|awesome|same|me too|yes|yeah|yep|no|nope|absolutely|"
    r"indeed|exactly|definitely|of course|right|true|agreed|i (?:agree|see)|me (?:too|neither)|"
    r"i (?:think|believe|guess|suppose) (?:so|not|it (?:is|was|does|did|has))|"
    r"(?:i|you|he|she|it|we|they) (?:do|did|does|is|was|are|were|have|has|can)(?: too| not)?|"
    r"(?:it|that|this)(?: ?'s| is| was) (?:true|right|correct|so|interesting|cool|great|funny|"
    r"amazing|awesome|crazy|sad|nice)|(?:it was )?nice (?:talking|chatting) (?:to|with) you|"
    r"have a (?:good|great|nice) (?:day|night|one))[\s!.,]*)+$"
)
# "Did you know (that) X?" and "Have you heard that X?" tell X; "Do you know what/if …?"
# asks. Emoticons and openers may come first.
_DID_YOU_KNOW = re.compile(
    r"^(?:(?:and|so|but|well|yes|yeah|yep|no|oh|wow|haha|ha|hmm|ok|okay)[,!.]?\s+|"
    r"[:;=][-']?[()DPp]\s*)*"
    r"(?:(?:did|do) you know(?: that)?|have you heard that)\s+"
    r"(?!(?:what|who|whom|whose|which|when|where|why|how|if|whether)\b)",
    re.I,
)
# A question's first words: the part before a question tail is a question too.
_ASKING = re.compile(
    r"^(?:what|who|whom|whose|which|when|where|why|how|do|does|did|have|has|is|are|was|"
    r"were|can|could|would|will|should)\b",
    re.I,
)
_QUESTION_TAIL = re.compile(
    r",\s*(?:do|did|does|have|has|are|is|was|were|what|how|why|who|which|would|could|can|"
    r"will|don't|didn't|isn't|aren't|wasn't|right|huh|no|i wonder)\b[^,]*\?$",
    re.I,
)
_HEDGE_BUT = re.compile(r",?\s+\b(?:but|though|although|however),?\s+", re.I)
_CONJUNCTION = re.compile(r",? (?:and|but) ")
# A reply's opening word ("Yes, …", "No but …", "Oh …") is not part of its claim, and a
# leading "no" would read as a negation. "no", "well" and "so" only with a comma or a
# conjunction after them ("No one knows", "Well known", "So many" stay whole).
_OPENER = re.compile(
    r"^(?:(?:yes|yeah|yep|yup|oh|ah|haha|wow|ok|okay|hmm)\b[,!.]?|"
    r"(?:no|nope|well|so|sure|right)(?:,|\s+(?=and\b|but\b))|(?:and|but)\b,?)\s*",
    re.I,
)

# A yes/no question (its last sentence) and a reply that is only "yes" or "no", with an
# elliptic echo at most ("Yes, it is.", "No, he didn't.", "Nope!").
_POLAR_QUESTION = re.compile(
    r"(?:^|(?<=[.!?]\s))(?:is|are|was|were|am|do|does|did|has|have|had|can|could|will|would|"
    r"shall|should|may|might|must|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|hasn't|"
    r"haven't|can't|won't)\s[^.!?]*\w[^.!?]*\?$",
    re.I,
)
_REPLY = (
    r"(?:(?P<yes>yes|yeah|yep|yup|correct|that's right|true|indeed|absolutely|of course)|"
    r"(?P<no>no|nope|nah|not really|incorrect|false))"
)
_BARE_REPLY = re.compile(
    _REPLY + r"(?:[,;:]?\s*(?:i|you|he|she|it|we|they|there|that|this)\s+\w+(?:\s+not|n't)?)?"
    r"[\s.!]*",
    re.I,
)
_MADE_POLAR = re.compile(r"(Yes|No), (.+\?)")
# A reference that opens with its yes or no: "Yes.", "No, it was built in 1887."
_OPENING_REPLY = re.compile(_REPLY + r"(?=[,;:.!]|\s*$)", re.I)


@dataclass(frozen=True, slots=True)
class Extracted:
    claims: tuple[str, ...]
    dropped: tuple[tuple[str, str], ...]  # (sentence, why)

    def notes(self) -> tuple[str, ...]:
        notes = [NO_PRONOUNS_NOTE]
        if self.dropped:
            shown = "; ".join(f"{why}: {s[:80]!r}" for s, why in self.dropped[:5])
            more = f" (and {len(self.dropped) - 5} more)" if len(self.dropped) > 5 else ""
            notes.append(f"dropped {len(self.dropped)} part(s) with no claim: {shown}{more}")
        return tuple(notes)


def extract(text: str, *, split_clauses: bool = True, question: str = "") -> Extracted:
    """The claims of ``text``: its sentences (pysbd), each split into clauses where two
    clauses are joined by ``;``, "and" or "but". Refusals ("I don't know" …; "I'm not sure,
    but X" keeps X), greetings, thanks, interjections, plain questions ("Did you know that
    X?" and "X, do you like it?" keep X) and fragments without a content word are dropped.
    A bare "yes" or "no" to a yes/no ``question`` claims the question's answer: "No, is
    insulin made in the pancreas?"."""
    polar = polar_claim(question, text)
    if polar is not None:
        return Extracted((polar,), ())
    found = _extracted(text, split_clauses)
    short = short_reply_claim(question, found.claims)
    return found if short is None else Extracted((short,), found.dropped)


def _extracted(text: str, split_clauses: bool) -> Extracted:
    claims: dict[str, None] = {}
    dropped: list[tuple[str, str]] = []
    for sentence in tx.sentences(text):
        statement = statement_of(sentence)
        if statement is None:
            dropped.append((sentence, "a question"))
            continue
        for part in clauses(statement) if split_clauses else [statement]:
            claim, why = _keep(part)
            if claim is None:
                dropped.append((part, why))
            else:
                claims.setdefault(claim, None)
    return Extracted(tuple(claims), tuple(dropped))


def polar_claim(question: str, answer: str) -> str | None:
    """The claim of a bare yes/no ``answer`` ("No.", "Yes, it is.") to a yes/no
    ``question``: the question with the answer before it, so that a wrong "No" is a
    negated claim to check rather than nothing said (scored as vacuously faithful)."""
    polarity = _BARE_REPLY.fullmatch(answer.strip())
    asked = _POLAR_QUESTION.search(question.strip()) if polarity else None
    if polarity is None or asked is None or not tx.content_tokens(asked.group(0)):
        return None
    reply = "No" if polarity.group("no") else "Yes"
    return f"{reply}, {asked.group(0)[:1].lower()}{asked.group(0)[1:]}"


# A short reply to a question ("Paris.", "Mike's Gym in Oostzaan") holds as much as the
# question lends it: "Paris" is in the contexts whichever capital was asked for. Such a
# reply (a fragment: at most this many content words; no auxiliary verb, personal
# pronoun or negation) to a direct wh-question is checked alone and against the passage
# that answers its question (verdicts.answering).
SHORT_REPLY_WORDS = 4
ASKED_WORDS = 7  # a longer question describes what it asks of: it asks across facts
ASKED_CHARS = 300
# A question asked directly, about one thing: a wh-word first (after a preposition at
# most) and none after it, so no clause that describes something else the answer hangs
# on ("Who represents the district that Gawthorpe is in?" asks across two facts).
_WH = r"(?:what|which|who|whom|whose|when|where|how|why)"
_DIRECT_QUESTION = re.compile(
    rf"(?:(?:in|at|on|from|for|to|by|with|of)\s+)?{_WH}\b(?:(?!\b(?:{_WH}|that)\b)[^?])*\?",
    re.I,
)
_ASKED = re.compile(r"(?P<reply>.+) \(asked: (?P<question>.+\?)\)", re.S)
# "It is Paris.", "That would be Paris.", "The capital (of Germany) is Paris.": the reply
# names the answer all the same, after a subject made of the question's own words.
_IT_IS = re.compile(r"(?:it|that|this|the answer)(?:'s|\s+(?:is|was|would be))\s+", re.I)
_ITS_X_IS = re.compile(
    r"(?:the|its|their|his|her)\s+(?P<subject>[^.!?]{1,80}?)\s+(?:is|are|was|were)\s+", re.I
)


def short_reply_claim(question: str, claims: Sequence[str]) -> str | None:
    """The claim of a short reply (its one claim, see :data:`SHORT_REPLY_WORDS`) to a
    direct wh-``question`` (its last sentence), the question kept with it: "Paris.
    (asked: What is the capital of Germany?)"; ``None`` for any other answer or question."""
    asked = (tx.sentences(question) or ("",))[-1]
    if len(claims) != 1 or len(asked) > ASKED_CHARS or not _DIRECT_QUESTION.fullmatch(asked):
        return None
    (reply,) = claims
    named = _named(reply, asked)
    own, words_asked = set(tx.content_tokens(named)), tx.content_tokens(asked)
    # A fragment repeats of the question at most what it asks for ("14 days" to "How
    # many days …?"), the first content word: more makes a sentence of its own.
    if (
        len(own) > SHORT_REPLY_WORDS
        or own & (set(words_asked[1:]) - set(words_asked[:1]))
        or len(set(words_asked)) > ASKED_WORDS
        or (_AUXILIARIES | _PERSONS).intersection(tx.words(named))
        or tx.negated(named)
    ):
        return None
    return f"{reply} (asked: {asked})"


def short_reply_parts(claim: str) -> tuple[str, str, str] | None:
    """For a claim of :func:`short_reply_claim`: the reply, what it names ("Paris" of
    "It's Paris." or "The capital is Paris.") and its question as a statement ("What is
    the capital of Germany.")."""
    made = _ASKED.fullmatch(claim)
    if made is None:
        return None
    reply, asked = made.group("reply"), made.group("question")
    return reply, _named(reply, asked), asked.rstrip("?").rstrip() + "."


def _named(reply: str, asked: str) -> str:
    opening = _IT_IS.match(reply) or _ITS_X_IS.match(reply)
    # "The tower is in Paris": a subject of its own, not the question's
    if opening is not None and opening.re is _ITS_X_IS:
        subject = set(tx.content_tokens(opening.group("subject")))
        opening = opening if subject <= set(tx.content_tokens(asked)) else None
    return reply if opening is None else reply[opening.end() :]


def polar_parts(claim: str) -> tuple[str, bool] | None:
    """The question and whether the reply is "yes", for a claim of :func:`polar_claim`."""
    made = _MADE_POLAR.fullmatch(claim)
    return None if made is None else (made.group(2), made.group(1) == "Yes")


# "are both X and Y Z?" and "are X and Y both Z?": a yes says Z of each of them.
_BOTH_FIRST = re.compile(r"(?P<aux>\S+)\s+both\s+(?P<x>.+?)\s+and\s+(?P<rest>.+\?)", re.I)
_BOTH_AFTER = re.compile(r"(?P<aux>\S+)\s+(?P<pair>.+\s+and\s+.+?)\s+both\s+(?P<rest>.+\?)", re.I)


def conjuncts(question: str, contexts: Sequence[str]) -> tuple[str, ...]:
    """A yes/no ``question`` about two things at once, one question about each ("are
    both The New Pornographers and Kings of Leon American rock bands?" → "are The New
    Pornographers American rock bands?", "are Kings of Leon American rock bands?"), or
    the question alone. Where the second thing's name ends is where its longest opening
    the ``contexts`` hold ends ("Kings of Leon", not "Kings of Leon American")."""
    after = _BOTH_AFTER.fullmatch(question)
    if after is not None:
        *first, second = re.split(r"\s+and\s+", after["pair"])
        return tuple(
            f"{after['aux']} {one} {after['rest']}" for one in (" and ".join(first), second)
        )
    both = _BOTH_FIRST.fullmatch(question)
    if both is not None:
        second = _named_opening(both["rest"], " ".join(contexts))
        if second:
            said = both["rest"][len(second) :].strip()
            return (f"{both['aux']} {both['x']} {said}", f"{both['aux']} {both['rest']}")
    return (question,)


def _named_opening(text: str, contexts: str) -> str:
    """The longest opening of ``text`` (not all of it), capitalised, that ``contexts``
    name: the name that ``text`` starts with."""
    words = text.split()
    if not words or not words[0][:1].isupper():
        return ""
    for n in range(len(words) - 1, 0, -1):
        name = " ".join(words[:n]).rstrip(",")
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", contexts, re.I):
            return name
    return ""


def agreeing_replies(question: str, answer: str, reference: str) -> bool | None:
    """Whether a bare yes/no ``answer`` gives the ``reference``'s yes or no ("Yes, it was
    built in 1889." is a yes); ``None`` unless both are replies to a yes/no question."""
    replied = _BARE_REPLY.fullmatch(answer.strip())
    expected = _OPENING_REPLY.match(reference.strip())
    if replied is None or expected is None or polar_claim(question, answer) is None:
        return None
    return bool(replied.group("no")) == bool(expected.group("no"))


def _without_opener(part: str) -> str:
    stripped = part.strip()
    while (opener := _OPENER.match(stripped)) is not None and opener.end():
        stripped = stripped[opener.end() :]
    return _capitalise(stripped) if tx.words(stripped) else part.strip()


def _keep(part: str) -> tuple[str | None, str]:
    part = _without_opener(part)
    phrase = find_abstention(part)
    if phrase is not None:
        hedge = _HEDGE_BUT.search(part)
        rest = part[hedge.end() :].strip() if hedge else ""
        if not rest or find_abstention(rest) is not None:
            return None, f"a refusal ({phrase!r})"
        part = _capitalise(rest)
    if _FILLER.match(part.strip().casefold()) or is_courtesy(part):
        return None, "a greeting or filler"
    if not tx.content_tokens(part) and not tx.numbers(part):
        return None, "no content word"
    return part.strip(), ""


def statement_of(sentence: str) -> str | None:
    """The sentence, or the statement inside a question ("Did you know that X?" → "X.",
    "X, do you like it?" → "X."); ``None`` for any other question."""
    sentence = sentence.strip()
    if not sentence.endswith("?"):
        return sentence
    known = _DID_YOU_KNOW.match(sentence)
    if known is not None:
        rest = sentence[known.end() :].rstrip("?").strip()
        return _capitalise(rest) + "." if tx.words(rest) else None
    tail = _QUESTION_TAIL.search(sentence)
    if tail is not None:
        head = _without_opener(sentence[: tail.start()])
        if len(tx.words(head)) >= 3 and not _ASKING.match(head):
            return sentence[: tail.start()].strip() + "."
    return None


def clauses(sentence: str) -> list[str]:
    """``sentence`` split on ``;``, and on "and" / "but" (with or without a comma) where
    the left side has four words or more and the right side starts a new clause: a
    subject (pronoun, determiner or capitalised word) and an auxiliary or past-tense verb
    among its next words."""
    parts: list[str] = []
    for piece in (p.strip() for p in sentence.split(";")):
        if tx.words(piece):
            parts.extend(_split_conjunction(_capitalise(piece)))
    return [_as_sentence(p) for p in parts]


def _starts_clause(text: str) -> bool:
    tokens = tx.words(text)
    if len(tokens) < 3 or not (tokens[0] in _SUBJECTS or text[:1].isupper()):
        return False
    return any(t in _AUXILIARIES or t.endswith("ed") for t in tokens[1:4])


def _split_conjunction(text: str) -> list[str]:
    for m in _CONJUNCTION.finditer(text):
        left, right = text[: m.start()].strip(), text[m.end() :].strip()
        if len(tx.words(left)) >= 4 and _starts_clause(right):
            return [_as_sentence(left), *_split_conjunction(_capitalise(right))]
    return [text]


def _as_sentence(text: str) -> str:
    text = text.rstrip(",")
    return text + ("" if text[-1:] in ".!?" else ".")


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
