"""Source Trace from a recorded trace: sections, links, launch parameters, flow (no GPU)."""

from __future__ import annotations

import functools
import re

import pytest

from bench_kernel.source_trace import document_trace
from bench_kernel.trace import find_steps, kernel_steps, load_trace

_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+?):(\d+)\)")
H200 = "h200__llama_eager_generate.json.gz"


@pytest.fixture(scope="module")
def h200(traces_dir):
    return load_trace(traces_dir / H200, shapes=True, stacks=True)


@functools.lru_cache(maxsize=2)
def _h200_doc(traces_dir, kernel: str):
    """The H200 trace's document of ``kernel`` in step 1 (1-1.5 s to build): a frozen record, read by
    the tests that need the same one."""
    return document_trace(traces_dir / H200, kernel=kernel, step=1)


def _first_in_step(trace, pattern: str, step: int) -> int:
    ks = kernel_steps(trace, find_steps(trace))
    return next(i for i in range(trace.kernel_count)
                if ks[i] == step and re.search(pattern, trace.names[trace.kernels.name[i]]))


@pytest.mark.parametrize("pattern", ["sdpa", "nvjet"])
def test_document_from_the_h200_trace(traces_dir, h200, pattern, tmp_path):
    doc = document_trace(traces_dir / H200, kernel=pattern, step=1, root=tmp_path)
    text = doc.to_markdown("en")
    for heading in ("Source Trace\n", "## Overview", "## Path 1: ", "### CUDA Kernel: `", "## End-to-end flow"):
        assert heading in text
    # every link is a frame of the trace's own stack for one of the documented kernels
    frames = set()
    for site in doc.kernels:
        rec = h200.kernel(_first_in_step(h200, re.escape(site.name), 1), stack=True)
        frames |= {(f.file, f.line, f.function) for f in rec.stack if f.file}
        # launch parameters are the trace's
        assert (site.grid, site.block, site.regs, site.smem_bytes) == (rec.grid, rec.block, rec.regs, rec.smem_bytes)
        assert f"grid {tuple(rec.grid)}, block {tuple(rec.block)}".replace(",)", ")") in text
        assert f"{rec.regs} registers/thread" in text
    links = _LINK.findall(text)
    assert len(links) >= 6
    for name, path, line in links:
        assert (path, int(line), name) in frames
    # the flow diagram names every kernel of every path
    flow = text.split("## End-to-end flow")[1]
    by_order = {s.order: s for s in doc.kernels}
    for path in doc.paths:
        for order in path.kernels:
            assert by_order[order].short in flow


def test_attention_path_and_counts(traces_dir):
    doc = _h200_doc(traces_dir, "sdpa")
    [site] = doc.kernels
    assert site.category == "attention" and site.op == "aten::_cudnn_attention_forward"
    assert site.launches_per_call == 8  # one per decoder layer, 8 layers
    assert [f.function for f in site.stack][-1] == "sdpa_attention_forward"
    assert doc.paths[0].title.startswith("`sdpa_attention_forward`")
    assert [f.module for f in site.stack if f.module][-2:] == ["LlamaDecoderLayer", "LlamaAttention"]


def test_gemm_paths_split_attention_from_mlp(traces_dir):
    doc = _h200_doc(traces_dir, "nvjet")
    titles = [p.title for p in doc.paths]
    assert titles[0] == "`LlamaDecoderLayer.forward` (gemm)"
    tree = doc.to_markdown().split("## Path 2")[0]
    assert "# LlamaAttention" in tree and "# LlamaMLP" in tree
    assert sum(s.share for s in doc.kernels) == pytest.approx(1.0)


def test_chinese_document_has_the_seed_headings(traces_dir):
    text = _h200_doc(traces_dir, "sdpa").to_markdown("zh")
    assert "源码追踪" in text and "## 概述" in text and "## 路径 1：" in text and "## 完整端到端流程图" in text
    assert "### CUDA 内核：`" in text


@pytest.mark.parametrize("args,code,fragment", [
    (("--trace", "{t}/vllm_decode_full__graph_execution.json.gz", "--kernel", "_matmul_ogs"), 1,
     "replayed from a CUDA/HIP graph"),
    (("--trace", "{t}/torch_compile_triton__trace.json.gz", "--kernel", "."), 1, "no Python stacks"),
    (("--trace", "{t}/" + H200, "--kernel", "no_such_kernel_xyz"), 1, "matches no kernel"),
    (("--trace", "{t}/" + H200, "--kernel", "sdpa", "--step", "99"), 2, "steps 0..11"),
    (("--trace", "{t}/" + H200), 2, "give --kernel REGEX, --module NAME and/or --step N"),
    (("--trace", "{t}/" + H200, "--kernel", "("), 2, "not a valid regular expression"),
    (("--trace", "{t}/" + H200, "--kernel", "sdpa", "--lang", "fr"), 2, "'fr' is not one of"),
    ((), 2, "exactly one of TARGET or --trace"),
])
def test_bad_input_is_one_line(run_cli, traces_dir, args, code, fragment):
    r = run_cli("source-trace", *[a.format(t=traces_dir) for a in args])
    assert r.exit_code == code, r.stderr
    assert r.stderr.startswith("bench-kernel: error: ") and r.stderr.count("\n") == 1
    assert fragment in r.stderr


def test_cli_writes_the_file(run_cli, traces_dir, tmp_path):
    out = tmp_path / "doc.md"
    r = run_cli("source-trace", "--trace", str(traces_dir / H200), "--kernel", "sdpa", "--step", "1", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    assert out.read_text().startswith("# cudnn_sdpa")


def test_rocm_traces_speak_of_hip_kernels(traces_dir, h200):
    # the vendor comes from the one launch-API table, not from name prefixes
    assert h200.backend == "cuda"
    vllm = load_trace(traces_dir / "vllm_decode_full__graph_execution.json.gz")
    assert vllm.backend == "hip"
    text = document_trace(traces_dir / "vllm_decode_full__graph_execution.json.gz", kernel="elementwise").to_markdown()
    assert "### HIP Kernel: `" in text and "CUDA Kernel" not in text
