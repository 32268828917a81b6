"""The real-user suite (examples/real/) on a GPU: invariants, not numbers.

- the kernel list is the same without ``--roofline``, with it, and without it again (counting must
  not change the code under test, nor leave it changed);
- no case is lost to counting, and no result lands above 100% of its roof;
- the autotuner chooses before capture: nothing autotunes while a CUDA graph is captured;
- a Triton kernel's bytes come from its launch arguments, and its source files it as a GEMM;
- ``source-trace`` and ``profile`` work on each target.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# slow: compiles, autotunes and builds HF models (minutes); benchmarks/gpu/real_targets.sh runs it on its own.
pytestmark = [pytest.mark.gpu, pytest.mark.slow]
ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "examples" / "real"
TARGETS = ["compiled.py:cases", "triton_matmul.py:cases", "scaled_mm.py:cases", "sdpa.py:cases",
           "hf_decoder.py:cases", "graph_unsafe.py:cases"]
FAST = dict(max_time_s=0.1, precision=0.05)
_loaded: dict[str, list] = {}


def _cases(target: str) -> list:
    """The target's cases, loaded once; skipped only where the machine lacks what the target needs."""
    from bench_kernel.errors import TargetError
    from bench_kernel.measure import load_target

    if target not in _loaded:
        try:
            _loaded[target] = load_target(str(REAL / target))
        except TargetError as e:
            if "needs transformers" in str(e) or "needs an fp8 GPU" in str(e):
                pytest.skip(str(e))
            raise
    return _loaded[target]


def _kernel_names(result) -> list[str]:
    return sorted({k.name for k in result.kernels if k.kind == "kernel"})


@pytest.mark.parametrize("target", TARGETS)
def test_same_kernels_with_and_without_roofline_and_nothing_above_the_roof(target):
    from bench_kernel.options import Options
    from bench_kernel.orchestrate import bench_case

    for case in _cases(target):
        before = bench_case(case, Options(methods=("kernel",), **FAST))
        placed = bench_case(case, Options(methods=("graph", "kernel"), roofline=True, **FAST))
        after = bench_case(case, Options(methods=("kernel",), **FAST))
        assert _kernel_names(before) == _kernel_names(placed) == _kernel_names(after), case.label
        assert not any(n.text.startswith("counting failed") for n in placed.notes), placed.notes
        assert placed.roofline is not None, placed.notes  # no case lost to counting
        assert placed.roofline.pct_of_roof <= 100.0, (case.label, placed.roofline.to_dict(), placed.notes)
        if case.label.startswith("compile_"):  # still the compiled code: Inductor's fused kernel ran
            assert any(n.startswith("triton_") for n in _kernel_names(after)), _kernel_names(after)
        if case.label == "mask_select":
            assert placed.measurements["graph"].error.startswith("cannot capture in a CUDA graph")


def test_counted_dtype_and_causal_half():
    from bench_kernel.options import Options
    from bench_kernel.orchestrate import bench_case

    gqa, causal = _cases("sdpa.py:cases")
    full = bench_case(gqa, Options(methods=("kernel",), roofline=True, **FAST))
    half = bench_case(causal, Options(methods=("kernel",), roofline=True, **FAST))
    assert full.roofline.dtype == half.roofline.dtype == "bf16"
    assert full.flops == 4 * 4 * 32 * 4096 * 4096 * 128 == 2 * half.flops  # GQA: the query's 32 heads
    assert any("causal: counted as half" in n.text for n in half.notes)


def test_the_autotuner_chooses_before_capture(monkeypatch):
    import torch
    from triton.runtime.autotuner import Autotuner

    from bench_kernel.options import Options
    from bench_kernel.orchestrate import bench_case

    [case] = _cases("triton_matmul.py:cases")
    tuner = case.fn.__globals__["matmul_kernel"]
    tuner.cache.clear()  # a fresh choice, made inside this bench
    benched: list[bool] = []
    original = Autotuner._bench

    def observed(self, *args, **kwargs):
        benched.append(torch.cuda.is_current_stream_capturing())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Autotuner, "_bench", observed)
    result = bench_case(case, Options(methods=("graph", "kernel"), roofline=True, **FAST))
    assert len(benched) == len(tuner.configs)  # every config benchmarked once, in the warm-up ...
    assert not any(benched)  # ... and none while a graph was being captured
    assert len(tuner.cache) == 1 and result.measurements["graph"].ok
    # The kernel's bytes: A and B loaded, C stored, as its source says (an estimate, and said so).
    assert result.bytes == 3 * 2 * 4096 * 4096
    assert any("matmul_kernel: bytes estimated from its launch arguments" in n.text for n in result.notes)
    [k] = [k for k in result.kernels if k.kind == "kernel"]
    assert k.short.startswith("matmul_kernel") and k.category == "gemm"  # by its tl.dot source


@pytest.mark.parametrize("target", TARGETS)
def test_source_trace_documents_each_target(target):
    from bench_kernel.source_trace import document_call

    for case in _cases(target):
        doc = document_call(case.fn, make_inputs=case.make_inputs, name=case.label, root=ROOT, calls=2)
        assert doc.kernels and doc.total_us > 0
        assert "## Overview" in doc.to_markdown("en")
        if case.label == "triton_matmul_autotuned":
            assert [s.category for s in doc.kernels] == ["gemm"]


@pytest.mark.parametrize("target", TARGETS)
def test_profile_records_a_trace_ops_can_read(target, run_cli, tmp_path):
    pytest.importorskip("bench_kernel.cli.profile", reason="bench-kernel profile is not on this branch yet")
    from bench_kernel.trace import load_trace, ops

    for case in _cases(target):  # skips where the machine lacks what the target needs
        out = tmp_path / f"{case.label}.json.gz"
        r = run_cli("profile", str(REAL / target), "--case", case.label, "--steps", "2", "-o", str(out))
        assert r.exit_code == 0, r.stderr
        report = ops(load_trace(out, shapes=True))
        assert report.total_kernel_us > 0 and report.device is not None
        if case.label == "triton_matmul_autotuned":  # a direct Triton launch: no op, said so
            assert report.unlinked_kernels > 0 and any("have no op in the trace" in n for n in report.notes)
        else:
            assert report.rows
        if case.label.startswith("sdpa"):  # the attention op is counted from the trace too
            assert any(r.formula == "attention" and r.flops for r in report.rows), [r.op for r in report.rows]
