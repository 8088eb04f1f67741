"""Runs of ``veracity run`` in a subprocess against the fake LLM server, for store tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from veracity.testing import synthetic_samples

METRICS = "faithfulness,context_recall"


def write_dataset(path: Path, n: int) -> Path:
    rows = [s.model_dump(mode="json") for s in synthetic_samples(n, seed=5)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def run_args(dataset: Path, out: Path, base_url: str, *extra: str) -> list[str]:
    """``python -m veracity run`` of ``dataset`` into ``out`` with the judge at ``base_url``;
    ``extra`` options come last (a second ``--metrics`` wins)."""
    return [
        sys.executable, "-m", "veracity", "run", str(dataset), "--metrics", METRICS,
        "--judge", "openai/fake", "--base-url", base_url, "--out", str(out), *extra,
    ]  # fmt: skip


def run_env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    env["VERACITY_CACHE"] = str(cache)
    env["OPENAI_API_KEY"] = "test"
    return env


def start_run(
    dataset: Path, out: Path, base_url: str, cache: Path, *extra: str
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        run_args(dataset, out, base_url, *extra),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=run_env(cache),
    )  # fmt: skip


def finish(proc: subprocess.Popen[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """A run started by :func:`start_run`, waited for, its pipes drained and closed (an
    open pipe leaks, and a full one would stall the run)."""
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def run(
    dataset: Path, out: Path, base_url: str, cache: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        run_args(dataset, out, base_url, *extra),
        capture_output=True, text=True, env=run_env(cache), timeout=120, check=False,
    )  # fmt: skip


def veracity(*args: str) -> subprocess.CompletedProcess[str]:
    """Any other ``veracity`` command."""
    return subprocess.run(
        [sys.executable, "-m", "veracity", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def manifest(out: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((out / "run.json").read_text())
    return loaded


def result_lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
