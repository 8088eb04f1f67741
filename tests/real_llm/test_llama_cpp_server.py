"""A real model behind a real llama.cpp server: ``veracity run`` with default settings.

The fakes test veracity's plumbing; this tests that it works with what a real server and a
real (tiny) model send back: llama-cpp-python's server rejects the json_schema response
format with an HTTP 500, so the run must negotiate down once, to JSON mode with the schema
beside it (which the server turns into a grammar), and then read SmolLM2-135M-Instruct's
replies. Set up once with
``bash benchmarks/local_llm_server.sh smollm2 --install-only`` (CI does); without it the
test is skipped, except under CI, where it fails.
"""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.in_process import veracity
from tests.real_llm.servers import (
    LLM_VENV,
    SETUP,
    free_port,
    required,
    smollm2_path,
    wait_until_serving,
)
from veracity.types import Status

# A real model on two shared cores: the server's start and each run take their time.
# One worker runs them all under pytest -n: one model server, not one a worker.
pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("llama")]

ROWS = [
    {
        "id": "grounded",
        "question": "Where is the Eiffel Tower?",
        "contexts": ["The Eiffel Tower is a wrought-iron tower on the Champ de Mars in Paris."],
        "answer": "The Eiffel Tower is in Paris.",
    },
    {
        "id": "invented",
        "question": "When was the Eiffel Tower finished?",
        "contexts": ["The Eiffel Tower was finished in 1889 for the World's Fair."],
        "answer": "The Eiffel Tower was finished in 1925 by Napoleon.",
    },
    {
        "id": "abstains",
        "question": "How tall is the Louvre?",
        "contexts": ["The Louvre is the world's most-visited museum."],
        "answer": "I'm sorry, the documents don't say.",
    },
]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    python = LLM_VENV / "bin" / "python"
    model = smollm2_path()
    if model is None:
        required(f"no llama.cpp server with SmolLM2 in {LLM_VENV} (set it up: {SETUP})")
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    # One thread, for prompts too (their default is every core): the suite keeps both
    # cores busy, and llama.cpp's threads spin-wait for each other, which on busy cores
    # cost twice the CPU. --cache keeps the evaluated prompts, so a request whose
    # instructions an earlier one had (though another came between) evaluates only what
    # follows them; the replies are the same, token for token.
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [str(python), "-m", "llama_cpp.server", "--model", str(model), "--host",
             "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "1",
             "--n_threads_batch", "1", "--cache", "true"],
            stdout=sink,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}/v1"
        try:
            wait_until_serving(url, server, log)
            yield url
        finally:
            server.terminate()
            server.wait(timeout=30)


def _run(dataset: Path, out: Path, url: str, metrics: str) -> None:
    """``veracity run`` with default settings but the judge, as a user would type it (in
    this process: the same command, without a second interpreter's start and imports)."""
    proc = veracity("run", str(dataset), "--metrics", metrics, "--judge", "openai/smollm2",
                    "--base-url", url, "--out", str(out), "--concurrency", "2")  # fmt: skip
    assert proc.returncode in (0, 3), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def test_default_settings_negotiate_and_judge_with_a_real_model(
    llama_server: str, tmp_path: Path
) -> None:
    dataset = tmp_path / "data.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    out = tmp_path / "run"
    _run(dataset, out, llama_server, "faithfulness")

    judge = json.loads((out / "run.json").read_text())["judge"]
    # The server refused json_schema (HTTP 500): stepped down once, recorded with the reason.
    assert judge["structured_output"] == "json_object_schema"
    assert any("rejected json_schema" in note for note in judge["negotiation"])

    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {r["sample_id"] for r in results} == {row["id"] for row in ROWS}
    for result in results:
        status = Status(result["status"])
        if result["score"] is None:
            assert status is not Status.SCORED and result["reason"]
        else:
            assert math.isfinite(result["score"]) and 0.0 <= result["score"] <= 1.0
        if status is Status.JUDGE_ERROR:
            assert result["details"]["raw_replies"], "a judge error keeps the replies it read"
    # An answer that only abstains is no_claims before any call (issue 15); the others were
    # read from the real model's replies: an extraction each, at least.
    by_id = {r["sample_id"]: r for r in results}
    assert by_id["abstains"]["status"] == "no_claims" and by_id["abstains"]["score"] == 1.0
    assert by_id["abstains"]["usage"]["calls"] == 0
    assert sum(r["score"] is not None for r in results) >= 2
    summary = json.loads((out / "summary.json").read_text())
    assert summary["usage"]["calls"] >= 2


def test_label_probabilities_come_from_the_real_servers_log_probabilities(
    llama_server: str, tmp_path: Path
) -> None:
    # One row, whose replies SmolLM2 (greedy, one thread: the same tokens every time) writes
    # in the form both metrics read: two calls, where the "invented" row's three more (a
    # retried, still unreadable context_precision reply) proved nothing further.
    rows = [{**ROWS[0], "reference": "Paris"}]
    dataset = tmp_path / "data.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "run"
    _run(dataset, out, llama_server, "context_precision,answer_classification")
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    scored = [r for r in results if r["status"] == "scored"]
    chunks = [
        c for r in scored if r["metric"] == "context_precision" for c in r["details"]["chunks"]
    ]
    weighed = [c["p_relevant"] for c in chunks if "p_relevant" in c]
    # Read from the tokens the model weighed at each written true/false.
    assert weighed and all(0.0 <= p <= 1.0 for p in weighed), chunks
    labels = [
        r["details"]["probabilities"]
        for r in scored
        if r["metric"] == "answer_classification" and "probabilities" in r["details"]
    ]
    assert labels, [r["details"] for r in scored]
    assert all(math.isclose(sum(p.values()), 1.0, abs_tol=1e-6) for p in labels)


def test_citations_and_conversation_support_with_a_real_model(
    llama_server: str, tmp_path: Path
) -> None:
    """Citation recall on a real model's claims and verdicts (no call of its own), an answer
    citing nothing unscored, and a conversation's turns checked for open claims."""
    contexts = [
        "The Eiffel Tower was finished in 1889 for the World's Fair.",
        "The Eiffel Tower is 330 metres tall.",
    ]
    rows = [
        {"id": "cited", "question": "Tell me about the Eiffel Tower.", "contexts": contexts,
         "answer": "The Eiffel Tower was finished in 1889 [2]. It is 330 metres tall [1]."},
        {"id": "uncited", "question": "Tell me about the Eiffel Tower.", "contexts": contexts,
         "answer": "The Eiffel Tower is 330 metres tall."},
        {"id": "talk", "question": "And how tall is it?", "contexts": contexts[1:],
         "history": [{"speaker": "user", "text": "I am in Paris, near the Eiffel Tower."},
                     {"speaker": "agent", "text": "Enjoy the view!"}],
         "answer": "You are in Paris. The Eiffel Tower is 330 metres tall."},
    ]  # fmt: skip
    dataset = tmp_path / "data.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "run"
    _run(dataset, out, llama_server, "faithfulness,citation_recall")
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    by_key = {(r["sample_id"], r["metric"]): r for r in results}
    assert by_key["uncited", "citation_recall"]["status"] == "no_citations"
    cited = by_key["cited", "citation_recall"]
    assert cited["usage"]["calls"] == 0  # faithfulness' claims and verdicts, shared
    if cited["status"] == "scored":
        assert 0.0 <= cited["score"] <= 1.0
        assert {c["attribution"] for c in cited["details"]["claims"]} <= {
            "cited", "misattributed", "unsupported",
        }  # fmt: skip
        assert all("[" not in c["claim"] for c in cited["details"]["claims"])  # markers out
    talk = by_key["talk", "faithfulness"]
    assert talk["status"] in ("scored", "judge_error", "no_claims"), talk["reason"]
    summary = json.loads((out / "summary.json").read_text())
    assert "supported_by_conversation" in summary["metrics"]["faithfulness"]["overall"]
