"""Documents into chunks: Markdown split on headings, then paragraphs, packed to a size.

A heading always starts a new chunk; the paragraphs under it are packed greedily up to
``chunk_chars``; a section too long for one chunk continues in the next with a small
overlap (the last sentences of the previous chunk). A paragraph longer than a chunk is cut
at sentence ends, and a sentence longer than a chunk at spaces.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from veracity.testset.defaults import DEFAULT_CHUNK_CHARS

DEFAULT_OVERLAP_CHARS = 150
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
TEXT_SUFFIXES = frozenset({".txt"})

_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+|$)")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a document: ``id`` is ``source#index`` (0-based within the file)."""

    id: str
    source: str
    index: int
    text: str
    heading: str | None = None


def markdown_sections(text: str) -> list[tuple[str | None, list[str]]]:
    """The sections of a Markdown text: ``(heading line, paragraphs)``, the heading line
    included as the first paragraph. A heading with no text of its own (``# Title`` right
    before ``## Part``) joins the next section. ``#`` lines inside code fences are not
    headings, and a fenced block is one paragraph."""
    text = _FRONT_MATTER.sub("", text.replace("\r\n", "\n"), count=1)
    sections: list[tuple[str | None, list[str]]] = []
    heading: str | None = None
    paragraphs: list[str] = []
    current: list[str] = []
    fence: str | None = None
    has_body = False  # the section has text besides its heading(s)

    def end_paragraph() -> None:
        nonlocal has_body
        if any(line.strip() for line in current):
            paragraphs.append("\n".join(current).strip("\n"))
            has_body = True
        current.clear()

    for line in text.split("\n"):
        fence_match = _FENCE.match(line)
        if fence is not None:
            current.append(line)
            if fence_match and fence_match.group(1) == fence:
                fence = None
            continue
        if fence_match:
            fence = fence_match.group(1)
            current.append(line)
        elif _HEADING.match(line):
            end_paragraph()
            if has_body:
                sections.append((heading, paragraphs))
                paragraphs, has_body = [], False
            heading = line.strip()
            paragraphs.append(heading)
        elif not line.strip():
            end_paragraph()
        else:
            current.append(line)
    end_paragraph()
    if has_body:
        sections.append((heading, paragraphs))
    return sections


def text_paragraphs(text: str) -> list[str]:
    """The paragraphs of a plain text: runs of lines between blank lines."""
    blocks = re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n"))
    return [block.strip() for block in blocks if block.strip()]


def _pieces(paragraph: str, limit: int) -> Iterator[str]:
    """A paragraph in pieces no longer than ``limit``: whole, else by sentences, else words."""
    if len(paragraph) <= limit:
        yield paragraph
        return
    for sentence in _SENTENCE_END.split(paragraph):
        if len(sentence) <= limit:
            yield sentence
            continue
        line = ""
        for word in sentence.split():
            if line and len(line) + 1 + len(word) > limit:
                yield line
                line = ""
            line = f"{line} {word}" if line else word[:limit]
        if line:
            yield line


def _tail(text: str, overlap: int) -> str:
    """The last whole sentences of ``text`` that fit in ``overlap`` characters."""
    tail = ""
    for sentence in reversed(_SENTENCE_END.split(text.strip())):
        candidate = f"{sentence} {tail}".strip()
        if len(candidate) > overlap:
            break
        tail = candidate
    return tail


def pack(paragraphs: list[str], chunk_chars: int, overlap_chars: int) -> list[str]:
    """Paragraphs joined (by blank lines) into chunks of at most about ``chunk_chars``.

    Each chunk after the first starts with the overlap: the last sentences of the chunk
    before it, up to ``overlap_chars``.
    """
    chunks: list[str] = []
    parts: list[str] = []
    size = 0
    for paragraph in paragraphs:
        for piece in _pieces(paragraph, chunk_chars):
            if parts and size + 2 + len(piece) > chunk_chars:
                chunks.append("\n\n".join(parts))
                tail = _tail(chunks[-1], overlap_chars) if overlap_chars > 0 else ""
                parts = [tail] if tail and tail != piece else []
                size = len(tail) if parts else 0
            parts.append(piece)
            size += len(piece) + (2 if len(parts) > 1 else 0)
    if parts:
        chunks.append("\n\n".join(parts))
    return chunks


def chunk_document(
    source: str,
    text: str,
    *,
    markdown: bool,
    chunk_chars: int = DEFAULT_CHUNK_CHARS,
    overlap_chars: int = DEFAULT_OVERLAP_CHARS,
) -> list[Chunk]:
    """The chunks of one document, named ``source#0``, ``source#1``, …"""
    if chunk_chars < 50:
        raise ValueError(f"chunk_chars must be at least 50, got {chunk_chars}")
    sections = markdown_sections(text) if markdown else [(None, text_paragraphs(text))]
    texts: list[tuple[str | None, str]] = []
    for heading, paragraphs in sections:
        title = heading.lstrip(" #").strip() if heading else None
        texts.extend((title, piece) for piece in pack(paragraphs, chunk_chars, overlap_chars))
    return [
        Chunk(id=f"{source}#{index}", source=source, index=index, text=body, heading=title)
        for index, (title, body) in enumerate(texts)
    ]


def document_files(root: Path) -> list[Path]:
    """The ``.txt``, ``.md`` and ``.markdown`` files under ``root`` (or ``root`` itself),
    hidden files and folders left out, sorted by path."""
    if root.is_file():
        return [root]
    suffixes = MARKDOWN_SUFFIXES | TEXT_SUFFIXES
    return sorted(
        path
        for path in root.rglob("*")
        if path.is_file()
        and path.suffix.lower() in suffixes
        and not any(part.startswith(".") for part in path.relative_to(root).parts)
    )


def load_chunks(
    docs: str | Path,
    *,
    chunk_chars: int = DEFAULT_CHUNK_CHARS,
    overlap_chars: int = DEFAULT_OVERLAP_CHARS,
) -> list[Chunk]:
    """Every chunk of every document under ``docs``, in path order.

    Raises ``FileNotFoundError`` when ``docs`` does not exist, ``ValueError`` when it
    holds no document with text.
    """
    root = Path(docs)
    if not root.exists():
        raise FileNotFoundError(f"{docs}: no such folder")
    chunks: list[Chunk] = []
    for path in document_files(root):
        source = path.name if path == root else path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        markdown = path.suffix.lower() in MARKDOWN_SUFFIXES
        sizes = {"chunk_chars": chunk_chars, "overlap_chars": overlap_chars}
        chunks.extend(chunk_document(source, text, markdown=markdown, **sizes))
    if not chunks:
        raise ValueError(f"{docs}: no .txt, .md or .markdown document with text")
    return chunks
