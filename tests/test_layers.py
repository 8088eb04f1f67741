"""The import contract: no module of veracity imports itself back through others, and
every import between its packages points down the layers of :data:`LAYER`.

Imports are read from the source with ``ast``, wherever they are: at module level and in
functions (an import deferred to the call is still a dependency). Those under ``if
TYPE_CHECKING:`` count for cycles everywhere (a module that annotates with another's types
while that one imports it back is one tangle, deferred or not); for the layers they count
in a package's ``__init__`` (``veracity._lazy`` imports its public names from that block
at run time), not elsewhere (annotations only). Each names the module it imports from,
not its parent packages, whose ``__init__`` Python runs first: counted, they would tie
every package to its modules.
Imports by a name in a string (``importlib.import_module``) are not seen.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from graphlib import CycleError, TopologicalSorter
from pathlib import Path
from typing import NamedTuple

import veracity

PACKAGE = Path(veracity.__file__).parent

# Each package's layer (a top-level module counts as a package): a module imports only
# from lower layers and from its own package. The chain, bottom up, is types → prompts →
# transport → chat → judges and embeddings → metrics → runner → evaluation → cli; the packages
# beside it sit on the lowest layer above all they import, so that packages of one layer
# cannot import each other (but see SAME_LAYER).
LAYER: dict[str, int] = {
    # Helpers that import nothing of veracity.
    "_lazy": 0,
    "_scrub": 0,
    "_suggest": 0,
    "_units": 0,
    "_bounded": 0,
    "_pickled": 0,
    "_version": 0,
    "text": 0,  # sentences, tokens, numbers, names: for judges and metrics alike
    "types": 1,
    "prompts": 2,
    "dataset": 2,  # input files read into samples
    "traces": 2,  # trace files read into samples
    "transport": 3,
    "store": 3,  # a run directory's files: the judges' response cache keeps its own there
    "chat": 4,  # chat models over the transport: SDKs, the response cache, batch APIs
    "decisions": 4,  # decision models over the transport: System One, OpenAI Decisions
    "judges": 5,
    "embeddings": 5,
    "report": 5,  # runs read back from their files, whatever judged them
    "metrics": 6,
    "runner": 7,
    "labels": 7,  # people's labels of the metrics' targets, read like a dataset
    "testing": 7,  # fakes that answer in the prompts' formats
    "agreement": 8,  # a run's scores against people's labels
    "config": 9,  # the settings of a run, for the evaluation and the command line
    "review": 9,  # the labelling page: a run's items (report), its agreement (agreement)
    "evaluation": 10,
    "testset": 10,  # judges write questions; testing has a fake endpoint for them
    "integrations": 11,
    "pytest_plugin": 11,
    "cli": 12,  # commands over everything, the integrations included (veracity send)
    "__main__": 13,
    "veracity": 13,  # the package's own __init__: the public API, over everything
}

# Imports allowed between two packages of one layer, (importer, imported).
SAME_LAYER = {
    # The offline judge compares embeddings, and make_judge builds the embedder it needs;
    # no embedder uses a judge.
    ("judges", "embeddings"),
    # Decision models go through the chat models' SDK client, retries and response cache.
    ("decisions", "chat"),
}


class Import(NamedTuple):
    importer: str
    imported: str
    where: str


def _module_names() -> dict[str, Path]:
    names: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def _imported(name: str, modules: dict[str, Path]) -> str:
    """The module ``name`` is, or the one it is a name in."""
    while name not in modules:
        name = name.rpartition(".")[0]
    return name


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``."""
    return {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
        for statement in node.body
        for inner in ast.walk(statement)
    }


def _parse(source: str) -> ast.Module:
    """``ast.parse``, again on the SystemError of CPython before 3.11.8: its AST builder
    shared one recursion counter between threads (gh-106905), so another thread parsing at
    that moment (3.11's tracebacks parse to place their carets) broke this test once."""
    for _ in range(2):
        try:
            return ast.parse(source)
        except SystemError:
            continue
    return ast.parse(source)


@functools.cache
def _imports(*, annotations: bool = False) -> tuple[Import, ...]:
    """Every import of a veracity module by another, once per statement and module; those
    under ``if TYPE_CHECKING:`` outside a package's ``__init__`` only with
    ``annotations``."""
    modules = _module_names()
    found: set[Import] = set()
    for module, path in modules.items():
        is_init = path.name == "__init__.py"
        package = module if is_init else module.rpartition(".")[0]
        tree = _parse(path.read_text(encoding="utf-8"))
        annotations_only = set() if is_init or annotations else _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in annotations_only:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
                names = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
            for name in names:
                if name.partition(".")[0] == "veracity":
                    imported = _imported(name, modules)
                    if imported != module:
                        found.add(Import(module, imported, where))
    return tuple(sorted(found))


def _package(module: str) -> str:
    return module.split(".")[1] if "." in module else module


def _points_down(importer: str, imported: str) -> bool:
    return (
        importer == imported
        or LAYER[importer] > LAYER[imported]
        or (importer, imported) in SAME_LAYER
    )


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of imports in ``graph`` (module: the modules it imports), each module
    importing the next, or none."""
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as error:
        return list(reversed(error.args[1]))
    return []


def test_every_package_has_a_layer() -> None:
    assert {_package(module) for module in _module_names()} == set(LAYER)


def test_no_module_imports_itself_through_others() -> None:
    graph: dict[str, set[str]] = {module: set() for module in _module_names()}
    for found in _imports(annotations=True):
        graph[found.importer].add(found.imported)
    cycle = _cycle(graph)
    assert not cycle, f"import cycle: {' -> '.join(cycle)}"


def test_the_cycle_check_sees_deferred_and_annotation_imports() -> None:
    # A tangle hides in both: a view annotating with the report's types (under
    # TYPE_CHECKING) while the report imports the view inside a method.
    seen = {(i.importer, i.imported) for i in _imports(annotations=True)}
    deferred = ("veracity.cli.agree", "veracity.agreement.console")  # in a function
    annotation = ("veracity.cli.agree", "veracity.agreement.report")  # under TYPE_CHECKING
    assert {deferred, annotation} <= seen
    layered = {(i.importer, i.imported) for i in _imports()}
    assert deferred in layered and annotation not in layered
    assert set(_cycle({"report": {"view"}, "view": {"report"}, "model": set()})) == {
        "report",
        "view",
    }


def test_imports_between_packages_point_down_the_layers() -> None:
    upward = [
        f"{found.where}: {found.importer} imports {found.imported}"
        for found in _imports()
        if not _points_down(_package(found.importer), _package(found.imported))
    ]
    assert not upward, "imports up the layers:\n" + "\n".join(upward)


def test_every_same_layer_pair_is_still_needed() -> None:
    # One whose import has gone would let the next such import in unseen.
    pairs = {(found.importer, found.imported) for found in _imports()}
    assert SAME_LAYER - {(_package(a), _package(b)) for a, b in pairs} == set()


def test_only_the_chat_layer_names_its_wrappers() -> None:
    # How a chat model is wrapped (the response cache, batching) is the chat layer's
    # business: the others ask it through functions of the chat package.
    wrappers = ("CachedChat", "BatchingChat")
    naming = [
        module
        for module, path in _module_names().items()
        if _package(module) != "chat" and any(w in path.read_text("utf-8") for w in wrappers)
    ]
    assert not naming, f"modules outside chat/ naming {' or '.join(wrappers)}: {naming}"
