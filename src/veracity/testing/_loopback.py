"""The lifecycle every fake server shares: a free loopback port, a daemon thread serving
it, a prompt stop that closes kept-alive connections, and the ``with`` form."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Self

from veracity.testing._http import LLMHTTPServer, ServesRequests

_STOP_TIMEOUT_S = 5.0


class LoopbackServer:
    """Serves ``serving`` (bytes in, a reply out) on ``127.0.0.1`` at a free port.

    Subclasses give the fakes their behaviour; this holds only starting and stopping.
    """

    def __init__(self, serving: ServesRequests) -> None:
        self._serving = serving
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
