"""How long reading a labels file takes: 100,000 rows (three annotators on 33,334 items),
and one pair of items labelled by so many annotators that their pairs pass the
inter-annotator pair limit (the reading must stay linear, not go through every pair).

The time is what ``veracity agree`` and ``calibrate`` spend before any figure; the goals
were the tests' former bounds (20 s, generous for a loaded CI machine), kept here where
wall-clock figures belong, with a stricter goal beside them. The machine's 1-minute load
average is printed before and after.

Run:  python benchmarks/labels_reading.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from veracity.labels import read_labels
from veracity.labels.agreement import PAIR_LIMIT

GOALS_S = {"100,000 rows from a file": 5.0, "two items past the pair limit": 5.0}


def hundred_thousand_rows() -> float:
    lines = [
        json.dumps({"id": f"s{i // 3}", "annotator": f"a{i % 3}", "faithfulness": (i * 7) % 5 < 2})
        for i in range(100_000)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "labels.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        started = time.perf_counter()
        labels = read_labels(path)
        elapsed = time.perf_counter() - started
    assert len(labels.items) == 33_334
    return elapsed


def past_the_pair_limit() -> float:
    annotators = int((2 * PAIR_LIMIT) ** 0.5) + 2
    rows = [
        {"id": sample, "annotator": f"a{i}", "faithfulness": i % 2}
        for i in range(annotators)
        for sample in ("x", "y")
    ]
    started = time.perf_counter()
    labels = read_labels(rows)
    elapsed = time.perf_counter() - started
    assert labels.inter_annotator["faithfulness"].pairs == 0
    return elapsed


def main() -> int:
    print(f"1-minute load average before: {os.getloadavg()[0]:.2f}")
    missed = 0
    for name, measure in (("100,000 rows from a file", hundred_thousand_rows),
                          ("two items past the pair limit", past_the_pair_limit)):  # fmt: skip
        seconds = measure()
        ok = seconds <= GOALS_S[name]
        missed += not ok
        print(json.dumps({"case": name, "seconds": round(seconds, 2)}))
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {seconds:.2f} s <= {GOALS_S[name]} s")
    print(f"1-minute load average after: {os.getloadavg()[0]:.2f}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
