"""Source Trace of live callables on a GPU: every link must land on a line naming its function."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

# Processes: Triton and Inductor compile with ptxas, gcc and nvcc.
pytestmark = [pytest.mark.gpu, pytest.mark.multiprocess]
ROOT = Path(__file__).resolve().parent.parent
_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+?):(\d+)\)")


def _check_links(doc, text: str, doc_dir: Path) -> int:
    """Open every linked file:line; its text must contain the linked function's name."""
    by_link = {(f.link, f.line): (f.abs_path, f.function) for s in doc.kernels for f in s.stack}
    for s in doc.kernels:
        for x in (s.source.links if s.source else ()):
            if x.line:
                by_link[(x.link, x.line)] = (x.abs_path, x.symbol)
    checked = 0
    for name, link, line in _LINK.findall(text):
        abs_path, function = by_link[(link, int(line))]
        path = Path(abs_path) if abs_path else (doc_dir / link)
        lines = path.read_text().splitlines()
        assert function.split(".")[-1] in lines[int(line) - 1], (name, path, line, lines[int(line) - 1])
        checked += 1
    return checked


def _load(target: str):
    from bench_kernel.measure import load_target

    return load_target(str(ROOT / target))


def test_triton_kernel_document(tmp_path):
    from bench_kernel.source_trace import document_call

    [case] = _load("examples/triton_add.py:cases")
    doc = document_call(case.fn, make_inputs=case.make_inputs, name=case.label, root=ROOT,
                        doc_path=ROOT / "examples" / "x.md")
    [site] = doc.kernels
    assert site.short == "add_kernel" and site.family == "triton"
    assert site.source.kind == "triton" and site.source.links[0].display == "examples/triton_add.py"
    assert any("load `x`" in s for s in site.source.steps) and any(s.startswith("store") for s in site.source.steps)
    assert site.grid is not None and site.block is not None and site.regs is not None
    text = doc.to_markdown("en")
    assert doc.paths[0].title.startswith("`triton_add`")  # not Triton's launcher frames
    for heading in ("# triton_add Source Trace", "## Overview", "## Path 1:", "### CUDA Kernel: `add_kernel`",
                    "## End-to-end flow"):
        assert heading in text
    assert "(triton_add.py:" in text  # the example's own frame, relative to the document's folder
    assert _check_links(doc, text, ROOT / "examples") >= 2
    zh = doc.to_markdown("zh")
    assert "## 概述" in zh and "## 完整端到端流程图" in zh


def test_torch_op_document():
    from bench_kernel.source_trace import document_call

    cases = {c.label: c for c in _load("examples/torch_ops.py:cases")}
    case = cases["linear_silu"]
    doc = document_call(case.fn, make_inputs=case.make_inputs, name=case.label, root=ROOT,
                        doc_path=ROOT / "examples" / "x.md")
    cats = [s.category for s in doc.kernels]
    assert cats[0] == "gemm" and "activation" in cats
    assert all(s.op for s in doc.kernels)
    silu = next(s for s in doc.kernels if s.category == "activation")
    assert [x.display for x in silu.source.links][-1] == "aten/src/ATen/native/cuda/ActivationSiluKernel.cu"
    text = doc.to_markdown("en")
    assert _check_links(doc, text, ROOT / "examples") >= 2
    flow = text.split("## End-to-end flow")[1]
    assert all(s.short in flow for s in doc.kernels)


def test_compiled_function_links_inductors_generated_kernel():
    import torch

    from bench_kernel.source_trace import document_call

    @torch.compile
    def fused(x):
        return torch.nn.functional.silu(x) * x + 1.0

    x = torch.randn(1 << 20, device="cuda")
    doc = document_call(fused, make_inputs=lambda: (x,), name="fused", root=ROOT)
    [site] = [s for s in doc.kernels if s.family == "inductor"]
    assert site.source.kind == "inductor", site.source
    kernel = site.source.links[0]
    assert f"def {site.name}(" in Path(kernel.abs_path).read_text().splitlines()[kernel.line - 1]
    assert any("Original ATen" in o for o in site.source.origins)
    assert site.source.steps and any(s.startswith("store") for s in site.source.steps)


def test_repeated_blocks_are_counted_not_repeated():
    import torch

    from bench_kernel.source_trace import document_call

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = torch.nn.LayerNorm(256)
            self.mlp = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256))

        def forward(self, x):
            return x + self.mlp(self.norm(x))

    def model_of(n):
        return torch.nn.Sequential(*[Block() for _ in range(n)]).cuda().half()

    x = torch.randn(64, 256, device="cuda", dtype=torch.half)
    docs = {n: document_call(model_of(n), make_inputs=lambda: (x,), name="blocks", root=ROOT, top=4)
            for n in (2, 6)}
    for n, doc in docs.items():
        [seq] = doc.structure
        [block] = seq.children
        assert block.cls == "Block" and block.per_parent == (n, n)
        assert sum(s.launches_per_call for s in doc.kernels) == n * block.kernels_per_instance
    assert len(docs[2].kernels) == len(docs[6].kernels)
    assert len(docs[2].to_markdown().splitlines()) == len(docs[6].to_markdown().splitlines())
    only = document_call(model_of(2), make_inputs=lambda: (x,), name="blocks", root=ROOT, module="LayerNorm")
    assert {s.module_type for s in only.kernels} == {"norm"}


def test_callable_without_kernels_is_an_error():
    import torch

    from bench_kernel.errors import MeasurementError
    from bench_kernel.source_trace import document_call

    with pytest.raises(MeasurementError, match="launched no kernel"):
        document_call(lambda: torch.empty(0, device="cuda"))
