"""A headless Chromium driven over the DevTools protocol, with nothing but the standard library.

Chromium is started with ``--remote-debugging-pipe``: it reads protocol messages
(NUL-terminated JSON) on file descriptor 3 and writes replies and events on 4, so no
websocket client and no open port are needed. One page is opened and attached with a
flat session; every event is recorded for the tests to inspect.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

EXECUTABLES = ("chromium", "chromium-browser")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--no-first-run",
    "--no-default-browser-check",
    "--mute-audio",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    return next((path for name in EXECUTABLES if (path := shutil.which(name))), None)


def _high_pipe() -> tuple[int, int]:
    """A pipe whose ends are numbered 10 or more, so they never collide with 3 and 4."""
    ends = []
    for fd in os.pipe():
        ends.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
        os.close(fd)
    return ends[0], ends[1]


class BrowserError(RuntimeError):
    pass


class Chromium:
    """One headless browser with one page. Use as a context manager."""

    def __init__(self, executable: str, *, timeout_s: float = 30.0) -> None:
        self.executable = executable
        self.timeout_s = timeout_s
        self.events: list[dict[str, Any]] = []
        self._replies: dict[int, dict[str, Any]] = {}
        self._cond = threading.Condition()
        self._next_id = 0
        self._session: str | None = None
        self._profile = tempfile.TemporaryDirectory(prefix="veracity-chromium-")
        self._pid: int | None = None
        self._exited = False

    # lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> Chromium:
        to_browser_r, self._to_browser = _high_pipe()
        self._from_browser, from_browser_w = _high_pipe()
        argv = [self.executable, *FLAGS, f"--user-data-dir={self._profile.name}", "about:blank"]
        # The pipe ends become the child's descriptors 3 and 4 (dup2 clears close-on-exec;
        # every other descriptor of ours is close-on-exec, Python's default).
        self._pid = os.posix_spawn(
            self.executable,
            argv,
            dict(os.environ),
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_DUP2, to_browser_r, 3),
                (os.POSIX_SPAWN_DUP2, from_browser_w, 4),
            ],
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        threading.Thread(target=self._read, daemon=True).start()
        try:
            self._attach()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _attach(self) -> None:
        target = self.send("Target.createTarget", url="about:blank", session=False)["targetId"]
        attached = self.send("Target.attachToTarget", targetId=target, flatten=True, session=False)
        self._session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=1280, height=900, deviceScaleFactor=1, mobile=False,
        )  # fmt: skip

    def __exit__(self, *exc: object) -> None:
        if self._pid is not None:
            with contextlib.suppress(BrowserError, OSError):
                self.send("Browser.close", session=False)
            if not self._reaped(10.0):
                os.kill(self._pid, signal.SIGKILL)
                os.waitpid(self._pid, 0)
            self._pid = None
        os.close(self._to_browser)
        self._profile.cleanup()

    # protocol ----------------------------------------------------------------------------

    def _read(self) -> None:
        buffer = b""
        while chunk := os.read(self._from_browser, 1 << 16):
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                message = json.loads(raw)
                with self._cond:
                    if "id" in message:
                        self._replies[message["id"]] = message
                    else:
                        self.events.append(message)
                        if message.get("method") == "Page.javascriptDialogOpening":
                            # Answer later, outside the reader: a dialog blocks the page.
                            threading.Thread(target=self._dismiss, daemon=True).start()
                    self._cond.notify_all()
        os.close(self._from_browser)
        with self._cond:
            self._exited = True  # the browser closed its end: it is gone
            self._cond.notify_all()

    def _reaped(self, timeout_s: float) -> bool:
        assert self._pid is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if os.waitpid(self._pid, os.WNOHANG)[0]:
                return True
            time.sleep(0.05)
        return False

    def _dismiss(self) -> None:
        with contextlib.suppress(BrowserError):
            self.send("Page.handleJavaScriptDialog", accept=False)

    def send(self, method: str, *, session: bool = True, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its reply; a protocol error raises."""
        with self._cond:
            self._next_id += 1
            ident = self._next_id
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if session and self._session is not None:
            message["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        reply = self._wait(lambda: self._replies.pop(ident, None), f"a reply to {method}")
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def _wait(self, found: Callable[[], Any], what: str) -> Any:
        deadline = time.monotonic() + self.timeout_s
        with self._cond:
            while (value := found()) is None:
                left = deadline - time.monotonic()
                if left <= 0 or self._exited:
                    raise BrowserError(f"chromium gave no {what} within {self.timeout_s:g} s")
                self._cond.wait(min(left, 0.5))
        return value

    def wait_event(self, method: str, after: int = 0) -> dict[str, Any]:
        """The first event named ``method`` among those recorded from index ``after`` on."""

        def first() -> dict[str, Any] | None:
            return next((e for e in self.events[after:] if e.get("method") == method), None)

        event: dict[str, Any] = self._wait(first, f"{method} event")
        return event

    def named(self, method: str) -> list[dict[str, Any]]:
        with self._cond:
            return [e["params"] for e in self.events if e.get("method") == method]

    # page --------------------------------------------------------------------------------

    def open(self, url: str) -> None:
        """Navigate and wait for the load event."""
        mark = len(self.events)
        self.send("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired", mark)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (exceptions raise)."""
        reply = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression!r} threw: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def screenshot(self, path: Path, *, full_page: bool = False) -> Path:
        data = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=full_page)
        path.write_bytes(base64.b64decode(data["data"]))
        return path

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries (CSP violations too)."""
        errors = [
            json.dumps(p.get("args")) for p in self.named("Runtime.consoleAPICalled")
            if p.get("type") in ("error", "assert")
        ]  # fmt: skip
        errors += [json.dumps(p["exceptionDetails"]) for p in self.named("Runtime.exceptionThrown")]
        errors += [
            f"{p['entry'].get('source')}: {p['entry'].get('text')}"
            for p in self.named("Log.entryAdded")
            if p["entry"].get("level") == "error"
        ]
        return errors

    def requested_urls(self) -> list[str]:
        return [p["request"]["url"] for p in self.named("Network.requestWillBeSent")]
