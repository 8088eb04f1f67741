"""--sample: a reproducible draw of production, each system its share."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.in_process import veracity
from tests.traces.test_otlp_traces import _request, _write, openinference_trace
from veracity.traces.sampling import drawn
from veracity.types import Sample


def _samples(counts: dict[str, int]) -> list[Sample]:
    return [
        Sample(id=f"{system}-{n}", question="q", answer="a", system=system)
        for system, count in counts.items()
        for n in range(count)
    ]


@pytest.mark.parametrize(("n", "want"), [(10, {"a": 7, "b": 2, "c": 1}), (3, {"a": 2, "b": 1})])
def test_each_system_gets_its_share(n: int, want: dict[str, int]) -> None:
    pool = _samples({"a": 70, "b": 20, "c": 10})
    picked = drawn(pool, n, seed=1)
    assert len(picked) == n
    assert Counter(s.system for s in picked) == want
    assert [pool.index(s) for s in picked] == sorted(pool.index(s) for s in picked)  # in order


def test_the_same_seed_draws_the_same_and_another_does_not() -> None:
    pool = _samples({"a": 50, "b": 50})
    assert drawn(pool, 10, seed=7) == drawn(pool, 10, seed=7)
    assert drawn(pool, 10, seed=7) != drawn(pool, 10, seed=8)
    assert drawn(pool, 500) == pool  # no more than there are


def test_run_from_traces_evaluates_the_sample(tmp_path: Path) -> None:
    requests = [_request(openinference_trace(f"t{n}")) for n in range(6)]
    path = _write(tmp_path / "traces.jsonl", *requests)
    out = tmp_path / "run"
    proc = veracity(
        "run", str(path), "--from", "otlp", "--sample", "2", "--seed", "3", "--judge",
        "offline", "--metrics", "faithfulness", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "evaluating 2 of them (--sample 2, --seed 3)" in proc.stderr
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 2
