"""Citation recall and precision: markers read in every form, claims attributed to the
passages their verdicts' evidence is in, no call of their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.html.page import parse
from veracity import evaluate
from veracity.chat import ScriptedChat
from veracity.dataset import RowError
from veracity.evaluation.inputs import items_from
from veracity.judges import LLMJudge
from veracity.judges.offline import OfflineJudge
from veracity.metrics import Citations, Faithfulness, Metric, Models, SampleWork
from veracity.metrics.cited_spans import cited_spans, merged_spans
from veracity.metrics.located import locate
from veracity.types import Citation, ClaimVerdict, MetricResult, Sample, Status, Verdict

CONTEXTS = (
    "The Eiffel Tower was completed in 1889 for the World's Fair.",
    "The Eiffel Tower is 330 metres tall.",
    "Bananas are rich in potassium.",
)
CLAIMS = ["The Eiffel Tower was completed in 1889.", "The Eiffel Tower is 330 metres tall."]


def _sample(answer: str, citations: tuple[Citation, ...] = ()) -> Sample:
    return Sample(
        id="s", question="Tell me about the tower.", answer=answer, contexts=CONTEXTS,
        citations=citations,
    )  # fmt: skip


def _verdicts(*evidence: str) -> str:
    return json.dumps(
        {
            "verdicts": [
                {"claim": n, "verdict": "supported", "reason": "r", "evidence": quote}
                for n, quote in enumerate(evidence, 1)
            ]
        }
    )


async def _score(
    sample: Sample, *metrics: Metric, replies: list[str] | None = None
) -> tuple[list[MetricResult], ScriptedChat]:
    chat = ScriptedChat(
        replies
        or [json.dumps({"claims": CLAIMS}), _verdicts("completed in 1889", "330 metres tall")]
    )
    work = SampleWork(sample, Models(LLMJudge(chat)), 0, {m.name: m for m in metrics})
    return [await metric.score(work) for metric in metrics], chat


@pytest.mark.parametrize(
    ("answer", "cites"),
    [
        ("Completed in 1889 [1]. It is 330 metres tall [2].", [(0,), (1,)]),
        ("Completed in 1889 [1, 2]. It is 330 metres tall [2][3].", [(0, 1), (1, 2)]),
        ("Completed in 1889. [1] It is 330 metres tall.【2】", [(0,), (1,)]),
        ("Completed in 1889 by Eiffel^1. It is 330 metres tall (Source 2).", [(0,), (1,)]),
        ("Completed in 1889 (sources 1 and 2). It is tall.", [(0, 1), ()]),
        ("Completed in 1889[^1]. It is 10^6 times taller than a mouse.", [(0,), ()]),
        ("Completed in 1889. It is tall.", [(), ()]),
    ],
)
def test_inline_markers_in_every_form(answer: str, cites: list[tuple[int, ...]]) -> None:
    spans, notes = cited_spans(_sample(answer))
    assert [span.cites for span in spans] == cites and notes == []
    assert "[" not in spans[0].text and "1889" in spans[0].text


def test_a_citation_of_a_context_that_is_not_there_is_noted() -> None:
    _, notes = cited_spans(_sample("Completed in 1889 [7]."))
    assert notes == ["citation(s) of context(s) 7: there are 3 context(s) (indices from 1)"]
    spans, _ = cited_spans(_sample("Completed in 1889 [0]."), base=0)
    assert spans[0].cites == (0,)


async def test_a_claim_cited_to_the_wrong_passage_is_misattributed() -> None:
    sample = _sample("The tower was completed in 1889 [1]. It is 330 metres tall [1].")
    (recall, precision), _ = await _score(sample, Citations(), Citations("precision"))
    assert recall.score == pytest.approx(0.5) and precision.score == pytest.approx(0.5)
    assert recall.details["misattributed"] == [CLAIMS[1]]
    shown = recall.details["claims"][1]
    assert (shown["cites"], shown["supported_by"], shown["attribution"]) == (
        [1],
        [2],
        "misattributed",
    )
    assert "1 supported claim(s) cite another passage" in recall.reason


async def test_citations_reuse_faithfulness_claims_and_verdicts_no_call_of_their_own() -> None:
    sample = _sample("The tower was completed in 1889 [1]. It is 330 metres tall [2].")
    (faith, recall, precision), chat = await _score(
        sample, Faithfulness(), Citations(), Citations("precision")
    )
    assert len(chat.calls) == 2  # extraction and verification, once for all three
    assert (faith.score, recall.score, precision.score) == (1.0, 1.0, 1.0)
    assert recall.details["misattributed"] == []


async def test_a_cited_sentence_no_claim_was_drawn_from_is_judged_in_its_own_words() -> None:
    # The judge drew one claim from the first sentence and none from the second; the
    # second is verified in the same call, as a claim in its own words.
    sample = _sample("The tower was completed in 1889 [1]. It is 330 metres tall [2].")
    replies = [json.dumps({"claims": CLAIMS[:1]}), _verdicts("completed in 1889", "330 metres")]
    (faith, recall, precision), chat = await _score(
        sample, Faithfulness(), Citations(), Citations("precision"), replies=replies
    )
    assert len(chat.calls) == 2
    verification = chat.calls[1].messages[-1].content.split("<claims>")[1]
    assert CLAIMS[0] in verification and "It is 330 metres tall." in verification
    assert (recall.score, precision.score) == (1.0, 1.0)
    shown = recall.details["claims"][1]
    assert (shown["claim"], shown["cites"], shown["supported_by"]) == (
        "It is 330 metres tall.", [2], [2],
    )  # fmt: skip
    assert shown["from"].startswith("the cited sentence")
    # Faithfulness keeps the judge's own claims.
    assert [c["claim"] for c in faith.details["claims"]] == CLAIMS[:1]


async def test_dropping_the_citation_of_a_sentence_without_a_claim_lowers_recall() -> None:
    merged = "The Eiffel Tower was completed in 1889 and is 330 metres tall."
    replies = [
        json.dumps({"claims": [merged]}),
        _verdicts("completed in 1889", "completed in 1889", "330 metres"),
    ]
    cited, _ = await _score(
        _sample("The tower was completed in 1889 [1]. It is 330 metres tall [2]."),
        Citations(), replies=list(replies),
    )  # fmt: skip
    dropped, _ = await _score(
        _sample("The tower was completed in 1889 [1]. It is 330 metres tall."),
        Citations(), replies=list(replies),
    )  # fmt: skip
    assert len(cited[0].details["claims"]) == 2
    assert dropped[0].score is not None and cited[0].score is not None
    assert dropped[0].score < cited[0].score


@pytest.mark.parametrize(
    ("answer", "recall", "precision"),
    [
        ("The tower was completed in 1889 [1]. It is 330 metres tall [2].", 1.0, 1.0),
        ("The tower was completed in 1889 [2]. It is 330 metres tall [1].", 0.0, 0.0),
    ],
    ids=["as cited", "citations swapped"],
)
async def test_a_claim_merging_two_cited_sentences_is_left_to_each_sentence(
    answer: str, recall: float, precision: float
) -> None:
    """A claim restating both sentences would stand under the first one's citations alone,
    so swapping the citations would not move it: each sentence is judged on its own."""
    merged = "The Eiffel Tower was completed in 1889 and is 330 metres tall."
    replies = [
        json.dumps({"claims": [merged]}),
        _verdicts("The Eiffel Tower is 330 metres tall.", "completed in 1889", "330 metres tall"),
    ]
    results, chat = await _score(
        _sample(answer), Citations("recall"), Citations("precision"), replies=replies
    )
    assert [r.score for r in results] == [recall, precision]
    details = results[0].details
    assert details["merged_claims"] == [merged]
    assert [c["claim"] for c in details["claims"]] == [
        "The tower was completed in 1889.",
        "It is 330 metres tall.",
    ]
    assert [c["supported_by"] for c in details["claims"]] == [[1], [2]]
    asked = chat.calls[1].messages[-1].content.split("<claims>")[1]
    assert merged in asked and "The tower was completed in 1889" in asked


async def test_a_claim_merging_sentences_that_state_nothing_stands_for_itself() -> None:
    # Neither sentence would be judged on its own: the judge's claim is all there is.
    answer = (
        "Sorry, I do not know the answer about the tower [1]. "
        "Thank you so much for asking such great questions [2]."
    )
    merged = (
        "Sorry, I do not know the answer about the tower; "
        "thank you so much for asking such great questions."
    )
    replies = [json.dumps({"claims": [merged]}), _verdicts("The Eiffel Tower is 330 metres tall.")]
    (recall,), _ = await _score(_sample(answer), Citations(), replies=replies)
    assert recall.status is Status.SCORED and recall.score is not None
    assert [c["claim"] for c in recall.details["claims"]] == [merged]
    assert "merged_claims" not in recall.details


@pytest.mark.parametrize(
    ("second", "claim", "merged"),
    [
        ("It is 330 m tall", "The tower, completed in 1889, is 330 m tall.", (0, 1)),
        ("It is 330 m tall", "The Eiffel Tower was completed in 1889.", ()),  # one sentence
        ("It is 330 m tall", "The tower is tall.", ()),  # a few words of each, neither whole
        ("It is tall", "The tower, completed in 1889, is tall.", ()),  # too short to count
    ],
)
def test_a_claim_is_merged_only_when_it_restates_two_sentences_whole(
    second: str, claim: str, merged: tuple[int, ...]
) -> None:
    spans, _ = cited_spans(_sample(f"The tower was completed in 1889 [1]. {second} [2]."), 1)
    assert merged_spans(claim, spans) == merged


async def test_a_sentence_that_states_nothing_is_not_judged_again() -> None:
    sample = _sample("The tower was completed in 1889 [1]. Hope this helps [2]. Thanks!")
    replies = [json.dumps({"claims": CLAIMS[:1]}), _verdicts("completed in 1889")]
    (recall,), chat = await _score(sample, Citations(), replies=replies)
    assert len(recall.details["claims"]) == 1
    assert "Hope this helps" not in chat.calls[1].messages[-1].content.split("<claims>")[1]


async def test_an_answer_citing_nothing_verifies_only_its_claims() -> None:
    sample = _sample("The tower was completed in 1889. It is 330 metres tall.")
    replies = [json.dumps({"claims": CLAIMS[:1]}), _verdicts("completed in 1889")]
    (faith, recall), chat = await _score(sample, Faithfulness(), Citations(), replies=replies)
    assert recall.status is Status.NO_CITATIONS and faith.score == 1.0
    assert "330" not in chat.calls[1].messages[-1].content.split("<claims>")[1]


async def test_an_unsupported_claim_and_a_dangling_citation_count_against() -> None:
    # (A claim of six words or more that a context states word for word would be supported
    # whatever the judge said: this one is shorter.)
    replies = [
        json.dumps({"claims": [CLAIMS[0], "The tower is 330 metres tall."]}),
        json.dumps(
            {
                "verdicts": [
                    {"claim": 1, "verdict": "supported", "reason": "r", "evidence": "in 1889"},
                    {"claim": 2, "verdict": "not_enough_info", "reason": "r", "evidence": ""},
                ]
            }
        ),
    ]
    sample = _sample("The tower was completed in 1889 [1][9]. It is 330 metres tall [2].")
    (recall, precision), _ = await _score(
        sample, Citations(), Citations("precision"), replies=replies
    )
    assert recall.score == pytest.approx(0.5)
    assert precision.score == pytest.approx(1 / 3)  # [1] supports; [9] and [2] do not
    assert recall.details["claims"][1]["attribution"] == "unsupported"
    assert "context(s) 9" in recall.details["notes"][0]


async def test_a_paraphrased_evidence_quote_is_located_by_the_claims_own_words() -> None:
    # A small judge's quotes are often its own words: the first claim's words are in
    # context 1 (not word for word), the second claim is context 2's sentence, word for
    # word: located so, whatever the quote.
    replies = [
        json.dumps(
            {"claims": ["The tower was completed in 1889.", CLAIMS[1], "Bananas grow on the Moon."]}
        ),
        _verdicts("finished in the year 1889", "it measures 330 m", "moon bananas"),
    ]
    sample = _sample(
        "The tower was completed in 1889 [1]. It is 330 metres tall [2]. Bananas grow on the "
        "Moon [3]."
    )
    (recall,), _ = await _score(sample, Citations(), replies=replies)
    shown = recall.details["claims"]
    assert [(c["supported_by"], c["attribution"]) for c in shown] == [
        ([1], "cited"),
        ([2], "cited"),
        ([], "unsupported"),  # "supported", but in words no context holds enough of
    ]
    assert [c.get("located_by") for c in shown] == ["claim words", "word for word", None]
    assert recall.score == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("claim", "answer"),
    [
        ("The Eiffel Tower is 330 metres tall.", "The Eiffel Tower is 330 metres tall [1][2]."),
        # Part of a sentence of context 2, six words or more, in order: as good as a whole.
        ("The Eiffel Tower is 330 metres", "The Eiffel Tower is 330 metres tall [1][2]."),
    ],
)
async def test_the_context_holding_the_claim_word_for_word_is_its_support_whatever_the_quote(
    claim: str, answer: str
) -> None:
    # The judge quoted context 1 (the tower's completion) for a claim context 2 holds word
    # for word: context 2 is where its support is, and the citation of context 1 supports
    # nothing.
    replies = [json.dumps({"claims": [claim]}), _verdicts("The Eiffel Tower was completed in 1889")]
    (recall, precision), _ = await _score(
        _sample(answer), Citations(), Citations("precision"), replies=replies
    )
    (shown,) = recall.details["claims"]
    assert (shown["supported_by"], shown["located_by"]) == ([2], "word for word")
    assert recall.score == 1.0 and precision.score == pytest.approx(0.5)


def test_every_context_holding_the_claim_word_for_word_holds_its_support() -> None:
    claim = "The Eiffel Tower is 330 metres tall."
    verdict = ClaimVerdict(claim=claim, verdict=Verdict.SUPPORTED, evidence="completed in 1889")
    texts = [CONTEXTS[0], f"As everyone knows, {claim.lower()}", "Bananas.", claim]
    assert locate(verdict, texts) == ((1, 3), "word for word")
    # The quote where the claim is: located by the quote, as before.
    quoted = verdict.model_copy(update={"evidence": "330 metres tall"})
    assert locate(quoted, [CONTEXTS[0], claim]) == ((1,), "evidence")
    # Not supported: not located by its words.
    unsure = verdict.model_copy(update={"verdict": Verdict.NOT_ENOUGH_INFO, "evidence": ""})
    assert locate(unsure, texts) == ((), None)


async def test_a_claim_whose_words_every_passage_holds_is_located_by_its_sentences() -> None:
    # "Watson Assistant is a service": its words are in both passages, its sentence's in
    # the first only; the added citation of the second supports nothing.
    contexts = (
        "The Watson Assistant service combines machine learning and dialog tools.",
        "Use the Watson Assistant service to build a branded assistant for any channel.",
    )
    replies = [
        json.dumps({"claims": ["Watson Assistant is a service."]}),
        _verdicts("Watson Assistant is offered as a service"),  # a quote no passage holds
    ]
    sample = Sample(
        id="s", question="What is Watson Assistant?", contexts=contexts,
        answer="The Watson Assistant service combines machine learning and dialog tools [1][2].",
    )  # fmt: skip
    (recall, precision), _ = await _score(
        sample, Citations(), Citations("precision"), replies=replies
    )
    (shown,) = precision.details["claims"]
    assert (shown["supported_by"], shown["located_by"]) == ([1], "claim words")
    assert precision.score == pytest.approx(0.5) and recall.score == 1.0


def test_claim_words_tied_in_the_sentence_too_keep_every_passage() -> None:
    verdict = ClaimVerdict(
        claim="Watson Assistant is a service.", verdict=Verdict.SUPPORTED, evidence="nowhere"
    )
    texts = ["Watson Assistant is a service.", "x", "The Watson Assistant service."]
    assert locate(verdict, texts) == ((0, 2), "claim words")
    assert locate(verdict, texts, "Watson Assistant is a service.") == ((0, 2), "claim words")
    assert locate(verdict, texts, "Not one word in common") == ((0, 2), "claim words")
    assert locate(verdict, texts, "") == ((0, 2), "claim words")


async def test_an_answer_citing_nothing_is_no_citations_unscored_and_calls_nothing() -> None:
    (result,), chat = await _score(_sample("The tower was completed in 1889."), Citations())
    assert (result.status, result.score) == (Status.NO_CITATIONS, None)
    assert chat.calls == []


async def test_no_contexts_scores_zero() -> None:
    sample = Sample(id="s", question="q", answer="Completed in 1889 [1].")
    (result,), _ = await _score(sample, Citations())
    assert (result.status, result.score) == (Status.NO_CONTEXTS, 0.0)


async def test_a_structured_citations_field_with_0_based_indices() -> None:
    sample = _sample(
        "The tower was completed in 1889. It is 330 metres tall.",
        citations=(
            Citation(text="completed in 1889", contexts=(0,)),
            Citation(text="330 metres tall", contexts=(1,)),
        ),
    )
    (recall,), _ = await _score(sample, Citations(index_base=0))
    assert recall.score == 1.0 and recall.details["claims"][1]["cites"] == [1]


async def test_the_offline_judge_attributes_by_its_evidence_sentence() -> None:
    sample = _sample(
        "The Eiffel Tower was completed in 1889 [1]. The Eiffel Tower is 330 metres tall [1]."
    )
    judge = OfflineJudge()
    try:
        metrics = (Citations(), Citations("precision"))
        work = SampleWork(sample, Models(judge), 0, {m.name: m for m in metrics})
        recall, precision = [await m.score(work) for m in metrics]
    finally:
        await judge.aclose()
    assert [c["supported_by"] for c in recall.details["claims"]] == [[1], [2]]
    assert recall.details["misattributed"] == [recall.details["claims"][1]["claim"]]
    assert (recall.score, precision.score) == (0.5, 0.5)


@pytest.mark.parametrize(
    ("citations", "message"),
    [
        ("x", "field 'citations' must be a list of {text, contexts: [indices]} objects"),
        ([{"text": "a"}], "item 1 needs a text and its contexts"),
        ([{"text": "a", "contexts": ["one"]}], "item 1 contexts must be context indices"),
        ([{"text": "a", "contexts": [True]}], "not a boolean"),
        ([3], "item 1 is a number"),
    ],
)  # fmt: skip
def test_a_bad_citations_field_is_a_bad_row(citations: object, message: str) -> None:
    row = {"question": "q", "answer": "a", "contexts": ["c"], "citations": citations}
    (found,) = items_from([row])[0]
    assert isinstance(found, RowError) and message in str(found)


def test_citations_load_from_a_file_as_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    row = {"question": "q", "answer": "a b.", "contexts": ["c"], "citations": {"a b": [1]}}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    result = evaluate(str(path), ["citation_recall"], OfflineJudge())
    (record,) = result.results
    assert record.status in (Status.SCORED, Status.NO_CLAIMS)
    assert result.summary["metrics"]["citation_recall"]["overall"]["n"] == 1


def test_the_report_names_the_misattributed_claims(tmp_path: Path) -> None:
    chat = ScriptedChat(
        [json.dumps({"claims": CLAIMS}), _verdicts("completed in 1889", "330 metres tall")]
    )
    sample = {
        "id": "s",
        "question": "Tell me about the tower.",
        "answer": "The tower was completed in 1889 [1]. It is 330 metres tall [1].",
        "contexts": list(CONTEXTS),
    }
    result = evaluate([sample], ["citation_recall"], LLMJudge(chat), out=tmp_path / "run")
    (worst,) = result.summary["analysis"]["worst"]["citation_recall"]
    assert [(c["claim"], c["verdict"]) for c in worst["failing_claims"]] == [
        (CLAIMS[1], "misattributed")
    ]
    from veracity.report.html import write_report

    shown = parse(write_report(tmp_path / "run").read_text(encoding="utf-8")).text
    assert "misattributed" in shown and CLAIMS[1] in shown


def test_the_shipped_example_runs_offline_with_every_outcome() -> None:
    from importlib import resources

    path = resources.files("veracity.examples").joinpath("rag_citations.jsonl")
    result = evaluate(str(path), ["citation_recall", "citation_precision"], OfflineJudge())
    by_id = {(r.sample_id, r.metric): r for r in result.results}
    assert by_id["right", "citation_recall"].score == 1.0
    assert by_id["swapped", "citation_precision"].score == 0.0
    assert by_id["none", "citation_recall"].status is Status.NO_CITATIONS
    assert by_id["structured", "citation_recall"].score == 1.0


@pytest.mark.parametrize(
    "answer",
    [
        "[" + "1, " * 50_000,  # a marker that never closes
        "(source " + "1 and " * 50_000,
        "word [1] " * 20_000,
        "[1" * 50_000,
        "Tower\x00 [1]\x1b[31m built \u202e[2]",  # control characters around markers
    ],
)
def test_hostile_answers_are_read_in_linear_time(answer: str) -> None:
    spans, _ = cited_spans(_sample(answer))
    assert spans  # read, not stuck: each case takes well under a second
