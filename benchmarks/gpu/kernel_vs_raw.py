"""Is ``kernel`` cold off a raw profiler sum on small in-place kernels, and why: one process, on the device.

    OUT=out PYTHONPATH=src python benchmarks/gpu/kernel_vs_raw.py [--repeat 4]

speed.py's fidelity check read ``kernel`` cold 6.6% under its raw reference on the 4 MB ``mul_`` of
an H200 (within 0.5% on the other memory-bound cases). The reference differs from ``bench()`` in
one way besides the code that times: it calls one input set, where ``bench()`` rotates as many
sets as it takes to pass L2. This script times, alternating, for each case:

- ``bench``: ``bench(fn, make_inputs=make, methods=("kernel",))`` cold, its median;
- ``raw_one``: speed.py's reference (one set, L2 flushed by a read before each call);
- ``raw_rotated``: the same over the sets ``bench`` would rotate (as many as pass 2x L2);
- ``raw_dirty``: one set, L2 flushed by a write (``zero_``, as ``triton.testing.do_bench`` does);
- ``raw_gap``: one set, read flush, then ~10 us of device idle (a spin kernel, left out of the sum)
  before each call: whether the call reads faster when it does not start right behind the flush;
- ``raw_marked``: one set, read flush, each flush and call inside ``record_function`` as the
  ``kernel`` method does (the host's pace between launches).

Writes ``$OUT/kernel-vs-raw.json`` (every value, the SM clock before each) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any, Callable

import torch

import bench_kernel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import raw_profiler_us  # noqa: E402  (the reference speed.py checks kernel against)

MiB = 2**20


def _cases() -> list[tuple[str, Callable[..., Any], Callable[[], Any]]]:
    dev = "cuda"
    return [
        ("mul__4MB", lambda x: x.mul_(1.0001), lambda: (torch.randn(MiB, device=dev),)),
        ("mul__256MB", lambda x: x.mul_(1.0001), lambda: (torch.randn(64 * MiB, device=dev),)),
        ("copy_4MB", lambda x, y: x.copy_(y), lambda: (torch.empty(MiB, device=dev), torch.randn(MiB, device=dev))),
    ]


def _raw_us(fn: Callable[..., Any], sets: list[Any], flush: Callable[[], Any], calls: int = 200,
            marked: bool = False) -> float:
    return raw_profiler_us(lambda i: fn(*sets[i % len(sets)]), flush, calls, marked)


def _clock() -> float | None:
    from bench_kernel.measure._env import sm_clock_reader

    read = sm_clock_reader(0)
    return read() if read else None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=4)
    args = ap.parse_args()
    out = Path(os.environ.get("OUT", "out"))
    out.mkdir(parents=True, exist_ok=True)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    buf = torch.randint(0, 100, (2 * l2 // 4,), dtype=torch.int32, device="cuda")
    read_flush = lambda: buf.max()  # noqa: E731
    write_flush = lambda: buf.zero_()  # noqa: E731

    def gap_flush() -> None:
        buf.max()
        torch.cuda._sleep(20_000)  # ~10 us of cycles at ~2 GHz
    rows: dict[str, dict[str, list[Any]]] = {}
    for name, fn, make in _cases():
        one = [make()]
        size = sum(t.numel() * t.element_size() for t in one[0])
        rotated = one + [make() for _ in range(-(-2 * l2 // size))]
        row: dict[str, list[Any]] = {"bench": [], "raw_one": [], "raw_rotated": [], "raw_dirty": [], "raw_gap": [],
                                    "raw_marked": [], "clock_mhz": []}
        for _ in range(args.repeat):
            row["clock_mhz"].append(_clock())
            r = bench_kernel.bench(fn, make_inputs=make, methods=("kernel",))
            row["bench"].append(r.median_us("kernel"))
            row["raw_one"].append(_raw_us(fn, one, read_flush))
            row["raw_rotated"].append(_raw_us(fn, rotated, read_flush))
            row["raw_dirty"].append(_raw_us(fn, one, write_flush))
            row["raw_gap"].append(_raw_us(fn, one, gap_flush))
            row["raw_marked"].append(_raw_us(fn, one, read_flush, marked=True))
        row["sets_rotated"] = [len(rotated)]
        rows[name] = row
        med = {k: statistics.median(v) for k, v in row.items() if k in ("bench", "raw_one", "raw_rotated", "raw_dirty", "raw_gap", "raw_marked")}
        print(json.dumps({"case": name, "median_us": {k: round(v, 3) for k, v in med.items()},
                          "bench_vs": {k: f"{row_v / med['bench'] - 1:+.2%}" for k, row_v in med.items() if k != "bench"},
                          "clock_mhz": row["clock_mhz"]}), flush=True)
        del one, rotated
        torch.cuda.empty_cache()
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "l2_bytes": l2, "rows": rows}
    (out / "kernel-vs-raw.json").write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
