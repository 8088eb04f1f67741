"""The default sentence model in a child process of its own.

Every torch operation of a forward pass releases the GIL and then waits for it again:
beside one busy Python thread (the offline judge's segmentation and features), each
wait lasts up to the interpreter's switch interval, and encoding took ten times as long
as alone. In a child process the model has a GIL of its own and the parent's Python
runs beside it on the other core.

The child is a fresh interpreter (never a ``fork``: the parent may hold torch's threads),
started with :mod:`subprocess` rather than multiprocessing's ``spawn``, which runs the
caller's main script again in the child (a script without an ``if __name__ ==
"__main__"`` guard would evaluate twice, then fail). It runs
:class:`~veracity.embeddings.minilm.MiniLM` exactly as in process, so the vectors are the
same bit for bit. It reads requests from a pipe and exits when the pipe closes: when
the parent closes it or dies, so a killed parent leaves no child behind. A child that
dies is noticed by the parent the same way (the pipe closes) and reported as a
:class:`~veracity.embeddings.base.ModelOutputError`; the next call starts a new child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veracity.embeddings.base import ModelOutputError
from veracity.embeddings.minilm import MiniLM, Precision, PrecisionChoice, resolve_precision
from veracity.embeddings.weights import ModelIntegrityError, ModelSpecError

# What a failed start raises in the parent as itself (the model's files, the settings);
# anything else becomes a ModelOutputError naming it.
_PASSED_ON = (ModelIntegrityError, ModelSpecError)
# The child's pipes are handed over as inherited descriptors (``pass_fds``), which only
# POSIX has: elsewhere the model stays in the caller's process.
CHILD_SUPPORTED = os.name == "posix"


def main() -> None:
    """The child's entry: ``python -c "…main()" READ_FD WRITE_FD SETTINGS_JSON``."""
    read_fd, write_fd, settings = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
    _serve(Connection(read_fd, writable=False), Connection(write_fd, readable=False), **settings)


def _serve(
    requests: Connection,
    replies: Connection,
    *,
    model_dir: str,
    threads: int | None,
    device: str,
    precision: PrecisionChoice,
) -> None:
    """Load the model, then answer ``(kind, texts)`` requests until the pipe closes."""
    try:
        resolved = resolve_precision(precision, device)
        model = MiniLM(Path(model_dir), threads=threads, device=device, precision=resolved)
    except Exception as exc:
        replies.send(("error", exc if isinstance(exc, _PASSED_ON) else _describe(exc)))
        return
    replies.send(("ready", (model.dimension, model.max_tokens, resolved)))
    while True:
        try:
            kind, texts = requests.recv()
        except (EOFError, OSError):
            return  # the parent closed the pipe, or is gone
        try:
            result: Any = model.encode(texts) if kind == "encode" else model.cut(texts)
        except Exception as exc:
            reply: tuple[str, Any] = ("error", _describe(exc))
        else:
            reply = ("ok", result)
        try:
            replies.send(reply)
        except OSError:
            return


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


_shared: dict[tuple[Path, int | None, str, PrecisionChoice], MiniLMProcess] = {}
_shared_lock = threading.Lock()


def shared_minilm_process(
    model_dir: Path, *, threads: int | None = None, device: str = "cpu", precision: PrecisionChoice
) -> MiniLMProcess:
    """The parent's one :class:`MiniLMProcess` of ``model_dir`` (and settings): default
    embedders share one child, as in process they share one model."""
    key = (model_dir.resolve(), threads, device, precision)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = MiniLMProcess(
                model_dir, threads=threads, device=device, precision=precision
            )
        return _shared[key]


class MiniLMProcess:
    """:class:`~veracity.embeddings.minilm.MiniLM`'s :meth:`encode` and :meth:`cut`,
    computed in a child process started on first use and stopped by :meth:`close`.

    Calls are answered one at a time, in order (one pipe): the embedder's micro-batcher
    already merges concurrent requests into one call. The parent imports neither torch
    nor the weights.
    """

    def __init__(
        self,
        model_dir: Path,
        *,
        threads: int | None = None,
        device: str = "cpu",
        precision: PrecisionChoice = "auto",
    ) -> None:
        self.model_dir = model_dir
        self.threads = threads
        self.device = device
        self._precision_choice = precision
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._pipe: tuple[Connection, Connection] | None = None
        self._shape: tuple[int, int, Precision] | None = None

    @property
    def pid(self) -> int | None:
        """The running child's process id (``None`` before the first call or after
        :meth:`close`)."""
        return self._process.pid if self._process is not None else None

    @property
    def dimension(self) -> int:
        return self._started()[0]

    @property
    def max_tokens(self) -> int:
        return self._started()[1]

    @property
    def precision(self) -> Precision:
        return self._started()[2]

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """What :meth:`MiniLM.encode` gives for ``texts``, from the child."""
        return np.asarray(self._ask("encode", list(texts)), dtype=np.float32)

    def cut(self, texts: Sequence[str]) -> list[bool]:
        return list(self._ask("cut", list(texts)))

    def close(self) -> None:
        """Stop the child (it exits when its pipe closes; a later call starts a new one)."""
        with self._lock:
            self._stop()

    # ------------------------------------------------------------------------------------

    def _started(self) -> tuple[int, int, Precision]:
        with self._lock:
            self._ensure_child()
            assert self._shape is not None
            return self._shape

    def _ask(self, kind: str, texts: list[str]) -> Any:
        with self._lock:
            requests, replies = self._ensure_child()
            # A child that dies while encoding is replaced at the next call.
            doing = f"encoding {len(texts)} texts; the next call starts a new one"
            try:
                requests.send((kind, texts))
            except OSError as exc:
                raise self._ended(doing) from exc
            status, value = self._received(replies, doing)
            if status != "ok":
                raise ModelOutputError(f"the embedding model failed: {value}")
            return value

    def _ensure_child(self) -> tuple[Connection, Connection]:
        if self._pipe is not None:
            return self._pipe
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        settings = {
            "model_dir": str(self.model_dir),
            "threads": self.threads,
            "device": self.device,
            "precision": self._precision_choice,
        }
        # The child finds veracity where this process found it.
        package_root = str(Path(__file__).resolve().parents[2])
        paths = [package_root, *filter(None, [os.environ.get("PYTHONPATH")])]
        try:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    f"from {__name__} import main; main()",
                    str(request_read),
                    str(reply_write),
                    json.dumps(settings),
                ],
                pass_fds=(request_read, reply_write),
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
            )
        finally:
            # Only the child holds its ends now: its exit closes the pipes for the parent,
            # and the parent's exit (even killed) closes them for the child.
            os.close(request_read)
            os.close(reply_write)
        requests = Connection(request_write, readable=False)
        replies = Connection(reply_read, writable=False)
        self._process, self._pipe = process, (requests, replies)
        status, value = self._received(replies, "loading the model")
        if status != "ready":
            self._stop()
            if isinstance(value, _PASSED_ON):
                raise value
            raise ModelOutputError(f"the embedding model could not be loaded: {value}")
        self._shape = value
        return self._pipe

    def _received(self, replies: Connection, doing: str) -> tuple[str, Any]:
        """The child's next reply; its end, while ``doing``, as an error with a reason."""
        try:
            status, value = replies.recv()
        except (EOFError, OSError) as exc:
            raise self._ended(doing) from exc
        return status, value

    def _ended(self, doing: str) -> ModelOutputError:
        code = self._stop()
        return ModelOutputError(
            f"the embedding model's process (all-MiniLM-L6-v2) ended (exit code {code}) "
            f"while {doing}"
        )

    def _stop(self) -> int | None:
        """Close the pipes and wait for the child; its exit code."""
        pipe, process = self._pipe, self._process
        self._pipe = self._process = None
        if pipe is not None:
            for end in pipe:
                end.close()
        if process is None:
            return None
        try:
            return process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # busy on a long batch: its result is not wanted
            process.kill()
            return process.wait()
