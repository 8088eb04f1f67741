"""SystemOne against a real third-party System One server on loopback: sparrow-decider
(its weights ship in its wheel; its answers are near chance, so this tests the wire, not
judging). Skipped only where the package is absent outside CI; in CI it must be there."""

from __future__ import annotations

import importlib.util
import math
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from veracity.decisions import DecisionRequest, Option, Question
from veracity.decisions.systemone import SystemOne

START_TIMEOUT_S = 10.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def sparrow_url() -> Iterator[str]:
    if importlib.util.find_spec("sparrow_decider") is None:
        if os.environ.get("CI"):
            pytest.fail("sparrow-decider is not installed (pip install -e '.[dev]')")
        pytest.skip("sparrow-decider is not installed (pip install -e '.[dev]')")
    port = _free_port()
    command = [sys.executable, "-m", "sparrow_decider.cli", "serve", "--host", "127.0.0.1"]
    process = subprocess.Popen(
        [*command, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    error = process.stderr.read() if process.stderr else b""
                    pytest.fail(f"sparrow-decider serve did not start: {error.decode()[-500:]}")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        if process.poll() is None:
            process.terminate()
        process.communicate(timeout=5)  # and its pipe closed


async def test_systemone_against_sparrow_decider(sparrow_url: str) -> None:
    request = DecisionRequest(
        "Paris is the capital and largest city of France.",
        (
            Question("in_france", "predicate", "Is Paris in France?"),
            Question(
                "claim_0",
                "choice",
                "Is the claim 'Paris is in France' supported by the state?",
                (
                    Option("supported", "the state says so"),
                    Option("contradicted", "the state says otherwise"),
                    Option("not_enough_information", "the state does not say"),
                ),
            ),
            Question(
                "relevance",
                "score",
                "How relevant is the state to a question about Paris?",
                (Option("1", "off topic"), Option("2", "partly"), Option("3", "on point")),
            ),
        ),
    )
    model = SystemOne("sparrow-nano-general-v1.1", base_url=sparrow_url)
    reply = await model.decide(request, iteration=0)
    await model.aclose()
    assert reply.model == "sparrow-nano-general-v1.1"
    assert reply.usage.calls == 1
    for question in request.questions:
        answer = reply.answers[question.name]
        assert answer.refusal is None, answer.refusal
        assert tuple(value for value, _ in answer.probabilities) == question.option_values()
        assert math.fsum(p for _, p in answer.probabilities) == pytest.approx(1.0)
    assert reply.answers["claim_0"].confidence is not None


async def test_sparrow_deciders_validation_details_come_through(
    sparrow_url: str,
) -> None:
    from veracity.transport import CallFailedError

    model = SystemOne("sparrow-nano-general-v1.1", base_url=sparrow_url)
    # One option only: sparrow-decider's 422 says a choice needs at least 2.
    lonely = Question("lonely", "choice", "Which?", (Option("only"),))
    with pytest.raises(CallFailedError, match=r"HTTP 422\): .*at least 2"):
        await model.decide(DecisionRequest("state", (lonely,)), iteration=0)
    await model.aclose()
