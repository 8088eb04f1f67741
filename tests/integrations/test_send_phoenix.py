"""Issue 48 item 13, Phoenix: the offline judge's annotations say their annotator is code,
and sending imports Phoenix's client only, never its server, though the full arize-phoenix
is installed (a process that uses ``phoenix`` later still gets the whole package)."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import phoenix_client_or_skip
from tests.integrations.misbehaving import json_reply, misbehaving
from tests.integrations.traced_runs import traced_run
from veracity.integrations.phoenix import send_to_phoenix

phoenix_client_or_skip()

TAKEN = {"data": [{"id": "a1"}, {"id": "a2"}]}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return traced_run(tmp_path_factory.mktemp("traced"))


def annotations_sent(run: Path) -> list[dict[str, Any]]:
    with misbehaving(json_reply(TAKEN)) as server:
        assert send_to_phoenix(run, server.url) == 2
    ((path, body),) = server.received
    assert path == "/v1/span_annotations?sync=true"
    sent: list[dict[str, Any]] = json.loads(body)["data"]
    return sent


def test_the_offline_judges_annotations_are_by_code(run_dir: Path) -> None:
    sent = annotations_sent(run_dir)
    assert [a["annotator_kind"] for a in sent] == ["CODE", "CODE"]
    assert {a["name"] for a in sent} == {"veracity.faithfulness"}


def test_a_models_annotations_are_by_an_llm(run_dir: Path, tmp_path: Path) -> None:
    run = Path(shutil.copytree(run_dir, tmp_path / "run"))
    manifest = json.loads((run / "run.json").read_text())
    manifest["judge"] = {"name": "openai/gpt-4o-mini", "provider": "openai", "model": "gpt-4o-mini"}
    (run / "run.json").write_text(json.dumps(manifest))
    assert [a["annotator_kind"] for a in annotations_sent(run)] == ["LLM", "LLM"]


def _full_phoenix() -> bool:
    try:
        importlib.metadata.distribution("arize-phoenix")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.skipif(not _full_phoenix(), reason="only the client is installed: no server")
def test_sending_imports_the_client_never_the_server(run_dir: Path) -> None:
    script = f"""
import sys
from veracity.integrations.phoenix import send_to_phoenix
print(send_to_phoenix({str(run_dir)!r}, sys.argv[1]))
print(sorted(name for name in sys.modules if name.startswith("phoenix.server")))
import phoenix  # used later in the same process: the whole package, as ever
print(callable(phoenix.launch_app), "phoenix.server.app" in sys.modules)
"""
    with misbehaving(json_reply(TAKEN)) as server:
        done = subprocess.run(
            [sys.executable, "-c", script, server.url],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["2", "[]", "True True"]
