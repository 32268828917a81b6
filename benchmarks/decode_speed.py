"""How fast bench-kernel decodes kernel names (CPU only; no torch, no GPU).

Measures, on the real names of ../shared/data/kernel_names/real_kernel_names.tsv:

- cold: the first decode of each distinct name, every cache cleared first (demangling, parsing,
  classification all done);
- stream: 100,000 names drawn with replacement from the real names (fixed seed), caches warm,
  which is what a trace loader sees (a trace has ~100-1,000 distinct names, repeated).

Also times crafted worst-case names at the length cap and at a quarter of it (each
pattern is linear in the name), and prints the per-family and per-category distribution of the real names. Writes a Markdown
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
    _cxx._outer.cache_clear()


def _rep(unit: str, n: int, head: str = "", tail: str = "") -> str:
    return head + unit * ((n - len(head) - len(tail)) // len(unit) + 1) + tail


#: Names shaped like the worst case of each pattern once found quadratic or worse (the same
#: shapes as tests/hostile/test_kernel_names.py, fewer of them).
SHAPES = {
    "bmm_ fields (TRT-LLM bmm)": lambda n: _rep("_t1x1x1_s1", n, "bmm_", "!"),
    "Triton KEY_VALUE run": lambda n: _rep("A_", n),
    "Inductor ops for the lookahead rules": lambda n: _rep("x_", n, "triton_red_fused_", "0"),
    "unmatched closers": lambda n: "<" * (n // 2) + ")" * (n // 2),
    "template arguments": lambda n: _rep("a<b>, ", n, "void at::native::f<", ">(int)"),
    "rocprim runs": lambda n: _rep("rocprim::a<", n, "void "),
    "matmul_ogs types": lambda n: _rep("ax", n, "_matmul_ogs_NNT_", "_"),
    "CUTLASS 3.x schedule": lambda n: _rep("_a", n, "cutlass3x_sm90_tensorop_gemm_x_1x1x1_1x1x1_1_tnt_align8", "!"),
    "mangled nested name": lambda n: _rep("1a", n, "_ZN", "E"),
    "scopes": lambda n: _rep("a::", n, "void ", "f()"),
}


def _worst_cases() -> list[tuple[str, float, float]]:
    from bench_kernel.kernels import MAX_NAME_CHARS, decode, render_tree

    def cpu_ms(name: str) -> float:
        best = float("inf")
        for _ in range(3):
            _clear_caches()
            t = time.process_time()
            render_tree(decode(name))
            best = min(best, time.process_time() - t)
        return 1000 * best

    return [(k, cpu_ms(make(MAX_NAME_CHARS // 4)), cpu_ms(make(MAX_NAME_CHARS))) for k, make in SHAPES.items()]


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

    from bench_kernel.kernels import MAX_NAME_CHARS, decode

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

    worst = _worst_cases()

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
        "## Crafted worst cases",
        "",
        f"CPU ms of one decode + `--tree` (`time.process_time`, best of 3, caches cleared), for names cut "
        f"at the cap of {MAX_NAME_CHARS:,} characters and for names a quarter as long. A linear decode "
        "gives a ratio near 4, a quadratic one 16.",
        "",
        "| shape | ms at cap/4 | ms at the cap | ratio |",
        "|---|---:|---:|---:|",
        *[f"| {k} | {a:.1f} | {b:.1f} | {b / a if a else float('nan'):.1f} |" for k, a, b in worst],
        "",
        f"Worst at the cap: {max(b for _, _, b in worst):.1f} ms; sum over {len(worst)} shapes: "
        f"{sum(b for _, _, b in worst):.0f} ms.",
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
