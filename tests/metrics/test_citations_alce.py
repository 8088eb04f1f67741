"""Citation precision on sentences that several passages support together, as ALCE counts
it: a citation is irrelevant only if it does not support the sentence alone and removing
it does not change the support of the rest. "… Physics in 1903 and Chemistry in 1911
[2, 3]" needs both passages: both citations count."""

from __future__ import annotations

import json

import pytest

from veracity.chat import ScriptedChat
from veracity.judges import LLMJudge
from veracity.metrics import Citations, Models, SampleWork
from veracity.metrics.located import locate
from veracity.types import ClaimVerdict, Sample, Verdict

CONTEXTS = (
    "Marie Curie was a Polish-born physicist and chemist who worked in Paris.",
    "In 1903 Marie Curie shared the Nobel Prize in Physics with Pierre Curie.",
    "In 1911 Marie Curie received the Nobel Prize in Chemistry for discovering radium.",
    "Pierre Curie taught physics in Paris and studied crystals.",
)
BOTH = "Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911"
# A judge quoting the first passage only, as a small one does.
QUOTE = "In 1903 Marie Curie shared the Nobel Prize in Physics"


async def _scores(answer: str, claims: list[str], quotes: list[str]) -> dict[str, object]:
    verdicts = [
        {"claim": n, "verdict": "supported", "reason": "r", "evidence": quote}
        for n, quote in enumerate(quotes, 1)
    ]
    chat = ScriptedChat([json.dumps({"claims": claims}), json.dumps({"verdicts": verdicts})])
    sample = Sample(id="s", question="What did Marie Curie win?", answer=answer, contexts=CONTEXTS)
    metrics = {m.name: m for m in (Citations("precision"), Citations("recall"))}
    work = SampleWork(sample, Models(LLMJudge(chat)), 0, metrics)
    precision = await metrics["citation_precision"].score(work)
    recall = await metrics["citation_recall"].score(work)
    return {"precision": precision.score, "recall": recall.score, "details": precision.details}


async def test_a_sentence_two_passages_support_together_credits_both() -> None:
    found = await _scores(f"{BOTH} [2, 3].", [f"{BOTH}."], [QUOTE])
    assert found["precision"] == 1.0 and found["recall"] == 1.0
    (claim,) = found["details"]["claims"]  # type: ignore[index]
    assert claim["supported_by"] == [2, 3] and claim["located_by"] == "together"
    assert claim["attribution"] == "cited"


async def test_a_citation_neither_needed_nor_enough_is_irrelevant() -> None:
    # Passage 4 names Pierre and physics: it adds nothing the other two do not hold.
    found = await _scores(f"{BOTH} [2, 3, 4].", [f"{BOTH}."], [QUOTE])
    assert found["precision"] == pytest.approx(2 / 3)
    assert found["recall"] == 1.0


async def test_one_of_two_needed_passages_cited_supports_nothing() -> None:
    # Passage 2 alone does not hold the sentence, and nothing cited holds the rest.
    found = await _scores(f"{BOTH} [2].", [f"{BOTH}."], [QUOTE])
    assert found["precision"] == 0.0 and found["recall"] == 0.0
    (claim,) = found["details"]["claims"]  # type: ignore[index]
    assert claim["attribution"] == "misattributed" and claim["supported_by"] == [2, 3]


async def test_claims_each_held_by_one_passage_credit_each_citation() -> None:
    claims = [
        "Marie Curie won the Nobel Prize in Physics in 1903.",
        "Marie Curie won the Nobel Prize in Chemistry in 1911.",
    ]
    quotes = [QUOTE, "In 1911 Marie Curie received the Nobel Prize in Chemistry"]
    found = await _scores(f"{BOTH} [2, 3].", claims, quotes)
    assert found["precision"] == 1.0 and found["recall"] == 1.0


async def test_a_passage_that_holds_the_sentence_alone_makes_another_irrelevant() -> None:
    whole = "In 1903 Marie Curie shared the Nobel Prize in Physics with Pierre Curie"
    # Passage 1 shares words with the claim, but passage 2 holds all of it.
    found = await _scores(f"{whole} [1, 2].", [f"{whole}."], [whole])
    assert found["precision"] == pytest.approx(1 / 2)
    assert found["recall"] == 1.0


def test_together_only_where_no_one_passage_holds_enough() -> None:
    supported = ClaimVerdict(claim=f"{BOTH}.", verdict=Verdict.SUPPORTED, evidence=QUOTE)
    assert locate(supported, CONTEXTS) == ((1,), "evidence")  # not asked: as before
    assert locate(supported, CONTEXTS, joint=True) == ((1, 2), "together")
    open_claim = supported.model_copy(update={"verdict": Verdict.NOT_ENOUGH_INFO})
    assert locate(open_claim, CONTEXTS, joint=True)[1] != "together"
    short = ClaimVerdict(claim="Curie won.", verdict=Verdict.SUPPORTED, evidence="")
    assert locate(short, CONTEXTS, joint=True)[1] != "together"  # too few words to join
