"""The offline judge's segmenter against pysbd's own: the same sentences on every text of
the development sets (contexts, answers, references, conversation turns), and the CPU
time each takes (issue 50 item 4).

``veracity.text.segmenter`` gives pysbd's English segmenter's output for less work (its
sentences found with ``str.find``; its abbreviation pass skipping what cannot change the
text). Printed: one JSON line per set (texts, texts whose sentences differ, CPU seconds
of each segmenter), then a PASS/FAIL line: no text may differ. Exits 1 when one does.

Run:  python benchmarks/segmenter.py [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from offline_data import DEFAULT_DATA

SETS = ("halueval_qa", "wice_dev", "begin_dev", "truthfulqa_pairs", "summedits_dev", "mtragun_dev")


def texts(row: dict[str, Any]) -> Iterator[str]:
    """Every text of a dev-set row the judge may segment."""
    yield from (c for c in row.get("contexts") or [] if isinstance(c, str))
    for key in ("answer", "reference"):
        if isinstance(row.get(key), str):
            yield row[key]
    for turn in row.get("history") or []:
        if isinstance(turn, dict):
            text = turn.get("content") or turn.get("text")
            if isinstance(text, str):
                yield text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    import pysbd  # type: ignore[import-untyped]

    from veracity.text.segmenter import fast_segmenter

    ours, theirs = fast_segmenter(), pysbd.Segmenter(language="en", clean=False)
    differing = 0
    for name in SETS:
        path = args.data / f"{name}.jsonl"
        if not path.exists():
            continue
        count = differ = 0
        cpu_ours = cpu_theirs = 0.0
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                for text in texts(json.loads(line)):
                    started = time.process_time()
                    mine = ours.segment(text)
                    middle = time.process_time()
                    reference = theirs.segment(text)
                    cpu_ours += middle - started
                    cpu_theirs += time.process_time() - middle
                    count += 1
                    differ += mine != reference
        differing += differ
        print(json.dumps({"set": name, "texts": count, "differing": differ,
                          "cpu_s_veracity": round(cpu_ours, 2),
                          "cpu_s_pysbd": round(cpu_theirs, 2)}), flush=True)  # fmt: skip
    print(f"{'PASS' if differing == 0 else 'FAIL'}  the same sentences as pysbd's: "
          f"{differing} text(s) differ")  # fmt: skip
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
