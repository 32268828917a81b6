"""Source Trace building blocks on synthetic input: frames, grouping, Triton outline, rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_kernel.errors import UsageError
from bench_kernel.source_trace._build import build
from bench_kernel.source_trace._collect import Launch
from bench_kernel.source_trace._frames import plumbing_rules, to_source_frames
from bench_kernel.source_trace._text import _all_strings, strings
from bench_kernel.source_trace._triton import find_jit_source, outline
from bench_kernel.trace import Frame, KernelRecord, OpRecord

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "triton_add.py"


F = Frame


def test_frames_cut_the_harness_drop_plumbing_and_name_modules():
    frames = [
        F("click/core.py", 10, "invoke"),
        F("bench_kernel/source_trace/_entry.py", 150, "profiled"),
        F(str(EXAMPLE), 29, "cases"),
        F(None, None, "nn.Module: Linear_0"),
        F("torch/nn/modules/module.py", 1783, "_call_impl"),
        F("torch/nn/modules/linear.py", 130, "forward"),
        F(None, None, "<built-in function linear>"),
    ]
    out = to_source_frames(frames, root=ROOT, doc_dir=ROOT / "examples")
    assert [(f.display, f.line, f.function) for f in out] == [
        ("examples/triton_add.py", 29, "cases"), ("torch/nn/modules/linear.py", 130, "forward")]
    assert out[0].link == "triton_add.py"  # relative to the document's folder
    assert out[1].module == "Linear"  # the marker names the module whose forward follows
    kept = to_source_frames(frames, root=ROOT, doc_dir=ROOT, keep_all=True)
    assert [f.function for f in kept] == ["cases", "_call_impl", "forward"]


def test_every_plumbing_rule_parses():
    rules = plumbing_rules().rows
    assert ("torch/nn/modules/module.py", "_call_impl") in rules
    assert all(f and fn for f, fn in rules)


def test_strings_have_the_same_keys_in_every_language():
    s = _all_strings()
    assert set(s["en"]) == set(s["zh"])
    with pytest.raises(UsageError, match="unknown language 'fr'"):
        strings("fr")


def test_triton_source_and_outline():
    file, line = find_jit_source("add_kernel", [str(EXAMPLE)])
    assert Path(file) == EXAMPLE and "def add_kernel(" in EXAMPLE.read_text().splitlines()[line - 1]
    steps = outline(file, line)
    assert steps[0].startswith("`pid` = which block")
    assert [s.split()[0] for s in steps] == ["`pid`", "compute", "compute", "load", "load", "store"]
    assert "store `x + y` to `out_ptr + offsets` (masked)" in steps
    assert find_jit_source("triton_add", [str(EXAMPLE)]) is None  # not a jit function


def _record(name, stack, op="aten::mm", grid=(1, 1, 1), dur=1.0, index=0):
    """A trace's KernelRecord as the loader builds it (only the fields the document reads vary)."""
    o = None if op is None else OpRecord(op, 0.0, 1.0, 1, 1, 7, ((2, 8), (8, 4)), ("c10::BFloat16",) * 2)
    return KernelRecord(index=index, name=name, short=name, family="other", category="other", start_us=0.0,
                        dur_us=dur, stream=7, device=0, correlation=1, grid=grid, block=(128, 1, 1), regs=32,
                        smem_bytes=0, graph_launched=False, launch=None, op=o, stack=tuple(stack))


def test_paths_split_where_stacks_diverge_and_render():
    user = str(EXAMPLE)
    a = [F(user, 29, "cases"), F(user, 22, "triton_add")]
    b = [F(user, 29, "cases"), F("torch/nn/modules/linear.py", 130, "forward")]
    launches = [Launch(_record("add_kernel", a, op=None, dur=3.0, index=0), 0),
                Launch(_record("gemm_a", b, dur=6.0, index=1), 0),
                Launch(_record("gemm_b", b, dur=1.0, index=2), 0), Launch(_record("gemm_b", b, dur=1.0, index=3), 0)]
    doc = build("demo", launches, 1, root=ROOT, doc_dir=ROOT / "examples", device="GPU X")
    assert [p.title for p in doc.paths] == ["`triton_add` (other)", "`forward` (gemm)"]
    assert [p.kernels for p in doc.paths] == [(0,), (1, 2)]
    assert doc.total_us == pytest.approx(11.0)
    assert [round(s.share, 4) for s in doc.kernels] == [round(3 / 11, 4), round(6 / 11, 4), round(2 / 11, 4)]
    md = doc.to_markdown()
    tree = md.split("## Path 2")[1].split("###")[0]
    # the shared frame is printed once, both kernels hang under the frame that launched them
    assert tree.count("[forward](torch/nn/modules/linear.py:130)") == 1
    assert tree.count("CUDA Kernel ↓") == 2
    assert "- [triton_add](triton_add.py:22)" in md
    assert "source: library kernel (other) launched by `aten::mm`" in md
    assert "2× per call" in md


def test_installed_code_is_package_relative_even_in_a_venv_under_root(tmp_path):
    mod = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages" / "pkg" / "mod.py"
    mod.parent.mkdir(parents=True)
    mod.write_text("def f():\n    pass\n")
    user = tmp_path / "model.py"
    user.write_text("def g():\n    pass\n")
    [inst, mine] = to_source_frames([F(str(mod), 1, "f"), F(str(user), 1, "g")], root=tmp_path,
                                    doc_dir=tmp_path / "docs")
    assert (inst.display, inst.link) == ("pkg/mod.py", "pkg/mod.py")
    assert (mine.display, mine.link) == ("model.py", "../model.py")


def test_dtypes_are_shown_short_from_both_profiler_and_torch_names():
    from bench_kernel.source_trace._text import short_dtype

    assert [short_dtype(t) for t in ("c10::BFloat16", "float", "c10::Half", "torch.bfloat16", "torch.int64")] == [
        "bf16", "fp32", "fp16", "bf16", "int64"]


def test_generated_code_and_compile_plumbing_frames_are_dropped():
    # What a torch.compile'd call records on an H200 (torch 2.11): only the user's function and
    # Inductor's generated wrapper say anything about the path.
    wrapper = "/tmp/torchinductor_root/3n/c3nwm33g.py"
    frames = [F("torch/_dynamo/eval_frame.py", 956, "compile_wrapper"), F(str(EXAMPLE), 37, "silu_gate"),
              F("torch/_dynamo/eval_frame.py", 1240, "_fn"), F("torch/_functorch/aot_autograd.py", 1192, "forward"),
              F("torch/_functorch/_aot_autograd/runtime_wrappers.py", 534, "runtime_wrapper"),
              F("torch/_functorch/_aot_autograd/utils.py", 124, "call_func_at_runtime_with_args"),
              F("torch/_inductor/output_code.py", 628, "__call__"), F("torch/_inductor/utils.py", 3397, "run"),
              F(wrapper, 106, "call"), F("torch/_inductor/runtime/triton_heuristics.py", 1407, "run"),
              F("<string>", 1, "launcher"), F("torch/_inductor/runtime/static_triton_launcher.py", 232, "run")]
    out = to_source_frames(frames, root=ROOT, doc_dir=ROOT)
    assert [(f.function, f.line) for f in out] == [("silu_gate", 37), ("call", 106)]
