"""Real records with synthetic samples, for the store and comparison tests (no doubles)."""

from __future__ import annotations

import numpy as np

from bench_kernel.records import BenchResult, Measurement, Samples


def gpu_like_samples(seed: int, n: int = 100, median_us: float = 100.0, sigma: float = 0.02) -> list[float]:
    """Lognormal around ``median_us`` with a 5% tail of samples 20-60% slower (interrupted ones)."""
    rng = np.random.default_rng(seed)
    x = median_us * np.exp(rng.normal(0.0, sigma, n))
    tail = rng.random(n) < 0.05
    x[tail] *= 1.2 + 0.4 * rng.random(tail.sum())
    return x.tolist()


def result(name: str, params: dict, samples: list[float], method: str = "host", **kw) -> BenchResult:
    m = Measurement.of(method, Samples.of(samples), calls_per_sample=4, stop_reason="precision", wall_s=0.25)
    return BenchResult(name=name, params=dict(params), measurements={method: m},
                       env={"device": "synthetic", "git_commit": "abc"}, **kw)


def clocks_around(median_mhz: float, n: int, max_mhz: float = 1980.0) -> tuple[float, ...]:
    """``n`` SM clock readings in the H200's 15 MHz steps around ``median_mhz`` (none above
    ``max_mhz``) whose median is ``median_mhz``: the clock wanders a few steps while sampling."""
    steps = (-30, -15, 0, 15, 30)
    return tuple(float(min(median_mhz + steps[i % len(steps)], max_mhz)) for i in range(n))


def clocked_point(provider: str, params: dict, median_us: float, clock_mhz: float | None, *, seed: int,
                  method: str = "graph", n: int = 100, rounds: int = 3):
    """A measured ``PointResult`` of ``rounds`` rounds of GPU-like samples around ``median_us``
    (0.5% between rounds: the rounds of one run share its clock, so they agree as an H200's steady
    rounds do) with an SM clock reading per sample around ``clock_mhz`` (none when None: the host
    method, no NVML, a run stored before clocks were)."""
    from bench_kernel.records import PointResult

    m = rounds_measurement(seed, rounds, median_us=median_us, between=0.005, n=max(1, n // rounds), method=method,
                           clock_mhz=clock_mhz)
    r = BenchResult(name=provider, params=dict(params), measurements={method: m},
                    env={"device": "NVIDIA H200", "git_commit": "abc"}, correct=True)
    return PointResult(provider, dict(params), "ok", r)


def rounds_measurement(seed: int, rounds: int, median_us: float = 100.0, between: float = 0.02, n: int = 30,
                       method: str = "graph", clock_mhz: float | None = None):
    """A ``Measurement`` of ``rounds`` rounds of ``n`` GPU-like samples each: every round's centre
    moves by a lognormal factor of SD ``between`` (the run-to-run noise a round sees), the samples
    within it by 1% with a slow tail. Clock readings around ``clock_mhz`` if given."""
    rng = np.random.default_rng(10_000 + seed)
    values: list[float] = []
    for r in range(rounds):
        centre = median_us * float(np.exp(rng.normal(0.0, between)))
        values += gpu_like_samples(seed * 1000 + r, n=n, median_us=centre, sigma=0.01)
    clocks = clocks_around(clock_mhz, len(values)) if clock_mhz is not None else ()
    return Measurement.of(method, Samples.of(values), calls_per_sample=20, stop_reason="precision", wall_s=0.5,
                       sm_clock_mhz=clocks, round_sizes=(n,) * rounds if rounds > 1 else ())


def rounds_point(provider: str, params: dict, m) -> "PointResult":
    """A measured ``PointResult`` holding the Measurement ``m``."""
    from bench_kernel.records import PointResult

    r = BenchResult(name=provider, params=dict(params), measurements={m.method: m},
                    env={"device": "synthetic", "git_commit": "abc"})
    return PointResult(provider, dict(params), "ok", r)


def v1_database(path, point: BenchResult, source_hash: str | None = "ab12", git_commit: str | None = "c0ffee",
                env: str = '{"device": "H100"}') -> None:
    """A results file laid out exactly as schema version 1 wrote it, holding run 1 with ``point``."""
    import json
    import sqlite3

    from bench_kernel.results import SCHEMA_V1
    from bench_kernel.results._schema import APP_ID

    c = sqlite3.connect(path)
    try:
        c.executescript(SCHEMA_V1)
        c.execute(f"PRAGMA application_id = {APP_ID}")
        c.execute("PRAGMA user_version = 1")
        c.execute("INSERT INTO runs (kind, name, status, created_at, source_hash, git_commit, command, config, env)"
                  " VALUES ('sweep', 'old.py:sweep', 'done', '2026-01-01T00:00:00Z', ?, ?, '[]', '{}', ?)",
                  (source_hash, git_commit, env))
        c.execute("INSERT INTO points (run_id, provider, params_key, status, finished_at, result)"
                  " VALUES (1, ?, ?, 'ok', '2026-01-01T00:00:01Z', ?)",
                  (point.name, json.dumps(point.params, separators=(",", ":")), json.dumps(point.to_dict())))
        c.commit()
    finally:
        c.close()
