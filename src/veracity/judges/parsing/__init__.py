"""Parse a judge's reply without trusting its shape.

Pure functions, no I/O: find the JSON (strict, fenced, embedded, repaired), fall back
to the legacy text formats, recognise refusals, normalise verdict labels and match
verdicts to claims by text, then by position. The other judge questions (chunk
relevance, generated questions, ratings, G-Eval criteria, classification, rubric scores)
have readers of their own, as tolerant, each returning a :class:`ParsedValue` with every
coercion noted.
"""

from veracity.judges.parsing._text import describe_json
from veracity.judges.parsing.chunks import read_chunks_reply, with_p_relevant
from veracity.judges.parsing.claims import read_claims_reply
from veracity.judges.parsing.classification import (
    read_classification_reply,
    with_label_probabilities,
)
from veracity.judges.parsing.factual import (
    read_factual_reply,
    with_expected_criteria,
)
from veracity.judges.parsing.json_extract import cut_short, extract_json, unwrap_schema_echo
from veracity.judges.parsing.labels import normalise_verdict
from veracity.judges.parsing.matching import FUZZY_THRESHOLD, match_verdicts
from veracity.judges.parsing.outcomes import (
    FailureKind,
    JsonFound,
    JsonMethod,
    ParseFailure,
    RawVerdict,
    VerdictMatch,
)
from veracity.judges.parsing.parsed import ParsedChunks, ParsedValue
from veracity.judges.parsing.questions import read_questions_reply
from veracity.judges.parsing.rating import (
    read_rating_reply,
    with_expected_rating,
)
from veracity.judges.parsing.refusal import detect_refusal
from veracity.judges.parsing.rubric import read_rubric_reply, with_expected_scores
from veracity.judges.parsing.verdicts import read_verdicts_reply, with_p_supported

__all__ = [
    "FUZZY_THRESHOLD",
    "FailureKind",
    "JsonFound",
    "JsonMethod",
    "ParseFailure",
    "ParsedChunks",
    "ParsedValue",
    "RawVerdict",
    "VerdictMatch",
    "cut_short",
    "describe_json",
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
