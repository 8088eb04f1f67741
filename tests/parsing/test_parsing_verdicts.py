"""read_verdicts_reply: JSON shapes and synonyms, legacy text formats, failures."""

from __future__ import annotations

import json

import pytest

from veracity.judges.parsing.reader import ParsedValue, ParseFailure
from veracity.judges.parsing.verdicts import RawVerdict, read_verdicts_reply
from veracity.types.results import Verdict

S, C, N = Verdict.SUPPORTED, Verdict.CONTRADICTED, Verdict.NOT_ENOUGH_INFO


def _parsed(text: str) -> ParsedValue[tuple[RawVerdict, ...]]:
    result = read_verdicts_reply(text)
    assert isinstance(result, ParsedValue), result
    return result


def _failure(text: str) -> ParseFailure:
    result = read_verdicts_reply(text)
    assert isinstance(result, ParseFailure), result
    return result


FULL = {
    "verdicts": [
        {"claim": "a", "reason": "r1", "evidence": "e1", "verdict": "supported"},
        {"claim": "b", "reason": "r2", "evidence": "", "verdict": "contradicted"},
    ]
}
FULL_ITEMS = (
    RawVerdict("a", S, "r1", "e1", "supported"),
    RawVerdict("b", C, "r2", "", "contradicted"),
)


@pytest.mark.parametrize(
    ("text", "method"),
    [
        (json.dumps(FULL), "strict"),
        (json.dumps(FULL["verdicts"]), "strict"),
        (f"```json\n{json.dumps(FULL)}\n```", "fenced"),
        (f"```\n{json.dumps(FULL)}\n```", "fenced"),
        (f"Here are my verdicts: {json.dumps(FULL)} Let me know.", "embedded"),
        (json.dumps(FULL)[:-2] + ",]}", "repaired"),
        (json.dumps(FULL).replace('"', "'"), "repaired"),
    ],
)
def test_json_paths(text: str, method: str) -> None:
    result = _parsed(text)
    assert result.value == FULL_ITEMS
    assert result.method == method
    assert result.notes == ()


def test_a_reply_whose_json_breaks_off_is_truncated_not_repaired() -> None:
    """Closing what a cut left open would guess at what is missing: asked again instead."""
    assert _failure(json.dumps(FULL)[:-40]).kind == "truncated"


@pytest.mark.parametrize("key", ["verdicts", "results", "Verdicts"])
def test_container_key_synonyms(key: str) -> None:
    result = _parsed(json.dumps({key: [{"claim": "a", "verdict": "yes"}]}))
    assert result.value == (RawVerdict("a", S, raw_label="yes"),)


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"statement": "a", "label": "Yes"}, RawVerdict("a", S, raw_label="Yes")),
        (
            {"claim": "a", "verdict": "yes", "reasoning": "r", "quote": "q"},
            RawVerdict("a", S, "r", "q", "yes"),
        ),
        (
            {"Claim": " a ", "Verdict": "Not Supported"},
            RawVerdict("a", N, raw_label="Not Supported"),
        ),
        ({"verdict": "yes"}, RawVerdict(None, S, raw_label="yes")),
    ],
)
def test_item_key_synonyms(item: dict[str, object], expected: RawVerdict) -> None:
    assert _parsed(json.dumps({"verdicts": [item]})).value == (expected,)


def test_unknown_labels_are_skipped_with_a_note() -> None:
    text = '{"verdicts": [{"claim": "a", "verdict": "maybe"}, {"claim": "b", "verdict": "yes"}]}'
    result = _parsed(text)
    assert result.value == (RawVerdict("b", S, raw_label="yes"),)
    assert len(result.notes) == 1
    assert "item 1" in result.notes[0]
    assert "'maybe'" in result.notes[0]


def test_items_without_a_verdict_are_skipped_with_a_note() -> None:
    result = _parsed('{"verdicts": [{"claim": "a"}, {"claim": "b", "verdict": "no"}]}')
    assert result.value == (RawVerdict("b", N, raw_label="no"),)
    assert "no 'verdict'" in result.notes[0]


def test_empty_verdicts_is_valid() -> None:
    result = _parsed('{"verdicts": []}')
    assert result.value == ()
    assert result.method == "strict"


# --- legacy text formats ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Final verdict for each statement in order: Yes. No. Yes.",
        "final verdict for each statement in order: yes, no, yes",
        "Final verdicts for each statement in order:  Yes No Yes\n\nThese reflect the context.",
        "**Final verdict for each statement in order:** Yes. No. Yes.",
        "Final verdict for each statement in order: 1. Yes 2. No 3. Yes",
    ],
)
def test_legacy_ragas_final_verdict(text: str) -> None:
    result = _parsed(text)
    assert result.method == "legacy_final_verdict"
    assert [v.verdict for v in result.value] == [S, N, S]
    assert all(v.claim is None for v in result.value)


def test_ragas_statement_blocks_agreeing_with_the_final_line_keep_their_text() -> None:
    text = (
        "statement_1: John is majoring in Biology.\n"
        "Answer: No. Explanation: nothing says so.\n"
        "statement_2: He likes AI.\n"
        "Answer: Yes. Explanation: the context says so.\n\n"
        "Final verdict for each statement in order: No. Yes."
    )
    result = _parsed(text)
    assert result.method == "legacy_verdict_lines"
    assert result.value == (
        RawVerdict("John is majoring in Biology.", N, "nothing says so.", "", "No"),
        RawVerdict("He likes AI.", S, "the context says so.", "", "Yes"),
    )


def test_final_line_wins_when_blocks_disagree_with_it() -> None:
    text = "Statement: a\nVerdict: yes\n\nFinal verdict for each statement in order: No. No."
    result = _parsed(text)
    assert result.method == "legacy_final_verdict"
    assert [v.verdict for v in result.value] == [N, N]


@pytest.mark.parametrize(
    "text",
    [
        "statement: Paris is in France. verdict: yes\nstatement: It is big. verdict: no",
        "Claim 1: Paris is in France. | Verdict: Supported\nClaim 2: It is big. | Verdict: No",
        "Statement: Paris is in France.\nVerdict: Yes\n\nStatement: It is big.\nVerdict: No",
        "1. Paris is in France.\n**Verdict:** Yes\n2. It is big.\n**Verdict:** No",
        "Paris is in France.\nVerdict: yes\nIt is big.\nVerdict: no",
    ],
)
def test_legacy_verdict_lines_and_blocks(text: str) -> None:
    result = _parsed(text)
    assert result.method == "legacy_verdict_lines"
    assert [(v.claim, v.verdict) for v in result.value] == [
        ("Paris is in France.", S),
        ("It is big.", N),
    ]


def test_legacy_blocks_keep_reasons_and_evidence() -> None:
    text = (
        "Statement: Paris is in France.\n"
        "Reason: context 1 says so.\n"
        "Evidence: Paris, France\n"
        "Verdict: Yes\n"
        "Statement: It is big.\n"
        "Verdict: contradicted - it is small\n"
    )
    result = _parsed(text)
    assert result.value == (
        RawVerdict("Paris is in France.", S, "context 1 says so.", "Paris, France", "Yes"),
        RawVerdict("It is big.", C, "it is small", "", "contradicted"),
    )


def test_legacy_blocks_skip_unknown_labels_with_a_note() -> None:
    result = _parsed("Statement: a\nVerdict: perhaps\nStatement: b\nVerdict: yes")
    assert result.value == (RawVerdict("b", S, raw_label="yes"),)
    assert "'perhaps'" in result.notes[0]


def test_legacy_line_with_a_citation_is_not_read_as_json() -> None:
    result = _parsed("Statement 1: Paris is in France [1]. Verdict: Yes")
    assert result.method == "legacy_verdict_lines"
    assert result.value == (RawVerdict("Paris is in France [1].", S, raw_label="Yes"),)


@pytest.mark.parametrize(
    "text",
    [
        "1. Supported\n2: No\n3) contradicted - reason text",
        "Verdicts:\n1) supported\n2) not enough info\n3. Contradicted - reason text",
        "Claim 1: Yes\nClaim 2: false\nClaim 3: Refuted (reason text)",
    ],
)
def test_legacy_numbered_label_lines(text: str) -> None:
    result = _parsed(text)
    assert result.method in ("legacy_numbered", "legacy_verdict_lines")
    assert [v.verdict for v in result.value] == [S, N, C]
    assert result.value[2].reason.startswith("reason text")


def test_numbered_label_lines_method_and_duplicates() -> None:
    result = _parsed("1. Supported\n2. No\n2. Yes\n4. contradicted")
    assert result.method == "legacy_numbered"
    assert [v.verdict for v in result.value] == [S, N, C]
    assert any("second label line numbered 2" in n for n in result.notes)
    assert any("numbered [1, 2, 4]" in n for n in result.notes)


# --- failures --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I cannot verify these claims without more context.",
        "I'm unable to help with that.",
        "I apologize, but I won't do this.",
        "Sorry, something went wrong.",
        "As an AI, I have no access to the documents.",
        "There is insufficient information to evaluate the statements.",
    ],
)
def test_refusal(text: str) -> None:
    failure = _failure(text)
    assert failure.kind == "refusal"
    assert "refused" in failure.message


@pytest.mark.parametrize("text", ["", "hello world", "The answer looks fine to me."])
def test_garbage_is_unparseable(text: str) -> None:
    failure = _failure(text)
    assert failure.kind == "unparseable"
    assert "'verdicts'" in failure.message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('"supported, I think"', "got a JSON string"),
        ("{}", "got an empty JSON object"),
        ("42", "got a JSON number"),
        ("null", "got JSON null"),
        ('{"verdicts": "yes"}', "'verdicts' is a JSON string"),
        ('{"verdicts": [{"claim": "a"}]}', "no usable verdict"),
        ('{"claims": ["a", "b"]}', "got a JSON object with keys 'claims', without 'verdicts'"),
        ('{"error": "context too long"}', "without 'verdicts'"),
    ],
)
def test_wrong_shape_json_is_a_schema_failure(text: str, fragment: str) -> None:
    failure = _failure(text)
    assert failure.kind == "schema"
    assert fragment in failure.message
    assert failure.message.startswith("expected a JSON object with 'verdicts' (an array of objects")
