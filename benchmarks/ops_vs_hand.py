"""``bench-kernel ops`` against hand-computed TFLOP/s for a few GEMMs and attention calls.

    PYTHONPATH=src python benchmarks/ops_vs_hand.py [--out benchmarks/results/trace-vs-peers.md]

The hand value reads the raw JSON with nothing of bench-kernel: an op's kernels are the kernel
events carrying its ``External id``; its FLOPs are written out below from its ``Input Dims`` and
``Concrete Inputs`` (2*M*N*K for a GEMM; 2*B*Hq*pairs*(Dqk + Dv) for attention, pairs halved when
``is_causal``). The script replaces only its own section ("Per-op TFLOP/s against hand-computed
values") of the output file, which other sections (the HTA cross-check) share.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gzip
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACES = ROOT.parent / "shared" / "data" / "traces"
HEADING = "## Per-op TFLOP/s against hand-computed values"


def _gemm(dims: list, concrete: list) -> float:
    a, b = (dims[1], dims[2]) if len(dims[0]) == 1 else (dims[0], dims[1])  # addmm: bias first
    return 2.0 * a[0] * a[1] * b[1]


def _sdpa_bhsd(causal_at: int):
    def flops(dims: list, concrete: list) -> float:
        (b, hq, lq, d), (_, _, lk, _), v = dims[0], dims[1], dims[2]
        pairs = lq * lk / (2 if concrete[causal_at] == "True" else 1)
        return 2.0 * b * hq * pairs * (d + v[-1])
    return flops


def _flash_bshd(dims: list, concrete: list) -> float:
    (b, lq, hq, d), (_, lk, _, _), v = dims[0], dims[1], dims[2]
    return 2.0 * b * hq * lq * lk / (2 if concrete[8] == "True" else 1) * (d + v[-1])


#: (trace, op, Input Dims of the calls to check, hand formula, what it is)
CHECKS = [
    ("h200__llama_eager_generate.json.gz", "aten::mm", [[1024, 1024], [1024, 1024]], _gemm, "prefill q/o projection"),
    ("h200__llama_eager_generate.json.gz", "aten::mm", [[1024, 1024], [1024, 2816]], _gemm, "prefill MLP up"),
    ("h200__llama_eager_generate.json.gz", "aten::mm", [[2, 1024], [1024, 32000]], _gemm, "decode lm_head"),
    ("h200__llama_eager_generate.json.gz", "aten::_cudnn_attention_forward",
     [[2, 16, 512, 64], [2, 4, 512, 64], [2, 4, 512, 64]], _sdpa_bhsd(10), "prefill, causal, GQA 16/4"),
    ("h200__llama_eager_generate.json.gz", "aten::_cudnn_attention_forward",
     [[2, 16, 1, 64], [2, 4, 520, 64], [2, 4, 520, 64]], _sdpa_bhsd(10), "decode step, GQA 16/4"),
    ("torch_compile_triton__trace.json.gz", "aten::mm", [[32768, 2048], [2048, 2048]], _gemm, "MI300X GEMM"),
    ("torch_compile_triton__trace.json.gz", "aten::_flash_attention_forward",
     [[8, 4096, 16, 128], [8, 4096, 16, 128], [8, 4096, 16, 128]], _flash_bshd, "MI300X flash, not causal"),
    ("sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz", "aten::mm", [[15360, 4096], [4096, 6144]], _gemm,
     "MI300X prefill QKV"),
]


def hand(trace: str, op: str, dims: list, flops_of) -> tuple[int, float, float]:
    """(calls, kernel us, FLOPs) of the calls of ``op`` with ``dims`` (a prefix of Input Dims)."""
    events = json.load(gzip.open(TRACES / trace))["traceEvents"]
    ops = {e["args"]["External id"]: e for e in events if e.get("cat") == "cpu_op" and e.get("name") == op
           and e.get("args", {}).get("Input Dims", [])[:len(dims)] == dims}
    us: dict[int, float] = defaultdict(float)
    for e in events:
        if e.get("cat") == "kernel" and e.get("args", {}).get("External id") in ops:
            us[e["args"]["External id"]] += e["dur"]
    flops = sum(flops_of(ops[x]["args"]["Input Dims"], ops[x]["args"]["Concrete Inputs"]) for x in us)
    return len(us), sum(us.values()), flops


def ours(trace: str, op: str, dims: list) -> tuple[int, float, float | None, str | None]:
    from bench_kernel.trace import load_trace, ops

    report = ops(load_trace(TRACES / trace, shapes=True), by="shape")
    want = ", ".join(f"{d}" for d in dims)
    rows = [r for r in report.rows if r.op == op and re.sub(r" [A-Za-z][\w:]*", "", r.shapes or "").startswith(want)]
    if len(rows) != 1:
        raise SystemExit(f"{trace}: {len(rows)} rows of {op} with shapes {want}")
    r = rows[0]
    return r.calls, r.kernel_us, r.achieved_tflops, report.device


def section() -> str:
    lines = [HEADING, "",
             f"Generated {_dt.date.today().isoformat()} by `PYTHONPATH=src python benchmarks/ops_vs_hand.py` on the "
             "shared traces. *Hand*: the raw JSON only (an op's kernels are the kernel events with its External "
             "id; FLOPs written out from Input Dims and Concrete Inputs in the script). *ops*: `bench-kernel ops "
             "TRACE --by shape`, the row of the same op and shapes. The tests (`tests/test_trace_ops.py`) make "
             "the same comparison.", "",
             "| trace | op | shapes | what | calls (hand / ops) | kernel us (hand / ops) | TFLOP/s hand | TFLOP/s ops "
             "| rel. diff |", "|---|---|---|---|---|---|---:|---:|---:|"]
    for trace, op, dims, flops_of, what in CHECKS:
        calls, us, flops = hand(trace, op, dims, flops_of)
        o_calls, o_us, o_tflops, device = ours(trace, op, dims)
        h_tflops = flops / us / 1e6
        diff = abs(o_tflops - h_tflops) / h_tflops if o_tflops is not None else float("nan")
        short = trace.split("__")[0]
        lines.append(f"| {short} ({device}) | `{op}` | `{dims}` | {what} | {calls} / {o_calls} | {us:.1f} / {o_us:.1f} "
                     f"| {h_tflops:.2f} | {o_tflops:.2f} | {diff:.1e} |")
    lines += ["", "Every row agrees to rounding: the same calls, the same kernel time, the same FLOPs. Attention "
              "counts the query's heads (16 here, with 4 K/V heads) and half the pairs when causal, as "
              "FlashAttention's benchmarks do; torch's own counter would count the causal prefill twice as high.", ""]
    return "\n".join(lines)


def replace_section(text: str, new: str) -> str:
    """``text`` with this script's section replaced (or appended), other sections untouched."""
    start = text.find(HEADING)
    if start < 0:
        return (text.rstrip("\n") + "\n\n" if text.strip() else "") + new
    end = text.find("\n## ", start + len(HEADING))
    return text[:start] + new + (text[end + 1:] if end >= 0 else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "trace-vs-peers.md")
    args = ap.parse_args(argv)
    new = section()
    old = args.out.read_text() if args.out.exists() else "# Trace analyses against peers and hand-computed truths\n"
    args.out.write_text(replace_section(old, new))
    print(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
