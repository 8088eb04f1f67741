"""The review page's app, driven over ASGI: the token and the origin checks, answers
appended in the labels format, undo, resume, two annotators at once, and the AUROC and
calibration once there are enough labels."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.testclient import TestClient

from tests.html.conftest import IMG, SCRIPT
from tests.html.page import Element, parse, tags
from tests.label.conftest import ITEMS, SessionMaker, people_say
from veracity.labels import read_labels
from veracity.review.app import Session, create_app
from veracity.review.labelfile import LabelFile

Clients = Callable[[Session], TestClient]


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _item(html: str) -> Element:
    """The item the page shows to be labelled."""
    found = parse(html).find_all("article", id="item")
    assert found, "no item shown"
    return found[0]


def _shown_id(html: str) -> str:
    return _item(html).find("span", cls="id").text


def _answer(client: TestClient, session: Session, annotator: str, value: str) -> str:
    """Answer the item the page shows the annotator; returns its id."""
    page = client.get("/", params={"token": session.token, "annotator": annotator})
    index = _item(page.text).attrs["data-index"]
    assert index is not None and index.isdigit()
    response = client.post(
        "/answer", params={"token": session.token, "annotator": annotator, "i": index},
        data={"value": value, "note": ""}, follow_redirects=False,
    )  # fmt: skip
    assert response.status_code == 303
    return _shown_id(page.text)


def test_every_request_needs_the_token(
    run: Path, make_session: SessionMaker, client_for: Clients
) -> None:
    session = make_session(run)
    client = client_for(session)
    # One character off (never the same one: a token may end in any of them).
    wrong = session.token[:-1] + ("y" if session.token.endswith("x") else "x")
    for path in ("/", "/static/label.js"):
        assert client.get(path).status_code == 403
        assert client.get(path, params={"token": wrong}).status_code == 403
        assert client.get(path, params={"token": session.token}).status_code == 200
    posted = client.post("/answer", params={"i": 0, "annotator": "a"}, data={"value": "y"})
    assert posted.status_code == 403
    assert not session.labels.path.exists()


def test_a_post_from_another_site_is_refused(
    run: Path, make_session: SessionMaker, client_for: Clients
) -> None:
    session = make_session(run)
    client = client_for(session)
    params: dict[str, str | int] = {"token": session.token, "annotator": "a", "i": 0}
    for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        response = client.post("/answer", params=params, data={"value": "y"}, headers=headers)
        assert response.status_code == 403
    assert not session.labels.path.exists()
    same = {"Origin": "http://127.0.0.1:8000", "Sec-Fetch-Site": "same-origin"}
    response = client.post(
        "/answer", params=params, data={"value": "y"}, headers=same, follow_redirects=False
    )
    assert response.status_code == 303
    assert len(_rows(session.labels.path)) == 1


def test_an_oversized_post_is_refused_and_writes_nothing(
    run: Path, make_session: SessionMaker, client_for: Clients
) -> None:
    session = make_session(run)
    params: dict[str, str | int] = {"token": session.token, "annotator": "a", "i": 0}
    huge = b"value=y&note=" + b"x" * 10_000_000
    response = client_for(session).post(
        "/answer", params=params, content=huge,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )  # fmt: skip
    assert response.status_code == 400
    assert not session.labels.path.exists()


def test_pages_forbid_inline_scripts_and_referrers_elsewhere(
    run: Path, make_session: SessionMaker, client_for: Clients
) -> None:
    session = make_session(run)
    page = client_for(session).get("/", params={"token": session.token, "annotator": "a"})
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "same-origin"


def test_an_answer_is_appended_in_the_labels_format_and_the_next_item_follows(
    run: Path, make_session: SessionMaker, client_for: Clients
) -> None:
    session = make_session(run)
    client = client_for(session)
    page = client.get("/", params={"token": session.token, "annotator": "ann"})
    first = _shown_id(page.text)
    response = client.post(
        "/answer", params={"token": session.token, "annotator": "ann", "i": 0},
        data={"value": "n", "note": "city <b>wrong</b>", "claim": "1"}, follow_redirects=False,
    )  # fmt: skip
    (row,) = _rows(session.labels.path)
    assert row["id"] == first and row["metric"] == "faithfulness" and row["value"] == 0.0
    assert row["annotator"] == "ann" and row["order"] == "random"
    assert row["note"] == "city <b>wrong</b>" and row["timestamp"]
    assert isinstance(row["claims"], dict) and list(row["claims"].values()) == ["not faithful"]
    assert parse_qs(urlsplit(response.headers["location"]).query)["i"] == ["1"]
    labels = read_labels(session.labels.path)
    assert [(i.sample_id, i.value) for i in labels.items] == [(first, 0.0)]
    assert not labels.bad_rows and not labels.ignored


def test_undo_withdraws_the_last_answer_and_shows_its_item_again(
    run: Path, make_session: SessionMaker, client_for: Clients
) -> None:
    session = make_session(run)
    client = client_for(session)
    first = _answer(client, session, "ann", "y")
    second = _answer(client, session, "ann", "y")
    response = client.post(
        "/undo", params={"token": session.token, "annotator": "ann"}, follow_redirects=False
    )
    assert response.status_code == 303
    again = client.get(response.headers["location"])
    assert _shown_id(again.text) == second
    assert [i.sample_id for i in read_labels(session.labels.path).items] == [first]
    # Answered again, the last word is read, without a duplicate.
    assert _answer(client, session, "ann", "n") == second
    labels = read_labels(session.labels.path)
    assert {(i.sample_id, i.value) for i in labels.items} == {(first, 1.0), (second, 0.0)}
    assert not labels.bad_rows


def test_changing_an_answer_keeps_only_the_last(
    run: Path, make_session: SessionMaker, client_for: Clients
) -> None:
    session = make_session(run)
    client = client_for(session)
    params: dict[str, str | int] = {"token": session.token, "annotator": "ann", "i": 3}
    for value in ("y", "n", "y"):
        client.post("/answer", params=params, data={"value": value}, follow_redirects=False)
    labels = read_labels(session.labels.path)
    (item,) = labels.items
    assert item.votes == (("ann", 1.0),) and not labels.bad_rows


def test_a_restart_resumes_where_each_annotator_stopped(
    run: Path, make_session: SessionMaker, client_for: Clients, tmp_path: Path
) -> None:
    labels = tmp_path / "shared.jsonl"
    before = make_session(run, labels)
    client = client_for(before)
    answered = {_answer(client, before, "ann", "y") for _ in range(3)}
    after = make_session(run, labels)  # a new server on the same file
    client = client_for(after)
    resumed = client.get("/", params={"token": after.token, "annotator": "ann"})
    assert _shown_id(resumed.text) not in answered
    assert parse(resumed.text).find(id="mine").text == "3"  # ann's count of labels
    other = client.get("/", params={"token": after.token, "annotator": "bo"})
    assert _shown_id(other.text) == after.review.items[0].sample_id  # bo starts at the start


def test_two_annotators_at_once_are_both_kept(
    run: Path, make_session: SessionMaker, tmp_path: Path
) -> None:
    labels = tmp_path / "shared.jsonl"
    sessions = [make_session(run, labels), make_session(run, labels)]
    errors: list[BaseException] = []

    def label_all(session: Session, annotator: str) -> None:
        try:
            with TestClient(create_app(session), base_url="http://127.0.0.1:8000") as client:
                for _ in range(12):
                    _answer(client, session, annotator, "y")
        except BaseException as exc:  # reported by the test's thread
            errors.append(exc)

    threads = [
        threading.Thread(target=label_all, args=(session, name))
        for session, name in zip(sessions, ("ann", "bo"), strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    read = read_labels(labels)
    assert len(read.items) == 12 and not read.bad_rows
    assert all(sorted(str(a) for a, _v in item.votes) == ["ann", "bo"] for item in read.items)


def test_the_file_lock_serialises_writers(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"

    def write(annotator: str) -> None:
        writer = LabelFile(path)  # a lock object of its own, as another process has
        for n in range(40):
            writer.label((f"s{n}", None), annotator, 1.0, order="random", note="x" * 2000)

    threads = [threading.Thread(target=write, args=(name,)) for name in ("a", "b", "c")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rows = _rows(path)  # every line whole JSON: no two writes interleaved
    assert len(rows) == 120
    assert all(len(LabelFile(path).standing(name)) == 40 for name in ("a", "b", "c"))


def test_with_30_labels_the_page_shows_the_auroc_and_calibrates(
    run: Path, make_session: SessionMaker, client_for: Clients
) -> None:
    session = make_session(run)
    client = client_for(session)
    page = client.get("/", params={"token": session.token, "annotator": "ann"})
    shown = parse(page.text).text
    assert "30: agreement means something" in shown and "AUROC" not in shown
    for _ in range(ITEMS):
        page = client.get("/", params={"token": session.token, "annotator": "ann"})
        if not parse(page.text).find_all(id="item"):
            break
        _answer(client, session, "ann", people_say(_shown_id(page.text)))
    page = client.get("/", params={"token": session.token, "annotator": "ann"})
    doc = parse(page.text)
    assert doc.find_all(id="done") and "100: calibration" in doc.text
    auroc = re.search(r"AUROC (\d\.\d+) \(95 % (\d\.\d+)–(\d\.\d+)\)", doc.text)
    assert auroc is not None
    value, low, high = (float(auroc.group(n)) for n in (1, 2, 3))
    assert value == pytest.approx(0.75)  # the scenario's: swapped cities scored as right
    assert low <= value <= high
    done = client.post("/calibrate", params={"token": session.token, "annotator": "ann"})
    written = session.labels.path.with_name("labels.calibration.json")
    assert written.is_file() and str(written) in done.text
    assert json.loads(written.read_text())["metrics"]["faithfulness"]["helps"] is True


def test_every_item_of_a_hostile_run_is_shown_escaped(
    hostile_run: Path, make_session: SessionMaker, client_for: Clients
) -> None:
    session = make_session(hostile_run, annotator=f"ann {IMG}")
    client = client_for(session)
    pages = [
        client.get("/", params={"token": session.token, "i": index}).text
        for index in range(len(session.review.items))
    ]
    docs = [parse(page) for page in pages]
    evil = [doc for doc in docs if "evil-" in doc.text]
    assert evil, "the item carrying the payloads is shown"
    for page, doc in zip(pages, docs, strict=True):
        assert SCRIPT not in page  # never in the markup as it came
        assert "img" not in tags(doc)
        assert not any(k.startswith("on") for e in doc.descendants() for k in e.attrs)
        # The one script is the page's own, from its static files.
        assert [(s.attrs.get("src") or "").split("?")[0] for s in doc.find_all("script")] == [
            "/static/label.js"
        ]
    # The payloads are shown, as text.
    assert all(SCRIPT in doc.text for doc in evil)
    assert 'onerror="window.__pwned=1"' in evil[0].text
