"""The keys of a run's summary that readers look up by name (light: the command line's
option help and the CI gates read them without loading the statistics)."""

OVERALL = "overall"
# The by_system / by_question_type keys of results that name none (JSON keys cannot be null).
NO_SYSTEM = "(no system)"
NO_TYPE = "(no type)"
# The pass threshold of a metric no threshold was given for.
DEFAULT_THRESHOLD = 0.5
