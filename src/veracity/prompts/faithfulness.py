"""The two prompts behind faithfulness: claim extraction and claim verification."""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BeforeValidator, ValidationInfo, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

from veracity.prompts._rules import data_rule
from veracity.prompts.reply import (
    REASONS,
    Reply,
    Text,
    describe_json,
    normalise_verdict,
    note,
    preview,
    read_items,
    synonyms,
)
from veracity.prompts.template import (
    Example,
    PromptTemplate,
    copyable,
    numbered_block,
    untrusted,
)


def _claims(items: object, info: ValidationInfo) -> list[str]:
    """Claim strings from an array, skips and duplicates noted."""
    if not isinstance(items, list):
        raise ValueError(f"'claims' is {describe_json(items)}, not an array")
    claims: list[str] = []
    for n, item in enumerate(items, 1):
        if not isinstance(item, str) or not item.strip():
            note(info, f"skipped item {n}: not a claim string")
        elif item.strip() in claims:
            note(info, f"dropped duplicate claim {preview(item)}")
        else:
            claims.append(item.strip())
    if items and not claims:
        raise ValueError(f"none of the {len(items)} items is a claim string")
    return claims


class ExtractedClaims(Reply):
    claims: Annotated[list[str], BeforeValidator(_claims)] = synonyms("claims statements")


def _verdict(raw: object) -> str:
    verdict = normalise_verdict(raw)
    if verdict is None:
        raise ValueError(f"unknown verdict label {preview(label_text(raw))}")
    return verdict.value


def label_text(value: object) -> str:
    """A label as the judge wrote it."""
    return value.strip() if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class ClaimJudgement(Reply):
    # The claim's number, as asked; its text or "2" are read too (matched to the claims).
    claim: Annotated[
        int | str | None,
        BeforeValidator(
            lambda v: v if isinstance(v, int | str) and not isinstance(v, bool) else None
        ),
        WithJsonSchema({"type": "integer"}),
    ] = synonyms("claim statement", None)
    evidence: Text = synonyms("evidence quote", "")
    reason: Text = synonyms(REASONS, "")
    verdict: Annotated[
        Literal["supported", "contradicted", "not_enough_info"], BeforeValidator(_verdict)
    ] = synonyms("verdict label")
    # The label as written ("Yes"), where the token log-probabilities are read.
    written: SkipJsonSchema[Annotated[str, BeforeValidator(label_text)]] = synonyms(
        "written verdict label", "", exclude=True
    )


def _verdicts(value: object, info: ValidationInfo) -> list[ClaimJudgement]:
    """The verdict objects of an array; each item that is not one is skipped with a note."""
    read, skipped = read_items(ClaimJudgement, value, info, "verdicts")
    if skipped and not read:
        raise ValueError(f"no usable verdict ({skipped[0]})")
    return read


class ClaimJudgements(Reply):
    verdicts: Annotated[list[ClaimJudgement], BeforeValidator(_verdicts)] = synonyms(
        "verdicts results"
    )


def render_extraction(question: str, answer: str) -> dict[str, str]:
    return {
        "question": untrusted("question", question),
        "answer": untrusted("answer", copyable(answer)),
    }


def render_verification(claims: list[str], contexts: tuple[str, ...]) -> dict[str, str]:
    # The evidence check ignores punctuation: quotes copied as single quotes still match.
    return {
        "contexts": numbered_block("contexts", "context", [copyable(c) for c in contexts]),
        "claims": numbered_block("claims", "claim", claims),
    }


# What each verdict means, the same in both verification prompts.
_VERDICT_LABELS = (
    "- supported: the contexts state the claim, with every name, number and date in it;\n"
    "- contradicted: the contexts state something that conflicts with the claim, such "
    "as another name, number or date;\n"
    "- not_enough_info: the contexts do not mention it, or state only part of it.\n"
)

CLAIM_EXTRACTION = PromptTemplate(
    id="claim_extraction",
    version=4,
    system=(
        "You split an answer into claims. A claim is one short sentence stating one fact "
        "that the answer gives, in the answer's own words. Each claim must make sense on "
        "its own: replace pronouns (it, he, she, they, this) with the names they stand for, "
        'and complete a short answer ("In 1889.") from the question. The answer may not '
        "answer the question, or only part of it: then the claims say only what the answer "
        "says, never the question's answer from your own knowledge. Do not judge whether "
        "the claims are true. Greetings, thanks, apologies, questions "
        'back to the user, and refusals or abstentions ("I don\'t know", "the documents '
        "don't say\") are not claims: an answer with nothing else gives an empty list.\n"
        + data_rule("question", "answer")
    ),
    user="{question}\n{answer}",
    output_model=ExtractedClaims,
    examples=(
        Example(
            render_extraction(
                "Who designed the Eiffel Tower, and when was it finished?",
                "It was designed by the company of Gustave Eiffel and finished in 1889. "
                "Hope this helps!",
            ),
            ExtractedClaims(
                claims=[
                    "The Eiffel Tower was designed by the company of Gustave Eiffel.",
                    "The Eiffel Tower was finished in 1889.",
                ]
            ),
        ),
        # Small models answer the question from their own knowledge when the answer
        # does not: the claims here stay with what the answer says.
        Example(
            render_extraction(
                "How tall is the Eiffel Tower?",
                "Wrought iron was a new building material in the 1880s. Paris hosted the "
                "World's Fair in 1889.",
            ),
            ExtractedClaims(
                claims=[
                    "Wrought iron was a new building material in the 1880s.",
                    "Paris hosted the World's Fair in 1889.",
                ]
            ),
        ),
        Example(
            render_extraction(
                "How tall is the Eiffel Tower?", "Sorry, the documents don't say. Anything else?"
            ),
            ExtractedClaims(claims=[]),
        ),
    ),
    max_tokens=768,
    logprobs=False,  # a list of claims: no probability is read from it
)

CLAIM_VERIFICATION = PromptTemplate(
    id="claim_verification",
    version=4,
    system=(
        "You check claims against contexts, using only what the contexts say, never your "
        "own knowledge. For each claim, in order, give: `claim`, its number; `evidence`, the "
        "words of the contexts that decide the claim, copied exactly, at most one sentence "
        '("" if nothing does); `reason`, one short sentence; and `verdict`:\n'
        + _VERDICT_LABELS
        + data_rule("context", "claim")
    ),
    user="{contexts}\n{claims}",
    output_model=ClaimJudgements,
    examples=(
        Example(
            render_verification(
                [
                    "The Eiffel Tower is in Paris.",
                    "The Eiffel Tower was finished in 1901.",
                    "The Eiffel Tower is repainted every seven years.",
                ],
                (
                    "The Eiffel Tower is a wrought-iron tower on the Champ de Mars in Paris. "
                    "It was finished in 1889 for the World's Fair.",
                ),
            ),
            ClaimJudgements(
                verdicts=[
                    ClaimJudgement(
                        claim=1,
                        evidence="The Eiffel Tower is a wrought-iron tower on the Champ de "
                        "Mars in Paris.",
                        reason="The context places the tower in Paris.",
                        verdict="supported",
                    ),
                    ClaimJudgement(
                        claim=2,
                        evidence="It was finished in 1889 for the World's Fair.",
                        reason="The context gives 1889, not 1901.",
                        verdict="contradicted",
                    ),
                    ClaimJudgement(
                        claim=3,
                        evidence="",
                        reason="The context says nothing about painting.",
                        verdict="not_enough_info",
                    ),
                ]
            ),
        ),
    ),
    max_tokens=128,
    max_tokens_per_item=160,
)

# A claim asked alone after a batched reply ran to its bound (a small judge copies whole
# passages as evidence): the quote is bounded in words, and the reply in tokens to fit it.
EVIDENCE_WORDS = 25

CLAIM_VERIFICATION_ALONE = PromptTemplate(
    id="claim_verification_alone",
    version=1,
    system=(
        "You check one claim against contexts, using only what the contexts say, never "
        "your own knowledge. Give: `claim`, its number; `evidence`, the few words of the "
        f"contexts that decide the claim, copied exactly: quote at most {EVIDENCE_WORDS} "
        'words, never a whole passage ("" if nothing does); `reason`, one short sentence; '
        "and `verdict`:\n" + _VERDICT_LABELS + data_rule("context", "claim")
    ),
    user="{contexts}\n{claims}",
    output_model=ClaimJudgements,
    examples=(
        Example(
            render_verification(
                ["The Eiffel Tower was built by the company of Gustave Eiffel."],
                (
                    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in "
                    "Paris. It is named after the engineer Gustave Eiffel, whose company "
                    "designed and built the tower from 1887 to 1889 as the entrance arch of "
                    "the World's Fair.",
                ),
            ),
            ClaimJudgements(
                verdicts=[
                    ClaimJudgement(
                        claim=1,
                        evidence="Gustave Eiffel, whose company designed and built the tower",
                        reason="The context says Eiffel's company built it.",
                        verdict="supported",
                    )
                ]
            ),
        ),
        Example(
            render_verification(
                ["The Eiffel Tower was finished in 1901."],
                ("The Eiffel Tower was finished in 1889 for the World's Fair.",),
            ),
            ClaimJudgements(
                verdicts=[
                    ClaimJudgement(
                        claim=1,
                        evidence="finished in 1889",
                        reason="The context gives 1889, not 1901.",
                        verdict="contradicted",
                    )
                ]
            ),
        ),
        Example(
            render_verification(
                ["The Eiffel Tower is repainted every seven years."],
                ("The Eiffel Tower was finished in 1889 for the World's Fair.",),
            ),
            ClaimJudgements(
                verdicts=[
                    ClaimJudgement(
                        claim=1,
                        evidence="",
                        reason="The context says nothing about painting.",
                        verdict="not_enough_info",
                    )
                ]
            ),
        ),
    ),
    # About 35 tokens of quote, 25 of reason and 30 of JSON: room to spare, not to run on.
    max_tokens=160,
)
