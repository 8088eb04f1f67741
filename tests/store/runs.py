"""Runs of ``veracity run`` against the fake LLM server, for store tests: in a subprocess
where a test stops it (:func:`start_run`), in-process otherwise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.in_process import Completed, veracity
from veracity.testing import synthetic_samples

METRICS = "faithfulness,context_recall"


def write_dataset(path: Path, n: int) -> Path:
    rows = [s.model_dump(mode="json") for s in synthetic_samples(n, seed=5)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def run_command(dataset: Path, out: Path, base_url: str, *extra: str) -> list[str]:
    """``run`` of ``dataset`` into ``out`` with the judge at ``base_url``; ``extra`` options
    come last (a second ``--metrics`` wins)."""
    return [
        "run", str(dataset), "--metrics", METRICS, "--judge", "openai/fake",
        "--base-url", base_url, "--out", str(out), *extra,
    ]  # fmt: skip


def run_args(dataset: Path, out: Path, base_url: str, *extra: str) -> list[str]:
    """:func:`run_command` as a process: ``python -m veracity run ...``."""
    return [sys.executable, "-m", "veracity", *run_command(dataset, out, base_url, *extra)]


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


def run(dataset: Path, out: Path, base_url: str, cache: Path, *extra: str) -> Completed:
    """The run :func:`start_run` starts, in-process and to its end."""
    env = {"VERACITY_CACHE": str(cache), "OPENAI_API_KEY": "test"}
    return veracity(*run_command(dataset, out, base_url, *extra), env=env)


def manifest(out: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((out / "run.json").read_text())
    return loaded


def result_lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
