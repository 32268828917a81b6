"""A headless Chromium driven over the DevTools protocol, for the report's browser tests.

Transport: ``--remote-debugging-pipe`` (the protocol as NUL-separated JSON on file descriptors
3 and 4, what Playwright and Puppeteer's ``pipe: true`` use). Why not a websocket client or
Playwright: no dependency at all, no port to pick or race for, and the browser dies with its
pipes. The flags are those known to run offline on these machines (no background networking,
no component updates, no QUIC), plus a fresh profile per browser.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
         "--remote-debugging-pipe")


def find_chromium() -> str | None:
    """The Chromium binary (``$BENCH_KERNEL_CHROMIUM``, else Debian's), or None."""
    env = os.environ.get("BENCH_KERNEL_CHROMIUM")
    for path in ((env,) if env else ()) + CHROMIUM_PATHS:
        if path and os.access(path, os.X_OK):
            return path
    return shutil.which("chromium")


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless browser with one page; every network request the page makes is recorded."""

    def __init__(self, binary: str, width: int = 1280, height: int = 900, timeout_s: float = 30.0) -> None:
        self.timeout_s = timeout_s
        self.profile = tempfile.mkdtemp(prefix="bk-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def child_fds() -> None:
            # The protocol expects its pipes on fds 3 (in) and 4 (out). Move both above 9 first,
            # so that placing one cannot overwrite the other; dup2 leaves them inheritable.
            high_in, high_out = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(high_in, 3)
            os.dup2(high_out, 4)

        # close_fds=False: it would close 3 and 4 after child_fds ran; every other fd Python opened
        # is non-inheritable anyway (PEP 446).
        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buf = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.requests: list[str] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Network", "Runtime"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    # -- protocol ---------------------------------------------------------------------------
    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise BrowserError("no answer from the browser in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError(f"the browser closed its pipe (exit status {self.proc.poll()})")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        msg = json.loads(raw)
        if msg.get("method") == "Network.requestWillBeSent":
            self.requests.append(msg["params"]["request"]["url"])
        if "method" in msg:
            self.events.append(msg)
        return msg

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer (events that arrive meanwhile are kept)."""
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def wait_for(self, event: str) -> dict[str, Any]:
        """The first event named ``event`` not seen yet (already received, or the next to come)."""
        deadline = time.monotonic() + self.timeout_s
        seen = 0
        while True:
            for i in range(seen, len(self.events)):
                if self.events[i]["method"] == event:
                    return self.events.pop(i)
            seen = len(self.events)
            self._read_message(deadline)

    # -- what the tests do ------------------------------------------------------------------
    def open(self, path: Path) -> None:
        """Navigate to ``path`` and wait for its load event; ``requests`` then holds this page's only."""
        self.events.clear()
        self.requests.clear()
        self.call("Page.navigate", session=True, url=path.resolve().as_uri())
        self.wait_for("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able values only)."""
        out = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True,
                        awaitPromise=True)
        if "exceptionDetails" in out:
            raise BrowserError(f"{expression[:80]}: {out['exceptionDetails'].get('text')}")
        return out["result"].get("value")

    def click(self, x: float, y: float) -> None:
        """A real left click at page coordinates (CSS pixels of the viewport)."""
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", session=True, type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, clip: dict[str, float] | None = None) -> bytes:
        """PNG bytes of the viewport, or of ``clip`` ({x, y, width, height} in page pixels)."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": True}
        if clip:
            params["clip"] = dict(clip, scale=1)
        return base64.b64decode(self.call("Page.captureScreenshot", session=True, **params)["data"])

    def set_viewport(self, width: int, height: int) -> None:
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
