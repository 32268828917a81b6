"""Hostile inputs for ``bench-kernel ops``: each case its input, the exact line and the exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

BF16 = "c10::BFloat16"


def _trace(path: Path, ops: list[dict], device: object = "NVIDIA H200", extra: dict | None = None) -> Path:
    """A minimal Kineto trace: each op launches one 10 us kernel (op <- External id <- launch <- kernel)."""
    events = []
    for i, op in enumerate(ops, start=1):
        t = 100.0 * i
        args = {"External id": i, **{k: v for k, v in op.items() if k != "name"}}
        events += [
            {"ph": "X", "cat": "cpu_op", "name": op["name"], "pid": 1, "tid": 1, "ts": t, "dur": 50.0, "args": args},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 1,
             "dur": 5.0, "args": {"External id": i, "correlation": 1000 + i, "cbid": 211}},
            {"ph": "X", "cat": "kernel", "name": f"kernel_{i}", "pid": 0, "tid": 7, "ts": t + 10, "dur": 10.0,
             "args": {"External id": i, "correlation": 1000 + i, "device": 0, "stream": 7,
                      "grid": [1, 1, 1], "block": [128, 1, 1]}},
        ]
    doc: dict = {"schemaVersion": 1, **(extra or {})}
    if device is not None:  # before traceEvents, where Kineto writes it
        doc["deviceProperties"] = [{"id": 0, "name": device, "numSms": 132}] if device != "not a list" else device
    doc["traceEvents"] = events
    path.write_text(json.dumps(doc))
    return path


def _mm(dims, types=(BF16, BF16), name="aten::mm"):
    return {"name": name, "Input Dims": dims, "Input type": list(types), "Concrete Inputs": ["", ""]}


def _only_error(r, code: int) -> str:
    assert r.exit_code == code and r.stdout == "" and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    return r.stderr


def test_missing_file(run_cli, tmp_path):
    err = _only_error(run_cli("ops", str(tmp_path / "nope.json")), 1)
    assert err == f"bench-kernel: error: trace file not found: {tmp_path / 'nope.json'}\n"


def test_not_a_trace(run_cli, tmp_path):
    (tmp_path / "t.json").write_text("hello\n")
    err = _only_error(run_cli("ops", str(tmp_path / "t.json")), 1)
    assert err.startswith(f"bench-kernel: error: {tmp_path / 't.json'}: not JSON")


@pytest.mark.parametrize("op", [{"name": "aten::mm"},
                                {"name": "aten::mm", "Input Dims": "[[4, 8]]", "Input type": "bf16"}])
def test_a_trace_without_shapes(run_cli, tmp_path, op):
    path = _trace(tmp_path / "t.json", [op])
    err = _only_error(run_cli("ops", str(path)), 1)
    assert err == ("bench-kernel: error: t.json records no op shapes: record it with torch.profiler.profile("
                   "record_shapes=True) (bench-kernel profile does); FLOPs and bytes are not guessed\n")


def test_unknown_device_fails_before_the_trace_is_read(run_cli, tmp_path):
    err = _only_error(run_cli("ops", str(tmp_path / "nope.json"), "--device", "H2000"), 1)
    assert err.startswith("bench-kernel: error: unknown device 'H2000'; close matches: H200")


@pytest.mark.parametrize("args, message", [
    (("--by", "bogus"), "Invalid value for '--by': 'bogus' is not one of 'op', 'shape'."),
    (("--top", "0"), "Invalid value for '--top': 0 is not in the range x>=1."),
    (("--context-len", "0"), "Invalid value for '--context-len': 0 is not in the range x>=1."),
    (("--context-len", "long"), "Invalid value for '--context-len': 'long' is not a valid integer range."),
    (("--moe-intermediate", "-2880"), "Invalid value for '--moe-intermediate': -2880 is not in the range x>=1."),
])
def test_usage_errors(run_cli, tmp_path, args, message):
    path = _trace(tmp_path / "t.json", [_mm([[4, 8], [8, 2]])])
    err = _only_error(run_cli("ops", str(path), *args), 2)
    assert err == f"bench-kernel: error: {message} (see 'bench-kernel ops --help')\n"


def test_missing_capture_trace(run_cli, tmp_path):
    path = _trace(tmp_path / "t.json", [_mm([[4, 8], [8, 2]])])
    err = _only_error(run_cli("ops", str(path), "--capture", str(tmp_path / "cap.json")), 1)
    assert err == f"bench-kernel: error: trace file not found: {tmp_path / 'cap.json'}\n"


def _rows(run_cli, path, *args):
    r = run_cli("ops", str(path), "--json", *args)
    assert r.exit_code == 0 and r.stderr == "", r.stderr
    data = json.loads(r.stdout)
    return {row["op"]: row for row in data["rows"]}, data


@pytest.mark.parametrize("dims, types, reason", [
    ([["a"], [-1, 2]], [BF16, BF16], "argument 'a' (position 0) is not a recorded tensor"),
    ([[4, 8], [9, 2]], [BF16, BF16], "inner dimensions differ: [4, 8] x [9, 2]"),
    ([[2**63, 8], [8, 2]], [BF16, BF16], "argument 'a' (position 0) is not a recorded tensor"),
    ([[4, 8, 1, 1, 1], [8]], [BF16, BF16], "a GEMM needs matrices, got shapes [4, 8, 1, 1, 1] and [8]"),
])
def test_malformed_shapes_give_a_reason_not_a_number(run_cli, tmp_path, dims, types, reason):
    path = _trace(tmp_path / "t.json", [_mm(dims, types)])
    rows, data = _rows(run_cli, path)
    mm = rows["aten::mm"]
    assert mm["flops"] is None and mm["achieved_tflops"] is None and mm["pct_of_roof"] is None
    assert mm["notes"] == [f"the recorded arguments do not fit the gemm formula: {reason}"]
    assert mm["kernel_us"] == 10.0 and data["counted_share"] == 0.0


def test_huge_but_valid_shapes_are_counted_exactly(run_cli, tmp_path):
    path = _trace(tmp_path / "t.json", [_mm([[2**40, 2**20], [2**20, 2]])])
    rows, data = _rows(run_cli, path)
    assert rows["aten::mm"]["flops"] == 2 * 2**40 * 2**20 * 2  # exact, not rounded through a float count
    assert "(!) above 100% of the roof: aten::mm; each row's notes name the likely causes" in data["notes"]
    assert rows["aten::mm"]["pct_of_roof"] > 100  # an impossible time for such work is flagged ...
    assert any(n.startswith("(!) above the roof:") for n in rows["aten::mm"]["notes"])  # ... and explained


def test_garbage_concrete_inputs_and_types(run_cli, tmp_path):
    op = {"name": "aten::_scaled_dot_product_flash_attention", "Input Dims": [[1, 2, 8, 4]] * 3 + [[]] * 3,
          "Input type": [BF16] * 3 + ["Scalar"] * 3, "Concrete Inputs": [{"x": 1}, None, 3, "nan", "yes" * 500, ""]}
    rows, _ = _rows(run_cli, _trace(tmp_path / "t.json", [op]))
    row = rows["aten::_scaled_dot_product_flash_attention"]
    assert row["flops"] == 2 * 1 * 2 * 8 * 8 * (4 + 4)  # is_causal unreadable: counted in full, not guessed half


def test_names_are_data_not_markup(run_cli, tmp_path):
    path = _trace(tmp_path / "t.json", [_mm([[4, 8], [8, 2]], name="[bold red]evil[/bold red]::op[/]")])
    r = run_cli("ops", str(path), "--md")
    assert r.exit_code == 0 and "| [bold red]evil[/bold red]::op[/] |" in r.stdout
    r = run_cli("ops", str(path))  # the terminal table too
    assert r.exit_code == 0 and "│ [bold red]evil[/bold red]::op[/] │" in r.stdout


@pytest.mark.parametrize("device, args, source, note", [
    ("NVIDIA H999", (), None, "no roofs: this GPU reports itself as 'NVIDIA H999', which is not in the peak table"),
    ("NVIDIA H999", ("--device", "B200"), "--device", "the trace's device 'NVIDIA H999' is not usable"),
    ("NVIDIA H200", ("--device", "B200"), "trace", "the trace was recorded on 'NVIDIA H200' (H200): --device B200 "
                                                    "is not used"),
    ("not a list", (), None, "no roofs: the trace names no device (deviceProperties); pass --device NAME"),
    (None, ("--device", "H200"), "--device", None),
])
def test_device_from_the_trace_else_the_option(run_cli, tmp_path, device, args, source, note):
    path = _trace(tmp_path / "t.json", [_mm([[64, 64], [64, 64]])], device=device)
    rows, data = _rows(run_cli, path, *args)
    assert data["device_source"] == source
    assert (rows["aten::mm"]["pct_of_roof"] is None) == (source is None)
    if note:
        assert any(n.startswith(note) for n in data["notes"]), data["notes"]


def test_a_capture_for_a_trace_without_graph_replays_is_not_used(run_cli, tmp_path):
    path = _trace(tmp_path / "t.json", [_mm([[4, 8], [8, 2]])])
    cap = _trace(tmp_path / "cap.json", [_mm([[4, 8], [8, 2]])])
    _, data = _rows(run_cli, path, "--capture", str(cap))
    assert "--capture cap.json is not used: no kernel of t.json was replayed from a CUDA/HIP graph" in data["notes"]


def test_kernels_launched_by_no_op_are_said_not_refused(run_cli, tmp_path):
    # What `bench-kernel profile` records for a Triton matmul on an H200: shapes recorded (every op
    # has its Input Dims, empty for aten::empty), but the kernel's launch sits under no op.
    path = _trace(tmp_path / "t.json", [{"name": "aten::empty", "Input Dims": [[], [], []], "Input type": ["", "", ""]}])
    doc = json.loads(path.read_text())
    for e in doc["traceEvents"]:
        if e["cat"] == "kernel":  # a second kernel that no launch links to an op
            doc["traceEvents"].append({**e, "name": "matmul_kernel", "ts": e["ts"] + 100,
                                       "args": {**e["args"], "External id": 99, "correlation": 5000}})
            break
    path.write_text(json.dumps(doc))
    r = run_cli("ops", str(path), "--device", "H200", "--json")
    assert r.exit_code == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["unlinked_kernels"] == 1 and report["unlinked_us"] == 10.0
    assert {"reason": "launched with no op around it (a direct Triton or extension launch records no shapes)",
            "kernels": 1, "us": 10.0, "ops": []} in report["uncounted"]


def test_a_kernel_recorded_at_0_us_has_work_but_no_rate(run_cli, tmp_path):
    # Once a ZeroDivisionError (trace/_ops.py) for a kernel the profiler timed at 0 us.
    path = _trace(tmp_path / "t.json", [_mm([[64, 128], [128, 256]])])
    doc = json.loads(path.read_text())
    for e in doc["traceEvents"]:
        if e["cat"] == "kernel":
            e["dur"] = 0.0
    path.write_text(json.dumps(doc))
    r = run_cli("ops", str(path), "--json")
    assert (r.exit_code, r.stderr) == (0, "")
    (row,) = json.loads(r.stdout)["rows"]
    assert (row["flops"], row["bytes"], row["counted_us"]) == (2 * 64 * 128 * 256, 2 * (64 * 128 + 128 * 256 + 64 * 256),
                                                               0.0)
    assert (row["achieved_tflops"], row["achieved_tbps"], row["pct_of_roof"], row["bound"]) == (None, None, None, None)
    assert row["notes"] == ["its kernels were recorded at 0 µs: no rate"]
    assert json.loads(r.stdout)["notes"] == []
    table = run_cli("ops", str(path))
    assert table.exit_code == 0 and "note: aten::mm: its kernels were recorded at 0 µs: no rate" in table.stdout


@pytest.mark.parametrize("annotation, reason", [
    # Σq² below Σq: no step has that (q >= 1 makes q² >= q)
    ("execute_5_context_0(sq0sk0sqsq0sqsk0)_generation_5(sq5sk9sqsq1sqsk9)", "cannot be one step's"),
    # a number too long to be a count: the annotation is not read, and the call says what is missing
    ("execute_1_context_0(sq0sk0sqsq0sqsk0)_generation_1(sq1sk" + "9" * 40 + "sqsq1sqsk1)", "pass --context-len"),
])
def test_a_hostile_step_annotation_is_a_reason_not_a_number(run_cli, tmp_path, annotation, reason):
    q, kv = [5, 8, 64], [5, 2, 64]
    path = _trace(tmp_path / "t.json", [{"name": "vllm::unified_attention_with_output", "Input Dims": [q, kv, kv, q, []],
                                         "Input type": [BF16] * 4 + [""], "Concrete Inputs": [""] * 5}])
    doc = json.loads(path.read_text())
    doc["traceEvents"].append({"ph": "X", "cat": "user_annotation", "name": annotation, "pid": 1, "tid": 1, "ts": 0.0,
                               "dur": 1000.0, "args": {}})
    path.write_text(json.dumps(doc))
    r = run_cli("ops", str(path), "--json")
    assert (r.exit_code, r.stderr) == (0, "")
    (row,) = json.loads(r.stdout)["rows"]
    assert row["flops"] is None and reason in row["notes"][-1]
    [left] = json.loads(r.stdout)["uncounted"]
    assert reason in left["reason"] and left["ops"] == ["vllm::unified_attention_with_output"]
