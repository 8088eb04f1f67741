"""Issue 30: the command line starts without loading what its commands need. Timing is a
benchmark's job (benchmarks/startup.py); this checks the cause: which modules load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from veracity.testing import FakeLLMServer, synthetic_samples

# Each is heavy to import (numpy, the SDKs, the statistics and the evaluation stack) and
# none is needed to print help.
HEAVY = (
    "numpy",
    "openai",
    "anthropic",
    "httpx",
    "sklearn",
    "scipy",
    # The labelling page's web stack (veracity label).
    "starlette",
    "uvicorn",
    "jinja2",
    "veracity.evaluation",
    "veracity.judges.llm.judge",
    "veracity.report.statistics",
    "veracity.metrics.base",
    "veracity.types",
)


# The local models' stack (seconds to import): a run judged by an LLM, faithfulness only,
# needs none of it (issue 48 item 15: the whole process is timed beside ragas').
LOCAL_MODEL_STACK = ("torch", "sentence_transformers", "transformers", "scipy", "sklearn")


def _loaded_after(
    code: str, modules: tuple[str, ...] = HEAVY, env: dict[str, str] | None = None
) -> list[str]:
    probe = f"import sys\n{code}\nprint('LOADED', *(m for m in {modules!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env
    )
    return done.stdout.splitlines()[-1].split()[1:]


def test_help_loads_none_of_the_heavy_modules() -> None:
    code = (
        "from veracity.cli.app import app\ntry:\n    app(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert _loaded_after(code) == []


def test_a_command_loads_what_it_needs(tmp_path: Path) -> None:
    """The guard above is not vacuous: running a command (``estimate``, which judges
    nothing) does load the metrics and the datasets' readers."""
    data = tmp_path / "data.jsonl"
    data.write_text('{"question": "q?", "answer": "a.", "contexts": ["c."]}\n')
    code = (
        "from veracity.cli.app import app\n"
        "try:\n"
        f"    app(['estimate', {str(data)!r}, '--judge', 'offline'])\n"
        "except SystemExit:\n"
        "    pass"
    )
    loaded = _loaded_after(code)
    assert "veracity.metrics.base" in loaded and "veracity.types" in loaded


def test_an_llm_judged_faithfulness_run_loads_no_local_model(tmp_path: Path) -> None:
    data, out = tmp_path / "data.jsonl", tmp_path / "run"
    rows = [
        {"id": s.id, "question": s.question, "answer": s.answer, "contexts": list(s.contexts)}
        for s in synthetic_samples(3, seed=1)
    ]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with FakeLLMServer() as server:
        arguments = [
            "run", str(data), "--metrics", "faithfulness", "--judge", "openai/fake-judge",
            "--base-url", server.base_url, "--no-cache", "--out", str(out),
        ]  # fmt: skip
        code = (
            "from veracity.cli.app import app\n"
            "try:\n"
            f"    app({arguments!r})\n"
            "except SystemExit as end:\n"
            "    assert not end.code, end.code"
        )
        env = {**os.environ, "OPENAI_API_KEY": "test"}
        loaded = _loaded_after(code, (*LOCAL_MODEL_STACK, "openai", "httpx"), env)
        assert server.stats.completions == 6  # the run did judge: 2 calls a sample
    # httpx only where the SDK is built on it (openai 3 is on httpx2: 40 ms saved).
    assert loaded == (["openai", "httpx"] if "httpx" in _sdk_libraries() else ["openai"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metrics"]["faithfulness"]["overall"]["n"] == 3


def _sdk_libraries() -> set[str]:
    import openai

    return {base.__module__.partition(".")[0] for base in openai.DefaultAsyncHttpxClient.__mro__}


def test_every_commands_help_prints() -> None:
    """Deferred imports must not break a command's own --help (its options' defaults and
    help texts are read when it is built)."""
    from typer.testing import CliRunner

    from veracity.cli import app

    commands = ["run", "estimate", "report", "compare", "agree", "calibrate", "demo", "export"]
    for name in [*commands, "testset generate", "testset from-logs", "cache info", "cache clear"]:
        result = CliRunner().invoke(app, [*name.split(), "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert "--help" in result.output
