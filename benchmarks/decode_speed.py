"""How fast bench-kernel decodes kernel names (CPU only; no torch, no GPU).

Measures, on the real names of ../shared/data/kernel_names/real_kernel_names.tsv:

- cold: the first decode of each distinct name, every cache cleared first (demangling, parsing,
  classification all done);
- stream: 100,000 names drawn with replacement from the real names (fixed seed), caches warm,
  which is what a trace loader sees (a trace has ~100-1,000 distinct names, repeated).

Also prints the per-family and per-category distribution of the real names. Writes a Markdown
report to $OUT/decode-speed.md (or --out FILE) and prints it.

    PYTHONPATH=src python3 benchmarks/decode_speed.py [--names FILE] [--repeats 5] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_NAMES = ROOT.parent / "shared" / "data" / "kernel_names" / "real_kernel_names.tsv"


def _clear_caches() -> None:
    from bench_kernel.kernels import _cxx, _decode, _demangle

    _decode._decode_default.cache_clear()
    _decode._parts.cache_clear()
    _demangle.demangle.cache_clear()
    _cxx.parse_function.cache_clear()
    _cxx.matches.cache_clear()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--names", type=Path, default=DEFAULT_NAMES)
    ap.add_argument("--repeats", type=int, default=5, help="cold runs (median reported)")
    ap.add_argument("--stream", type=int, default=100_000, help="names in the warm stream")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if not args.names.is_file():
        print(f"decode_speed: names file {args.names} not found (pass --names)", file=sys.stderr)
        return 2
    lines = args.names.read_text(encoding="utf-8").splitlines()[1:]
    names = [ln.split("\t")[0] for ln in lines if ln.strip()]
    distinct = sorted(set(names))

    from bench_kernel.kernels import decode

    cold_s = []
    for _ in range(args.repeats):
        _clear_caches()
        t0 = time.perf_counter()
        for n in distinct:
            decode(n)
        cold_s.append(time.perf_counter() - t0)
    rng = random.Random(0)
    stream = [rng.choice(names) for _ in range(args.stream)]
    warm_s = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        for n in stream:
            decode(n)
        warm_s.append(time.perf_counter() - t0)
    cold_med, warm_med = statistics.median(cold_s), statistics.median(warm_s)

    decoded = [decode(n) for n in names]
    fam = Counter(k.family for k in decoded)
    cat = Counter(k.category for k in decoded)
    longest = max(len(k.short) for k in decoded)

    lines_out = [
        "# Kernel-name decoding speed",
        "",
        f"- date: {time.strftime('%Y-%m-%d')}",
        f"- machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.processor() or 'cpu'}; "
        f"Python {platform.python_version()} ({platform.platform()})",
        f"- command: `PYTHONPATH=src python3 benchmarks/decode_speed.py --repeats {args.repeats}`",
        f"- input: {len(names)} real names ({len(distinct)} distinct) from `{args.names.name}`",
        "",
        "| measure | names | median s | names/s | raw runs (s) |",
        "|---|---:|---:|---:|---|",
        f"| cold (first decode of each distinct name, caches cleared) | {len(distinct)} | {cold_med:.4f} | "
        f"{len(distinct) / cold_med:,.0f} | {', '.join(f'{s:.4f}' for s in cold_s)} |",
        f"| stream ({args.stream:,} names drawn from the real ones, caches warm) | {args.stream} | {warm_med:.4f} | "
        f"{args.stream / warm_med:,.0f} | {', '.join(f'{s:.4f}' for s in warm_s)} |",
        "",
        f"Longest short name: {longest} characters (limit 80). "
        f"`other`: {cat['other']} of {len(names)} ({100 * cat['other'] / len(names):.1f}%, limit 10%).",
        "",
        "## Names per family",
        "",
        "| family | names | % |",
        "|---|---:|---:|",
        *[f"| {f} | {n} | {100 * n / len(names):.1f} |" for f, n in fam.most_common()],
        "",
        "## Names per category",
        "",
        "| category | names | % |",
        "|---|---:|---:|",
        *[f"| {c} | {n} | {100 * n / len(names):.1f} |" for c, n in cat.most_common()],
        "",
    ]
    report = "\n".join(lines_out)
    out = args.out or (Path(os.environ["OUT"]) / "decode-speed.md" if os.environ.get("OUT") else None)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
