"""``veracity._lazy``: a package's public names imported on first use, declared once."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import veracity

INIT = """
from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = {names!r}

if TYPE_CHECKING:
    from {package}.heavy import Heavy, make
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
"""
HEAVY = """
LOADED = True


class Heavy:
    pass


def make() -> Heavy:
    return Heavy()
"""


@pytest.fixture
def package(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A package named after the test, on ``sys.path`` for the test only."""
    name = "lazy_" + re.sub(r"\W", "_", request.node.name)
    sys.path.insert(0, str(tmp_path))
    (tmp_path / name).mkdir()
    (tmp_path / name / "heavy.py").write_text(HEAVY)
    yield name
    sys.path.remove(str(tmp_path))
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


def _write_init(package: str, names: list[str]) -> None:
    folder = Path(sys.path[0]) / package
    (folder / "__init__.py").write_text(INIT.format(names=names, package=package))


def test_a_name_loads_its_module_on_first_use_and_stays(package: str) -> None:
    _write_init(package, ["Heavy", "make"])
    module = importlib.import_module(package)
    assert f"{package}.heavy" not in sys.modules
    assert sorted(dir(module)) == ["Heavy", "make"]
    made = module.make()
    assert f"{package}.heavy" in sys.modules
    assert isinstance(made, module.Heavy)
    assert "make" in vars(module)  # kept: the next look-up is a plain attribute


def test_an_unknown_name_is_an_attribute_error(package: str) -> None:
    _write_init(package, ["Heavy", "make"])
    module = importlib.import_module(package)
    with pytest.raises(AttributeError, match="has no attribute 'Hevy'"):
        _ = module.Hevy


@pytest.mark.parametrize("names", [["Heavy"], ["Heavy", "make", "missing"]])
def test_all_and_the_type_checking_block_must_agree(package: str, names: list[str]) -> None:
    _write_init(package, names)
    with pytest.raises(ImportError, match="__all__ and the names imported under TYPE_CHECKING"):
        importlib.import_module(package)


def test_every_lazy_package_of_veracity_resolves_every_public_name() -> None:
    """Each ``__all__`` name of every package resolves (a typo in a TYPE_CHECKING block
    would otherwise surface only when a user asks for that name)."""
    packages = [veracity.__name__] + [
        f"veracity.{path.parent.relative_to(Path(veracity.__file__).parent)}".replace("/", ".")
        for path in Path(veracity.__file__).parent.rglob("__init__.py")
        if "lazy_exports" in path.read_text(encoding="utf-8") and path.parent.name != "veracity"
    ]
    assert len(packages) > 10
    for name in packages:
        module = importlib.import_module(name)
        for public in module.__all__:
            assert getattr(module, public) is not None, f"{name}.{public}"


def test_a_package_imported_from_a_zip_reads_its_source_through_its_loader(
    tmp_path: Path,
) -> None:
    import zipfile

    name = "lazy_zipped"
    archive = tmp_path / "packages.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr(f"{name}/__init__.py", INIT.format(names=["Heavy", "make"], package=name))
        zipped.writestr(f"{name}/heavy.py", HEAVY)
    sys.path.insert(0, str(archive))
    try:
        module = importlib.import_module(name)
        assert isinstance(module.make(), module.Heavy)
    finally:
        sys.path.remove(str(archive))
        for loaded in [m for m in sys.modules if m.startswith(name)]:
            del sys.modules[loaded]
