"""What the correctness check costs on this machine: finite outputs (one read) against the masked path.

    python benchmarks/check_speed.py [-o benchmarks/results/check-cpu.md]

The check compares every output with the reference's before timing (round 1 of every sweep point).
Finite values take one read of both (two norms and the largest error, one sync); an output or a
reference holding a NaN or an infinity takes the masked path, which leaves those elements out. Both
are timed here on the same values: the masked path by appending one NaN to each side (a match, so
both verdicts pass and their errors are equal), for float32 vectors of several sizes; the minimum
of 5 repeats of 3 calls each.
"""

from __future__ import annotations

import argparse
import datetime
import time

import torch
from common import RESULTS, load_average, machine

from bench_kernel.measure._check import compare


def _time_ms(fn, calls: int = 3, repeats: int = 5) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls * 1e3)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default=str(RESULTS / "check-cpu.md"))
    args = ap.parse_args()
    g = torch.Generator().manual_seed(0)
    rows = []
    for n in (4096, 1 << 20, 1 << 23):
        ref = torch.randn(n, generator=g)
        out = ref + 1e-6 * torch.randn(n, generator=g)
        nan = torch.tensor([float("nan")])
        odd_out, odd_ref = torch.cat([out, nan]), torch.cat([ref, nan])
        quick, masked = compare(out, ref), compare(odd_out, odd_ref)
        assert quick.passed and masked.passed and abs(quick.rel_error - masked.rel_error) <= 1e-12 * masked.rel_error
        rows.append((n, _time_ms(lambda a=out, b=ref: compare(a, b)),
                     _time_ms(lambda a=odd_out, b=odd_ref: compare(a, b))))
    lines = [f"# The correctness check on the CPU ({datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC)",
             "", f"Machine: {machine()}, torch {torch.__version__}, {torch.get_num_threads()} threads, load average "
             f"{load_average():.2f}. Script: `benchmarks/check_speed.py` (its docstring says what is timed).", "",
             "| float32 values | finite (one read), ms | masked path, ms | masked / finite |", "|---:|---:|---:|---:|"]
    lines += [f"| {n:,} | {q:.3f} | {m:.3f} | {m / q:.1f}x |" for n, q, m in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    with open(args.output, "w", encoding="utf-8") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
