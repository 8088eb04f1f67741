"""``--dist loadgroup`` (CI's pytest -n 2) keeps a group's tests on one worker: the Ray tests
share one local Ray instance, the real model's tests one model server. pytest-xdist's
scheduler reads an item's group from a ``@group`` suffix on its node id; tests/conftest.py
puts it there when xdist's own does not take (pytest 9.2, pytest-xdist issue 1386)."""

from __future__ import annotations

import pytest

from tests.conftest import pytest_collection_modifyitems

pytest_plugins = ["pytester"]

MODULE = """
import pytest

pytestmark = pytest.mark.xdist_group("ray")

def test_one():
    pass

@pytest.mark.parametrize("size", [1, 2])
def test_two(size):
    pass

@pytest.mark.xdist_group("llama")
def test_both():
    pass
"""


def _items(pytester: pytest.Pytester) -> list[pytest.Item]:
    # Phoenix's pytest plugin would import the whole Phoenix server (see pyproject.toml).
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "addopts = -p no:phoenix -p no:langsmith_plugin\n"
    )
    return pytester.getitems(MODULE)


def test_under_loadgroup_each_test_names_its_group_once(pytester: pytest.Pytester) -> None:
    items = _items(pytester)
    config = items[0].config
    config.option.loadgroup = True  # what xdist sets in a worker under --dist loadgroup
    pytest_collection_modifyitems(config, items)
    pytest_collection_modifyitems(config, items)  # xdist's suffix there already: kept
    assert [item.nodeid.split("::")[1] for item in items] == [
        "test_one@ray", "test_two[1]@ray", "test_two[2]@ray", "test_both@llama_ray",
    ]  # fmt: skip


def test_without_loadgroup_node_ids_stay_as_they_are(pytester: pytest.Pytester) -> None:
    items = _items(pytester)
    before = [item.nodeid for item in items]
    pytest_collection_modifyitems(items[0].config, items)
    assert [item.nodeid for item in items] == before
    assert not any("@" in nodeid for nodeid in before)
