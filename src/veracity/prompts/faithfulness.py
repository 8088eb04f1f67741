"""The two prompts behind faithfulness: claim extraction and claim verification."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from veracity.prompts._rules import data_rule
from veracity.prompts.template import (
    Example,
    PromptTemplate,
    copyable,
    numbered_block,
    untrusted,
)


class ExtractedClaims(BaseModel):
    model_config = ConfigDict(extra="forbid")

    claims: list[str]


class ClaimJudgement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    claim: int
    evidence: str
    reason: str
    verdict: Literal["supported", "contradicted", "not_enough_info"]


class ClaimJudgements(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdicts: list[ClaimJudgement]


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
