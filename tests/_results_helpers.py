"""Real records with synthetic samples, for the store and comparison tests (no doubles)."""

from __future__ import annotations

import numpy as np

from bench_kernel.measure import BenchResult, Measurement, Samples


def gpu_like_samples(seed: int, n: int = 100, median_us: float = 100.0, sigma: float = 0.02) -> list[float]:
    """Lognormal around ``median_us`` with a 5% tail of samples 20-60% slower (interrupted ones)."""
    rng = np.random.default_rng(seed)
    x = median_us * np.exp(rng.normal(0.0, sigma, n))
    tail = rng.random(n) < 0.05
    x[tail] *= 1.2 + 0.4 * rng.random(tail.sum())
    return x.tolist()


def result(name: str, params: dict, samples: list[float], method: str = "host", **kw) -> BenchResult:
    m = Measurement(method, Samples.of(samples), calls_per_sample=4, stop_reason="precision", wall_s=0.25)
    return BenchResult(name=name, params=dict(params), measurements={method: m},
                       env={"device": "synthetic", "git_commit": "abc"}, **kw)
