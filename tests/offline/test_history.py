"""The offline judge and the conversation before a question: a follow-up question ("And
how tall is it?") is read after the latest user turn for chunk relevance, and with it
(at a quarter of its weight) for relevance ratings; any other question is judged as it was. A
constructed example; benchmarks/conversation_relevance.py measures it on MTRAG-UN."""

from __future__ import annotations

from veracity.judges.offline import OfflineJudge
from veracity.metrics import AnswerRelevance, Models, SampleWork
from veracity.types import Sample, Turn

HISTORY = (
    Turn(role="user", content="When was the Eiffel Tower completed?"),
    Turn(role="assistant", content="In 1889, for the World's Fair."),
)
FOLLOW_UP = "And how tall is it?"
CHUNKS = (
    "The Burj Khalifa in Dubai is 828 metres tall.",
    "The Eiffel Tower is 330 metres tall.",
    "Bananas are rich in potassium.",
)
RIGHT, WRONG = "The Eiffel Tower is 330 metres tall.", "The Burj Khalifa is 828 metres tall."


async def test_a_follow_up_finds_its_chunk_with_the_conversation(judge: OfflineJudge) -> None:
    alone = await judge.judge_chunks(FOLLOW_UP, CHUNKS, None, iteration=0)
    read = await judge.judge_chunks(FOLLOW_UP, CHUNKS, None, iteration=0, history=HISTORY)
    assert alone.value is not None and read.value is not None
    # Alone, "how tall is it?" fits any tower: the wrong one ranks first.
    assert alone.value[0].relevance >= alone.value[1].relevance
    # Read after "When was the Eiffel Tower completed?", only the Eiffel Tower's chunk is.
    assert [c.relevant for c in read.value] == [False, True, False]
    assert read.value[1].relevance - read.value[0].relevance >= 20
    assert read.notes == (
        "the question is a follow-up: read after the latest user turn, as "
        f"'{HISTORY[0].content} {FOLLOW_UP}'",
    )


async def test_a_follow_up_is_rated_against_the_conversation(judge: OfflineJudge) -> None:
    alone = [await judge.rate_relevance(FOLLOW_UP, a, iteration=0) for a in (RIGHT, WRONG)]
    read = [
        await judge.rate_relevance(FOLLOW_UP, a, iteration=0, history=HISTORY)
        for a in (RIGHT, WRONG)
    ]
    right, wrong = (o.value.score for o in read if o.value is not None)
    # Alone, the two rate about the same, the wrong one a little higher; with the
    # conversation, the right one is ahead.
    before = [o.value.score for o in alone if o.value is not None]
    assert len(before) == 2 and 0 < before[1] - before[0] < 0.1
    assert right - wrong >= 0.03
    assert "a follow-up, read with the latest user turn" in read[0].value.reason  # type: ignore[union-attr]


async def test_a_question_that_stands_alone_is_judged_as_without_history(
    judge: OfflineJudge,
) -> None:
    question = "How tall is the Eiffel Tower?"
    alone = await judge.judge_chunks(question, CHUNKS, None, iteration=0)
    read = await judge.judge_chunks(question, CHUNKS, None, iteration=0, history=HISTORY)
    assert read.value == alone.value and read.notes == ()
    rated = await judge.rate_relevance(question, RIGHT, iteration=0, history=HISTORY)
    assert rated.value == (await judge.rate_relevance(question, RIGHT, iteration=0)).value


async def test_answer_relevance_offline_reads_the_follow_up(judge: OfflineJudge) -> None:
    sample = Sample(id="s", question=FOLLOW_UP, answer=RIGHT, contexts=CHUNKS, history=HISTORY)
    result = await AnswerRelevance().score(SampleWork(sample, Models(judge), 0))
    assert result.details["method"] == "judge_rating"
    assert "a follow-up, read with the latest user turn" in result.details["judge_reason"]
    assert result.score is not None and result.score > 0.5


async def test_answer_relevance_scores_a_repeated_earlier_turn_0(judge: OfflineJudge) -> None:
    history = (
        *HISTORY,
        Turn(role="user", content=FOLLOW_UP),
        Turn(role="assistant", content=RIGHT + " It was the tallest building until 1930."),
    )
    sample = Sample(
        id="s",
        question="Who designed it?",
        answer=RIGHT + " It was the tallest building until 1930.",
        contexts=CHUNKS,
        history=history,
    )
    result = await AnswerRelevance().score(SampleWork(sample, Models(judge), 0))
    assert result.score == 0.0 and result.usage.calls == 0
    assert result.details == {"method": "repeats_earlier_turn", "turn": 4, "overlap": 1.0}
    assert "repeats the assistant's earlier turn 4" in result.reason
    # The same answer to the question it answered is rated as usual.
    asked_again = sample.model_copy(update={"question": FOLLOW_UP, "history": HISTORY})
    rated = await AnswerRelevance().score(SampleWork(asked_again, Models(judge), 0))
    assert rated.details["method"] == "judge_rating" and rated.score is not None
    assert rated.score > 0.5
