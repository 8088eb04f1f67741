"""The lifecycle every fake server shares: a free loopback port, a daemon thread serving
it, a prompt stop that closes kept-alive connections, and the ``with`` form."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

from veracity.testing._backend import CountingBackend
from veracity.testing._http import LLMHTTPServer, ServesRequests
from veracity.testing.faults import FaultInjector, Faults
from veracity.testing.stats import RequestCounters

_STOP_TIMEOUT_S = 5.0


B = TypeVar("B", bound=CountingBackend[RequestCounters])


class LoopbackServer(Generic[B]):
    """Serves ``backend`` (bytes in, a reply out) on ``127.0.0.1`` at a free port.

    Subclasses give the fakes their behaviour; this holds starting and stopping, and what
    every fake's backend has: faults, counters and the recorded requests.
    """

    def __init__(self, backend: B) -> None:
        self._backend = backend
        self._serving: ServesRequests = backend
        self._lock = threading.Lock()
        self._httpd: LLMHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> Self:
        """Bind a free loopback port and serve in a daemon thread; returns ``self``."""
        with self._lock:
            if self._httpd is not None:
                raise RuntimeError(f"{type(self).__name__} is already running")
            self._serving.stopping.clear()
            httpd = LLMHTTPServer(self._serving)
            thread = threading.Thread(
                target=httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"veracity-fake-llm-{httpd.port}",
                daemon=True,
            )
            thread.start()
            self._httpd, self._thread = httpd, thread
        return self

    def stop(self) -> None:
        """Stop serving and close every connection, open keep-alive ones included.

        Requests still waiting out their latency are cut short. Idempotent.
        """
        with self._lock:
            httpd, thread = self._httpd, self._thread
            self._httpd = self._thread = None
        if httpd is None or thread is None:
            return
        self._serving.stopping.set()
        httpd.shutdown()
        httpd.server_close()
        httpd.close_connections()
        thread.join(_STOP_TIMEOUT_S)
        httpd.join_handlers(_STOP_TIMEOUT_S)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def faults(self) -> Faults:
        return self._backend.injector.faults

    @faults.setter
    def faults(self, faults: Faults) -> None:
        """Switch faults while running (the RNG restarts from the seed, the bucket full)."""
        self._backend.injector = FaultInjector(faults, self._backend.seed)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of the requests received, in arrival order (a copy)."""
        return self._backend.stats.bodies()

    def reset_stats(self) -> None:
        """Zero the counters and forget the recorded requests."""
        self._backend.stats.reset()

    @property
    def running(self) -> bool:
        return self._httpd is not None

    @property
    def port(self) -> int:
        httpd = self._httpd
        if httpd is None:
            name = type(self).__name__
            raise RuntimeError(f"{name} is not running: call start() or use `with`")
        return httpd.port

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT``, the server's root."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """``…/v1``, as the OpenAI SDK wants it (it appends ``/chat/completions``)."""
        return f"{self.root_url}/v1"
