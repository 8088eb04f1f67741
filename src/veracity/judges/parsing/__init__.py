"""Parse a judge's reply without trusting its shape.

Pure functions, no I/O: find the JSON (strict, fenced, embedded, repaired), fall back
to the legacy text formats, recognise refusals, normalise verdict labels and match
verdicts to claims by text, then by position.
"""

from veracity.judges.parsing.claims import parse_claims_reply
from veracity.judges.parsing.json_extract import extract_json
from veracity.judges.parsing.labels import normalise_verdict
from veracity.judges.parsing.matching import FUZZY_THRESHOLD, match_verdicts
from veracity.judges.parsing.outcomes import (
    FailureKind,
    JsonFound,
    JsonMethod,
    ParsedClaims,
    ParsedVerdicts,
    ParseFailure,
    RawVerdict,
    VerdictMatch,
)
from veracity.judges.parsing.refusal import detect_refusal
from veracity.judges.parsing.verdicts import parse_verdicts_reply

__all__ = [
    "FUZZY_THRESHOLD",
    "FailureKind",
    "JsonFound",
    "JsonMethod",
    "ParseFailure",
    "ParsedClaims",
    "ParsedVerdicts",
    "RawVerdict",
    "VerdictMatch",
    "detect_refusal",
    "extract_json",
    "match_verdicts",
    "normalise_verdict",
    "parse_claims_reply",
    "parse_verdicts_reply",
]
