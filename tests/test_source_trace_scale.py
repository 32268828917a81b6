"""Source Trace at any scale and down to the kernel's source, on the synthetic traces (no GPU)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench_kernel.errors import TraceError, UsageError
from bench_kernel.source_trace import document_trace
from bench_kernel.source_trace._inductor import find_inductor_kernel
from bench_kernel.source_trace._sources import aten_rows, aten_source, find_library
from bench_kernel.source_trace._structure import module_type

DATA = Path(__file__).resolve().parent / "data" / "source_trace"
MOE, OP = DATA / "moe_L2.json.gz", DATA / "op_linear_silu.json"
SILU = ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_kernel("
        "at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >"
        "(int, at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
        "const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)")


def _doc(path, tmp_path, **kw):
    return document_trace(path, step=0, root=tmp_path, torch_ref="v2.13.0", **kw)


def test_module_filter_keeps_what_runs_under_the_module(tmp_path):
    doc = _doc(MOE, tmp_path, module="Qwen2MoeAttention")
    assert doc.subject == "Qwen2MoeAttention"
    assert {s.module_type for s in doc.kernels} == {"attention"}
    assert all("Qwen2MoeAttention" in s.module_path for s in doc.kernels)
    # one instance only: the second layer's attention. Counts are per call of the module asked for:
    # step 0 calls the class twice (two layers) and the instance once, each call the same launches
    one = _doc(MOE, tmp_path, module="Qwen2MoeAttention_1")
    assert sum(s.launches_per_call for s in one.kernels) == sum(s.launches_per_call for s in doc.kernels) == 6
    assert "Selected: --module `Qwen2MoeAttention`." in doc.to_markdown()
    with pytest.raises(TraceError, match="--module 'NoSuchBlock': no selected kernel ran under"):
        _doc(MOE, tmp_path, module="NoSuchBlock")


def test_top_details_only_the_costliest_sites(tmp_path):
    doc = _doc(MOE, tmp_path, top=3)
    ranked = sorted(doc.kernels, key=lambda s: -s.us_per_call)
    assert sorted(doc.detailed) == sorted(s.order for s in ranked[:3])
    text = doc.to_markdown()
    assert text.count("\n### CUDA Kernel: ") == 3
    # the overview still speaks of every site
    assert f"| kernels per call | {doc.overview.kernels_per_call:g} (20 distinct call sites) |" in text


def test_flow_granularity_follows_the_scale_unless_overridden(tmp_path):
    model = _doc(MOE, tmp_path)
    flow = model.to_markdown().split("## End-to-end flow")[1]
    assert "│ Qwen2MoeDecoderLayer × 2  [Qwen2MoeRMSNorm → Qwen2MoeAttention → Qwen2MoeSparseMoeBlock]" in flow
    kernels = _doc(MOE, tmp_path, flow="kernels").to_markdown().split("## End-to-end flow")[1]
    assert "Qwen2MoeDecoderLayer" not in kernels and kernels.count("┌") == 8
    op = _doc(OP, tmp_path)
    assert (op.scale, op.flow, op.structure) == ("op", "kernels", ())
    with pytest.raises(UsageError, match="--flow modules: no nn.Module markers"):
        _doc(OP, tmp_path, flow="modules")


def test_github_links_use_line_anchors(tmp_path):
    text = _doc(OP, tmp_path, link_style="github").to_markdown()
    assert "[linear_silu](scripts/run_op.py#L9)" in text
    assert "(https://github.com/pytorch/pytorch/blob/v2.13.0/aten/src/ATen/native/cuda/ActivationSiluKernel.cu)" in text
    assert re.search(r"\]\([^)]*\.py:\d+\)", text) is None


def test_cli_options_reach_the_document(run_cli, tmp_path):
    out = tmp_path / "doc.md"
    r = run_cli("source-trace", "--trace", str(MOE), "--step", "0", "--module", "Qwen2MoeSparseMoeBlock",
                "--top", "2", "--lang", "zh", "--torch-ref", "v2.11.0", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    text = out.read_text()
    assert text.startswith("# Qwen2MoeSparseMoeBlock 源码追踪") and text.count("\n### CUDA 内核：") == 2
    assert "选择：--module `Qwen2MoeSparseMoeBlock`, --top 2。" in text


@pytest.mark.parametrize("cls,kind", [("Qwen2MoeSparseMoeBlock", "moe"), ("Qwen2MoeExperts", "moe"),
                                      ("LlamaAttention", "attention"), ("LlamaMLP", "mlp"),
                                      ("LlamaRotaryEmbedding", "position"), ("Embedding", "embedding"),
                                      ("Qwen2MoeRMSNorm", "norm"), ("Qwen2MoeModel", "other"),
                                      ("Qwen2MoeDecoderLayer", "other"), ("LlamaForCausalLM", "other")])
def test_module_types(cls, kind):
    assert module_type([cls]) == kind


def test_outermost_typed_module_wins():
    assert module_type(["Qwen2MoeDecoderLayer", "Qwen2MoeSparseMoeBlock", "Qwen2MoeMLP", "Linear"]) == "moe"


def test_aten_rows_name_template_and_functor():
    assert aten_source(SILU) == {"kernel": ("vectorized_elementwise_kernel", "aten/src/ATen/native/cuda/CUDALoops.cuh"),
                                 "functor": ("silu_kernel", "aten/src/ATen/native/cuda/ActivationSiluKernel.cu")}
    # identifiers, not substrings: a name no row covers is not mapped
    assert aten_source("void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(int)") == {}


def test_header_rows_are_defined_in_the_installed_torch_headers():
    """Rows pointing at a header the torch wheel ships are checked against that very header."""
    torch = pytest.importorskip("torch")
    include = Path(torch.__file__).parent / "include"
    checked = 0
    for rx, symbol, _, file in aten_rows():
        header = include / file.removeprefix("aten/src/")
        if file.endswith((".h", ".cuh")) and header.is_file():
            assert rx.search(header.read_text(errors="replace")), (symbol, file)
            checked += 1
    assert checked >= 20


def _inductor_wrapper(folder: Path, kernel_file: bool) -> Path:
    """A wrapper and kernel file in the shape Inductor writes them (torch/_inductor/codegen/triton.py)."""
    src = ("import triton\nimport triton.language as tl\n\n@triton_heuristics.pointwise(size_hints={'x': 1024})\n"
           "@triton.jit\ndef triton_poi_fused_mul_silu_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
           "    xoffset = tl.program_id(0) * XBLOCK\n    tmp0 = tl.load(in_ptr0 + xoffset)\n"
           "    tmp1 = tl.sigmoid(tmp0)\n    tl.store(out_ptr0 + xoffset, tmp0 * tmp1)\n")
    kpath = folder / "torchinductor_root" / "ab" / "cabkernel.py"
    kpath.parent.mkdir(parents=True)
    if kernel_file:
        kpath.write_text(src)
    wrapper = folder / "torchinductor_root" / "cd" / "cdwrapper.py"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text(
        "from torch._inductor.async_compile import AsyncCompile\nasync_compile = AsyncCompile()\n\n\n"
        f"# kernel path: {kpath}\n"
        "# Topologically Sorted Source Nodes: [silu, mul], Original ATen: [aten.silu, aten.mul]\n"
        "# Source node to ATen node mapping:\n#   mul => mul_1\n"
        "triton_poi_fused_mul_silu_0 = async_compile.triton('triton_poi_fused_mul_silu_0', '''\n"
        + src + "''', device_str='cuda')\n\n\ndef call(args):\n    triton_poi_fused_mul_silu_0.run(*args)\n")
    return wrapper


def test_inductor_kernel_from_its_cache_file(tmp_path):
    wrapper = _inductor_wrapper(tmp_path, kernel_file=True)
    k = find_inductor_kernel("triton_poi_fused_mul_silu_0", ["/usr/lib/x.py", str(wrapper)])
    assert Path(k.file).name == "cabkernel.py"
    assert Path(k.file).read_text().splitlines()[k.line - 1].startswith("def triton_poi_fused_mul_silu_0(")
    assert k.origins == ("Source Nodes: [silu, mul], Original ATen: [aten.silu, aten.mul]",)


def test_inductor_kernel_from_the_wrapper_when_the_cache_file_is_gone(tmp_path):
    wrapper = _inductor_wrapper(tmp_path, kernel_file=False)
    k = find_inductor_kernel("triton_poi_fused_mul_silu_0", [str(wrapper)])
    assert k.file == str(wrapper.resolve())
    assert wrapper.read_text().splitlines()[k.line - 1].startswith("def triton_poi_fused_mul_silu_0(")
    assert find_inductor_kernel("triton_poi_fused_other_1", [str(wrapper)]) is None


def test_library_and_kernel_source_in_an_installed_package(tmp_path):
    pkg = tmp_path / "site-packages" / "fakeext"
    (pkg / "csrc").mkdir(parents=True)
    (pkg / "_C.abi3.so").write_bytes(b"\x7fELF" + b"\0" * 64 + b"_Z14my_gemm_kernelPfS_i\0")
    (pkg / "other.so").write_bytes(b"\x7fELF nothing here")
    (pkg / "csrc" / "gemm.cu").write_text("#include <x>\n\ntemplate <int N>\n__global__ void my_gemm_kernel(float* a) {}\n")
    so, src = find_library(pkg, "my_gemm_kernel")
    assert so == pkg / "_C.abi3.so" and src == (pkg / "csrc" / "gemm.cu", 4)
    assert find_library(pkg, "absent_kernel") == (None, None)


def test_a_package_is_listed_in_path_order_up_to_the_bound_without_entering_symlinked_folders(tmp_path, monkeypatch):
    """The first library or source found is the first in sorted path order (``sorted(rglob("*"))``),
    so which of two files that both name a kernel wins does not depend on the file system's order."""
    from bench_kernel.source_trace import _sources

    pkg = tmp_path / "pkg"
    for rel in ("a/x.cu", "a-b.cu", "a.cu", "a/deep/y.h", ".hidden.cu", "lib.so.1", "b/_C.so", "README.md",
                "noext", "z.", "A.cu"):
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text("")
    (pkg / "a" / "folder.cu").mkdir()  # a folder with a source's suffix is not a file
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "far.cu").write_text("")
    (pkg / "link").symlink_to(outside, target_is_directory=True)
    (pkg / "c.cu").symlink_to(pkg / "a.cu")  # a symlink to a file is a file, as is_file() says

    def reference(suffixes):
        return [p for p in sorted(pkg.rglob("*"))
                if p.is_file() and (p.suffix in suffixes or (".so" in suffixes and ".so" in p.name))]

    src = _sources._files(pkg, _sources._SRC_SUFFIXES)
    assert [p.relative_to(pkg).as_posix() for p in src] == [
        ".hidden.cu", "A.cu", "a/deep/y.h", "a/x.cu", "a-b.cu", "a.cu", "c.cu"]
    assert src == reference(_sources._SRC_SUFFIXES)
    assert _sources._files(pkg, (".so",)) == [pkg / "b" / "_C.so", pkg / "lib.so.1"] == reference((".so",))
    monkeypatch.setattr(_sources, "_MAX_FILES", 3)
    assert _sources._files(pkg, _sources._SRC_SUFFIXES) == src[:3]
