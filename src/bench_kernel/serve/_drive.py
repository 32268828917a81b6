"""The driver: send the prompts on schedule, read every stream, and account for every request.

One asyncio event loop, one aiohttp session. The client measures itself while it runs:
- **send lateness** per request: sent - max(due, concurrency slot free). Timers of asyncio wake up
  to 1 ms late (epoll counts milliseconds, rounded up), so a request is slept on until 2 ms before
  it is due and then yielded on (``sleep(0)``, other streams keep being read) until it is due;
- **event-loop lag**: a probe that asks to wake every 10 ms and records how late it woke. A busy
  loop reads chunks late, and that delay would otherwise be reported as the server's latency.

An abort (Ctrl-C, a launched server that exited, a server that stopped answering) stops sending;
requests in flight are ended and recorded as failed with the reason, requests never sent as
failed "not sent: ...": completed + failed is always the number of requests the run meant to send.
"""

from __future__ import annotations

import asyncio
import itertools
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from bench_kernel.records import Load, Note, RequestRecord
from bench_kernel.serve._client import Endpoint, Negotiation, send_request
from bench_kernel.serve._load import arrivals
from bench_kernel.serve._records import Prompt

__all__ = ["Outcome", "drive", "LAG_PROBE_S"]

#: The event-loop lag probe's period.
LAG_PROBE_S = 0.010
#: Sleep until this long before a request is due, then yield until it is (asyncio timer granularity).
_SPIN_S = 0.002
#: After a request could not connect, ask the server whether it is still there at most this often.
_PROBE_EVERY_S = 1.0


@dataclass(frozen=True)
class Outcome:
    """What one load point gave, before any statistic: every request's record and the client's own lag."""

    records: tuple[RequestRecord, ...]
    warmup: tuple[RequestRecord, ...]
    loop_lag_ms: tuple[float, ...]
    #: why the run stopped early (``interrupted``, ``the server exited ...``); None when it ran out
    aborted: str | None
    notes: tuple[Note, ...]
    #: the wall clock at the run's start (s since the epoch) and its duration (first due -> last byte)
    started_at: float
    duration_s: float
    #: what ``drive``'s ``observe`` gave back for the measured point (None without it)
    observed: Any = None


class _Abort:
    def __init__(self) -> None:
        self.reason: str | None = None
        self.event = asyncio.Event()

    def set(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
            self.event.set()


async def _probe_alive(session: Any, base_url: str) -> bool:
    import aiohttp

    try:
        async with session.get(base_url.rstrip("/") + "/v1/models", timeout=aiohttp.ClientTimeout(total=2)) as r:
            await r.read()
        return True
    except (aiohttp.ClientConnectorError, ConnectionError):
        return False
    except (aiohttp.ClientError, asyncio.TimeoutError):
        return True  # it answered, or is too busy to: not gone


async def _lag_probe(out: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(LAG_PROBE_S)
        out.append((time.perf_counter() - t - LAG_PROBE_S) * 1e3)


async def _wait_until(t_due: float, abort: _Abort) -> None:
    delay = t_due - time.perf_counter() - _SPIN_S
    if delay > 0:
        try:
            await asyncio.wait_for(abort.event.wait(), delay)
        except asyncio.TimeoutError:
            pass
    while time.perf_counter() < t_due and abort.reason is None:
        await asyncio.sleep(0)


def _not_sent(index: int, why: str, prompt: Prompt | None = None, turn: int = 0) -> RequestRecord:
    """A request of the run that was never sent: failed with the reason (nothing is dropped)."""
    return RequestRecord(index, "failed", f"not sent: {why}", None, None, None, None,
                         group=prompt.group if prompt else None, turn=turn)


def _next_messages(prompt: Prompt, history: list[dict[str, Any]], rec: RequestRecord, text: str) -> list[dict[str, Any]]:
    if not history:
        history.extend(prompt.messages or ({"role": "user", "content": prompt.text},))
    return history + [{"role": "assistant", "content": rec.output_text}, {"role": "user", "content": text}]


async def _run_point(session: Any, ep: Endpoint, prompts: Sequence[Prompt], load: Load, seed: int,
                     neg: Negotiation, abort: _Abort, alive: Callable[[], str | None] | None,
                     count_tokens: Callable[[str], int] | None, n: int | None,
                     observe: Callable[[], Callable[[float], Any]] | None = None,
                     ) -> tuple[list[RequestRecord], float, Any]:
    finish = observe() if observe is not None else None  # before t0: its first reading delays no request
    t0 = time.perf_counter()
    sem = asyncio.Semaphore(load.max_concurrency) if load.max_concurrency else None
    tasks: dict[int, asyncio.Task] = {}
    meta: dict[int, tuple[float, float, float]] = {}
    last_probe = [0.0]
    turn_ids = itertools.count(n if n is not None else len(prompts))  # ids of later turns, after the first turns'

    async def check_alive(rec: RequestRecord) -> None:
        if rec.error and rec.error.startswith(("cannot connect", "connection lost")):
            if alive is not None:
                why = alive()  # a launched server: ask its process, at once
                if why is not None:
                    abort.set(why)
            elif rec.error.startswith("cannot connect"):
                now = time.perf_counter()
                if now - last_probe[0] > _PROBE_EVERY_S:
                    last_probe[0] = now
                    if not await _probe_alive(session, ep.base_url):
                        abort.set(f"the server at {ep.base_url} stopped answering ({rec.error})")

    async def one(i: int, prompt: Prompt, due: float, ready: float) -> list[RequestRecord]:
        out: list[RequestRecord] = []
        history: list[dict[str, Any]] = []
        current, index = prompt, i
        try:
            for turn in range(1 + len(prompt.turns)):
                if turn:  # the next user turn, sent with the history (module docstring of _workloads)
                    text, out_len = prompt.turns[turn - 1]
                    prev = out[-1]
                    if not prev.ok or abort.reason is not None:
                        why = abort.reason or f"turn {turn - 1} of its conversation failed"
                        out += [_not_sent(next(turn_ids), why, prompt, k) for k in range(turn, 1 + len(prompt.turns))]
                        break
                    history = _next_messages(prompt, history, prev, text)
                    current, index = Prompt(text, prompt.input_len, out_len, tuple(history), prompt.group), next(turn_ids)
                    due = ready = time.perf_counter() - t0
                try:
                    rec = await send_request(session, ep, current, index, t0, due, ready, neg, count_tokens)
                except asyncio.CancelledError:
                    now = time.perf_counter() - t0
                    sent = meta[i][2] if not turn else due
                    out.append(RequestRecord(index, "failed", f"stopped in flight: {abort.reason or 'cancelled'}", due,
                                             ready, sent, now, group=prompt.group, turn=turn))
                    out += [_not_sent(next(turn_ids), abort.reason or "cancelled", prompt, k)
                            for k in range(turn + 1, 1 + len(prompt.turns))]
                    return out
                out.append(rec.replace(group=prompt.group, turn=turn) if prompt.group is not None or turn else rec)
                await check_alive(rec)
        finally:
            if sem is not None:
                sem.release()
        return out

    replay = any(p.due_s is not None for p in prompts)
    due_iter = arrivals(load, seed, n)
    for i in itertools.count():
        if (n is not None and i >= n) or abort.reason is not None or (replay and i >= len(prompts)):
            break
        due = prompts[i].due_s if replay else next(due_iter)
        assert due is not None  # a replay gives every prompt its time (checked when the dataset was read)
        if load.duration_s is not None and (due >= load.duration_s or time.perf_counter() - t0 >= load.duration_s):
            break
        await _wait_until(t0 + due, abort)
        if abort.reason is not None:
            break
        if sem is not None:
            acquire = asyncio.ensure_future(sem.acquire())
            stop = asyncio.ensure_future(abort.event.wait())
            await asyncio.wait({acquire, stop}, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            if not acquire.done() or acquire.cancelled():
                acquire.cancel()
                break
        ready = max(due, time.perf_counter() - t0)
        meta[i] = (due, ready, time.perf_counter() - t0)
        tasks[i] = asyncio.ensure_future(one(i, prompts[i % len(prompts)], due, ready))
    # Wait for the streams in flight; an abort ends them.
    pending = set(tasks.values())
    while pending:
        stop = asyncio.ensure_future(abort.event.wait())
        done, pending = await asyncio.wait(pending | {stop}, return_when=asyncio.FIRST_COMPLETED)
        pending.discard(stop)
        if stop in done:
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            pending = set()
        else:
            stop.cancel()
    records = [r for k in sorted(tasks) for r in tasks[k].result()]
    if n is not None and abort.reason is not None:
        for k in range(len(tasks), min(n, len(prompts)) if replay else n):
            p = prompts[k % len(prompts)]
            records.append(_not_sent(k, abort.reason, p))
            records += [_not_sent(next(turn_ids), abort.reason, p, t) for t in range(1, 1 + len(p.turns))]
    ends = [r.end_s for r in records if r.end_s is not None]
    duration = max(ends) if ends else time.perf_counter() - t0
    return records, duration, finish(t0) if finish is not None else None


async def _main(ep: Endpoint, prompts: Sequence[Prompt], load: Load, seed: int, warm_prompts: Sequence[Prompt],
                alive: Callable[[], str | None] | None, count_tokens: Callable[[str], int] | None,
                n: int | None, observe: Callable[[], Callable[[float], Any]] | None) -> Outcome:
    import aiohttp

    abort = _Abort()
    loop = asyncio.get_running_loop()
    restore = None
    if threading.current_thread() is threading.main_thread():
        def on_sigint() -> None:
            abort.set("interrupted (Ctrl-C)")
            loop.remove_signal_handler(signal.SIGINT)  # a second Ctrl-C stops at once
        try:
            loop.add_signal_handler(signal.SIGINT, on_sigint)
            restore = True
        except (NotImplementedError, RuntimeError):
            restore = None
    stop_watch = asyncio.Event()

    async def watch() -> None:
        while alive is not None and not stop_watch.is_set():
            why = alive()
            if why is not None:
                abort.set(why)
                return
            try:
                await asyncio.wait_for(stop_watch.wait(), 0.25)
            except asyncio.TimeoutError:
                pass

    # Unlimited pool (the semaphore is the cap); a 1 MiB read buffer so a long SSE line is one read.
    conn = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
    neg = Negotiation()
    lag: list[float] = []
    started = time.time()
    async with aiohttp.ClientSession(connector=conn, timeout=aiohttp.ClientTimeout(total=None),
                                     read_bufsize=1 << 20, trust_env=False) as session:
        watcher = asyncio.ensure_future(watch())
        warm: list[RequestRecord] = []
        if warm_prompts:
            # all at once: each warm-up request takes a slot of its own (``_bench``: one per slot)
            wload = Load(max_concurrency=len(warm_prompts))
            warm, _, _ = await _run_point(session, ep, warm_prompts, wload, seed, neg, abort, alive, count_tokens,
                                          len(warm_prompts))
        records: list[RequestRecord] = []
        duration, observed = 0.0, None
        if abort.reason is None:
            probe = asyncio.ensure_future(_lag_probe(lag, stop_watch))
            started = time.time()
            records, duration, observed = await _run_point(session, ep, prompts, load, seed, neg, abort, alive,
                                                           count_tokens, n, observe)
            probe.cancel()
        elif n is not None:
            records = [_not_sent(k, abort.reason, prompts[k % len(prompts)]) for k in range(n)]
        stop_watch.set()
        await asyncio.gather(watcher, return_exceptions=True)
        if alive is not None and abort.reason is None and (why := alive()) is not None:
            abort.set(why)  # it died after the last request was sent: the run is not whole
    if restore:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass
    return Outcome(tuple(records), tuple(warm), tuple(lag), abort.reason, tuple(neg.notes), started, duration,
                   observed)


def drive(ep: Endpoint, prompts: Sequence[Prompt], load: Load, *, num_prompts: int | None, seed: int = 0,
          warmup: int | Sequence[Prompt] = 0, alive: Callable[[], str | None] | None = None,
          count_tokens: Callable[[str], int] | None = None,
          observe: Callable[[], Callable[[float], Any]] | None = None) -> Outcome:
    """Run one load point: ``num_prompts`` requests (prompts reused in turn; a trace replay sends
    each prompt once, at its ``due_s``), or as many as are due within ``load.duration_s`` when
    ``num_prompts`` is None, after the unmeasured warm-up: ``warmup`` prompts of their own, or the
    first ``warmup`` of ``prompts``.

    ``alive()`` returns None while the server is up, else why it is not (a launched server's exit):
    the run then stops early. ``observe()`` is called just before the first request and returns
    ``finish(t0)``, called after the last byte with the point's start on ``time.perf_counter``'s
    clock; what it returns is ``Outcome.observed`` (the server's metrics, the GPUs' telemetry).
    Returns the raw :class:`Outcome`; :func:`serve_metrics` makes numbers.
    """
    if not prompts:
        raise ValueError("drive() needs at least one prompt")
    warm = tuple(prompts[k % len(prompts)] for k in range(warmup)) if isinstance(warmup, int) else tuple(warmup)
    return asyncio.run(_main(ep, prompts, load, seed, warm, alive, count_tokens, num_prompts, observe))
