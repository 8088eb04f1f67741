"""The orders items are shown in, and what ``--blind`` hides."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from tests.label.conftest import SessionMaker
from veracity.review.app import create_app
from veracity.review.items import Item, ordered


def _item(name: str, score: float | None, *, calibrated: float | None = None,
          other: float | None = None) -> Item:  # fmt: skip
    return Item(name, None, "q?", (), "a.", (), (), score, "", calibrated, other)


def _names(items: tuple[Item, ...]) -> list[str]:
    return [item.sample_id for item in items]


def test_worst_shows_the_lowest_scores_first_and_unscored_last() -> None:
    items = [_item("mid", 0.5), _item("none", None), _item("low", 0.1), _item("high", 0.9)]
    assert _names(ordered(items, "worst", 0.5)) == ["low", "mid", "high", "none"]


def test_uncertain_prefers_the_calibrated_probability_then_the_threshold() -> None:
    items = [_item("sure", 0.95, calibrated=0.99), _item("torn", 0.95, calibrated=0.52),
             _item("near", 0.68), _item("far", 0.1)]  # fmt: skip
    assert _names(ordered(items, "uncertain", 0.7)) == ["near", "torn", "sure", "far"]


def test_disagreement_shows_where_two_runs_differ_most() -> None:
    items = [_item("same", 0.8, other=0.8), _item("apart", 0.1, other=0.9),
             _item("half", 0.3, other=0.7), _item("one", 0.3)]  # fmt: skip
    assert _names(ordered(items, "disagreement", 0.5)) == ["apart", "half", "same", "one"]


def test_random_is_a_shuffle_that_is_the_same_on_every_start() -> None:
    items = [_item(f"s{n}", n / 20) for n in range(20)]
    first = ordered(items, "random", 0.5)
    assert first == ordered(items, "random", 0.5)
    assert _names(first) != _names(tuple(items)) and sorted(_names(first)) == sorted(
        _names(tuple(items))
    )


def test_blind_hides_the_judges_verdicts_score_and_reason(
    run: Path, make_session: SessionMaker
) -> None:
    pages = []
    for blind in (False, True):
        session = make_session(run, blind=blind)
        with TestClient(create_app(session)) as client:
            params: dict[str, str | int] = {"token": session.token, "annotator": "a", "i": 0}
            pages.append(client.get("/", params=params).text)
    seen, blind_page = pages
    assert 'id="judge"' in seen and "supported" in seen
    assert 'id="judge"' not in blind_page and "v-supported" not in blind_page
    assert "v-contradicted" not in blind_page and "scripted" not in blind_page
