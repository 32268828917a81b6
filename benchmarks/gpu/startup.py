"""Where a fresh process's fixed cost goes on this machine, before and after any timing.

    OUT=out PYTHONPATH=src python3 benchmarks/gpu/startup.py [--repeat 3]

`bench-kernel run`'s target (6 s for the built-in suite) includes its process's start. This script
times, in fresh processes, each part that no measurement can shorten: the interpreter with
bench-kernel's CLI modules, ``import torch``, and the CUDA context (the first tensor on the device);
and the exit of such a process as Python ends it, torch's and CUDA's teardown (which the
``bench-kernel`` script skips once its command is done: ``bench_kernel.cli._exit``).
Writes $OUT/startup.json: every repeat's seconds per part, and the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: Each child prints perf-counter-free wall stamps (time.time(): comparable across processes).
CHILD = r"""
import sys, time, json
t0 = time.time()
{pre}
t1 = time.time()
import torch
t2 = time.time()
ok = torch.cuda.is_available()
if ok:
    torch.empty(1, device="cuda"); torch.cuda.synchronize()
t3 = time.time()
print(json.dumps({{"pre": t1 - t0, "import_torch": t2 - t1, "cuda_context": t3 - t2, "gpu": ok, "end": time.time()}}),
      flush=True)
"""


def one(pre: str) -> dict[str, float]:
    """One fresh process: its parts (s), its start (launch to first line) and its exit (last line to exit)."""
    start = time.time()
    p = subprocess.run([sys.executable, "-c", CHILD.format(pre=pre)], capture_output=True, text=True,
                       env=os.environ.copy(), timeout=120)
    ended = time.time()
    if p.returncode != 0:
        raise SystemExit(f"child failed ({p.returncode}): {p.stderr[-2000:]}")
    parts = json.loads(p.stdout.strip().splitlines()[-1])
    parts["exit"] = ended - parts.pop("end")
    parts["process"] = ended - start
    return parts


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    out = Path(os.environ.get("OUT", "out"))
    out.mkdir(parents=True, exist_ok=True)
    runs = {"bare": [one("") for _ in range(args.repeat)],
            "with_cli": [one("import bench_kernel.cli, bench_kernel.cli.run") for _ in range(args.repeat)]}
    medians = {k: {part: round(statistics.median(r[part] for r in v), 3) for part in v[0] if part != "gpu"}
               for k, v in runs.items()}
    doc = {"date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "python": sys.version.split()[0],
           "runs": runs, "medians_s": medians}
    (out / "startup.json").write_text(json.dumps(doc, indent=1))
    print(json.dumps(medians))
    return 0


if __name__ == "__main__":
    sys.exit(main())
