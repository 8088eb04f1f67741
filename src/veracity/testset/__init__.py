"""Building test sets: sampled from production query logs, or generated from documents.

- :func:`logs_to_testset` de-duplicates, filters and (reproducibly, optionally
  stratified) samples a query log into veracity's JSONL format.
- :func:`agenerate_testset` / :func:`generate_testset` chunk a folder of text and Markdown
  documents and have an LLM write questions of four types with their reference answers,
  each checked against its chunks by the faithfulness judge.
"""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "DEFAULT_CHUNK_CHARS",
    "DEFAULT_MAX_CHARS",
    "DEFAULT_MAX_ROUNDS",
    "DEFAULT_MIN_SUPPORT",
    "DEFAULT_OVERLAP_CHARS",
    "DEFAULT_PER_CALL",
    "DROP_REASONS",
    "MISSING_STRATUM",
    "QUESTION_TYPES",
    "Chunk",
    "DraftItem",
    "FromLogsReport",
    "GenerateReport",
    "GenerateResult",
    "LogRow",
    "ParsedItems",
    "QuestionType",
    "StratumCount",
    "SupportCheck",
    "TypeCount",
    "agenerate_testset",
    "allocate",
    "check_support",
    "chunk_document",
    "generate_testset",
    "load_chunks",
    "logs_to_testset",
    "markdown_sections",
    "normalise_question",
    "parse_items_reply",
    "question_digest",
    "read_log",
    "sample_record",
    "stratum_of",
    "write_jsonl",
]

if TYPE_CHECKING:
    from veracity.prompts.testset import QUESTION_TYPES, QuestionType
    from veracity.testset.checking import SupportCheck, check_support
    from veracity.testset.chunking import (
        DEFAULT_OVERLAP_CHARS,
        Chunk,
        chunk_document,
        load_chunks,
        markdown_sections,
    )
    from veracity.testset.defaults import (
        DEFAULT_CHUNK_CHARS,
        DEFAULT_MAX_CHARS,
        DEFAULT_MIN_SUPPORT,
    )
    from veracity.testset.from_logs import (
        MISSING_STRATUM,
        FromLogsReport,
        StratumCount,
        logs_to_testset,
        stratum_of,
    )
    from veracity.testset.generate import (
        DEFAULT_MAX_ROUNDS,
        DEFAULT_PER_CALL,
        DROP_REASONS,
        GenerateReport,
        GenerateResult,
        TypeCount,
        agenerate_testset,
        generate_testset,
    )
    from veracity.testset.keys import normalise_question, question_digest
    from veracity.testset.logs import LogRow, read_log
    from veracity.testset.output import sample_record, write_jsonl
    from veracity.testset.parsing import DraftItem, ParsedItems, parse_items_reply
    from veracity.testset.sampling import allocate
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
