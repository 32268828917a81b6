"""Write the BUILT fixtures of tests/data/sources/ (deterministic; re-run to refresh).

    python tests/data/sources/make_source_fixtures.py

No public Nsight Systems export of a PyTorch model with ProfilerStep ranges, emit_nvtx op ranges
and CUDA graph replays was found, and no rocprofv3 run with its HIP, copy and ROCTx traces side by
side (README.md: what was searched). These files model one, in the formats' own layouts:

- nsys_llama_steps.sql      an Nsight Systems SQLite export (as SQL text): the CREATE statements of
                            the real nsys 2025.1 export in nsys_fuser_h200.sql for the tables it shares,
                            and for CUDA_GRAPH_NODE_EVENTS the documented columns (NVIDIA's "SQLite
                            Schema Reference"). A 2-layer decoder: ProfilerStep#0 runs prefill eagerly
                            (emit_nvtx op ranges, nn.Module ranges), a stream capture records the
                            decode graph, ProfilerStep#1 and #2 replay it (--cuda-graph-trace=node:
                            kernels carry graphNodeId and the cudaGraphLaunch's correlation id).
- nsys_graph_level.sql      one eager kernel and two graph replays traced whole
                            (CUPTI_ACTIVITY_KIND_GRAPH_TRACE, --cuda-graph-trace=graph, documented columns).
- rocprofv3_run/            4242_kernel_trace.csv, _hip_api_trace.csv, _memory_copy_trace.csv,
                            _marker_api_trace.csv (headers of rocprofv3 in ROCm 6.3+, as AMD's docs
                            show them) and 4242_results.json (the same records in the JSON layout of
                            rocprofv3-schema.json): the same decoder, three eager ROCTx ProfilerSteps.

Tests compute every value they assert from these files (SQL queries, csv), never from here.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from pathlib import Path

from trim_nsys_export import sql_literal  # this folder: run as a script, it is on sys.path

OUT = Path(__file__).resolve().parent
REAL = OUT / "nsys_fuser_h200.sql"

#: One layer: (kernel, op, decode duration in us); prefill kernels run PREFILL_FACTOR times longer.
LAYER_CUDA = [
    ("void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)",
     "aten::rms_norm", 2.0),
    ("nvjet_tst_128x64_64x6_1x2_h_bz_coopA_NNT", "aten::linear", 5.0),
    ("void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t> >(Flash_fwd_params)",
     "aten::scaled_dot_product_attention", 7.0),
    ("nvjet_tst_64x32_64x16_1x4_h_bz_coopB_NNT", "aten::linear", 4.0),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
     "aten::add", 1.0),
]
LAYER_HIP = [
    ("void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)",
     "aten::rms_norm", 2.5),
    ("Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI16x16x16x1_SN_1LDSB1_GRVW8_K1_MIWT4_4_WG32_4_1", "aten::linear", 6.0),
    ("void ck_tile::kentry<64, 1, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<bf16>>>(FmhaFwdKargs)",
     "aten::scaled_dot_product_attention", 8.0),
    ("Cijk_Alik_Bljk_BBS_BH_MT64x64x64_MI16x16x16x1_SN_1LDSB1_GRVW8_K1_MIWT2_2_WG32_4_1", "aten::linear", 4.5),
    ("void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
     "aten::add", 1.2),
]
EMBED = ("void at::native::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)",
         "aten::embedding", 1.5)
LM_HEAD = ("nvjet_tst_256x8_64x8_1x1_h_bz_NTN", "aten::linear", 4.0)
LAYERS = 2
PREFILL_FACTOR = 10.0
TOKENS = [64, 1, 1]  # per step: prefill, decode, decode
PID = 4242
GTID = (1 << 48) | (PID << 24) | PID  # nsys serialized global thread id: vm 1, pid, tid
GPID = (1 << 48) | (PID << 24)
STREAM = 7


class _Clock:
    """Host and device time in ns: the host launches, the stream runs each kernel after the last."""

    def __init__(self, t0: int) -> None:
        self.host, self.device = t0, t0

    def call(self, dur_ns: int) -> tuple[int, int]:
        start = self.host
        self.host += dur_ns
        return start, self.host

    def run(self, queued: int, dur_us: float) -> tuple[int, int]:
        start = max(self.device + 1_000, queued + 4_000)
        self.device = start + round(dur_us * 1000)
        return start, self.device


def _sequence(layer: list[tuple[str, str, float]], factor: float) -> list[tuple[str, str, float, str | None]]:
    """(kernel, op, us, module) in launch order for one forward."""
    seq = [(EMBED[0], EMBED[1], EMBED[2] * factor, None)]
    for k in range(LAYERS):
        seq += [(n, op, us * factor, f"nn.Module: LlamaDecoderLayer_{k}") for n, op, us in layer]
    return seq + [(LM_HEAD[0], LM_HEAD[1], LM_HEAD[2] * factor, None)]


def _sizes(op: str, m: int) -> str:
    return {"aten::embedding": f"[[{m}], [32000, 256]]", "aten::linear": f"[[{m}, 256], [256, 256]]",
            "aten::rms_norm": f"[[{m}, 256], [256]]", "aten::add": f"[[{m}, 256], [{m}, 256]]",
            "aten::scaled_dot_product_attention": f"[[1, 4, {m}, 64], [1, 4, {m}, 64], [1, 4, {m}, 64]]"}[op]


# -- Nsight Systems -----------------------------------------------------------------------------
_DOC_TABLES = {  # documented columns (Nsight Systems User Guide, "SQLite Schema Reference")
    "CUDA_GRAPH_NODE_EVENTS": """CREATE TABLE CUDA_GRAPH_NODE_EVENTS (
    start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
    nameId INTEGER NOT NULL, graphNodeId INTEGER NOT NULL, originalGraphNodeId INTEGER)""",
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE": """CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (
    start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
    greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    graphId INTEGER NOT NULL, graphExecId INTEGER NOT NULL)""",
}


def _real_schema() -> dict[str, str]:
    text = REAL.read_text()
    return {m.group(1): m.group(0) for m in re.finditer(r"CREATE TABLE (\w+) \(.*?\n\);", text, re.DOTALL)}


class _Nsys:
    def __init__(self) -> None:
        self.strings: dict[str, int] = {}
        self.rows: dict[str, list[tuple]] = {}
        self.corr = 100

    def sid(self, s: str) -> int:
        return self.strings.setdefault(s, len(self.strings) + 1)

    def add(self, table: str, **values: object) -> None:
        """One row by column name; columns not given are NULL, as nsys writes a value it lacks."""
        self.rows.setdefault(table, []).append(values)

    def runtime(self, name: str, start: int, end: int) -> int:
        self.corr += 1
        self.add("CUPTI_ACTIVITY_KIND_RUNTIME", start=start, end=end, eventClass=1, globalTid=GTID,
                 correlationId=self.corr, nameId=self.sid(name), returnValue=0)
        return self.corr

    def kernel(self, name: str, start: int, end: int, corr: int, node: int | None = None) -> None:
        short = name.split("<")[0].split("(")[0].split()[-1]
        self.add("CUPTI_ACTIVITY_KIND_KERNEL", start=start, end=end, deviceId=0, contextId=1, greenContextId=0,
                 streamId=STREAM, correlationId=corr, globalPid=GPID, demangledName=self.sid(name),
                 shortName=self.sid(short), launchType=1, cacheConfig=1, registersPerThread=64, gridX=132, gridY=1,
                 gridZ=1, blockX=256, blockY=1, blockZ=1, staticSharedMemory=0, dynamicSharedMemory=4096,
                 localMemoryPerThread=0, localMemoryTotal=0,
                 gridId=len(self.rows.get("CUPTI_ACTIVITY_KIND_KERNEL", ())) + 1, graphNodeId=node,
                 sharedMemoryLimitConfig=0)

    def nvtx(self, text: str, start: int, end: int) -> None:
        self.add("NVTX_EVENTS", start=start, end=end, eventType=59, text=text, globalTid=GTID, domainId=0)

    def sql(self, tables: list[str]) -> str:
        schema = {**_real_schema(), **_DOC_TABLES}
        self.rows["StringIds"] = [dict(id=i, value=s) for s, i in sorted(self.strings.items(), key=lambda kv: kv[1])]
        db = sqlite3.connect(":memory:")
        out = ["-- BUILT by make_source_fixtures.py (see README.md): not a real export.", "BEGIN TRANSACTION;"]
        for t in tables:
            db.execute(schema[t])
            cols = [c[1] for c in db.execute(f"PRAGMA table_info({t})")]
            out.append(schema[t] + ";")
            out += [f"INSERT INTO {t} VALUES({','.join(sql_literal(r.get(c)) for c in cols)});"
                    for r in self.rows.get(t, [])]
        out.append("COMMIT;")
        return "\n".join(out) + "\n"


_META = [("EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"), ("EXPORT_PRODUCT_VERSION", "2025.1.1.110"),
         ("EXPORT_SCHEMA_VERSION", "3.17.3")]
_GPU = dict(vmId=281474976710656, id=0, name="NVIDIA H200", busLocation="0000:45:00.0", isDiscrete=1,
            l2CacheSize=62914560, totalMemory=150121545728, clockRate=1980000000, smCount=132, chipName="GH100",
            computeMajor=9, computeMinor=0)


def _forward(db: _Nsys, clock: _Clock, seq: list, m: int, op_base: int) -> None:
    """An eager forward: module and emit_nvtx op ranges around each launch."""
    outer_start = clock.host
    clock.call(2_000)
    open_module: tuple[str, int] | None = None
    for i, (name, op, us, module) in enumerate(seq):
        if module != (open_module[0] if open_module else None):
            if open_module:
                db.nvtx(open_module[0], open_module[1], clock.call(1_000)[1])
            open_module = (module, clock.call(1_000)[0]) if module else None
        op_start, _ = clock.call(3_000)
        launch = clock.call(6_000)
        corr = db.runtime("cudaLaunchKernel_v7000", *launch)
        db.kernel(name, *clock.run(launch[0], us), corr)
        op_end = clock.call(2_000)[1]
        db.nvtx(f"{op}, seq = {op_base + i}, op_id = {op_base + i + 1}, sizes = {_sizes(op, m)}", op_start, op_end)
    if open_module:
        db.nvtx(open_module[0], open_module[1], clock.call(1_000)[1])
    db.nvtx("nn.Module: LlamaForCausalLM_0", outer_start, clock.call(2_000)[1])


def nsys_llama_steps() -> str:
    db = _Nsys()
    clock = _Clock(1_000_000_000)
    for k, m in enumerate(TOKENS):
        step_start = clock.call(5_000)[0]
        if k == 0:
            copy = clock.call(8_000)
            corr = db.runtime("cudaMemcpyAsync_v3020", *copy)
            start, end = clock.run(copy[0], 40.0)
            db.add("CUPTI_ACTIVITY_KIND_MEMCPY", start=start, end=end, deviceId=0, contextId=1, greenContextId=0,
                   streamId=STREAM, correlationId=corr, globalPid=GPID, bytes=4 << 20, copyKind=1, srcKind=0,
                   dstKind=2)
            _forward(db, clock, _sequence(LAYER_CUDA, PREFILL_FACTOR), m, 0)
        else:
            launch = clock.call(9_000)
            corr = db.runtime("cudaGraphLaunch_v10000", *launch)
            for i, (name, _, us, _) in enumerate(_sequence(LAYER_CUDA, 1.0)):
                db.kernel(name, *clock.run(launch[0], us), corr, node=200 + i)
        sync = clock.call(1_000)[0]
        clock.host = max(clock.host, clock.device) + 3_000
        db.runtime("cudaStreamSynchronize_v3020", sync, clock.host)
        db.nvtx(f"ProfilerStep#{k}", step_start, clock.call(2_000)[1])
        if k == 0:  # capture the decode graph between the prefill and the first replay
            db.runtime("cudaStreamBeginCapture_v10000", *clock.call(4_000))
            for i, _ in enumerate(_sequence(LAYER_CUDA, 1.0)):
                call = clock.call(5_000)
                db.runtime("cudaLaunchKernel_v7000", *call)
                node = db.sid("cudaLaunchKernel")
                db.add("CUDA_GRAPH_NODE_EVENTS", start=call[0], end=call[1], eventClass=1, globalTid=GTID,
                       nameId=node, graphNodeId=100 + i)
            db.runtime("cudaStreamEndCapture_v10000", *clock.call(4_000))
            inst = clock.call(50_000)
            db.runtime("cudaGraphInstantiate_v12000", *inst)
            for i, _ in enumerate(_sequence(LAYER_CUDA, 1.0)):
                db.add("CUDA_GRAPH_NODE_EVENTS", start=inst[0], end=inst[1], eventClass=1, globalTid=GTID,
                       nameId=db.sid("cudaGraphInstantiate"), graphNodeId=200 + i, originalGraphNodeId=100 + i)
    for key, value in _META:
        db.add("META_DATA_EXPORT", name=key, value=value)
    db.add("TARGET_INFO_GPU", **_GPU)
    db.add("ENUM_NSYS_EVENT_TYPE", id=59, name="NvtxPushPopRange", label="NvtxPushPopRange")
    return db.sql(["StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                   "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "CUDA_GRAPH_NODE_EVENTS", "TARGET_INFO_GPU",
                   "META_DATA_EXPORT", "ENUM_NSYS_EVENT_TYPE"])


def nsys_graph_level() -> str:
    db = _Nsys()
    clock = _Clock(2_000_000_000)
    launch = clock.call(6_000)
    db.kernel(EMBED[0], *clock.run(launch[0], EMBED[2]), db.runtime("cudaLaunchKernel_v7000", *launch))
    for exec_id, us in ((1, 60.0), (1, 58.5)):
        launch = clock.call(9_000)
        corr = db.runtime("cudaGraphLaunch_v10000", *launch)
        start, end = clock.run(launch[0], us)
        db.add("CUPTI_ACTIVITY_KIND_GRAPH_TRACE", start=start, end=end, deviceId=0, contextId=1, streamId=STREAM,
               correlationId=corr, globalPid=GPID, graphId=3, graphExecId=exec_id)
    db.add("TARGET_INFO_GPU", **_GPU)
    return db.sql(["StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
                   "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "TARGET_INFO_GPU"])


# -- rocprofv3 ----------------------------------------------------------------------------------
KERNEL_HEADER = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
                 "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
                 "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
                 "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
API_HEADER = ["Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id", "Start_Timestamp", "End_Timestamp"]
COPY_HEADER = ["Kind", "Direction", "Stream_Id", "Source_Agent_Id", "Destination_Agent_Id", "Correlation_Id",
               "Start_Timestamp", "End_Timestamp"]
AGENT, CPU_AGENT, QUEUE, HIP_STREAM, T0 = 4, 0, 1, 1, 1_550_151_853_000_000


def _csv(header: list[str], rows: list[list]) -> str:
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return out.getvalue()


def rocprof_run() -> dict[str, str]:
    clock = _Clock(T0)
    kernels, api, copies, markers, symbols = [], [], [], [], {}
    corr = 0

    def call(name: str, dur: int) -> tuple[int, int, int]:
        nonlocal corr
        corr += 1
        start, end = clock.call(dur)
        api.append(["HIP_RUNTIME_API_EXT", name, PID, PID, corr, start, end])
        return corr, start, end

    for k, m in enumerate(TOKENS):
        step_start = clock.call(5_000)[0]
        if k == 0:
            c, s, _ = call("hipMemcpyAsync", 8_000)
            start, end = clock.run(s, 40.0)
            copies.append(["MEMORY_COPY", "MEMORY_COPY_HOST_TO_DEVICE", HIP_STREAM, f"Agent {CPU_AGENT}",
                           f"Agent {AGENT}", c, start, end])
        fwd_start = clock.call(2_000)[0]
        for name, _, us, _ in _sequence(LAYER_HIP, PREFILL_FACTOR if k == 0 else 1.0):
            c, s, _ = call("hipLaunchKernel", 6_000)
            start, end = clock.run(s, us)
            kid = symbols.setdefault(name, len(symbols) + 1)
            kernels.append(["KERNEL_DISPATCH", f"Agent {AGENT}", QUEUE, HIP_STREAM, PID, len(kernels) + 1, kid, name,
                            c, start, end, 0, 0, 64, 0, 32, 256, 1, 1, 256 * 4 * m, 1, 1])
        markers.append(["MARKER_CORE_API", "nn.Module: LlamaForCausalLM_0", PID, PID, 0, fwd_start, clock.call(1_000)[1]])
        c, s, _ = call("hipStreamSynchronize", 1_000)
        clock.host = max(clock.host, clock.device) + 3_000
        api[-1][-1] = clock.host
        markers.append(["MARKER_CORE_API", f"ProfilerStep#{k}", PID, PID, 0, step_start, clock.call(2_000)[1]])
    marker_rows = [r[:4] + [1000 + i] + r[5:] for i, r in enumerate(markers)]
    files = {"4242_kernel_trace.csv": _csv(KERNEL_HEADER, kernels), "4242_hip_api_trace.csv": _csv(API_HEADER, api),
             "4242_memory_copy_trace.csv": _csv(COPY_HEADER, copies),
             "4242_marker_api_trace.csv": _csv(API_HEADER, marker_rows)}
    files["4242_results.json"] = _rocprof_json(kernels, api, copies, marker_rows, symbols)
    return files


def _rocprof_json(kernels: list, api: list, copies: list, markers: list, symbols: dict[str, int]) -> str:
    kinds = [{"kind": "NONE", "operations": []},
             {"kind": "HIP_RUNTIME_API_EXT", "operations": ["hipNone", "hipLaunchKernel", "hipMemcpyAsync",
                                                             "hipStreamSynchronize"]},
             {"kind": "KERNEL_DISPATCH", "operations": ["KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE",
                                                        "KERNEL_DISPATCH_COMPLETE"]},
             {"kind": "MEMORY_COPY", "operations": ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST",
                                                    "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST"]},
             {"kind": "MARKER_CORE_API", "operations": ["roctxMarkA", "roctxRangePushA", "roctxRangePop"]}]
    ops = kinds[1]["operations"]
    handle = {CPU_AGENT: 0x1000, AGENT: 0x4000}

    def corr(i: int) -> dict:
        return {"internal": i, "external": 0}

    tool = {
        "metadata": {"pid": PID, "init_time": T0 - 1000, "fini_time": T0 + 10**9},
        "agents": [{"size": 0, "id": {"handle": handle[CPU_AGENT]}, "type": 1, "node_id": CPU_AGENT, "name": "AMD EPYC"},
                   {"size": 0, "id": {"handle": handle[AGENT]}, "type": 2, "node_id": AGENT, "name": "gfx942",
                    "product_name": "AMD Instinct MI300X"}],
        "counters": [],
        "strings": {"callback_records": [], "buffer_records": kinds,
                    "marker_api": [{"key": r[4], "value": r[1]} for r in markers]},
        "code_objects": [],
        "kernel_symbols": [{"size": 0, "kernel_id": 0, "code_object_id": 0, "kernel_name": "",
                            "formatted_kernel_name": ""}] + [
            {"size": 0, "kernel_id": kid, "code_object_id": 1, "kernel_name": name, "formatted_kernel_name": name,
             "demangled_kernel_name": name, "truncated_kernel_name": name.split("(")[0]}
            for name, kid in symbols.items()],
        "callback_records": {"counter_collection": []},
        "buffer_records": {
            "kernel_dispatch": [{
                "size": 0, "kind": 2, "operation": 2, "thread_id": r[4], "correlation_id": corr(r[8]),
                "start_timestamp": r[9], "end_timestamp": r[10],
                "dispatch_info": {"size": 0, "agent_id": {"handle": handle[AGENT]}, "queue_id": {"handle": r[2]},
                                  "kernel_id": r[6], "dispatch_id": r[5], "private_segment_size": 0,
                                  "group_segment_size": r[11], "workgroup_size": {"x": r[16], "y": r[17], "z": r[18]},
                                  "grid_size": {"x": r[19], "y": r[20], "z": r[21]}}} for r in kernels],
            "hip_api": [{"size": 0, "kind": 1, "operation": ops.index(r[1]), "correlation_id": corr(r[4]),
                         "start_timestamp": r[5], "end_timestamp": r[6], "thread_id": r[3]} for r in api],
            "hsa_api": [],
            "marker_api": [{"size": 0, "kind": 4, "operation": 1, "correlation_id": corr(r[4]),
                            "start_timestamp": r[5], "end_timestamp": r[6], "thread_id": r[3]} for r in markers],
            "memory_copy": [{"size": 0, "kind": 3, "operation": 2, "correlation_id": corr(r[5]),
                             "start_timestamp": r[6], "end_timestamp": r[7], "thread_id": PID,
                             "dst_agent_id": {"handle": handle[AGENT]}, "src_agent_id": {"handle": handle[CPU_AGENT]},
                             "bytes": 4 << 20} for r in copies],
            "scratch_memory": []},
    }
    return json.dumps({"rocprofiler-sdk-tool": [tool]}, indent=1) + "\n"


def main() -> None:
    (OUT / "nsys_llama_steps.sql").write_text(nsys_llama_steps())
    (OUT / "nsys_graph_level.sql").write_text(nsys_graph_level())
    run = OUT / "rocprofv3_run"
    run.mkdir(exist_ok=True)
    for name, text in rocprof_run().items():
        (run / name).write_text(text)


if __name__ == "__main__":
    main()
