"""Scraping the server's Prometheus ``/metrics`` while a load point runs.

vLLM and SGLang (``--enable-metrics``) expose ``/metrics`` on the API port; ``transformers
serve`` has none (HTTP 404), and the run then says so. :func:`probe_metrics` asks once before the
first point; when it answers, a :class:`Scraper` thread fetches it every ``interval_s`` during each
point, from just before the first request to just after the last byte.

The thread only fetches and keeps the bytes (its HTTP read releases the GIL); parsing waits until
the point has ended, so the client's event loop, whose lateness the run measures, is not slowed by
it. A scrape that fails or times out is counted, never fatal.
"""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request

from bench_kernel.serve._prometheus import Family, parse_exposition
from bench_kernel.threads import start_background

__all__ = ["Scraper", "probe_metrics", "SCRAPE_INTERVAL_S", "metrics_url"]

#: Seconds between scrapes: Prometheus' own scrape intervals are 10-60 s, but a load point lasts
#: seconds to minutes, and a gauge (running, waiting, KV use) must be seen move within it. One GET of
#: vLLM's 55 kB exposition costs its API server a few ms: negligible at 1 s.
SCRAPE_INTERVAL_S = 1.0
#: Bytes read of one scrape at most (vLLM's is ~55 kB with one engine).
_MAX_BYTES = 8 << 20


def metrics_url(base_url: str) -> str:
    return base_url.rstrip("/") + "/metrics"


def _fetch(url: str, timeout_s: float) -> bytes:
    req = urllib.request.Request(url, headers={"Accept": "text/plain"})
    with urllib.request.urlopen(req, timeout=timeout_s) as r:  # noqa: S310 - the server the user named
        return r.read(_MAX_BYTES)


def probe_metrics(base_url: str, timeout_s: float = 5.0) -> str | None:
    """None when ``/metrics`` answers a Prometheus exposition, else why not (one line)."""
    url = metrics_url(base_url)
    try:
        body = _fetch(url, timeout_s)
    except urllib.error.HTTPError as e:
        return f"the server has no Prometheus metrics ({url} answered HTTP {e.code})"
    except (urllib.error.URLError, OSError) as e:
        return f"{url} did not answer ({getattr(e, 'reason', e)})"
    families, _ = parse_exposition(body.decode("utf-8", errors="replace"))
    if not families:
        return f"{url} answered, but not in the Prometheus text format"
    return None


class Scraper:
    """Fetch ``/metrics`` every ``interval_s`` in a thread; :meth:`stop` fetches once more and
    returns the scrapes parsed, each ``(t_s, families)`` with ``t_s`` in seconds from ``t0`` (the
    point's start on ``time.perf_counter``'s clock, known only once the first scrape is done)."""

    def __init__(self, base_url: str, interval_s: float = SCRAPE_INTERVAL_S, timeout_s: float = 2.0):
        self.url = metrics_url(base_url)
        self.interval_s = interval_s
        self.timeout_s = min(timeout_s, interval_s * 2)
        self.raw: list[tuple[float, bytes]] = []
        self.failed = 0
        self.bad_lines = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bench-kernel-metrics", daemon=True)

    def _once(self) -> None:
        t = time.perf_counter()
        try:
            body = _fetch(self.url, self.timeout_s)
        except (urllib.error.URLError, OSError, ValueError):
            self.failed += 1
            return
        # the middle of the request: the exposition was written somewhere between send and reply
        self.raw.append(((t + time.perf_counter()) / 2, body))

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._once()

    def start(self) -> "Scraper":
        self._once()  # the counters before the first request
        start_background(self._thread)
        return self

    def stop(self, t0: float) -> list[tuple[float, dict[str, Family]]]:
        self._stop.set()
        self._thread.join(timeout=self.timeout_s + 1)
        self._once()  # after the last byte: every counted token is in
        out = []
        for t, body in self.raw:
            families, bad = parse_exposition(body.decode("utf-8", errors="replace"))
            self.bad_lines += bad
            out.append((t - t0, families))
        self.raw = []
        return out
