"""The kernel method's bookkeeping: which device activity belongs to which call (no GPU)."""

from __future__ import annotations

import pytest

from bench_kernel.measure._kernel import CALL_MARK, FLUSH_MARK, CpuEvent, DeviceActivity, attribute, breakdown, overlaps


def _events():
    cpu = [
        CpuEvent(1, FLUSH_MARK, 0, 10), CpuEvent(2, "aten::zero_", 1, 9),
        CpuEvent(3, CALL_MARK, 20, 50), CpuEvent(4, "aten::mm", 21, 40),
        CpuEvent(5, FLUSH_MARK, 60, 70), CpuEvent(6, "aten::zero_", 61, 69),
        CpuEvent(7, CALL_MARK, 80, 110), CpuEvent(8, "aten::mm", 81, 100),
        CpuEvent(9, "aten::stray", 200, 210),
    ]
    dev = [
        # device-side spans Kineto derives for the annotations (linked_id = annotation id)
        DeviceActivity(FLUSH_MARK, "kernel", 1000, 50, 1),
        DeviceActivity(CALL_MARK, "kernel", 1100, 400, 3),
        DeviceActivity(FLUSH_MARK, "kernel", 1600, 50, 5),
        DeviceActivity(CALL_MARK, "kernel", 1700, 400, 7),
        DeviceActivity("fill", "kernel", 1000, 50, 2),           # our flush
        DeviceActivity("gemv", "kernel", 1100, 300, 4),
        DeviceActivity("reduce", "kernel", 1420, 80, 4),
        DeviceActivity("fill", "kernel", 1600, 50, 6),           # our flush
        DeviceActivity("gemv", "kernel", 1700, 310, 0),          # direct launch: no op link
        DeviceActivity("reduce", "kernel", 2020, 80, 8),
        DeviceActivity("stray", "kernel", 5000, 10, 9),          # outside every call
    ]
    return cpu, dev


def test_spans_assign_kernels_to_calls_and_drop_flushes():
    cpu, dev = _events()
    per_call, unlinked = attribute(cpu, dev)
    assert [[a.name for a in c] for c in per_call] == [["gemv", "reduce"], ["gemv", "reduce"]]
    assert unlinked == 1


def test_without_device_spans_falls_back_to_the_launching_op():
    cpu, dev = _events()
    dev = [a for a in dev if a.name not in (CALL_MARK, FLUSH_MARK)]
    per_call, unlinked = attribute(cpu, dev)
    # the direct launch (linked_id 0) cannot be placed without spans: counted, not guessed
    assert [[a.name for a in c] for c in per_call] == [["gemv", "reduce"], ["reduce"]]
    assert unlinked == 2


def test_breakdown_sums_to_the_per_call_total():
    cpu, dev = _events()
    per_call, _ = attribute(cpu, dev)
    stats = breakdown(per_call)
    by = {s.name: s for s in stats}
    assert by["gemv"].count_per_call == 1 and by["gemv"].us_per_call == pytest.approx(0.305)
    assert by["reduce"].us_per_call == pytest.approx(0.08)
    assert sum(s.share for s in stats) == pytest.approx(1.0)
    assert [s.name for s in stats] == ["gemv", "reduce"]  # largest first


def test_overlap_detection():
    a = DeviceActivity("a", "kernel", 0, 100, 0)
    b = DeviceActivity("b", "kernel", 50, 100, 0)
    c = DeviceActivity("c", "kernel", 200, 10, 0)
    assert overlaps([a, b]) and not overlaps([a, c])


def test_a_bare_kineto_session_is_read_as_the_kernel_method_reads_it():
    pytest.importorskip("torch")
    import torch
    from torch.autograd.profiler import record_function

    from bench_kernel.measure._kernel import _collect
    from bench_kernel.measure._profiler_start import kineto_session

    with kineto_session() as session:
        for _ in range(2):
            with record_function(CALL_MARK):
                torch.ones(8).add_(1.0)
    cpu, dev = _collect(session)
    assert [e.name for e in cpu].count(CALL_MARK) == 2
    assert "aten::add_" in {e.name for e in cpu}
    assert all(e.end_ns >= e.start_ns for e in cpu)


FIRST_SESSION = r"""
import sys, time
import torch
from bench_kernel.measure import start_profiler
t0 = time.perf_counter()
took = start_profiler()
print(round(time.perf_counter() - t0, 3), took > 0, start_profiler(), "torch._inductor" in sys.modules,
      "torch._dynamo" in sys.modules)
"""


@pytest.mark.multiprocess
@pytest.mark.slow
def test_the_first_session_imports_neither_inductor_nor_dynamo():
    # torch.profiler.profile's prepare_trace asks hasattr(torch, "_inductor"), which imports it
    # (4-5 s on a 2-core machine): the profiler's first session must not pay for that.
    pytest.importorskip("torch")
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", FIRST_SESSION], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    _, first_took, again, inductor, dynamo = out.stdout.split()[-5:]
    assert (first_took, again, inductor, dynamo) == ("True", "0.0", "False", "False")


def test_the_launch_configuration_is_read_from_kinetos_metadata_and_kept_per_kernel():
    from bench_kernel.measure._kernel import launch_config

    # as torch's _KinetoEvent.metadata_json() writes a kernel's args: a JSON object's fields without braces
    meta = ('"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 91, "registers per thread": 32, '
            '"shared memory": 1024, "blocks per SM": 0.5, "warps per SM": 4, "grid": [128, 1, 1], '
            '"block": [256, 1, 1], "est. achieved occupancy %": 25')
    cfg = launch_config(meta)
    assert cfg == ((128, 1, 1), (256, 1, 1), 32, 1024)
    assert launch_config("") is None and launch_config('"stream": 7') is None and launch_config('"grid": [1,') is None
    assert launch_config("{" + meta + "}") == cfg  # a whole object reads the same
    other = ((64, 1, 1), (256, 1, 1), 40, 0)
    calls = [[DeviceActivity("k", "kernel", 0, 1000, 1, cfg), DeviceActivity("m", "memcpy", 2000, 10, 1)],
             [DeviceActivity("k", "kernel", 0, 1000, 2, cfg)], [DeviceActivity("k", "kernel", 0, 1000, 3, other)]]
    k, m = breakdown(calls)
    # the most frequent configuration of the kernel's launches; none recorded for the memcpy
    assert (k.grid, k.block, k.registers_per_thread, k.shared_memory_bytes) == ((128, 1, 1), (256, 1, 1), 32, 1024)
    assert (m.grid, m.block, m.registers_per_thread, m.shared_memory_bytes) == (None, None, None, None)


def test_launch_configurations_come_from_the_sessions_trace_file_where_the_events_lack_them(tmp_path):
    # Some torch builds leave a device event's metadata_json() without grid/block (torch 2.11 on an
    # H100): the kernel method then saves its session once and reads Kineto's own JSON export, as
    # here the real H200 trace shipped with bench-kernel, written by that export.
    import gzip
    import json
    from collections import Counter

    from bench_kernel.measure._kernel import launches_from_trace
    from bench_kernel.trace import sample_trace

    real = gzip.decompress(sample_trace().read_bytes())

    class Session:  # what the kernel method holds: the session, whose results can save themselves
        class kineto_results:  # noqa: N801 - torch's attribute name
            @staticmethod
            def save(path):
                with open(path, "wb") as fh:
                    fh.write(real)

    found = launches_from_trace(Session)
    expected = {}
    for e in json.loads(real)["traceEvents"]:
        if e.get("cat") == "kernel" and "grid" in e.get("args", {}):
            a = e["args"]
            cfg = (tuple(a["grid"]), tuple(a["block"]), a.get("registers per thread"), a.get("shared memory"))
            expected.setdefault(e["name"], Counter())[cfg] += 1
    assert len(expected) > 10  # the sample's decode steps: GEMMs, norms, attention, ...
    assert found == {name: c.most_common(1)[0][0] for name, c in expected.items()}

    class Broken:
        class kineto_results:  # noqa: N801
            @staticmethod
            def save(path):
                raise RuntimeError("no trace")

    assert launches_from_trace(Broken) == {}  # extra detail: never a failed measurement
