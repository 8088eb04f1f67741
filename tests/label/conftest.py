"""Runs to label: the agreement scenario's (answers people judge in a known way) and one
whose every text carries the HTML report's XSS payloads; sessions and clients over them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.agreement import scenario
from tests.html.conftest import dataset_rows, make_run
from veracity import LLMJudge, ScriptedChat, evaluate
from veracity.review.app import Session, create_app
from veracity.review.items import load_review
from veracity.review.labelfile import LabelFile

ITEMS = 36  # past the 30 labels from which the page shows the AUROC and calibrates


def scenario_run(directory: Path, n: int = ITEMS) -> Path:
    """The agreement scenario's run of ``n`` answers, its dataset a file beside it."""
    directory.mkdir(parents=True, exist_ok=True)
    dataset = directory / "data.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in scenario.rows(n)))
    judge = LLMJudge(ScriptedChat(responder=scenario.respond), unfounded_support="flag")
    evaluate(dataset, "faithfulness", judge, out=directory / "run", progress=False)
    return directory / "run"


def people_say(sample_id: str) -> str:
    """What a person answers: only the right answers are faithful."""
    return "y" if scenario.kind_of(int(sample_id[1:])) == "right" else "n"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scenario_run(tmp_path_factory.mktemp("label"))


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("hostile"), dataset_rows(2), metrics=["faithfulness"])


SessionMaker = Callable[..., Session]


@pytest.fixture
def make_session(tmp_path: Path) -> SessionMaker:
    def make(run: Path, labels: Path | None = None, **options: object) -> Session:
        order = str(options.pop("order", "random"))
        review = load_review(run, order=order)
        return Session(review, LabelFile(labels or tmp_path / "labels.jsonl"), **options)  # type: ignore[arg-type]

    return make


@pytest.fixture
def client_for() -> Iterator[Callable[[Session], TestClient]]:
    clients: list[TestClient] = []

    def make(session: Session) -> TestClient:
        client = TestClient(create_app(session), base_url="http://127.0.0.1:8000")
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
