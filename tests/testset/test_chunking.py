"""Chunking documents: Markdown by headings then paragraphs, packing, overlap, folders."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from veracity.testset import chunk_document, load_chunks, markdown_sections
from veracity.testset.chunking import pack

MANUAL = """---
title: front matter is not content
---
# Orbit Lamp

## Battery

The battery lasts 40 hours.

It charges in 3 hours.

## Code sample

```bash
# this is a comment, not a heading

lamp --status
```

## Empty heading
### Colours
There are 16 presets.
"""


def test_markdown_is_split_on_headings_then_paragraphs() -> None:
    sections = markdown_sections(MANUAL)
    assert [heading for heading, _ in sections] == ["## Battery", "## Code sample", "### Colours"]
    battery = sections[0][1]
    # A heading with no text of its own joins the next section.
    assert battery == [
        "# Orbit Lamp", "## Battery", "The battery lasts 40 hours.", "It charges in 3 hours."
    ]  # fmt: skip
    # A fenced block is one paragraph, and '#' inside it is no heading.
    assert sections[1][1][1].startswith("```bash\n# this is a comment")
    assert sections[2][1] == ["## Empty heading", "### Colours", "There are 16 presets."]
    assert "front matter" not in str(sections)


def test_every_heading_starts_a_new_chunk_with_ids_from_file_and_index() -> None:
    chunks = chunk_document("guide/lamp.md", MANUAL, markdown=True, chunk_chars=1000)
    assert [c.id for c in chunks] == ["guide/lamp.md#0", "guide/lamp.md#1", "guide/lamp.md#2"]
    assert [c.heading for c in chunks] == ["Battery", "Code sample", "Colours"]
    assert chunks[0].text.startswith("# Orbit Lamp\n\n## Battery\n\nThe battery lasts 40 hours.")
    assert chunks[2].source == "guide/lamp.md" and chunks[2].index == 2


def test_a_long_section_is_packed_into_chunks_with_an_overlap() -> None:
    sentences = [f"Sentence number {n} says something about the lamp." for n in range(30)]
    text = "## Long\n\n" + "\n\n".join(" ".join(sentences[i : i + 3]) for i in range(0, 30, 3))
    chunks = chunk_document("long.md", text, markdown=True, chunk_chars=400, overlap_chars=60)
    assert len(chunks) > 3
    assert all(len(c.text) <= 400 for c in chunks)
    for before, after in itertools.pairwise(chunks):
        last_sentence = before.text.rsplit(". ", 1)[-1]
        assert after.text.startswith(last_sentence)  # the overlap
    joined = " ".join(c.text for c in chunks)
    assert all(sentence in joined for sentence in sentences)  # nothing lost


def test_pack_cuts_an_overlong_paragraph_at_sentences_then_words() -> None:
    long_sentence = "word " * 80
    chunks = pack(["Short one. Another one.", long_sentence.strip()], 100, 0)
    assert all(len(chunk) <= 100 for chunk in chunks)
    assert " ".join(chunks).split() == ["Short", "one.", "Another", "one.", *["word"] * 80]


def test_plain_text_is_split_on_blank_lines_and_packed() -> None:
    text = "First paragraph here.\n\nSecond paragraph.\n\n\n" + "x " * 200
    chunks = chunk_document("notes.txt", text, markdown=False, chunk_chars=100)
    assert chunks[0].text == "First paragraph here.\n\nSecond paragraph."
    assert chunks[0].heading is None
    assert len(chunks) >= 4


def test_a_folder_gives_the_chunks_of_its_documents_in_path_order(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("# B\n\nAbout b.\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.markdown").write_text("About a.\n")
    (tmp_path / "c.txt").write_text("About c.\n")
    (tmp_path / "d.pdf").write_text("ignored")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "e.md").write_text("ignored")
    (tmp_path / "empty.md").write_text("\n\n")
    chunks = load_chunks(tmp_path)
    assert [c.id for c in chunks] == ["b.md#0", "c.txt#0", "sub/a.markdown#0"]


def test_missing_or_empty_folders_are_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_chunks(tmp_path / "missing")
    with pytest.raises(ValueError, match=r"no \.txt, \.md or \.markdown"):
        load_chunks(tmp_path)


def test_the_bundled_example_documents_chunk() -> None:
    folder = Path(__file__).parents[2] / "src" / "veracity" / "examples" / "docs"
    chunks = load_chunks(folder)
    assert len({c.source for c in chunks}) >= 4
    assert all(c.text.strip() for c in chunks)
    assert len({c.id for c in chunks}) == len(chunks)
