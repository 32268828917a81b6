"""The sample trace shipped with the package: ``bench-kernel sample-trace`` names it, and every trace
command reads it with the totals that its raw events hold.

The reference figures are summed here from the gzipped JSON with the standard library, not through
bench-kernel's loader: 412 kernels and 671.581 us of kernel time (an H200 recording, see
``bench_kernel/trace/_sample.py``).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from bench_kernel.trace import sample_trace

SAMPLE = sample_trace()


@pytest.fixture(scope="module")
def raw() -> dict:
    """Totals of the sample, from its raw events."""
    events = json.loads(gzip.decompress(SAMPLE.read_bytes()))["traceEvents"]
    kernels = sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    memory = [e for e in events if e.get("cat") in ("gpu_memcpy", "gpu_memset")]
    # each ProfilerStep's span on the GPU stream (Kineto's gpu_user_annotation), in time order
    spans = sorted((e for e in events if e.get("cat") == "gpu_user_annotation"
                    and e.get("name", "").startswith("ProfilerStep#")), key=lambda e: e["ts"])
    steps = [[k for k in kernels if s["ts"] <= k["ts"] < s["ts"] + s["dur"]] for s in spans]
    return {"kernels": kernels, "kernel_us": sum(e["dur"] for e in kernels),
            "memory_us": sum(e["dur"] for e in memory), "memory_ops": len(memory),
            "step_kernel_us": [sum(k["dur"] for k in ks) for ks in steps], "step_kernels": [len(ks) for ks in steps]}


def _json(run_cli, *argv: str) -> dict:
    r = run_cli(*argv, "--json")
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    return json.loads(r.stdout)


def test_the_sample_ships_with_the_package_and_is_small():
    assert SAMPLE.is_file() and SAMPLE.parent.name == "data" and SAMPLE.parent.parent.name == "trace"
    assert SAMPLE.stat().st_size < 310_000  # package data: every install carries it


def test_the_command_prints_only_the_path(run_cli):
    r = run_cli("sample-trace")
    assert (r.exit_code, r.stderr, r.stdout) == (0, "", f"{SAMPLE}\n")  # so that $(bench-kernel sample-trace) works
    d = _json(run_cli, "sample-trace")
    assert d["path"] == str(SAMPLE) and "412 kernels, 671.6 µs" in d["about"]


def test_the_reference_totals(raw):
    # What the sample's description (and docs/traces.md) says it holds: four steps of 103 kernels.
    assert (len(raw["kernels"]), round(raw["kernel_us"], 3)) == (412, 671.581)
    assert raw["step_kernels"] == [103] * 4 and sum(raw["step_kernel_us"]) == pytest.approx(raw["kernel_us"])


def test_inventory(run_cli, raw):
    d = _json(run_cli, "inventory", str(SAMPLE))
    assert d["kernel_count"] == len(raw["kernels"])
    assert d["total_kernel_us"] == pytest.approx(raw["kernel_us"])
    assert sum(k["count"] for k in d["kernels"]) + d["rest"]["count"] == len(raw["kernels"])
    assert sum(k["total_us"] for k in d["kernels"]) + d["rest"]["total_us"] == pytest.approx(raw["kernel_us"])


def test_timeline(run_cli, raw):
    d = _json(run_cli, "timeline", str(SAMPLE))
    o = d["overall"]
    # One stream, nothing overlaps: busy is kernels plus memcpy/memset, and the GPU is mostly idle.
    assert o["compute_us"] == pytest.approx(raw["kernel_us"])
    assert o["memcpy_us"] == pytest.approx(raw["memory_us"])
    assert o["busy_us"] == pytest.approx(raw["kernel_us"] + raw["memory_us"])
    assert o["launches"]["kernel_launches"] == len(raw["kernels"])
    assert o["diagnosis"].startswith("host-bound: GPU busy 3.3% of 20.6 ms")
    assert [s["label"] for s in d["steps"]] == ["ProfilerStep#4", "ProfilerStep#5", "ProfilerStep#6", "ProfilerStep#7"]


def test_layers(run_cli, raw):
    d = _json(run_cli, "layers", str(SAMPLE))
    period, starts = d["period"], d["unit_starts"]
    assert len(starts) == d["layer_count"] >= 2 and period * len(starts) <= len(raw["kernels"])
    # The repeating units are runs of `period` kernels in time order from each start: their kernel time is the total.
    k = raw["kernels"]
    assert d["total_us"] == pytest.approx(sum(e["dur"] for s in starts for e in k[s:s + period]))
    assert [p["name"] for p in d["positions"]] == [e["name"] for e in k[starts[0]:starts[0] + period]]


def test_phases(run_cli, raw):
    d = _json(run_cli, "phases", str(SAMPLE))
    assert d["total_kernel_us"] == pytest.approx(raw["kernel_us"])
    # One forward per ProfilerStep: the prefill (32 new tokens a prompt), then three decodes (one
    # each) that launch the same kernels as one another.
    pre, dec = d["prefill"], d["decode"]
    assert (pre["steps"], dec["steps"], d["unknown"]["steps"], d["mixed"]["steps"]) == (1, 3, 0, 0)
    assert pre["kernel_count"] + dec["kernel_count"] == len(raw["kernels"]) and dec["kernel_count"] == 3 * pre["kernel_count"]
    assert pre["kernel_us"] == pytest.approx(raw["step_kernel_us"][0])
    assert dec["kernel_us"] == pytest.approx(sum(raw["step_kernel_us"][1:]))
    assert d["outside_steps"]["count"] == 0


def test_ops(run_cli, raw):
    d = _json(run_cli, "ops", str(SAMPLE), "--top", "1000")
    assert (d["device"], d["device_source"]) == ("H200", "trace")  # from the trace's deviceProperties
    assert d["total_kernel_us"] == pytest.approx(raw["kernel_us"]) and d["unlinked_kernels"] == 0
    assert sum(r["kernel_us"] for r in d["rows"]) == pytest.approx(raw["kernel_us"])
    assert sum(r["kernels"] for r in d["rows"]) == len(raw["kernels"])


def test_diff_against_itself_changes_nothing(run_cli, raw):
    d = _json(run_cli, "diff", str(SAMPLE), str(SAMPLE))
    # per step: the mean over the four steps
    assert d["total_us_a"] == d["total_us_b"] == pytest.approx(raw["kernel_us"] / 4) and d["delta_us"] == 0
    assert all(c["delta_us"] == 0 for c in d["categories"])


def test_source_trace(run_cli, raw):
    d = _json(run_cli, "source-trace", "--trace", str(SAMPLE), "--step", "0")
    assert d["total_us"] == pytest.approx(raw["step_kernel_us"][0]) and d["device"] == "NVIDIA H200"  # the prefill
    assert d["scale"] == "model" and d["subject"] == "LlamaForCausalLM"


def test_report(run_cli, tmp_path):
    out = tmp_path / "sample.html"
    r = run_cli("report", str(SAMPLE), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    import html as html_lib
    import re

    text = " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", out.read_text())).split())  # what a reader sees
    assert "sample_llama_generate.json.gz: 412 kernels, 671.6 µs" in text  # the inventory's totals
    assert "GPU busy 3.3% of 20.6 ms" in text  # the timeline's


def test_attribute_says_why_it_has_nothing_to_do(run_cli):
    # attribute matches CUDA-graph replays to their capture; the sample is eager: one line, exit 1.
    r = run_cli("attribute", str(SAMPLE), "--capture", str(SAMPLE))
    assert r.exit_code == 1
    assert r.stderr == (f"bench-kernel: error: {SAMPLE}: no kernel was replayed from a CUDA/HIP graph (none carries "
                        "the correlation id of a graph launch); nothing to attribute\n")


def test_the_python_api_names_it_too():
    import bench_kernel

    assert bench_kernel.sample_trace() == SAMPLE and isinstance(SAMPLE, Path)
    assert bench_kernel.load_trace(SAMPLE).kernel_count == 412


def _readme_sample_lines() -> list[str]:
    # The README's trace example and the fuller list of docs/traces.md: every line on "$T" must run.
    root = Path(__file__).resolve().parent.parent
    text = "\n".join((root / page).read_text() for page in ("README.md", "docs/traces.md"))
    return [line.split("  #")[0].strip() for line in text.splitlines() if line.startswith('bench-kernel ') and '"$T"' in line]


@pytest.mark.slow
def test_every_readme_line_on_the_sample_runs(run_cli, tmp_path):
    import shlex

    lines = _readme_sample_lines()
    commands = {shlex.split(line)[1] for line in lines}
    assert {"inventory", "timeline", "layers", "phases", "ops", "source-trace", "report"} <= commands
    for line in lines:
        argv = [str(SAMPLE) if a == "$T" else a for a in shlex.split(line.replace('"$T"', "$T"))[1:]]
        argv = [str(tmp_path / a) if a.endswith(".html") else a for a in argv]
        r = run_cli(*argv)
        assert (r.exit_code, r.stderr.startswith("bench-kernel: error")) == (0, False), (line, r.stderr)
        assert r.stdout or (tmp_path / "report.html").exists(), line
