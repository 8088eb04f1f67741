"""Issue 48 items 20 and 21: ``veracity send`` against servers that misbehave — a reply
without end, a reply dripping in, a redirect to another host, a reply that takes nothing,
an error that echoes the credentials it was sent."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.integrations.traced_runs import traced_run
from tests.traces.fake_langfuse import PUBLIC, FakeLangfuse, serving
from veracity.cli.app import app
from veracity.cli.common import err_console, out_console

pytest.importorskip("langfuse")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return traced_run(tmp_path_factory.mktemp("traced"))


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setattr(out_console, "_width", 250)
    monkeypatch.setattr(err_console, "_width", 250)
    return CliRunner()


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
