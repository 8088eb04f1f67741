"""Hostile inputs end as located bad rows or a LabelError, never a crash, and a large file
reads in seconds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.labels.conftest import WriteFile, WriteRows
from veracity.labels import LabelError, read_labels
from veracity.labels.agreement import PAIR_LIMIT

GOOD = '{"id": "ok", "faithfulness": 1}\n'


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_damaged_jsonl_lines(write_file: WriteFile) -> None:
    path = write_file(
        "labels.jsonl",
        b"\xef\xbb\xbf"  # a BOM is not part of the first row
        + GOOD.encode()
        + b'{"id": "a", "faithfulness": \n'
        + b'{"id": "b", "faithfulness": NaN}\n'
        + b'{"id": "c\xff", "faithfulness": 1}\n'
        + b"\n"
        + b'{"id": "d", "faithfulness": Infinity}\n'
        + b'{"id": "e", "faithfulness": 1',
    )
    labels = read_labels(path)
    assert [i.sample_id for i in labels.items] == ["ok"]
    assert [(b.line, b.message.split(":")[0]) for b in labels.bad_rows] == [
        (2, "invalid JSON"),
        (3, "invalid JSON"),
        (4, "undecodable bytes (not UTF-8)"),
        (6, "invalid JSON"),
        (7, "invalid JSON"),
    ]
    assert labels.rows == 6  # the blank line is no row


@pytest.mark.parametrize("levels", [2_000, 200_000])
def test_deeply_nested_rows(write_file: WriteFile, levels: int) -> None:
    nested = deep(levels)
    jsonl = write_file(
        "labels.jsonl",
        GOOD + f'{{"id": "a", "faithfulness": {nested}}}\n{nested}\n{{"id": {nested}}}\n',
    )
    labels = read_labels(jsonl)
    assert [str(b) for b in labels.bad_rows] == [
        f"{jsonl}:{line}: invalid JSON: nested too deeply" for line in (2, 3, 4)
    ]
    array = write_file(
        "labels.json",
        f'{{"labels": [{GOOD}, {{"id": "a", "faithfulness": {nested}}}, {nested}, '
        '{"id": "b", "label": 0}]}',
    )
    labels = read_labels(array)
    assert [i.sample_id for i in labels.items] == ["ok", "b"]
    assert [str(b) for b in labels.bad_rows] == [
        f"{array} item {item}: invalid JSON: nested more than 1000 levels deep" for item in (2, 3)
    ]
    csv = write_file(
        "labels.csv",
        f'id,label,contexts\nok,1,\na,"{nested}",\nb,"{{""x"": {nested}}}",\n,1,"{nested}"\n',
    )
    labels = read_labels(csv)
    assert [i.sample_id for i in labels.items] == ["ok"]
    assert [b.line for b in labels.bad_rows] == [3, 4, 5]
    assert "'label': '[[[" in labels.bad_rows[0].message
    assert labels.bad_rows[1].message == "field 'label': invalid JSON: nested too deeply"
    assert "field 'contexts': invalid JSON: nested too deeply" in labels.bad_rows[2].message


def test_deeply_nested_rows_in_memory() -> None:
    nested: object = []
    for _ in range(100_000):
        nested = [nested]
    labels = read_labels(
        [{"id": "ok", "faithfulness": 1}, {"id": nested}, {"id": "a", "label": {"x": nested}}]
    )
    assert labels.bad_rows[0].message == "field 'id' must be a string or an integer, got an array"
    assert labels.unlabelled == 1


def test_a_ten_megabyte_line(write_jsonl: WriteRows) -> None:
    huge = "x" * 10_000_000
    path = write_jsonl(
        {"id": "ok", "faithfulness": 1},
        {"id": huge, "faithfulness": 0},
        {"id": "a", "faithfulness": huge},
        {"id": "b", "notes": huge, "faithfulness": 1},
        {"id": "c", "helpfulness": huge},
    )
    labels = read_labels(path)
    assert [i.sample_id[:3] for i in labels.items] == ["ok", "xxx", "b"]
    (bad,) = labels.bad_rows
    assert bad.message == (
        f"field 'faithfulness': {'x' * 60!r}… is not a label (expected true/false, yes/no, "
        "pass/fail, a number, or empty for no label)"
    )
    assert set(labels.ignored) == {"notes", "helpfulness"}


def test_control_characters_are_shown_escaped(write_jsonl: WriteRows) -> None:
    ansi = "\x1b[31mred\x1b[0m\u202e\x00"
    path = write_jsonl(
        {"id": ansi, "annotator": ansi, "faithfulness": 1},
        {"id": ansi, "annotator": ansi, "faithfulness": 0},
        {"id": "b", "faithfulness": ansi},
        {"id": "c", "metric": ansi, "value": 1},
        {"id": "d", ansi: 1, "faithfulness": 1},
        {"id": "e", "label": {ansi: 1, "faithful": 0}},
    )
    labels = read_labels(path)
    assert [(i.sample_id, i.votes) for i in labels.items] == [
        (ansi, ((ansi, 1.0),)),
        ("d", ((None, 1.0),)),
        ("e", ((None, 0.0),)),
    ]
    messages = [str(b) for b in labels.bad_rows]
    assert len(messages) == 3
    for message in messages:
        assert "\x1b" not in message
        assert "\u202e" not in message
        assert "\x00" not in message
    assert r"'\x1b[31mred\x1b[0m\u202e\x00'" in messages[0]


def test_odd_types(write_jsonl: WriteRows) -> None:
    path = write_jsonl(
        {"id": "ok", "faithfulness": 1},
        {"id": ["a"], "faithfulness": 1},
        {"id": {"a": 1}, "faithfulness": 1},
        {"id": "a", "faithfulness": {"value": 1}},
        {"id": "b", "label": [True]},
        {"id": "c", "annotator": [1], "faithfulness": 1},
        {"id": 10**30, "faithfulness": 1},
    )
    labels = read_labels(path)
    assert [i.sample_id for i in labels.items] == ["ok", str(10**30)]
    assert len(labels.bad_rows) == 5
    # A huge number is no yes/no: with no scale declared, the whole file is refused.
    path.write_text(path.read_text() + '{"id": "d", "faithfulness": 1e30}\n')
    with pytest.raises(LabelError, match=r"from 1 to 1e\+30, the first at .*:8"):
        read_labels(path)


def test_all_rows_bad_is_a_label_error_listing_the_first(write_file: WriteFile) -> None:
    path = write_file(
        "labels.jsonl", "".join(f'{{"id": "{i}", "faithfulness": "?"}}\n' for i in range(5))
    )
    with pytest.raises(LabelError) as caught:
        read_labels(path)
    message = str(caught.value)
    assert message.startswith(f"no valid label in {path}: 5 bad row(s): {path}:1: field")
    assert message.endswith("(and 2 more)")
    assert len(caught.value.bad_rows) == 5


def test_csv_with_bom_and_undecodable_bytes(write_file: WriteFile) -> None:
    path = write_file(
        "labels.csv",
        b'\xef\xbb\xbfid,faithfulness\r\na,1\r\nb\xfe,0\r\n"c,1\r\n',
    )
    labels = read_labels(path)
    assert [i.sample_id for i in labels.items] == ["a"]
    assert labels.bad_rows[0].location == f"{path}:3"
    assert labels.bad_rows[0].message.startswith("undecodable bytes")


def test_a_hundred_thousand_rows_are_all_read(write_file: WriteFile) -> None:
    """How long it takes is benchmarks/labels_reading.py's, not a test's."""
    lines = [
        json.dumps({"id": f"s{i // 3}", "annotator": f"a{i % 3}", "faithfulness": (i * 7) % 5 < 2})
        for i in range(100_000)
    ]
    path = write_file("labels.jsonl", "\n".join(lines) + "\n")
    labels = read_labels(path)
    assert len(labels.items) == 33_334
    assert labels.inter_annotator["faithfulness"].pairs == 3


def test_one_item_labelled_by_thousands_stays_linear() -> None:
    annotators = int((2 * PAIR_LIMIT) ** 0.5) + 2  # past the pair limit on two items
    rows = [
        {"id": sample, "annotator": f"a{i}", "faithfulness": i % 2}
        for i in range(annotators)
        for sample in ("x", "y")
    ]
    labels = read_labels(rows)  # its time: benchmarks/labels_reading.py
    agreement = labels.inter_annotator["faithfulness"]
    assert (agreement.items, agreement.kappa, agreement.pairs) == (2, None, 0)
    assert agreement.raw_agreement is not None


def test_odd_values_only_memory_can_hold() -> None:
    huge = 10**5000
    labels = read_labels(
        [
            {"id": "ok", "label": {1: True, "faithful": 1}},
            {"id": huge, "faithfulness": 1},
            {"id": "a", "faithfulness": huge},
            {"id": "b", "faithfulness": np.array([1, 0])},
            {"id": "c", "faithfulness": np.float64(0.5), "correctness": np.bool_(True)},
        ]
    )
    assert [(i.sample_id, i.target, i.value) for i in labels.items] == [
        ("ok", "faithfulness", 1.0),
        ("c", "faithfulness", 0.5),
        ("c", "correctness", 1.0),
    ]
    assert [b.message for b in labels.bad_rows] == [
        "field 'id': an integer of 16610 bits is too long",
        "field 'faithfulness': an integer of 16610 bits is not a label (expected true/false, "
        "yes/no, pass/fail, a number, or empty for no label)",
        "field 'faithfulness': a ndarray is not a label (expected true/false, yes/no, "
        "pass/fail, a number, or empty for no label)",
    ]


def test_a_file_read_while_another_process_appends_to_it(write_file: WriteFile) -> None:
    """Readers racing a writer: each read sees whole rows, and a line half-written at the
    moment of reading is a bad row, never a crash."""
    import threading

    path = write_file("labels.jsonl", GOOD)
    stop = threading.Event()

    def append() -> None:
        n = 0
        with path.open("a", encoding="utf-8") as handle:
            while not stop.is_set() and n < 20_000:
                row = json.dumps({"id": f"s{n}", "faithfulness": n % 2})
                handle.write(row[:7])  # half a line, flushed, then the rest
                handle.flush()
                handle.write(row[7:] + "\n")
                handle.flush()
                n += 1

    writer = threading.Thread(target=append)
    writer.start()
    try:
        for _ in range(5):
            labels = read_labels(path)
            assert labels.rows >= 1
            assert all("invalid JSON" in row.message for row in labels.bad_rows)
    finally:
        stop.set()
        writer.join()
    final = read_labels(path)
    assert final.bad_rows == () and len(final.items) == final.rows


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_device_is_refused_by_name_not_read() -> None:
    with pytest.raises(LabelError, match="/dev/zero: labels file is not a regular file"):
        read_labels(Path("/dev/zero"))
