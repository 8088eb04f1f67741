"""Read a judge's reply without trusting its shape.

Pure functions, no I/O: find the JSON (strict, fenced, embedded, repaired) and read it with
the prompt's own output model (:mod:`veracity.prompts.reply`), fall back to the legacy text
formats of the claim verdicts, recognise refusals, and match verdicts to claims by text,
then by position. Each result says which reading path produced it and every coercion made.
"""

from veracity.judges.parsing.chunks import ParsedChunks, read_chunks_reply, with_p_relevant
from veracity.judges.parsing.json_extract import (
    JsonFound,
    cut_short,
    extract_json,
    unwrap_schema_echo,
)
from veracity.judges.parsing.matching import FUZZY_THRESHOLD, VerdictMatch, match_verdicts
from veracity.judges.parsing.reader import (
    FailureKind,
    ParsedValue,
    ParseFailure,
    describe_output,
    detect_refusal,
    read_reply,
)
from veracity.judges.parsing.replies import (
    read_claims_reply,
    read_classification_reply,
    read_questions_reply,
    read_rating_reply,
    with_expected_rating,
    with_label_probabilities,
)
from veracity.judges.parsing.scores import (
    read_factual_reply,
    read_rubric_reply,
    with_expected_criteria,
    with_expected_scores,
)
from veracity.judges.parsing.verdicts import RawVerdict, read_verdicts_reply, with_p_supported
from veracity.prompts.reply import describe_json, normalise_verdict

__all__ = [
    "FUZZY_THRESHOLD",
    "FailureKind",
    "JsonFound",
    "ParseFailure",
    "ParsedChunks",
    "ParsedValue",
    "RawVerdict",
    "VerdictMatch",
    "cut_short",
    "describe_json",
    "describe_output",
    "detect_refusal",
    "extract_json",
    "match_verdicts",
    "normalise_verdict",
    "read_chunks_reply",
    "read_claims_reply",
    "read_classification_reply",
    "read_factual_reply",
    "read_questions_reply",
    "read_rating_reply",
    "read_reply",
    "read_rubric_reply",
    "read_verdicts_reply",
    "unwrap_schema_echo",
    "with_expected_criteria",
    "with_expected_rating",
    "with_expected_scores",
    "with_label_probabilities",
    "with_p_relevant",
    "with_p_supported",
]
