"""The defaults of test-set building, light to import (the command line's help shows them)."""

#: Every claim of a kept reference must be supported: a test set's reference is its ground
#: truth, and one made-up fact in it would mark right answers wrong.
DEFAULT_MIN_SUPPORT = 1.0
DEFAULT_CHUNK_CHARS = 1200
DEFAULT_MAX_CHARS = 20_000
DEFAULT_PER_CALL = 3
