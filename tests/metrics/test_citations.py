"""Citation recall and precision: markers read in every form, claims attributed to the
passages their verdicts' evidence is in, no call of their own."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from veracity import evaluate
from veracity.chat import ScriptedCall, ScriptedChat
from veracity.chat.scripted import ScriptItem
from veracity.dataset import RowError
from veracity.evaluation.inputs import items_from
from veracity.judges import LLMJudge
from veracity.judges.offline import OfflineJudge
from veracity.metrics import Citations, Faithfulness, Metric, Models, SampleWork
from veracity.metrics.cited_spans import cited_spans
from veracity.transport import CallFailedError
from veracity.types import Citation, MetricResult, Sample, Status

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


def _verdicts(*evidence: str, verdict: str = "supported") -> str:
    return json.dumps(
        {
            "verdicts": [
                {"claim": n, "verdict": verdict, "reason": "r", "evidence": quote}
                for n, quote in enumerate(evidence, 1)
            ]
        }
    )


def _contexts_shown(call: ScriptedCall) -> str:
    return call.prompt.split("<claims>")[0]


async def _score(
    sample: Sample, *metrics: Metric, replies: Sequence[ScriptItem] | None = None
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
    assert "asked" not in shown  # the judge's evidence settles it: no call of their own


def _not_enough_for_the_second(reply_to_check: ScriptItem) -> list[ScriptItem]:
    return [
        json.dumps({"claims": CLAIMS}),
        json.dumps(
            {
                "verdicts": [
                    {"claim": 1, "verdict": "supported", "reason": "r", "evidence": "in 1889"},
                    {"claim": 2, "verdict": "not_enough_info", "reason": "r", "evidence": ""},
                ]
            }
        ),
        reply_to_check,
    ]


async def test_a_claim_left_open_is_asked_about_against_its_cited_passage_alone() -> None:
    # A small judge reading three passages at once found not enough for a sentence its
    # cited passage holds; asked about that passage alone, it finds it.
    sample = _sample("The tower was completed in 1889 [1]. It is 330 metres tall [2].")
    replies = _not_enough_for_the_second(_verdicts("330 metres tall"))
    (faith, recall, precision), chat = await _score(
        sample, Faithfulness(), Citations(), Citations("precision"), replies=replies
    )
    assert (recall.score, precision.score) == (1.0, 1.0)
    assert faith.score == 0.5  # faithfulness keeps its own verdicts
    (check,) = chat.calls[2:]
    assert _contexts_shown(check).count("<context index=") == 1
    assert CONTEXTS[1] in _contexts_shown(check) and CLAIMS[0] not in check.prompt
    shown = recall.details["claims"][1]
    assert (shown["verdict"], shown["supported_by"], shown["asked"]) == (
        "supported", [2], {"2": "supported"},
    )  # fmt: skip
    assert "1 claim(s) judged against their cited passage alone" in recall.reason
    # Each call charged once: faithfulness' two, the check to the first that asked.
    assert (faith.usage.calls, recall.usage.calls, precision.usage.calls) == (2, 1, 0)


async def test_a_cited_passage_that_lacks_the_claims_number_does_not_support_it() -> None:
    sample = _sample("The tower was completed in 1889 [1]. It is 330 metres tall [3].")
    (recall,), _ = await _score(
        sample, Citations(), replies=_not_enough_for_the_second(_verdicts("bananas"))
    )
    shown = recall.details["claims"][1]
    assert (shown["attribution"], shown["asked"]) == ("unsupported", {"3": "supported"})
    assert recall.score == 0.5


async def test_a_failed_check_keeps_the_verdicts_and_says_so() -> None:
    sample = _sample("The tower was completed in 1889 [1]. It is 330 metres tall [2].")
    failed = CallFailedError("HTTP 500 from the endpoint")
    (recall,), _ = await _score(sample, Citations(), replies=_not_enough_for_the_second(failed))
    assert recall.status is Status.SCORED and recall.score == 0.5
    assert "asked" not in recall.details["claims"][1]
    (note,) = recall.details["notes"]
    assert note.startswith("passage [2] could not be asked alone") and "HTTP 500" in note


async def test_a_contradicted_claim_is_not_asked_again() -> None:
    sample = _sample("The tower was completed in 1889 [1]. It is 330 metres tall [2].")
    replies = [
        json.dumps({"claims": CLAIMS}),
        json.dumps(
            {
                "verdicts": [
                    {"claim": 1, "verdict": "supported", "reason": "r", "evidence": "in 1889"},
                    {"claim": 2, "verdict": "contradicted", "reason": "r", "evidence": "330"},
                ]
            }
        ),
    ]
    (recall,), chat = await _score(sample, Citations(), replies=replies)
    assert len(chat.calls) == 2 and recall.score == 0.5


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
    replies = [json.dumps({"claims": [merged]}), _verdicts("completed in 1889", "330 metres")]
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
    replies = [
        json.dumps({"claims": CLAIMS}),
        json.dumps(
            {
                "verdicts": [
                    {"claim": 1, "verdict": "supported", "reason": "r", "evidence": "in 1889"},
                    {"claim": 2, "verdict": "not_enough_info", "reason": "r", "evidence": ""},
                ]
            }
        ),
        _verdicts("", verdict="not_enough_info"),  # passage [2], asked alone, agrees
    ]
    sample = _sample("The tower was completed in 1889 [1][9]. It is 330 metres tall [2].")
    (recall, precision), chat = await _score(
        sample, Citations(), Citations("precision"), replies=replies
    )
    assert recall.score == pytest.approx(0.5)
    assert precision.score == pytest.approx(1 / 3)  # [1] supports; [9] and [2] do not
    shown = recall.details["claims"][1]
    assert (shown["attribution"], shown["asked"]) == ("unsupported", {"2": "not_enough_info"})
    assert recall.details["notes"] == [
        "citation(s) of context(s) 9: there are 3 context(s) (indices from 1)"
    ]
    assert len(chat.calls) == 3  # the check is asked once for both metrics


async def test_a_paraphrased_evidence_quote_is_located_by_the_claims_own_words() -> None:
    # A small judge's quotes are often its own words: the claim's are in context 2.
    replies = [
        json.dumps({"claims": [*CLAIMS, "Bananas grow on the Moon."]}),
        _verdicts("finished in the year 1889", "it measures 330 m", "moon bananas"),
    ]
    sample = _sample(
        "The tower was completed in 1889 [1]. It is 330 metres tall [2]. Bananas grow on the "
        "Moon [3]."
    )
    # Located by words, not by the judge: each cited passage is asked alone. [1] holds
    # claim 1; [2] says not enough, though claim 2's words are there; [3] says supported,
    # yet "Moon" is nowhere in it.
    replies += [
        _verdicts("completed in 1889"),
        _verdicts("", verdict="not_enough_info"),
        _verdicts("potassium"),
    ]
    (recall,), chat = await _score(sample, Citations(), replies=replies)
    shown = recall.details["claims"]
    assert [(c["supported_by"], c["attribution"]) for c in shown] == [
        ([1], "cited"),
        ([], "unsupported"),
        ([], "unsupported"),
    ]
    assert [c.get("located_by") for c in shown] == [
        "its cited passage, asked alone", "claim words", None,
    ]  # fmt: skip
    assert [c["asked"] for c in shown] == [
        {"1": "supported"}, {"2": "not_enough_info"}, {"3": "supported"},
    ]  # fmt: skip
    assert [_contexts_shown(call).count("<context index=") for call in chat.calls[2:]] == [1, 1, 1]
    assert CONTEXTS[1] in _contexts_shown(chat.calls[3])
    assert recall.score == pytest.approx(1 / 3)


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

    page = write_report(tmp_path / "run").read_text(encoding="utf-8")
    assert "misattributed" in page and CLAIMS[1] in page


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


async def test_a_claim_one_of_whose_passages_failed_to_answer_keeps_its_verdict() -> None:
    # Located by its words in [2] (the quote is the judge's paraphrase), it cites [1][2]:
    # [1] says not enough, [2] fails; [2] may hold it, so it stays as the verdicts left it.
    sample = _sample("The tower was completed in 1889 [1]. It is 330 metres tall [1][2].")
    replies: list[ScriptItem] = [
        json.dumps({"claims": CLAIMS}),
        _verdicts("completed in 1889", "it measures 330 m"),
        _verdicts("", verdict="not_enough_info"),
        CallFailedError("timed out"),
    ]
    (recall,), _ = await _score(sample, Citations(), replies=replies)
    shown = recall.details["claims"][1]
    assert (shown["attribution"], shown["supported_by"], shown["located_by"]) == (
        "cited", [2], "claim words",
    )  # fmt: skip
    assert shown["asked"] == {"1": "not_enough_info"}
    (note,) = recall.details["notes"]
    assert note.startswith("passage [2] could not be asked alone") and "timed out" in note
