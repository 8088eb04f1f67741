"""A Langfuse server as the source and the destination, through its SDK's API client: the
observations of a window read page by page into samples, scores sent back onto the traces
(re-sending updates, never duplicates), refused keys and rejected scores said, no key shown.
The server is a fake on loopback (no Langfuse can run here)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.traces.fake_langfuse import PUBLIC, SECRET, FakeLangfuse, serving
from tests.traces.test_langfuse_export import ANSWER, DOCS, QUESTION
from veracity.cli.app import app
from veracity.integrations.langfuse import send_to_langfuse
from veracity.traces import TraceFileError, samples_from_traces

pytest.importorskip("langfuse")

OFFLINE = ("--judge", "offline", "--metrics", "faithfulness")


def observations(trace_id: str, day: str = "2026-11-20") -> list[dict[str, Any]]:
    """One RAG request as the v2 observations API returns it: inputs and outputs as JSON
    text, the root observation holding the request's question and answer."""
    base = {"traceId": trace_id, "projectId": "p1", "traceName": "rag-api", "level": "DEFAULT"}
    messages = [
        {"role": "system", "content": "Answer from the context."},
        {"role": "user", "content": "Tell me about the tower."},
        {"role": "assistant", "content": "It is in Paris."},
        {"role": "user", "content": f"{DOCS[0]}\n{QUESTION}"},
    ]
    return [
        {**base, "id": f"{trace_id}-root", "type": "CHAIN", "name": "rag",
         "startTime": f"{day}T10:00:00.000Z", "endTime": f"{day}T10:00:02.000Z",
         "parentObservationId": None, "isRootObservation": True,
         "input": json.dumps({"question": QUESTION}), "output": json.dumps(ANSWER)},
        {**base, "id": f"{trace_id}-ret", "type": "RETRIEVER", "name": "retrieve",
         "startTime": f"{day}T10:00:00.100Z", "endTime": f"{day}T10:00:00.200Z",
         "parentObservationId": f"{trace_id}-root", "input": json.dumps(QUESTION),
         "output": json.dumps([{"page_content": d} for d in DOCS])},
        {**base, "id": f"{trace_id}-gen", "type": "GENERATION", "name": "answer",
         "startTime": f"{day}T10:00:00.300Z", "endTime": f"{day}T10:00:01.000Z",
         "parentObservationId": f"{trace_id}-root", "input": json.dumps(messages),
         "output": json.dumps({"role": "assistant", "content": ANSWER})},
    ]  # fmt: skip


def health_check(trace_id: str) -> list[dict[str, Any]]:
    return [{"traceId": trace_id, "projectId": "p1", "id": f"{trace_id}-h", "type": "SPAN",
             "name": "GET /health", "startTime": "2026-11-20T11:00:00.000Z",
             "parentObservationId": None, "input": None, "output": None}]  # fmt: skip


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", PUBLIC)
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", SECRET)


@pytest.fixture
def langfuse(keys: None) -> Iterator[tuple[FakeLangfuse, str]]:
    fake = FakeLangfuse(observations("t1") + health_check("t2") + observations("t3"))
    with serving(fake) as url:
        yield fake, url


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    from veracity.cli.common import err_console, out_console

    monkeypatch.setattr(out_console, "_width", 250)
    monkeypatch.setattr(err_console, "_width", 250)
    return CliRunner()


def test_a_windows_observations_become_samples_page_by_page(
    langfuse: tuple[FakeLangfuse, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, url = langfuse
    monkeypatch.setattr("veracity.traces.langfuse_api.LANGFUSE_PAGE", 2)
    found = samples_from_traces(url, kind="langfuse")
    assert [s.id for s in found.samples] == ["t1", "t3"]
    assert found.skipped == {"no answer: not a RAG request": 1}
    sample = found.samples[0]
    assert (sample.question, sample.answer, sample.contexts) == (QUESTION, ANSWER, tuple(DOCS))
    assert [t.content for t in sample.history] == ["Tell me about the tower.", "It is in Paris."]
    assert sample.system == "rag-api"
    assert sample.metadata == {
        "trace_id": "t1",
        "span_id": "t1-root",
        "retriever_span_ids": ["t1-ret"],
    }
    assert len(fake.pages) == 4  # 7 observations, 2 a page
    assert all(q["fields"] == ["core,basic,io,trace_context"] for q in fake.pages)


def test_since_asks_for_the_window_only(langfuse: tuple[FakeLangfuse, str]) -> None:
    from datetime import UTC, datetime

    fake, url = langfuse
    fake.observations += observations("old", day="2026-10-01")
    found = samples_from_traces(url, kind="langfuse", since=datetime(2026, 11, 1, tzinfo=UTC))
    assert [s.id for s in found.samples] == ["t1", "t3"]
    assert "fromStartTime" in fake.pages[0]


def test_run_from_langfuse_and_scores_back_without_duplicates(
    langfuse: tuple[FakeLangfuse, str], cli: CliRunner, tmp_path: Path
) -> None:
    fake, url = langfuse
    run = tmp_path / "lf"
    result = cli.invoke(app, ["run", url, "--from", "langfuse", *OFFLINE, "--out", str(run)])
    assert result.exit_code == 0, result.output
    assert "3 trace(s)" in result.output
    sent = cli.invoke(app, ["send", str(run), "--to", "langfuse", "--url", url])
    assert sent.exit_code == 0, sent.output
    assert "sent 2 score(s)" in sent.output
    assert sorted((s["traceId"], s["observationId"]) for s in fake.scores.values()) == [
        ("t1", "t1-root"), ("t3", "t3-root"),
    ]  # fmt: skip
    results = {
        row["sample_id"]: row
        for row in map(json.loads, (run / "results.jsonl").read_text().splitlines())
    }
    for score in fake.scores.values():
        row = results[score["traceId"]]
        assert score["name"] == "veracity.faithfulness" and score["dataType"] == "NUMERIC"
        assert score["value"] == pytest.approx(row["score"])
        assert score["comment"].startswith(row["reason"])
        assert score["metadata"]["label"] in ("pass", "fail")
        # The offline judge's P(supported) of each claim goes with its score.
        sent_claims = score["metadata"]["probabilities"]["claims"]
        assert [c["probabilities"]["supported"] for c in sent_claims] == pytest.approx(
            [c["p_supported"] for c in row["details"]["claims"]]
        )
    again = cli.invoke(app, ["send", str(run), "--to", "langfuse", "--url", url])
    assert again.exit_code == 0, again.output
    assert fake.score_posts == 2 and len(fake.scores) == 2  # updated, not duplicated


def test_rejected_scores_are_said_and_a_resend_completes(
    langfuse: tuple[FakeLangfuse, str], cli: CliRunner, tmp_path: Path
) -> None:
    fake, url = langfuse
    run = tmp_path / "lf"
    assert (
        cli.invoke(app, ["run", url, "--from", "langfuse", *OFFLINE, "--out", str(run)]).exit_code
        == 0
    )
    fake.reject_names = {"veracity.faithfulness"}
    refused = cli.invoke(app, ["send", str(run), "--to", "langfuse", "--url", url])
    assert refused.exit_code == 2
    assert "Langfuse rejected 2 score(s)" in refused.output and "no config for" in refused.output
    fake.reject_names = set()
    assert cli.invoke(app, ["send", str(run), "--to", "langfuse", "--url", url]).exit_code == 0
    assert len(fake.scores) == 2


def test_wrong_keys_are_refused_without_showing_them(
    langfuse: tuple[FakeLangfuse, str],
    cli: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    _, url = langfuse
    monkeypatch.chdir(tmp_path)  # the run directory it would make: runs/langfuse
    wrong = "sk-lf-wrong-secret-9999"
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", wrong)
    with pytest.raises(TraceFileError, match="Langfuse at") as caught:
        samples_from_traces(url, kind="langfuse")
    result = cli.invoke(app, ["run", url, "--from", "langfuse", *OFFLINE])
    assert result.exit_code == 2
    for text in (str(caught.value), result.output):
        assert wrong not in text and "401" in text
    monkeypatch.delenv("LANGFUSE_SECRET_KEY")
    missing = cli.invoke(app, ["run", url, "--from", "langfuse", *OFFLINE])
    assert missing.exit_code == 2 and "LANGFUSE_SECRET_KEY" in missing.output
    assert not (tmp_path / "runs").exists()  # nothing left behind


def test_a_server_that_is_not_there_is_named(keys: None, cli: CliRunner, tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    result = cli.invoke(
        app, ["run", url, "--from", "langfuse", *OFFLINE, "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 2
    assert f"Langfuse at {url}" in result.output and "Traceback" not in result.output


def test_results_of_samples_not_from_traces_are_not_sent(
    langfuse: tuple[FakeLangfuse, str], tmp_path: Path
) -> None:
    import veracity

    fake, url = langfuse
    result = veracity.evaluate(
        [{"question": QUESTION, "answer": ANSWER, "contexts": DOCS}],
        "faithfulness",
        judge="offline",
    )
    sent = send_to_langfuse(result, url)
    assert (sent.accepted, sent.unscored, fake.score_posts) == (0, 0, 0)


@pytest.mark.parametrize(
    "reply",
    [
        "<html>gateway timeout</html>",
        {"data": [{"id": 5, "type": None}], "meta": {}},
        {"data": "everything", "meta": {"cursor": None}},
        {"nested": [[[[[[[[[[[]]]]]]]]]]]},
    ],
    ids=["not-json", "wrong-types", "data-not-a-list", "another-shape"],
)
def test_a_reply_not_in_the_apis_shape_is_named(
    langfuse: tuple[FakeLangfuse, str], monkeypatch: pytest.MonkeyPatch, reply: Any
) -> None:
    fake, url = langfuse
    monkeypatch.setattr(fake, "handle", lambda *_: (200, reply))
    with pytest.raises(TraceFileError, match=f"Langfuse at {url}"):
        samples_from_traces(url, kind="langfuse")


def test_a_window_over_the_bound_is_cut_and_said(langfuse: tuple[FakeLangfuse, str]) -> None:
    from veracity.traces import TraceWindowCut
    from veracity.traces.langfuse_api import read_langfuse_api_spans

    _, url = langfuse
    with pytest.warns(TraceWindowCut, match="read the first 4 observations"):
        spans = list(read_langfuse_api_spans(url, limit=4))
    assert len(spans) == 4
