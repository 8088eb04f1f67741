"""The offline judge's verdicts on hand-written cases, with the real embeddings."""

from __future__ import annotations

import dataclasses

import pytest

from tests.embeddings.conftest import no_network
from veracity.embeddings import LocalEmbedder
from veracity.judges.offline import OfflineJudge, verdicts
from veracity.types import ClaimVerdict, Verdict

EIFFEL = (
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. "
    "It was designed by the engineering company of Gustave Eiffel."
)
BELL = "The telephone was patented by Alexander Graham Bell in 1876."
MUSEUM = "The museum is open on Mondays from 9 am to 5 pm."


async def verdict(judge: OfflineJudge, claim: str, *contexts: str) -> ClaimVerdict:
    outcome = await judge.verify_claims([claim], contexts, iteration=0)
    assert outcome.ok and outcome.value is not None, outcome.error
    assert outcome.usage.calls == 0 and not outcome.unsupported
    (found,) = outcome.value
    assert found.claim == claim and found.reason
    return found


async def test_a_supported_paraphrase_is_supported_with_its_evidence(judge: OfflineJudge) -> None:
    found = await verdict(judge, "Gustave Eiffel's company designed the tower.", EIFFEL)
    assert found.verdict is Verdict.SUPPORTED
    assert found.evidence and "Gustave Eiffel" in found.evidence
    assert "P(supported)" in found.reason


async def test_a_changed_number_is_not_supported_and_the_reason_names_it(
    judge: OfflineJudge,
) -> None:
    found = await verdict(judge, "The Eiffel Tower was completed in 1899.", EIFFEL)
    assert found.verdict is not Verdict.SUPPORTED
    assert "1899" in found.reason
    if found.verdict is Verdict.CONTRADICTED:
        assert "says 1889, not 1899" in found.reason
    assert "1889" in found.evidence


async def test_a_changed_name_is_explained_by_the_name_in_its_place(judge: OfflineJudge) -> None:
    found = await verdict(
        judge,
        "The Treaty of Versailles was signed in the Hall of Mirrors at Schönbrunn Palace.",
        "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors at the "
        "Palace of Versailles.",
    )
    assert found.verdict is Verdict.CONTRADICTED
    # Versailles stands where the claim puts Schönbrunn, though the claim names it too;
    # June (beside figures only) comes after it.
    assert "names 'Versailles', 'June'" in found.reason and "'Schönbrunn'" in found.reason


async def test_a_changed_number_contradicts_a_strongly_aligned_sentence(
    judge: OfflineJudge, local_embedder: LocalEmbedder
) -> None:
    strict = OfflineJudge(local_embedder, dataclasses.replace(judge.params, t_align=0.5))
    found = await verdict(strict, "The Eiffel Tower was completed in 1899.", EIFFEL)
    assert found.verdict is Verdict.CONTRADICTED
    assert "says 1889, not 1899" in found.reason


async def test_a_changed_name_is_not_supported(judge: OfflineJudge) -> None:
    found = await verdict(judge, "The telephone was patented by Thomas Edison in 1876.", BELL)
    assert found.verdict is not Verdict.SUPPORTED
    assert "Edison" in found.reason
    same = await verdict(judge, "Alexander Graham Bell patented the telephone in 1876.", BELL)
    assert same.verdict is Verdict.SUPPORTED


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("The museum is not open on Mondays.", MUSEUM),
        ("Bell did not patent the telephone.", BELL),
        ("The Eiffel Tower was not completed in 1889.", EIFFEL),
    ],
)
async def test_a_negation_is_contradicted(judge: OfflineJudge, claim: str, context: str) -> None:
    found = await verdict(judge, claim, context)
    assert found.verdict is Verdict.CONTRADICTED
    assert "disagrees on negation" in found.reason


async def test_a_weakly_aligned_negation_is_still_not_supported(judge: OfflineJudge) -> None:
    # Cosine 0.56 with the best window: below t_align, so not a contradiction, but the
    # negation flip still blocks support whatever P(supported) says.
    found = await verdict(judge, "The Eiffel Tower was never completed.", EIFFEL)
    assert found.verdict is Verdict.NOT_ENOUGH_INFO
    assert "differs from it in negation" in found.reason


async def test_the_contexts_own_words_are_supported_where_they_are(judge: OfflineJudge) -> None:
    # Two sentences copied from forum passages: one negated clause of a longer sentence,
    # one opinion; the best-aligned sentence of the first is not its own.
    shelter = (
        "Your residence may be built to code, but that does not mean it can withstand "
        "winds from extreme events such as tornadoes and major hurricanes. A safe room "
        "can withstand those winds."
    )
    lending = (
        "I've done some lending on Prosper a few years ago and stuck mostly to borrowers "
        "that Prosper rated A or AA, many of whom turned out to be complete deadbeats."
    )
    for claim, contexts, where in (
        ("That does not mean it can withstand winds from extreme events such as tornadoes "
         "and major hurricanes.", (BELL, shelter), shelter),
        (lending, (MUSEUM, lending, EIFFEL), lending),
    ):  # fmt: skip
        found = await verdict(judge, claim, *contexts)
        assert found.verdict is Verdict.SUPPORTED, found.reason
        assert found.evidence and found.evidence in where


async def test_an_unrelated_claim_has_not_enough_information(judge: OfflineJudge) -> None:
    found = await verdict(judge, "Bananas are an excellent source of potassium.", EIFFEL, BELL)
    assert found.verdict is Verdict.NOT_ENOUGH_INFO
    assert "banana" in found.reason.lower()


@pytest.mark.parametrize("contexts", [(), ("",), ("   ", "\n")])
async def test_empty_contexts_give_not_enough_information(
    judge: OfflineJudge, contexts: tuple[str, ...]
) -> None:
    found = await verdict(judge, "The Eiffel Tower is in Paris.", *contexts)
    assert found.verdict is Verdict.NOT_ENOUGH_INFO
    assert found.evidence == ""
    assert "no text" in found.reason


async def test_batched_and_per_claim_verification_agree(judge: OfflineJudge) -> None:
    claims = [
        "The Eiffel Tower was completed in 1889.",
        "It is made of chocolate.",
        "Bell was Dutch.",
    ]
    batched = await judge.verify_claims(claims, [EIFFEL, BELL], iteration=0)
    one_by_one = await judge.verify_claims(claims, [EIFFEL, BELL], iteration=0, batch=False)
    assert batched.value is not None and batched.value == one_by_one.value
    assert [v.claim for v in batched.value] == claims
    assert (await judge.verify_claims([], [EIFFEL], iteration=0)).value == ()


async def test_verification_makes_no_network_call(judge: OfflineJudge) -> None:
    with no_network() as attempts:
        found = await verdict(judge, "Paris hosted the World's Fair in 1889.", EIFFEL)
    assert attempts == []
    assert found.verdict is Verdict.SUPPORTED


async def test_a_swapped_specific_term_is_contradicted_and_p_is_capped(
    judge: OfflineJudge,
) -> None:
    """Issue 15: "liver" where the context says "pancreas" was supported (P 0.56)."""
    context = (
        "Insulin is a hormone produced by beta cells of the pancreatic islets in the pancreas."
    )
    found = await verdict(judge, "Insulin is produced by the liver.", context)
    assert found.verdict is Verdict.CONTRADICTED
    assert "no context mentions 'liver'" in found.reason
    assert found.p_supported is not None
    assert found.p_supported < judge.params.t_support
    right = await verdict(judge, "Insulin is produced by beta cells in the pancreas.", context)
    assert right.verdict is Verdict.SUPPORTED


async def test_a_blocked_claim_never_counts_as_likely_supported(judge: OfflineJudge) -> None:
    """A rule that blocks ``supported`` caps P(supported) below t_support, so the
    faithfulness score (the mean P) agrees with the verdict."""
    for claim in ("The Eiffel Tower was completed in 1899.", "The tower was designed by Edison."):
        found = await verdict(judge, claim, EIFFEL)
        assert found.verdict is not Verdict.SUPPORTED
        assert found.p_supported is not None and found.p_supported < judge.params.t_support


async def test_swapped_roles_are_contradicted_far_below_the_line(judge: OfflineJudge) -> None:
    context = "Tessel Mobile acquired Rovira Bank in 2019 for 2 billion euros."
    found = await verdict(judge, "Rovira Bank acquired Tessel Mobile in 2019.", context)
    assert found.verdict is Verdict.CONTRADICTED
    assert "roles of two participants swapped" in found.reason
    assert found.p_supported is not None and found.p_supported <= 0.1
    right = await verdict(judge, "Tessel Mobile acquired Rovira Bank in 2019.", context)
    assert right.verdict is Verdict.SUPPORTED


async def test_a_strongly_aligned_negation_flip_is_far_below_the_line(
    judge: OfflineJudge,
) -> None:
    context = "Visitors may not bring dogs into the botanical garden's glasshouses."
    found = await verdict(
        judge, "Visitors may bring dogs into the botanical garden's glasshouses.", context
    )
    assert found.verdict is Verdict.CONTRADICTED
    assert found.p_supported is not None and found.p_supported <= 0.1


async def test_a_negation_in_another_clause_is_no_strong_contradiction(
    judge: OfflineJudge,
) -> None:
    # The context's "not" belongs to its second clause; the claim speaks of the first.
    context = "Store the vaccine between 2°C and 8°C in a fridge; do not let it freeze."
    found = await verdict(judge, "The vaccine is stored between 2°C and 8°C in a fridge.", context)
    assert found.p_supported is not None and found.p_supported > 0.1


async def test_a_negation_in_another_clause_is_no_contradiction_at_all(
    judge: OfflineJudge,
) -> None:
    # "do not tumble dry" says nothing of machine washing: no conflict is named, whatever P.
    context = (
        "Care for the Alder rain jacket: machine wash at 30°C on a gentle cycle; do not tumble dry."
    )
    claim = "You can wash the Alder rain jacket in a washing machine at 30°C on a gentle cycle."
    found = await verdict(judge, claim, context)
    assert found.verdict is not Verdict.CONTRADICTED
    assert "negation" not in found.reason


async def test_a_negation_is_read_in_its_scope_where_without_opens_a_phrase(
    judge: OfflineJudge,
) -> None:
    # "without a penalty" negates the penalty, not the repaying: a claim that adds the
    # negation is a precise contradiction (v10: supported), a faithful rewording no
    # contradiction at all (v10: contradicted, by negation).
    context = "The loan can be repaid early at any time without a penalty."
    added = await verdict(judge, "The loan cannot be repaid early.", context)
    assert added.verdict is Verdict.CONTRADICTED and "negation" in added.reason
    assert added.p_supported is not None and added.p_supported <= verdicts.PRECISE_CAP
    faithful = await verdict(judge, "You may repay the loan early.", context)
    assert faithful.verdict is not Verdict.CONTRADICTED and "negation" not in faithful.reason
    # A claim about the penalty meets the negation
    penalised = await verdict(judge, "Repaying the loan early incurs a penalty.", context)
    assert penalised.verdict is not Verdict.SUPPORTED


async def test_a_bound_is_no_negation(judge: OfflineJudge) -> None:
    context = (
        "Submit expense reports no later than 30 days after the expense, with receipts attached."
    )
    found = await verdict(judge, "Expense reports must be submitted within 30 days.", context)
    assert found.verdict is not Verdict.CONTRADICTED
    assert "negation" not in found.reason
    # A real negation beside the bound still counts.
    negated = await verdict(judge, "Expense reports need no receipts.", context)
    assert negated.verdict is not Verdict.SUPPORTED


async def test_another_name_in_the_windows_place_is_contradicted_despite_a_distractor(
    judge: OfflineJudge,
) -> None:
    contexts = (
        "The Halden bridge was designed by Ingrid Solberg and opened in 1997.",
        "Erik Moen designed the town's new library.",
    )
    found = await verdict(judge, "The Halden bridge was designed by Erik Moen.", *contexts)
    assert found.verdict is Verdict.CONTRADICTED
    assert "not 'Erik', 'Moen'" in found.reason
    assert found.p_supported is not None and found.p_supported <= 0.1
    right = await verdict(judge, "The Halden bridge was designed by Ingrid Solberg.", *contexts)
    assert right.verdict is Verdict.SUPPORTED


async def test_a_name_held_by_another_passage_or_spelt_otherwise_is_no_swap(
    judge: OfflineJudge,
) -> None:
    # Two passages together: the claim's city is the other passage's, not a swap.
    contexts = ("Ingrid Solberg designed the Halden bridge.", "Solberg's office is in Bergen.")
    found = await verdict(judge, "Ingrid Solberg, based in Bergen, designed the bridge.", *contexts)
    assert "says the same of another" not in found.reason
    # The same name, spelt otherwise.
    found = await verdict(judge, "Snoop Dog wrote the song.", "Snoop Dogg wrote the song in 2011.")
    assert "says the same of another" not in found.reason


async def test_a_rare_word_that_rewords_its_window_is_no_block(judge: OfflineJudge) -> None:
    """ "absorb" is in no context, yet the window says it as "take up": putting the window's
    words in its place barely moves the embedding, so it is a rewording (issue 50 item 2)."""
    context = (
        "Vitamin D is needed for the body to take up calcium from food, "
        "which keeps bones and teeth strong."
    )
    found = await verdict(judge, "Vitamin D helps the body absorb calcium from food.", context)
    assert found.verdict is Verdict.SUPPORTED
    assert "absorb" not in found.reason
    assert found.p_supported is not None and found.p_supported >= judge.params.t_support


async def test_the_fitted_model_weighs_a_rewording(judge: OfflineJudge) -> None:
    """The rewording is a feature of the fitted model (v8), not only the lifting of a block:
    "absorb" against "take up" has it, a rare word the embedder reads as another thing
    ("liver" where the window has the pancreas's islets) has not, and the feature raises P."""
    take_up = "Vitamin D is needed for the body to take up calcium from food."
    pancreas = "Insulin is produced by beta cells in the islets of the pancreas."
    absorb, liver = await judge.claim_features(
        ["Vitamin D helps the body absorb calcium from food.", "Insulin is made in the liver."],
        [take_up, pancreas],
    )
    assert absorb.value("reworded") == 1.0
    assert liver.value("reworded") == 0.0 and liver.missing_specific
    k = judge.params.features.index("reworded")
    without = (*absorb.values[:k], 0.0, *absorb.values[k + 1 :])
    assert judge.params.probability(absorb.values) > judge.params.probability(without)


async def test_another_thing_in_the_windows_place_is_contradicted(judge: OfflineJudge) -> None:
    """ "mitochondria" is in a context, but the best window has "chloroplasts" where the claim
    has it: the window's word in its place raises the cosine far more than a rewording."""
    contexts = (
        "In plant cells, photosynthesis takes place in the chloroplasts, which contain the "
        "green pigment chlorophyll.",
        "The mitochondria release energy from glucose through cellular respiration.",
    )
    claim = "In plant cells, photosynthesis takes place in the mitochondria."
    found = await verdict(judge, claim, *contexts)
    assert found.verdict is Verdict.CONTRADICTED
    assert "where the claim says 'mitochondria'" in found.reason
    # The claim lacks nothing else of its window: a precise swap, far below the line.
    assert found.p_supported is not None and found.p_supported <= 0.05
    right = await verdict(judge, claim.replace("mitochondria", "chloroplasts"), *contexts)
    assert right.verdict is Verdict.SUPPORTED


async def test_another_number_in_the_claims_slot_is_far_below_the_line(
    judge: OfflineJudge,
) -> None:
    returns = "Items can be returned within 30 days of delivery for a full refund."
    found = await verdict(judge, "You can return items within 60 days of delivery.", returns)
    assert found.verdict is Verdict.CONTRADICTED
    assert "says 30 where the claim says 60" in found.reason
    assert found.p_supported is not None and found.p_supported <= 0.05
    # The claim's number elsewhere in the contexts, beside other words, does not save it.
    dose = (
        "For adults, the maximum dose of paracetamol is 4 grams in 24 hours, taken as "
        "500 mg to 1 g every four to six hours."
    )
    found = await verdict(judge, "Adults may take up to 6 grams of paracetamol in 24 hours.", dose)
    assert found.verdict is Verdict.CONTRADICTED
    assert "says 4 where the claim says 6" in found.reason
    right = await verdict(judge, "Adults may take up to 4 grams of paracetamol in 24 hours.", dose)
    assert right.verdict is Verdict.SUPPORTED


async def test_a_rounded_number_is_no_change(judge: OfflineJudge) -> None:
    context = "The Nile, about 6,650 kilometres long, is the longest river in Africa."
    found = await verdict(judge, "The Nile is about 6,700 kilometres long.", context)
    assert found.p_supported is not None and found.p_supported > 0.05
    assert "where the claim says" not in found.reason


async def test_a_swap_is_precise_only_when_the_claim_says_little_else_and_spells_it_out(
    judge: OfflineJudge,
) -> None:
    """A swap caps P far below the line only when the claim lacks at most two of its
    window's words (the swapped one among them) and its word is no abbreviation."""
    contexts = (
        "In plant cells, photosynthesis takes place in the chloroplasts, which contain the "
        "green pigment chlorophyll.",
        "The mitochondria release energy from glucose through cellular respiration.",
    )
    (found,) = await judge.claim_features(
        ["In plant cells, photosynthesis takes place in the mitochondria."], contexts
    )
    assert verdicts.precisely_substituted(found, judge.params)
    wordy = dataclasses.replace(found, window_lacks=("mitochondria", "sunny", "morning"))
    short = dataclasses.replace(found, substituted=("qb", "quarterback"))
    for loose in (wordy, short):
        assert verdicts.substituted(loose) and not verdicts.precisely_substituted(
            loose, judge.params
        )
        assert verdicts.probability(loose, judge.params) == pytest.approx(
            min(judge.params.probability(loose.values), judge.params.t_support - 0.01)
        )


async def test_a_name_in_another_alphabet_is_one_word(judge: OfflineJudge) -> None:
    """ "Schönbrunn" was read as the name "Sch" and the rare word "nbrunn"."""
    context = "The treaty was signed in the Hall of Mirrors at the Palace of Versailles."
    (found,) = await judge.claim_features(
        ["The treaty was signed in the Hall of Mirrors at Schönbrunn Palace."], [context]
    )
    assert found.missing_names == ("Schönbrunn",)
    assert found.missing_specific == ()
