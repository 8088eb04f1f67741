"""The files of a run directory, by name."""

MANIFEST = "run.json"
RESULTS = "results.jsonl"
SUMMARY = "summary.json"
REPORT = "report.html"  # written by veracity.report on request
DATABASE = "veracity.sqlite3"
LOCK = ".lock"
# The run's own judge replies when the shared response cache is off, kept until the run
# completes: a run killed at any instant then loses only the calls in flight.
REPLIES = "replies.sqlite3"
# A --batch run's batches (ids, the requests in each, phases), kept until it completes: a
# run killed while waiting polls them again instead of paying twice.
BATCHES = "batches.sqlite3"
