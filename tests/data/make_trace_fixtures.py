"""Write the tiny synthetic Kineto traces under tests/data/trace/ (deterministic; re-run to refresh).

    PYTHONPATH=src python tests/data/make_trace_fixtures.py

Each trace is shaped like the real ones (event categories, arg keys, link ids), small enough to read:
- eager.json          CUDA eager: 3 ProfilerSteps (1 prefill M=64, 2 decode M=2), each an embedding,
                      3 layers of 4 kernels, an lm_head; cpu ops with shapes, Python frames, a memcpy.
- graph.json.gz       ROCm full-graph decode: one vLLM step, one hipGraphLaunch replaying the 3
                      layers (plus a kernel the capture did not see), one eager kernel.
- capture.json        ROCm capture of that graph: launches named in args inside Begin/EndCapture.
- capture_cuda.json   The same on CUDA: launches carry no kernel names.
- ranks/              trace_rank0.json and trace_rank1.json (distributedInfo) for --rank.
- ranks_nccl/         a 2-rank data-parallel loop for timeline: 3 ProfilerSteps per rank, each with
                      compute kernels on stream 7, an NCCL all-reduce on stream 13 (record_param_comms
                      op; rank 0's kernel also carries the metadata) that waits for the slower rank 1,
                      a kernel overlapping the all-reduce, a stream synchronize and a DtoH copy.
The numbers tests assert on are written in the tests, computed from the constants below.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

OUT = Path(__file__).resolve().parent / "trace"

#: Kernels of one layer, with their op and duration (µs) in a decode step; prefill is 10x longer.
LAYER = [("rms_norm_kernel", "aten::rms_norm", 2.0), ("gemm_qkv_kernel", "aten::linear", 5.0),
         ("void attn<{lambda()#1}, {lambda()#2}>(int)", "aten::scaled_dot_product_attention", 7.0),
         ("add_kernel", "aten::add", 1.0)]
LAYERS = 3
PREFILL_FACTOR = 10.0
EMBED, LM_HEAD = ("embedding_kernel", "aten::embedding", 1.5), ("lm_head_gemm", "aten::linear", 4.0)
STEP_TOKENS = [64, 2, 2]  # GEMM M per ProfilerStep: prefill, decode, decode


class _Trace:
    def __init__(self, vendor: str, meta: dict | None = None) -> None:
        self.vendor, self.meta = vendor, meta or {}
        self.events: list[dict] = []
        self.t = 1000.0
        self.corr = 100
        self.ext = 1
        self.gpu_t = 5000.0

    def x(self, cat: str, name: str, ts: float, dur: float, pid: int = 7, tid: int = 7, **args) -> dict:
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(ts, 3), "dur": round(dur, 3)}
        if args:
            e["args"] = args
        self.events.append(e)
        return e

    def kernel(self, name: str, op: str, dur: float, dims: list | None = None, graph_corr: int | None = None,
               launch: str | None = None, kernel_arg: bool = False, execute: bool = True) -> None:
        """A cpu_op containing a launch, and (if execute) the kernel it starts on the device."""
        ext, corr = self.ext, self.corr
        self.ext += 1
        self.corr += 1
        launch = launch or ("cudaLaunchKernel" if self.vendor == "cuda" else "hipLaunchKernel")
        op_args = {"External id": ext, "Record function id": 0}
        if dims is not None:
            op_args.update({"Input Dims": dims, "Input type": ["c10::BFloat16"] * len(dims)})
        self.x("cpu_op", op, self.t, 6.0, **op_args)
        la = {"External id": ext, "correlation": corr}
        la["cbid" if self.vendor == "cuda" else "cid"] = 211 if self.vendor == "cuda" else 107
        if kernel_arg:
            la.update(kernel=name, grid=[4, 1, 1], block=[256, 1, 1])
        self.x("cuda_runtime", launch, self.t + 1.0, 3.0, **la)
        self.events.append({"ph": "s", "id": corr, "pid": 7, "tid": 7, "ts": self.t + 1.0, "cat": "ac2g",
                            "name": "ac2g"})
        if execute:
            self._device(name, dur, corr, ext)
        self.t += 8.0

    def _device(self, name: str, dur: float, corr: int, ext: int | None) -> None:
        ka = {"device": 0, "stream": 7, "correlation": corr, "grid": [4, 1, 1], "block": [256, 1, 1]}
        if ext is not None:
            ka["External id"] = ext
        if self.vendor == "cuda":
            ka.update({"registers per thread": 32, "shared memory": 1024})
        self.x("kernel", name, max(self.gpu_t, self.t + 2.0), dur, pid=0, tid=7, **ka)
        self.gpu_t = max(self.gpu_t, self.t + 2.0) + dur + 0.5

    def write(self, name: str) -> None:
        doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": f"Test GPU ({self.vendor})"}],
               **self.meta, "traceEvents": self.events, "traceName": name}
        text = json.dumps(doc, indent=1)
        path = OUT / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".gz"):
            path.write_bytes(gzip.compress(text.encode(), mtime=0))
        else:
            path.write_text(text)


def _layer_kernels(tr: _Trace, factor: float, tokens: int, **kw) -> None:
    for i in range(LAYERS):
        tr.x("python_function", f"nn.Module: Layer_{i}", tr.t - 0.5, 8.0 * len(LAYER) + 0.2)
        for name, op, dur in LAYER:
            dims = [[tokens, 64], [64, 64]] if op == "aten::linear" else None
            tr.kernel(name, op, dur * factor, dims, **kw)


def eager() -> _Trace:
    tr = _Trace("cuda")
    start = tr.t
    for step, tokens in enumerate(STEP_TOKENS):
        factor = PREFILL_FACTOR if step == 0 else 1.0
        s0 = tr.t
        tr.x("python_function", "nn.Module: Model_0", s0, 8.0 * (2 + LAYERS * len(LAYER)) + 1.0)
        tr.kernel(*EMBED[:2], EMBED[2] * factor)
        _layer_kernels(tr, factor, tokens)
        tr.kernel(LM_HEAD[0], LM_HEAD[1], LM_HEAD[2] * factor, [[tokens, 64], [64, 1000]])
        tr.x("user_annotation", f"ProfilerStep#{step}", s0 - 0.2, tr.t - s0 + 0.4, **{"External id": 9000 + step})
        tr.t += 20.0
    # A copy between steps: device work that is not a kernel.
    tr.x("cuda_runtime", "cudaMemcpyAsync", tr.t, 2.0, correlation=tr.corr, cbid=51)
    tr.x("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", tr.gpu_t, 3.0, pid=0, tid=7, device=0, stream=7,
         correlation=tr.corr, bytes=4096)
    tr.x("python_function", "bench.py(10): <module>", start - 1.0, tr.t - start + 10.0)
    tr.x("python_function", "model.py(42): forward", start - 0.8, tr.t - start + 9.0)
    tr.events.append({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans",
                      "tid": "PyTorch Profiler", "ts": start - 5.0, "dur": tr.t - start + 20.0})
    tr.events.append({"name": "process_name", "ph": "M", "ts": start, "pid": 7, "tid": 0, "args": {"name": "python"}})
    return tr


GRAPH_EXTRA = "graph_only_kernel"  # replayed, but absent from the capture: must stay unmatched


def graph() -> _Trace:
    tr = _Trace("hip", {"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1}})
    s0 = tr.t
    tr.kernel("prep_kernel", "aten::copy_", 1.0)
    corr = tr.corr
    tr.corr += 1
    tr.x("cuda_runtime", "hipGraphLaunch", tr.t, 30.0, cid=215, correlation=corr)
    names = [n for _ in range(LAYERS) for n, _, _ in LAYER]
    names.insert(1, GRAPH_EXTRA)
    durs = {n: d for n, _, d in LAYER} | {GRAPH_EXTRA: 0.5}
    for n in names:
        tr._device(n, durs[n], corr, None)
    tr.t += 40.0
    tr.x("user_annotation", "execute_4_context_0(sq0sk0)_generation_4(sq4sk100)", s0 - 0.5, tr.t - s0 + 1.0)
    return tr


def capture(vendor: str) -> _Trace:
    tr = _Trace(vendor)
    tr.kernel("warmup_kernel", "aten::zeros", 1.0)  # runs before the capture: a real kernel event
    begin = "cudaStreamBeginCapture" if vendor == "cuda" else "hipStreamBeginCapture"
    tr.x("cuda_runtime", begin, tr.t, 1.0, correlation=tr.corr)
    tr.corr += 1
    tr.t += 2.0
    s0 = tr.t
    tr.x("python_function", "nn.Module: Model_0", s0 - 0.5, 8.0 * LAYERS * len(LAYER) + 1.0)
    launch = "cudaLaunchKernel" if vendor == "cuda" else "hipModuleLaunchKernel"
    _layer_kernels(tr, 1.0, 4, launch=launch, kernel_arg=vendor == "hip", execute=False)
    tr.x("python_function", "runner.py(7): capture_model", s0 - 1.0, tr.t - s0 + 2.0)
    tr.x("cuda_runtime", begin.replace("Begin", "End"), tr.t, 1.0, correlation=tr.corr)
    return tr


#: ranks_nccl: compute kernel durations (us) per step; rank 1's last GEMM is longer, so it is the straggler.
NCCL_COMPUTE = [("gemm_fwd_kernel", 20.0), ("rms_norm_kernel", 4.0), ("gemm_bwd_kernel", 30.0)]
NCCL_SLOW_US = 12.0  # extra time of rank 1's gemm_bwd_kernel
NCCL_TRANSFER_US = 50.0  # the all-reduce once both ranks have arrived
NCCL_OVERLAP = ("add_kernel", 15.0)  # launched right after the all-reduce, runs beside it on stream 7
NCCL_NELEMS = 1 << 20  # bf16 elements all-reduced per step
NCCL_KERNEL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"


def ranks_nccl() -> list[_Trace]:
    """Two ranks built together: the all-reduce ends when the later rank has arrived."""
    trs = [_Trace("cuda", {"distributedInfo": {"backend": "nccl", "rank": r, "world_size": 2,
                                               "pg_config": [{"pg_name": "0", "pg_desc": "default_pg",
                                                              "pg_size": 2, "ranks": [0, 1]}]}}) for r in (0, 1)]
    for tr in trs:
        tr.gpu_t = tr.t + 2.0  # the device is idle when profiling starts
    meta = {"Collective name": "allreduce", "In msg nelems": NCCL_NELEMS, "Out msg nelems": NCCL_NELEMS,
            "Group size": 2, "dtype": "BFloat16", "Process Group Name": "0", "Process Group Description": "default_pg",
            "Process Group Ranks": "[0, 1]"}
    for step in range(3):
        arrivals = []
        for r, tr in enumerate(trs):
            tr.step0 = tr.t
            for name, dur in NCCL_COMPUTE:
                tr.kernel(name, "aten::mm", dur + (NCCL_SLOW_US if r == 1 and name == "gemm_bwd_kernel" else 0.0))
            # the all-reduce: record_param_comms around its launch; the device start waits for stream 7
            ext, corr = tr.ext, tr.corr
            tr.ext += 1
            tr.corr += 1
            tr.x("cpu_op", "record_param_comms", tr.t, 8.0, **{"External id": ext, **meta})
            tr.x("cuda_runtime", "cudaLaunchKernel", tr.t + 1.0, 4.0, **{"External id": ext, "correlation": corr,
                                                                         "cbid": 211})
            arrivals.append(max(tr.gpu_t, tr.t + 6.0))
            tr.pending = (ext, corr)
            tr.t += 10.0
        end = max(arrivals) + NCCL_TRANSFER_US
        for r, tr in enumerate(trs):
            ext, corr = tr.pending
            args = {"device": 0, "stream": 13, "correlation": corr, "External id": ext, "grid": [2, 1, 1],
                    "block": [512, 1, 1], "registers per thread": 96, "shared memory": 0}
            if r == 0:
                args.update(meta)
            tr.x("kernel", NCCL_KERNEL, arrivals[r], end - arrivals[r], pid=0, tid=13, **args)
            tr.kernel(NCCL_OVERLAP[0], "aten::add", NCCL_OVERLAP[1])
            # the host waits for the all-reduce, then copies a scalar back
            tr.x("cuda_runtime", "cudaStreamSynchronize", tr.t, end + 3.0 - tr.t, correlation=tr.corr, cbid=131)
            tr.corr += 1
            tr.t = end + 5.0
            tr.x("cuda_runtime", "cudaMemcpyAsync", tr.t, 3.0, correlation=tr.corr, cbid=51)
            tr.gpu_t = max(tr.gpu_t, end, tr.t + 4.0)
            tr.x("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", tr.gpu_t, 2.0, pid=0, tid=7, device=0, stream=7,
                 correlation=tr.corr, bytes=4)
            tr.corr += 1
            tr.gpu_t += 2.5
            tr.t += 10.0
            tr.x("user_annotation", f"ProfilerStep#{step}", tr.step0 - 0.5, tr.t - tr.step0 + 1.0,
                 **{"External id": 9000 + step})
            tr.t += 30.0 + 10.0 * r  # host time between steps: rank 1 is slower here too
    return trs


def main() -> None:
    eager().write("eager.json")
    graph().write("graph.json.gz")
    capture("hip").write("capture.json")
    capture("cuda").write("capture_cuda.json")
    for rank in (0, 1):
        tr = _Trace("cuda", {"distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2}})
        tr.kernel(f"rank{rank}_kernel", "aten::mul", 2.0 + rank)
        tr.write(f"ranks/trace_rank{rank}.json")
    for rank, tr in enumerate(ranks_nccl()):
        tr.write(f"ranks_nccl/trace_rank{rank}.json")


if __name__ == "__main__":
    main()
