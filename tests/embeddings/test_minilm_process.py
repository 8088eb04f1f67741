"""The default model in a process of its own: the same vectors as in process, a child
that dies reported and replaced, no child left behind."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from veracity.embeddings import LocalEmbedder, ModelOutputError, default_minilm_dir
from veracity.embeddings.minilm import MiniLM, resolve_precision
from veracity.embeddings.minilm_process import MiniLMProcess

TEXTS = [
    "A short one.",
    "The longest sentence of the lot sets the padded length of its batch. " * 8,
    *(f"Sentence {i} has{' quite a few more words' * (i % 7)} in it." for i in range(40)),
    "",  # empty: the model still reads [CLS] [SEP]
    "Control\x00characters\x07and\ttabs\r\nand a zero-width\u200bspace.",
]


def _gone(pid: int, within_s: float = 20.0) -> bool:
    """Whether process ``pid`` has exited (or been reaped) within ``within_s``."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def child() -> Iterator[MiniLMProcess]:
    model = MiniLMProcess(default_minilm_dir(), threads=2)
    yield model
    model.close()


def test_its_vectors_are_the_in_process_models_bit_for_bit(child: MiniLMProcess) -> None:
    in_process = MiniLM(default_minilm_dir(), threads=2, precision=child.precision)
    assert child.precision == resolve_precision("auto")
    np.testing.assert_array_equal(child.encode(TEXTS), in_process.encode(TEXTS))
    assert child.cut(TEXTS) == in_process.cut(TEXTS)
    assert child.dimension == in_process.dimension == 384
    in_process.close()


def test_a_huge_batch_comes_back_whole_and_in_order(child: MiniLMProcess) -> None:
    texts = [f"Row {i}{' more' * (i % 5)}." for i in range(3000)]
    vectors = child.encode(texts)
    assert vectors.shape == (3000, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Each row is its own text's: compare a few with the text encoded alone.
    for i in (0, 1, 777, 2999):
        np.testing.assert_allclose(vectors[i], child.encode([texts[i]])[0], atol=5e-3)


def test_concurrent_callers_get_their_own_vectors(child: MiniLMProcess) -> None:
    groups = [TEXTS[i : i + 7] for i in range(0, len(TEXTS), 7)]
    alone = [child.encode(group) for group in groups]
    got: dict[int, np.ndarray] = {}

    def ask(index: int) -> None:
        got[index] = child.encode(groups[index])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(groups))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, expected in enumerate(alone):
        np.testing.assert_array_equal(got[index], expected)


def test_a_killed_child_is_an_error_with_a_reason_and_the_next_call_starts_another(
    child: MiniLMProcess,
) -> None:
    child.encode(["Start it."])
    first = child.pid
    assert first is not None
    texts = [f"Long enough to keep it busy, number {i}. " * 20 for i in range(2000)]
    errors: list[Exception] = []

    def encode() -> None:
        try:
            child.encode(texts)
        except ModelOutputError as exc:
            errors.append(exc)

    caller = threading.Thread(target=encode)
    caller.start()
    time.sleep(1.0)  # mid-run
    os.kill(first, signal.SIGKILL)
    caller.join(timeout=30)
    assert not caller.is_alive()  # noticed, no hang
    assert len(errors) == 1
    assert "process" in str(errors[0]) and "ended" in str(errors[0])
    assert str(-signal.SIGKILL) in str(errors[0])  # the exit code says how it ended
    again = child.encode(["After the crash."])
    assert again.shape == (1, 384)
    assert child.pid not in (None, first)


def test_close_leaves_no_process(child: MiniLMProcess) -> None:
    child.encode(["Start it."])
    pid = child.pid
    assert pid is not None
    child.close()
    assert child.pid is None
    assert _gone(pid, within_s=1.0)


def test_the_child_exits_when_its_parent_is_killed(tmp_path: Path) -> None:
    # A script without an ``if __name__ == "__main__"`` guard: the child must not run it.
    script = tmp_path / "unguarded.py"
    script.write_text(
        textwrap.dedent(
            """
        import sys, time
        from veracity.embeddings import default_minilm_dir
        from veracity.embeddings.minilm_process import MiniLMProcess

        model = MiniLMProcess(default_minilm_dir())
        model.encode(["Started."])
        print(model.pid, flush=True)
        time.sleep(600)
        """
        )
    )
    parent = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=os.environ
    )
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        assert not _gone(pid, within_s=0.2)
        parent.kill()  # no atexit, no close(): only the pipe closing tells the child
        parent.wait()
        assert _gone(pid)
    finally:
        parent.kill()
        if parent.stdout is not None:
            parent.stdout.close()


def test_where_the_os_cannot_hand_the_pipes_over_the_model_stays_in_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from veracity.embeddings import local

    monkeypatch.setattr(local, "CHILD_SUPPORTED", False)
    embedder = local.LocalEmbedder()
    assert embedder.in_process
    vectors = asyncio.run(embedder.embed(["A short one."]))
    assert len(vectors) == 1 and embedder.model_pid is None
    asyncio.run(embedder.aclose())


def test_the_models_process_outlives_a_run_for_the_next_one() -> None:
    async def run() -> int | None:
        embedder = LocalEmbedder()
        await embedder.embed(["One run."])
        pid = embedder.model_pid
        await embedder.aclose()  # as a run ends
        return pid

    first, second = asyncio.run(run()), asyncio.run(run())
    assert first is not None and first == second  # loaded once, not per run
    assert not _gone(first, within_s=0.2)
