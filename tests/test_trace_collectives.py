"""Collectives and ranks: sizes and nccl-tests bandwidths from the raw events, side-by-side ranks."""

from __future__ import annotations

import gzip
import json
import math
from importlib import resources
from pathlib import Path

import pytest

from _raw_traces import raw_events
from bench_kernel.trace import collective_calls, load_trace, timeline_ranks
from bench_kernel.trace._tables import collectives

DATA = Path(__file__).parent / "data" / "trace"
NCCL = DATA / "ranks_nccl"
ELEM = {"BFloat16": 2, "Long": 8, "Float": 4}
CANONICAL = {"BFloat16": "bf16", "Long": "int64", "Float": "fp32"}  # bench_kernel.dtypes' vocabulary
# nccl-tests doc/PERFORMANCE.md: busbw = algbw * factor(n)
FACTOR = {"allreduce": lambda n: 2 * (n - 1) / n, "broadcast": lambda n: 1.0, "_allgather_base": lambda n: (n - 1) / n}


def _events(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


def test_every_collective_and_dtype_row_parses():
    text = resources.files("bench_kernel.trace").joinpath("data", "collectives.tsv").read_text()
    rows = [line.split("\t") for line in text.splitlines() if line.strip() and not line.startswith("#")]
    assert rows[0] == ["collective", "bus_factor", "match"]
    assert [c.name for c in collectives()] == [r[0] for r in rows[1:]]
    by = {c.name: c for c in collectives()}
    assert by["all_reduce"].busbw_factor(8) == pytest.approx(1.75) and by["all_gather"].busbw_factor(8) == 0.875
    assert by["broadcast"].busbw_factor(8) == 1.0 and by["barrier"].busbw_factor(8) is None
    for name, want in [("allreduce", "all_reduce"), ("_allgather_base", "all_gather"), ("AllGather", "all_gather"),
                       ("reduce_scatter_tensor_coalesced", "reduce_scatter"), ("ReduceScatter", "reduce_scatter"),
                       ("broadcast", "broadcast"), ("all_to_all", "all_to_all"), ("SendRecv", "send_recv"),
                       ("Reduce", "reduce"), ("multimem_all_reduce_kernel", "all_reduce")]:
        assert next(c.name for c in collectives() if c.match.search(name)) == want, name


def test_mi300_collectives_equal_the_kernel_metadata(traces_dir):
    path = traces_dir / "mi300__resnet_act_checkpoint.json.gz"
    raw = [e for e in raw_events(path) if e.get("cat") == "kernel" and "nccl" in e["name"]]
    c = collective_calls(load_trace(path))
    assert len(c.calls) == len(raw) == 17
    assert c.total_us == pytest.approx(sum(e["dur"] for e in raw)) and round(c.total_us / 1e3, 2) == 71.52
    by_start = {round(x.start_us, 3): x for x in c.calls}
    sized = [e for e in raw if "Collective name" in e["args"]]
    assert len(sized) == 12 and sum(x.metadata == "kernel" for x in c.calls) == 12
    for e in sized:
        a, x = e["args"], by_start[round(e["ts"], 3)]
        size = max(a["In msg nelems"], a["Out msg nelems"]) * ELEM[a["dtype"]]
        algbw = size / (e["dur"] * 1e-6) / 1e9
        assert (x.msg_bytes, x.group_size, x.dtype) == (size, a["Group size"], CANONICAL[a["dtype"]])
        assert x.algbw_gbps == pytest.approx(algbw)
        assert x.busbw_gbps == pytest.approx(algbw * FACTOR[a["Collective name"]](a["Group size"]))
    # the five kernels launched before profiling carry nothing and their generic name says nothing
    assert sum(x.collective == "unknown" and x.msg_bytes is None for x in c.calls) == 5
    assert sum(g.total_us for g in c.groups) == pytest.approx(c.total_us)


def test_b200_sizes_from_record_param_comms_and_op_shapes(traces_dir):
    path = traces_dir / "b200__eager_trace.json.gz"
    evs = raw_events(path)
    ops = {e["args"]["External id"]: e for e in evs if e.get("cat") == "cpu_op" and "External id" in e.get("args", {})}
    plain = collective_calls(load_trace(path))
    # the one NCCL all-gather carries its own metadata (In 25136 -> Out 201088 elements over 8 ranks)
    gather = next(x for x in plain.calls if x.collective == "all_gather")
    meta = next(e for e in evs if e.get("cat") == "kernel" and "AllGather" in e["name"])["args"]
    assert gather.metadata == "kernel" and gather.msg_bytes == meta["Out msg nelems"] * 2
    assert gather.group_size == meta["Group size"] == 8
    assert gather.busbw_gbps == pytest.approx(gather.algbw_gbps * FACTOR["_allgather_base"](8))
    assert sum(x.msg_bytes is None for x in plain.calls) == 73
    shaped = collective_calls(load_trace(path, shapes=True))
    multimem = [x for x in shaped.calls if x.metadata == "op_shapes"]
    assert len(multimem) == 73 and {x.collective for x in multimem} == {"all_reduce"}
    kernels = {round(e["ts"], 3): e for e in evs if e.get("cat") == "kernel" and "multimem" in e["name"]}
    for x in multimem:
        op = ops[kernels[round(x.start_us, 3)]["args"]["External id"]]["args"]
        assert x.msg_bytes == math.prod(op["Input Dims"][0]) * 2 and op["Input type"][0] == "c10::BFloat16"
        assert x.group_size is None and x.busbw_gbps is None and x.algbw_gbps == pytest.approx(
            x.msg_bytes / x.dur_us / 1e3)


def _nccl_starts(rank: int) -> list[float]:
    return sorted(e["ts"] for e in _events(NCCL / f"trace_rank{rank}.json")
                  if e.get("cat") == "kernel" and e["name"].startswith("ncclDevKernel"))


@pytest.mark.multiprocess
def test_ranks_side_by_side_straggler_and_skew():
    r = timeline_ranks(NCCL, workers=2)  # two worker processes
    s0, s1 = _nccl_starts(0), _nccl_starts(1)
    skews = [b - a for a, b in zip(s0, s1)]
    assert all(x > 0 for x in skews)  # rank 1 arrives last every time
    assert (r.straggler, r.straggler_basis) == (1, "collective arrivals")
    assert r.straggler_by_us == pytest.approx(sorted(skews)[1])  # the median
    assert [(c.seq, c.first_rank, c.last_rank) for c in sorted(r.collectives, key=lambda c: c.seq)] == \
        [(0, 0, 1), (1, 0, 1), (2, 0, 1)]
    assert sorted(c.skew_us for c in r.collectives) == pytest.approx(sorted(skews))
    rows = {x.rank: x for x in r.ranks}
    assert rows[0].waited_us == pytest.approx(sum(skews)) and rows[1].waited_us == 0
    assert (rows[0].last_arrivals, rows[1].last_arrivals) == (0, 3)
    # the waiting rank spends longer in the all-reduce: more communication, more of it exposed
    assert rows[0].comm_us - rows[1].comm_us == pytest.approx(sum(skews))
    ends = [e["ts"] + e["dur"] for e in _events(NCCL / "trace_rank1.json")
            if e.get("cat") == "kernel" and e["name"].startswith("ncclDevKernel")]
    assert all(c.transfer_us == pytest.approx(min(e - s for e, s in zip(ends, s1))) for c in r.collectives)
    # in-process and multi-process runs agree exactly
    assert timeline_ranks(NCCL, workers=1).to_dict() == r.to_dict()


def test_rank_metadata_from_the_kernel_or_the_op():
    r = timeline_ranks(NCCL, workers=1)
    meta = {rep.rank: {c.metadata for c in rep.collectives.calls} for rep in r.per_rank}
    assert meta == {0: {"kernel"}, 1: {"record_param_comms"}}
    for rep in r.per_rank:
        (g,) = rep.collectives.groups
        assert (g.collective, g.msg_bytes, g.group_size, g.count) == ("all_reduce", (1 << 20) * 2, 2, 3)
