"""The default sentence model in a child process of its own.

Every torch operation of a forward pass releases the GIL and then waits for it again:
beside one busy Python thread (the offline judge's segmentation and features), each
wait lasts up to the interpreter's switch interval, and encoding took ten times as long
as alone. In a child process the model has a GIL of its own and the parent's Python
runs beside it on the other core.

The child is started with ``spawn`` (never ``fork``: the parent may hold torch's threads,
and a notebook's or a Ray worker's state is not the child's business) and runs
:class:`~veracity.embeddings.minilm.MiniLM` exactly as in process, so the vectors are the
same bit for bit. It reads requests from a pipe and exits when the pipe closes: when
the parent closes it or dies, so a killed parent leaves no child behind. A child that
dies is noticed by the parent the same way (the pipe closes) and reported as a
:class:`~veracity.embeddings.base.ModelOutputError`; the next call starts a new child.
"""

from __future__ import annotations

import multiprocessing
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


def _serve(
    pipe: Connection,
    model_dir: str,
    threads: int | None,
    device: str,
    precision: PrecisionChoice,
) -> None:
    """The child: load the model, then answer ``(kind, texts)`` requests until the pipe
    closes."""
    try:
        resolved = resolve_precision(precision, device)
        model = MiniLM(Path(model_dir), threads=threads, device=device, precision=resolved)
    except Exception as exc:
        pipe.send(("error", exc if isinstance(exc, _PASSED_ON) else _describe(exc)))
        return
    pipe.send(("ready", (model.dimension, model.max_tokens, resolved)))
    while True:
        try:
            kind, texts = pipe.recv()
        except (EOFError, OSError):
            return  # the parent closed the pipe, or is gone
        try:
            result: Any = model.encode(texts) if kind == "encode" else model.cut(texts)
        except Exception as exc:
            reply: tuple[str, Any] = ("error", _describe(exc))
        else:
            reply = ("ok", result)
        try:
            pipe.send(reply)
        except (BrokenPipeError, OSError):
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
        self._process: multiprocessing.process.BaseProcess | None = None
        self._pipe: Connection | None = None
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
            pipe = self._ensure_child()
            try:
                pipe.send((kind, texts))
                status, value = pipe.recv()
            except (EOFError, OSError) as exc:
                code = self._stop()
                raise ModelOutputError(
                    f"the embedding model's process (all-MiniLM-L6-v2) ended while encoding "
                    f"{len(texts)} texts (exit code {code}); the next call starts a new one"
                ) from exc
            if status != "ok":
                raise ModelOutputError(f"the embedding model failed: {value}")
            return value

    def _ensure_child(self) -> Connection:
        if self._pipe is not None:
            return self._pipe
        context = multiprocessing.get_context("spawn")
        parent_end, child_end = context.Pipe()
        process = context.Process(
            target=_serve,
            args=(
                child_end,
                str(self.model_dir),
                self.threads,
                self.device,
                self._precision_choice,
            ),
            name="veracity-minilm",
            # Stopped by multiprocessing at the interpreter's exit if close() was not called.
            daemon=True,
        )
        process.start()
        # Only the child holds its end now: its exit closes the pipe for the parent.
        child_end.close()
        self._process, self._pipe = process, parent_end
        try:
            status, value = parent_end.recv()
        except (EOFError, OSError) as exc:
            code = self._stop()
            raise ModelOutputError(
                f"the embedding model's process (all-MiniLM-L6-v2) ended while loading "
                f"the model (exit code {code})"
            ) from exc
        if status != "ready":
            self._stop()
            if isinstance(value, _PASSED_ON):
                raise value
            raise ModelOutputError(f"the embedding model could not be loaded: {value}")
        self._shape = value
        return parent_end

    def _stop(self) -> int | None:
        """Close the pipe and wait for the child; its exit code."""
        pipe, process = self._pipe, self._process
        self._pipe = self._process = None
        if pipe is not None:
            pipe.close()
        if process is None:
            return None
        process.join(timeout=10)
        if process.is_alive():  # busy on a long batch: its result is not wanted
            process.kill()
            process.join()
        code = process.exitcode
        process.close()
        return code
