"""Plain-Python analysis of short texts — sentences, clauses, tokens, numbers, names,
negation — for the judges (offline, LLM, verbatim) and the metrics that locate spans.
Nothing here imports the rest of veracity."""
