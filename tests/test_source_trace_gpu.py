"""Source Trace of live callables on a GPU: every link must land on a line naming its function."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parent.parent
_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+?):(\d+)\)")


def _check_links(doc, text: str, doc_dir: Path) -> int:
    """Open every linked file:line; its text must contain the linked function's name."""
    by_link = {(f.link, f.line): f for s in doc.sites for f in (*s.stack, *( [s.source] if s.source else []))}
    checked = 0
    for name, link, line in _LINK.findall(text):
        frame = by_link[(link, int(line))]
        path = Path(frame.abs_path) if frame.abs_path else (doc_dir / link)
        lines = path.read_text().splitlines()
        assert name.split(".")[-1] in lines[int(line) - 1], (name, path, line, lines[int(line) - 1])
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
    [site] = doc.sites
    assert site.short == "add_kernel" and site.family == "triton"
    assert site.source is not None and site.source.display == "examples/triton_add.py"
    assert any("load `x`" in s for s in site.steps) and any(s.startswith("store") for s in site.steps)
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
    cats = [s.category for s in doc.sites]
    assert cats[0] == "gemm" and "activation" in cats
    assert all(s.op for s in doc.sites)
    text = doc.to_markdown("en")
    assert _check_links(doc, text, ROOT / "examples") >= 2
    assert all(f"`{s.short}`" in text.split("## End-to-end flow")[0] for s in doc.sites)
    flow = text.split("## End-to-end flow")[1]
    assert all(s.short in flow for s in doc.sites)


def test_callable_without_kernels_is_an_error():
    import torch

    from bench_kernel.errors import MeasurementError
    from bench_kernel.source_trace import document_call

    with pytest.raises(MeasurementError, match="launched no kernel"):
        document_call(lambda: torch.empty(0, device="cuda"))
