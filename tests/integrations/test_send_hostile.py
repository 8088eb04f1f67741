"""Issue 48 items 20 and 21: ``veracity send`` to Phoenix, Langfuse and OTLP against
servers that misbehave — a reply without end, a reply dripping in, a redirect to another
host, a reply that takes nothing, an error that echoes the credentials it was sent."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.helpers import phoenix_client_or_skip
from tests.integrations.misbehaving import (
    dripping_reply,
    endless_reply,
    json_reply,
    misbehaving,
    redirect,
)
from tests.integrations.traced_runs import traced_run
from tests.traces.fake_langfuse import PUBLIC, SECRET, FakeLangfuse, serving
from veracity.cli.app import app
from veracity.cli.common import err_console, out_console
from veracity.integrations import sending

pytest.importorskip("langfuse")
phoenix_client_or_skip()
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")

# What each destination answers when it takes the run's two results.
TAKEN: dict[str, dict[str, Any]] = {
    "langfuse": {"accepted": 2, "rejected": 0, "errors": []},
    "phoenix": {"data": [{"id": "a1"}, {"id": "a2"}]},
    "otlp": {"partialSuccess": {}},  # OTLP/HTTP's JSON encoding of a full success
}
NOTHING_TAKEN: dict[str, dict[str, Any]] = {
    "langfuse": {"accepted": 0, "rejected": 0, "errors": []},
    "phoenix": {"data": []},
    "otlp": {"partialSuccess": {"rejectedLogRecords": 2, "errorMessage": "over quota"}},
}
DESTINATIONS = list(TAKEN)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return traced_run(tmp_path_factory.mktemp("traced"))


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setattr(out_console, "_width", 250)
    monkeypatch.setattr(err_console, "_width", 250)
    return CliRunner()


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", PUBLIC)
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", SECRET)


def send(cli: CliRunner, run_dir: Path, to: str, url: str, *more: str) -> tuple[int, str]:
    result = cli.invoke(app, ["send", str(run_dir), "--to", to, "--url", url, *more])
    return result.exit_code, result.output.replace("\n", " ")


@pytest.mark.parametrize("to", DESTINATIONS)
def test_a_reply_without_end_is_refused_at_the_bound(
    run_dir: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch, to: str
) -> None:
    monkeypatch.setattr(sending, "MAX_REPLY_BYTES", 1024 * 1024)
    total = 64 * 1024 * 1024
    prefix = json.dumps(TAKEN[to])[:-1].encode() + b', "padding": '
    with misbehaving(endless_reply(prefix, total)) as server:
        code, said = send(cli, run_dir, to, server.url)
    assert code == 2 and "over the bound of 1,048,576" in said, said
    assert server.written < total / 4  # the rest was never asked for


@pytest.mark.parametrize("to", DESTINATIONS)
def test_a_reply_dripping_in_is_cut_at_the_deadline(run_dir: Path, cli: CliRunner, to: str) -> None:
    # Each byte comes well within any read timeout; the reply as a whole never would.
    with misbehaving(dripping_reply(TAKEN[to], every_s=0.25)) as server:
        code, said = send(cli, run_dir, to, server.url, "--timeout", "1")
    assert code == 2 and "no complete reply within 1 s" in said, said
    assert server.written < len(json.dumps(TAKEN[to]))


@pytest.mark.parametrize("to", DESTINATIONS)
def test_a_redirect_to_another_host_is_not_followed(run_dir: Path, cli: CliRunner, to: str) -> None:
    # 127.0.0.2 is loopback too, and another host for HTTP.
    elsewhere_reply = misbehaving(json_reply(TAKEN[to]), host="127.0.0.2")
    with elsewhere_reply as elsewhere, misbehaving(redirect(lambda: elsewhere.url)) as server:
        code, said = send(cli, run_dir, to, server.url)
    assert code == 2 and f"redirected to {elsewhere.url}" in said and "not followed" in said
    assert len(server.received) == 1 and elsewhere.received == []


@pytest.mark.parametrize("to", DESTINATIONS)
def test_a_redirect_on_the_same_host_is_followed(run_dir: Path, cli: CliRunner, to: str) -> None:
    with (
        misbehaving(json_reply(TAKEN[to])) as moved,
        misbehaving(redirect(lambda: moved.url)) as server,
    ):
        code, said = send(cli, run_dir, to, server.url)
    assert code == 0 and "sent 2" in said, said
    assert len(moved.received) == 1


@pytest.mark.parametrize("to", DESTINATIONS)
def test_a_reply_that_takes_nothing_is_said_not_taken_for_nothing_to_send(
    run_dir: Path, cli: CliRunner, to: str
) -> None:
    with misbehaving(json_reply(NOTHING_TAKEN[to])) as server:
        code, said = send(cli, run_dir, to, server.url)
    assert code == 2 and "nothing to send" not in said
    taken = {
        "langfuse": "took 0 of the 2 score(s) sent",
        "phoenix": "names 0 as taken",
        "otlp": "rejected 2 event(s): over quota",
    }
    assert taken[to] in said, said


def test_a_timeout_that_bounds_nothing_is_refused(run_dir: Path, cli: CliRunner) -> None:
    code, said = send(cli, run_dir, "phoenix", "http://127.0.0.1:9", "--timeout", "0")
    assert code == 2 and "--timeout must be a positive number of seconds" in said


@pytest.fixture
def langfuse(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeLangfuse, str]]:
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", PUBLIC)
    fake = FakeLangfuse([])
    with serving(fake) as url:
        yield fake, url


def test_an_echoed_basic_credential_never_reaches_the_terminal(
    run_dir: Path,
    langfuse: tuple[FakeLangfuse, str],
    cli: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The fake refuses a wrong secret with the Authorization header it was sent, quoted.
    secret = "sk-lf-wrong-secret-0123456789"
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", secret)
    _, url = langfuse
    result = cli.invoke(app, ["send", str(run_dir), "--to", "langfuse", "--url", url])
    said = result.output.replace("\n", "")
    assert result.exit_code == 2 and "401" in said and "Invalid credentials" in said
    for form in (
        secret,
        base64.b64encode(f"{PUBLIC}:{secret}".encode()).decode(),
        base64.b64encode(secret.encode()).decode(),
        base64.b64encode(f"{PUBLIC}:{secret}".encode()).decode()[24:40],
    ):
        assert form not in said
