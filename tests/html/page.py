"""What a rendered page says, read from its parsed elements rather than from its markup.

Tests ask questions of a page (the cell of a table under a row and a column heading, the
items of a list and their classes, the terms of a definition list, the charts) so that a
change of attribute order, quoting or nesting leaves them passing while a change of what
the page shows makes them fail. Built on the standard library's ``html.parser``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

# Elements that never have content, so never an end tag to wait for.
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
     "track", "wbr"}
)  # fmt: skip
# Elements whose content is not shown as text.
UNSHOWN = frozenset({"script", "style", "template"})


@dataclass(eq=False)
class Element:
    """One element of the page: its tag, attributes and children (elements and text)."""

    tag: str
    attrs: dict[str, str | None] = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)

    @property
    def classes(self) -> frozenset[str]:
        return frozenset((self.attrs.get("class") or "").split())

    @property
    def own_text(self) -> str:
        """The text of this element without that of its child elements, spaces folded."""
        return " ".join("".join(c for c in self.children if isinstance(c, str)).split())

    @property
    def text(self) -> str:
        """The text inside this element as a reader sees it: spaces folded, and none of
        what scripts and style sheets hold (unless this is one)."""
        return " ".join("".join(self._texts(top=True)).split())

    def _texts(self, top: bool = False) -> Iterator[str]:
        if not top and self.tag in UNSHOWN:
            return
        for child in self.children:
            if isinstance(child, str):
                yield child
            else:
                yield from child._texts()

    def descendants(self) -> Iterator[Element]:
        for child in self.children:
            if isinstance(child, Element):
                yield child
                yield from child.descendants()

    def find_all(
        self, tag: str | None = None, cls: str | None = None, **attrs: str
    ) -> list[Element]:
        """The elements inside this one, in page order, of ``tag`` (any if None), having the
        class ``cls`` and the attributes given (``id="paired"``; ``_`` stands for ``-``)."""
        wanted = {name.replace("_", "-"): value for name, value in attrs.items()}
        return [
            element
            for element in self.descendants()
            if (tag is None or element.tag == tag)
            and (cls is None or cls in element.classes)
            and all(element.attrs.get(name) == value for name, value in wanted.items())
        ]

    def find(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> Element:
        """The first element :meth:`find_all` finds; an assertion error when there is none."""
        found = self.find_all(tag, cls, **attrs)
        assert found, f"no <{tag or '*'}> with class {cls!r} and {attrs} on the page"
        return found[0]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document")
        self.open: list[Element] = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        self.open[-1].children.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open[-1].children.append(Element(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        # Close up to the nearest open element of this tag; a stray end tag closes nothing.
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data)


def parse(html: str) -> Element:
    """The page as a tree of elements under a ``#document`` root."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


@dataclass(frozen=True)
class Row:
    """A body row of a table: its heading (the text of its first cell), its cells by column
    heading, and the heading of the group of rows it is in (a ``scope="rowgroup"``
    heading), if any."""

    heading: str
    cells: dict[str, Element]
    group: str | None

    def __getitem__(self, column: str) -> str:
        return self.cells[column].text


def columns(table: Element) -> list[str]:
    """The column headings of a table (those of its first row)."""
    first = table.find("tr")
    return [cell.text for cell in first.children if isinstance(cell, Element)]


def rows(table: Element) -> list[Row]:
    """The rows of a table below its heading row, each keyed by column heading."""
    heads = columns(table)
    found: list[Row] = []
    group: str | None = None
    for tr in table.find_all("tr")[1:]:
        cells = [cell for cell in tr.children if isinstance(cell, Element)]
        if cells and cells[0].attrs.get("scope") == "rowgroup":
            group = cells[0].text
            continue
        heading = cells[0].text if cells else ""
        found.append(Row(heading, dict(zip(heads, cells, strict=False)), group))
    return found


def cell(scope: Element, row: str, column: str) -> str:
    """The text of the one cell of the tables in ``scope`` under the row heading ``row``
    and the column heading ``column``; an assertion error if there is none or several."""
    found = [
        r[column]
        for table in scope.find_all("table")
        for r in rows(table)
        if r.heading == row and column in r.cells
    ]
    assert len(found) == 1, f"{len(found)} cells at row {row!r}, column {column!r}"
    return found[0]


def definitions(scope: Element) -> list[tuple[str, str]]:
    """The terms of the definition lists in ``scope`` with what each says, in page order."""
    pairs: list[tuple[str, str]] = []
    for dl in scope.find_all("dl"):
        term: str | None = None
        for element in dl.descendants():
            if element.tag == "dt":
                term = element.text
            elif element.tag == "dd" and term is not None:
                pairs.append((term, element.text))
    return pairs


def terms(scope: Element) -> list[str]:
    """The terms of the definition lists in ``scope``, in page order."""
    return [term for term, _ in definitions(scope)]


def tags(scope: Element) -> list[str]:
    """The tag of every element in ``scope``, in page order."""
    return [element.tag for element in scope.descendants()]
