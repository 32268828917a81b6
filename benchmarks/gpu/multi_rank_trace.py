"""Record a small multi-rank trace (matmuls + an NCCL all-reduce per step, one process per GPU) and run
the multi-rank ``timeline`` on it: the rank analysis proven on real hardware.

    PYTHONPATH=src python3 benchmarks/gpu/multi_rank_trace.py [--ranks 2] [--steps 6] [--slow-rank 1]

Writes to ``$OUT`` (or ``./out``):
- ``ranks/trace_rank<R>.json.gz``   one Kineto trace per rank (torch.profiler, record_shapes, ProfilerSteps);
- ``multi-gpu-timeline.json``       ``timeline_ranks(ranks/).to_dict()``;
- ``multi-gpu-h200x2.md``           the per-rank table, the straggler and the collective skew.
Commit the Markdown as ``benchmarks/results/multi-gpu-h200x2.md``; if ``ranks/`` is <= 2 MB, copy it to
``tests/data/trace/ranks_h200x2/`` as a fixture.

Each step every rank runs ``--matmuls`` bf16 4096^3 GEMMs, then all-reduces a 32 MiB bf16 buffer;
rank ``--slow-rank`` runs 50% more GEMMs, so it reaches each all-reduce last and the others wait for
it inside their NCCL kernels. The script exits 1 unless ``timeline`` names that rank the straggler,
so a wrong answer is seen before anything is committed. NVLink multicast (NVLS) stays off
(``NCCL_NVLS_ENABLE=0``), as the device notes ask. Without CUDA it runs the same loop on CPU with gloo
to check the plumbing (processes, profiler, files, collective metadata) and skips the GPU checks.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import socket
import sys
from pathlib import Path

HIDDEN = 4096
ALLREDUCE_ELEMS = 16 << 20  # bf16: 32 MiB


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rank_main(rank: int, world: int, port: int, out: str, steps: int, matmuls: int, slow: int) -> None:
    import torch
    import torch.distributed as dist
    from torch.profiler import ProfilerActivity, profile, schedule

    gpu = torch.cuda.is_available()
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), NCCL_NVLS_ENABLE="0")
    dist.init_process_group("nccl" if gpu else "gloo", rank=rank, world_size=world)
    dev = torch.device("cuda", rank) if gpu else torch.device("cpu")
    if gpu:
        torch.cuda.set_device(dev)
    dtype = torch.bfloat16 if gpu else torch.float32
    n = HIDDEN if gpu else 256
    a = torch.randn(n, n, device=dev, dtype=dtype)
    b = torch.randn(n, n, device=dev, dtype=dtype)
    grad = torch.ones(ALLREDUCE_ELEMS if gpu else 1 << 16, device=dev, dtype=dtype)
    mine = matmuls * 3 // 2 if rank == slow else matmuls
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if gpu else [])
    path = Path(out) / "ranks" / f"trace_rank{rank}.json"
    with profile(activities=acts, schedule=schedule(wait=1, warmup=1, active=steps), record_shapes=True,
                 on_trace_ready=lambda p: p.export_chrome_trace(str(path))) as prof:
        for _ in range(steps + 2):
            c = a
            for _ in range(mine):
                c = torch.matmul(c, b)
                c = c / c.abs().amax().clamp_min(1.0)  # keep values finite across the chain
            dist.all_reduce(grad)
            if gpu:
                torch.cuda.synchronize()
            prof.step()
    dist.barrier()
    dist.destroy_process_group()
    with open(path, "rb") as f, gzip.open(str(path) + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    path.unlink()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--matmuls", type=int, default=8)
    ap.add_argument("--slow-rank", type=int, default=1)
    args = ap.parse_args(argv)
    import torch
    import torch.multiprocessing as mp

    gpu = torch.cuda.is_available()
    world = min(args.ranks, torch.cuda.device_count()) if gpu else args.ranks
    if world < 2:
        print(f"needs 2 GPUs, found {torch.cuda.device_count()}", file=sys.stderr)
        return 1
    out = Path(os.environ.get("OUT", "out"))
    (out / "ranks").mkdir(parents=True, exist_ok=True)
    mp.spawn(_rank_main, args=(world, _free_port(), str(out), args.steps, args.matmuls, args.slow_rank),
             nprocs=world, join=True)
    size = sum(p.stat().st_size for p in (out / "ranks").iterdir())
    print(f"{world} rank traces, {size / 1e6:.2f} MB gzipped, in {out / 'ranks'}")

    from bench_kernel.trace import load_trace, timeline_ranks

    if not gpu:  # CPU: the plumbing only -- a gloo all-reduce is a c10d op on the host, no kernels
        for r in range(world):
            t = load_trace(out / "ranks" / f"trace_rank{r}.json.gz")
            ops = {t.names[n] for n in set(t.ops.name.tolist())}
            print(f"rank {t.rank}: {len(t.ops)} CPU ops, all-reduce op recorded: {'c10d::allreduce_' in ops}")
            if t.rank != r or "c10d::allreduce_" not in ops:
                return 1
        return 0
    rep = timeline_ranks(out / "ranks")
    (out / "multi-gpu-timeline.json").write_text(json.dumps(rep.to_dict(), indent=1, default=str))
    (out / "multi-gpu-h200x2.md").write_text(_markdown(rep, torch, world, args, size))
    print((out / "multi-gpu-h200x2.md").read_text())
    if rep.straggler != args.slow_rank:
        print(f"timeline named rank {rep.straggler} the straggler; rank {args.slow_rank} was made slow", file=sys.stderr)
        return 1
    return 0


def _markdown(rep, torch, world: int, args, size: int) -> str:
    import datetime as dt

    lines = [f"# Multi-rank timeline on {world} x {torch.cuda.get_device_name(0)} ({dt.date.today().isoformat()})", "",
             f"- torch {torch.__version__}, CUDA {torch.version.cuda}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, "
             f"NCCL_NVLS_ENABLE=0",
             f"- Workload: per step {args.matmuls} bf16 {HIDDEN}^3 GEMMs (rank {args.slow_rank}: 50% more), then an "
             f"all-reduce of {ALLREDUCE_ELEMS * 2 >> 20} MiB; {args.steps} profiled steps; traces {size / 1e6:.2f} MB gzipped.",
             "- Command: `PYTHONPATH=src python3 benchmarks/gpu/multi_rank_trace.py` (then `bench-kernel timeline "
             "$OUT/ranks`).", "",
             f"Straggler: rank {rep.straggler} by {rep.straggler_by_us} us ({rep.straggler_basis}); expected rank "
             f"{args.slow_rank}.", "",
             "| rank | wall us | busy us | idle us | comm us | exposed comm us | steps | step median us | waited for peers us "
             "| arrived last |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rep.ranks:
        lines.append(f"| {r.rank} | {r.wall_us:.1f} | {r.busy_us:.1f} | {r.idle_us:.1f} | {r.comm_us:.1f} | "
                     f"{r.exposed_comm_us:.1f} | {r.steps} | {r.step_median_us or 0:.1f} | {r.waited_us:.1f} | "
                     f"{r.last_arrivals} |")
    lines += ["", "| group | # | collective | bytes | first | last | skew us | transfer us |",
              "|---|---:|---|---:|---:|---:|---:|---:|"]
    for c in rep.collectives[:20]:
        lines.append(f"| {c.process_group} | {c.seq} | {c.collective} | {c.msg_bytes} | {c.first_rank} | "
                     f"{c.last_rank} | {c.skew_us:.1f} | {c.transfer_us:.1f} |")
    for rr in rep.per_rank:
        for g in rr.collectives.groups:
            lines.append(f"\nrank {rr.rank}: {g.count} x {g.collective} {g.dtype} {g.msg_bytes} B over {g.group_size} "
                         f"ranks: algbw {g.algbw_gbps} GB/s, busbw {g.busbw_gbps} GB/s (includes waiting for peers)")
    lines += [""] + [f"- {n}" for n in rep.notes]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
