"""``agenerate_testset`` against the scripted judge: batching, checking, dropping, caching."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.testset.fakes import (
    MADE_UP,
    GeneratingJudge,
    chunks_in,
    first_sentence,
    request_of,
    write_docs,
)
from veracity.chat import ScriptedChat
from veracity.dataset import read_dataset
from veracity.judges import LLMJudge
from veracity.prompts import QUESTION_TYPES, ChatMessage, OutputSpec
from veracity.testset import agenerate_testset, load_chunks, write_jsonl
from veracity.transport import JudgeFatalError
from veracity.types import Sample


def scripted(fake: GeneratingJudge) -> ScriptedChat:
    return ScriptedChat(responder=fake.scripted)


def generation_prompts(chat: ScriptedChat) -> list[str]:
    return [c.prompt for c in chat.calls if c.output.name == "testset_generation"]


async def test_items_are_checked_and_kept_with_their_type_chunks_and_reference(
    tmp_path: Path,
) -> None:
    docs = write_docs(tmp_path / "docs")
    chunks = {chunk.text for chunk in load_chunks(docs)}
    result = await agenerate_testset(
        docs, LLMJudge(scripted(GeneratingJudge())), count=8, cache=False
    )
    report = result.report
    assert report.documents == 2  # notes.pdf is not read
    assert report.chunks == 3  # lamp.md: one per heading; care.txt: one packed chunk
    assert report.kept == 8
    assert sum(report.dropped.values()) == 0
    assert Counter(s.question_type for s in result.samples) == dict.fromkeys(QUESTION_TYPES, 2)
    for sample in result.samples:
        assert sample.answer == ""
        assert sample.reference
        assert sample.contexts and set(sample.contexts) <= chunks
        assert len(sample.metadata["source_chunks"]) == len(sample.contexts)
        assert sample.metadata["support"] == 1.0
        # The reference really is made of its chunks' sentences.
        assert sample.reference.split(". ")[0].rstrip(".") in " ".join(sample.contexts)
    multi_hop = [s for s in result.samples if s.question_type == "complex_reasoning"]
    assert all(len(s.contexts) == 2 for s in multi_hop)


async def test_an_unsupported_reference_is_dropped_counted_and_made_up_for(
    tmp_path: Path,
) -> None:
    fake = GeneratingJudge(made_up={"fact_retrieval"})
    chat = scripted(fake)
    result = await agenerate_testset(
        write_docs(tmp_path / "docs"), LLMJudge(chat), count=4, cache=False
    )
    report = result.report
    assert report.dropped == Counter({"unsupported": 1})
    assert any("unsupported" in p and "penguins" in p for p in report.problems)
    assert all(MADE_UP not in (s.reference or "") for s in result.samples)
    # A second round asked for the missing fact_retrieval item, and it was kept.
    assert report.rounds == 2
    assert report.kept == 4
    assert report.by_type["fact_retrieval"].kept == 1
    assert report.by_type["fact_retrieval"].generated == 2
    assert report.generated == report.kept + sum(report.dropped.values())


async def test_the_support_threshold_decides(tmp_path: Path) -> None:
    fake = GeneratingJudge(made_up={"fact_retrieval"})
    result = await agenerate_testset(
        write_docs(tmp_path / "docs"),
        LLMJudge(scripted(fake)),
        count=1,
        types=("fact_retrieval",),
        min_support=0.5,
        cache=False,
    )
    # One of the two claims is made up: half supported is enough at 0.5.
    assert result.report.kept == 1
    assert MADE_UP in (result.samples[0].reference or "")
    assert result.samples[0].metadata["support"] == 0.5


async def test_types_are_spread_evenly_and_calls_are_batched(tmp_path: Path) -> None:
    chat = scripted(GeneratingJudge())
    result = await agenerate_testset(
        write_docs(tmp_path / "docs"), LLMJudge(chat), count=10, per_call=3, cache=False
    )
    wanted = {kind: count.wanted for kind, count in result.report.by_type.items()}
    assert wanted == {
        "fact_retrieval": 3,
        "complex_reasoning": 3,
        "contextual_summary": 2,
        "creative_generation": 2,
    }
    prompts = generation_prompts(chat)
    assert len(prompts) == result.report.calls == 4  # one call per type: 3, 3, 2, 2 items
    assert sorted(p.count("Write exactly 3 item") for p in prompts) == [0, 0, 1, 1]
    # The chunks are delimited as untrusted data.
    assert all('<contexts>\n<context index="1">' in p for p in prompts)
    multi = [p for p in prompts if "of type complex_reasoning" in p]
    assert multi and all('<context index="2">' in p for p in multi)


async def test_malformed_and_duplicate_items_are_dropped_and_counted(tmp_path: Path) -> None:
    fake = GeneratingJudge()

    def respond(messages: Sequence[ChatMessage], output: OutputSpec) -> str:
        if output.name != "testset_generation":
            return fake.scripted(messages, output)
        reference = first_sentence(chunks_in(request_of(messages).first_user)[0])
        good = {"question": "What does it say?", "reference": reference, "chunks": [1]}
        items = [
            good,
            {**good, "question": "what does it SAY"},  # the same question
            {"question": "No reference?", "chunks": [1]},
            {"question": "Which chunk?", "reference": reference, "chunks": [9]},
            "not an item",
        ]
        return "Here you are:\n```json\n" + json.dumps({"items": items}) + "\n```"

    result = await agenerate_testset(
        write_docs(tmp_path / "docs"),
        LLMJudge(ScriptedChat(responder=respond)),
        count=2,
        per_call=2,
        types=("fact_retrieval",),
        max_rounds=1,
        cache=False,
    )
    report = result.report
    assert report.generated == 5
    assert report.dropped == Counter({"malformed": 3, "duplicate": 1})
    assert report.kept == 1
    assert report.generated == report.kept + sum(report.dropped.values())
    assert any("no reference answer" in p for p in report.problems)
    assert any("cites chunk 9" in p for p in report.problems)
    assert any("not an object" in p for p in report.problems)
    assert [s.question for s in result.samples] == ["What does it say?"]


async def test_items_beyond_those_asked_for_are_surplus(tmp_path: Path) -> None:
    fake = GeneratingJudge()

    def respond(messages: Sequence[ChatMessage], output: OutputSpec) -> str:
        if output.name != "testset_generation":
            return fake.scripted(messages, output)
        chunk = chunks_in(request_of(messages).first_user)[0]
        items = [
            {"question": f"Question {n}?", "reference": first_sentence(chunk), "chunks": [1]}
            for n in range(3)
        ]
        return json.dumps(items)  # a bare list is read too

    result = await agenerate_testset(
        write_docs(tmp_path / "docs"), LLMJudge(ScriptedChat(responder=respond)), count=1,
        types=("fact_retrieval",), cache=False,
    )  # fmt: skip
    assert result.report.dropped == Counter({"surplus": 2})
    assert [s.question for s in result.samples] == ["Question 0?"]


async def test_a_judge_error_while_checking_is_a_drop_reason(tmp_path: Path) -> None:
    fake = GeneratingJudge()

    def respond(messages: Sequence[ChatMessage], output: OutputSpec) -> str:
        if output.name == "claim_extraction":
            return "I am not able to parse this."
        return fake.scripted(messages, output)

    result = await agenerate_testset(
        write_docs(tmp_path / "docs"),
        LLMJudge(ScriptedChat(responder=respond)),
        count=2,
        types=("fact_retrieval",),
        max_rounds=1,
        cache=False,
    )
    assert result.report.kept == 0
    assert result.report.dropped == Counter({"judge_error": 2})
    assert all("claim extraction" in p for p in result.report.problems)


async def test_an_unusable_generation_reply_is_a_failed_call(tmp_path: Path) -> None:
    chat = ScriptedChat(["no json here", "still no json"])
    result = await agenerate_testset(
        write_docs(tmp_path / "docs"),
        LLMJudge(chat),
        count=1,
        types=("fact_retrieval",),
        max_rounds=1,
        cache=False,
    )
    assert result.report.failed_calls == 1
    assert result.report.kept == 0
    assert len(chat.calls) == 2  # asked once more, with the parse error
    assert "could not be used" in chat.calls[1].prompt


async def test_a_fatal_judge_error_is_raised_as_itself(tmp_path: Path) -> None:
    chat = ScriptedChat([JudgeFatalError("HTTP 401: bad key")])
    with pytest.raises(JudgeFatalError, match="401"):
        await agenerate_testset(
            write_docs(tmp_path / "docs"), LLMJudge(chat), count=1, types=("fact_retrieval",),
            cache=False,
        )  # fmt: skip


async def test_the_seed_chooses_the_chunks_reproducibly(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    for n in range(12):
        (docs / f"part{n:02}.md").parent.mkdir(exist_ok=True)
        (docs / f"part{n:02}.md").write_text(f"# Part {n}\n\nPart {n} has {n} widgets in it.\n")

    async def prompts(seed: int) -> list[str]:
        chat = scripted(GeneratingJudge())
        await agenerate_testset(docs, LLMJudge(chat), count=4, seed=seed, cache=False)
        return generation_prompts(chat)

    first = await prompts(1)
    assert await prompts(1) == first
    assert await prompts(2) != first


async def test_a_second_run_is_answered_from_the_cache(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    cache = tmp_path / "cache.sqlite3"
    chat = scripted(GeneratingJudge())
    first = await agenerate_testset(docs, LLMJudge(chat), count=8, cache=cache)
    made = len(chat.calls)
    assert made == first.report.usage.calls > 0

    again = await agenerate_testset(docs, LLMJudge(chat), count=8, cache=cache)
    assert len(chat.calls) == made  # not one call more
    assert again.report.usage.calls == 0
    # Every reply of the first run, including the few it found in the cache already
    # (the same claims asked about twice).
    assert again.report.usage.cached_calls == made + first.report.usage.cached_calls
    assert [s.model_dump() for s in again.samples] == [s.model_dump() for s in first.samples]

    asked = made + first.report.usage.cached_calls
    uncached = await agenerate_testset(docs, LLMJudge(chat), count=8, cache=False)
    assert uncached.report.usage.calls == asked
    assert len(chat.calls) == made + asked


async def test_the_written_test_set_loads_with_read_dataset(tmp_path: Path) -> None:
    result = await agenerate_testset(
        write_docs(tmp_path / "docs"), LLMJudge(scripted(GeneratingJudge())), count=4,
        cache=False,
    )  # fmt: skip
    out = tmp_path / "testset.jsonl"
    assert write_jsonl(out, result.samples) == 4
    loaded = list(read_dataset(out))
    assert all(isinstance(s, Sample) for s in loaded)
    assert loaded == result.samples


async def test_one_chunk_leaves_out_multi_hop_questions(tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("The Orbit lamp battery lasts 40 hours on low.\n")
    result = await agenerate_testset(
        tmp_path / "one.txt", LLMJudge(scripted(GeneratingJudge())), count=3, cache=False
    )
    assert "complex_reasoning" not in result.report.by_type
    assert any("complex_reasoning" in note for note in result.report.notes)
    assert result.report.kept >= 1


@pytest.mark.parametrize(
    ("options", "message"),
    [({"count": 0}, "count"), ({"count": 1, "min_support": 1.5}, "min_support")],
)
async def test_bad_arguments_are_refused(
    tmp_path: Path, options: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        await agenerate_testset(
            write_docs(tmp_path / "docs"), LLMJudge(ScriptedChat()), cache=False,
            **options,  # type: ignore[arg-type]
        )  # fmt: skip
