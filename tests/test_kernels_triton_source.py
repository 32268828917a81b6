"""Triton kernels classified by their source, and the arguments they read and write."""

from __future__ import annotations

import textwrap
from pathlib import Path

from bench_kernel.kernels import decode, pointer_roles, triton_category, triton_source_category

ROOT = Path(__file__).resolve().parent.parent

MATMUL = textwrap.dedent('''
    import triton
    import triton.language as tl

    @triton.autotune(configs=[triton.Config({"BLOCK_M": 64}, num_warps=4)], key=["M", "N", "K"])
    @triton.jit
    def tile_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            acc = _mac(acc, a_ptrs, b_ptrs)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        tl.store(c_ptr + offs_m, acc)

    @triton.jit
    def _mac(acc, a_ptrs, b_ptrs):
        return tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
''')

FLASH = textwrap.dedent('''
    @triton.jit
    def _attn_fwd(Q, K, V, Out, N_CTX, BLOCK: tl.constexpr):
        q = tl.load(Q)
        m_i = tl.zeros([BLOCK], dtype=tl.float32) - float("inf")
        for start in range(0, N_CTX, BLOCK):
            qk = tl.dot(q, tl.load(K + start))
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.math.exp2(qk - m_ij[:, None])
            acc = tl.dot(p, tl.load(V + start))
        tl.store(Out, acc)
''')

INDUCTOR_RMSNORM = textwrap.dedent('''
    @triton_heuristics.persistent_reduction(size_hints={'x': 64, 'r0_': 1024}, reduction_hint=ReductionHint.INNER)
    @triton.jit
    def triton_per_fused__to_copy_add_mean_mul_pow_rsqrt_0(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel,
                                                           XBLOCK: tl.constexpr):
        tmp0 = tl.load(in_ptr0 + (r0_1 + 1024 * x0), None).to(tl.float32)
        tmp1 = tmp0 * tmp0
        tmp4 = tl.sum(tmp1, 1)[:, None]
        tmp9 = libdevice.rsqrt(tmp4 / 1024.0)
        tmp12 = tl.load(in_ptr1 + (r0_1), None)
        tl.debug_barrier()
        tl.store(in_out_ptr0 + (x0), tmp9, None)
''')

SOFTMAX = textwrap.dedent('''
    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.load(in_ptr + tl.arange(0, BLOCK))
        num = tl.exp(row - tl.max(row, axis=0))
        tl.store(out_ptr + tl.arange(0, BLOCK), num / tl.sum(num, axis=0))
''')


def test_categories_from_the_source():
    add = (ROOT / "examples" / "triton_add.py").read_text()
    assert triton_source_category(add, "add_kernel") == "elementwise"
    assert triton_source_category(MATMUL, "tile_kernel") == "gemm"  # the dot is in a helper beside it
    assert triton_source_category(FLASH, "_attn_fwd") == "attention"
    assert triton_source_category(SOFTMAX, "softmax_kernel") == "softmax"
    assert triton_source_category(INDUCTOR_RMSNORM, "triton_per_fused__to_copy_add_mean_mul_pow_rsqrt_0") == "norm"
    assert triton_source_category(MATMUL, "no_such_kernel") is None
    assert triton_source_category("def broken(:", "broken") is None


def test_the_name_alone_files_these_kernels_under_other():
    # What this module is for: the names say nothing.
    assert decode("add_kernel").category == "other"
    assert decode("tile_kernel").category == "other"  # a GEMM, as its source shows
    assert triton_category("tile_kernel", source=MATMUL) == "gemm"
    assert triton_category("tile_kernel") == "other"  # no source: the name decides
    assert triton_category("triton_poi_fused_mul_silu_0") == decode("triton_poi_fused_mul_silu_0").category


def test_pointer_roles_follow_pointers_through_assignments_and_loops():
    roles = pointer_roles(MATMUL, "tile_kernel")
    # a_ptr and b_ptr reach loads only through a_ptrs/b_ptrs, advanced in the loop, via a helper call
    # whose arguments the analysis does not follow into: they count as not traced, so read.
    assert roles["c_ptr"] == frozenset({"store"})
    add = pointer_roles((ROOT / "examples" / "triton_add.py").read_text(), "add_kernel")
    assert (add["x_ptr"], add["y_ptr"], add["out_ptr"]) == (frozenset({"load"}),) * 2 + (frozenset({"store"}),)
    rms = pointer_roles(INDUCTOR_RMSNORM, "triton_per_fused__to_copy_add_mean_mul_pow_rsqrt_0")
    assert rms["in_ptr0"] == frozenset({"load"}) and rms["in_out_ptr0"] == frozenset({"store"})
    atomic = pointer_roles("def k(p, v):\n    tl.atomic_add(p + 1, v)\n", "k")
    assert atomic["p"] == frozenset({"load", "store"})


def test_the_source_trace_files_a_found_triton_kernel_by_its_source():
    from bench_kernel.source_trace._build import build
    from bench_kernel.source_trace._collect import Launch
    from bench_kernel.trace import Frame, KernelRecord

    example = str(ROOT / "examples" / "triton_add.py")
    stack = (Frame(example, 29, "cases"), Frame(example, 24, "triton_add"),
             Frame("/venv/lib/python3.12/site-packages/triton/runtime/jit.py", 390, "run"))
    rec = KernelRecord(index=0, name="add_kernel", short="add_kernel", family="other", category="other",
                       start_us=0.0, dur_us=1.0, stream=7, device=0, correlation=1, grid=(4, 1, 1), block=(128, 1, 1),
                       regs=32, smem_bytes=0, graph_launched=False, launch=None, op=None, stack=stack)
    [site] = build("add", [Launch(rec, 0)], 1, root=ROOT, doc_dir=ROOT / "examples").kernels
    assert (site.family, site.category) == ("triton", "elementwise")
    assert site.source.kind == "triton" and site.source.links[0].symbol == "add_kernel"


def test_a_loaded_jit_function_is_found_once_for_both_its_users(tmp_path, monkeypatch):
    # A live run: the kernel's Python function sits in a loaded module as triton's JITFunction, here
    # behind an Autotuner. The lookup goes by the class names triton uses (it never imports triton), so
    # classes of those names are what it sees in a real run. Both the source lookup (kernels) and the
    # Source Trace's file link (source_trace) go through one helper and must agree.
    import sys
    import types

    from bench_kernel.kernels import loaded_jit_functions, loaded_jit_source
    from bench_kernel.source_trace._triton import find_jit_source

    path = tmp_path / "user_kernels.py"
    path.write_text(MATMUL)
    code = compile("def tile_kernel(a_ptr, b_ptr, c_ptr):\n    pass\n\ndef other():\n    pass\n", str(path), "exec")
    ns: dict = {}
    exec(code, ns)  # noqa: S102 -- the function's __code__ must point at the file, as an import's would
    JITFunction = type("JITFunction", (), {})
    Autotuner = type("Autotuner", (), {})
    jit, alias, tuner = JITFunction(), JITFunction(), Autotuner()
    jit.fn, alias.fn, tuner.fn = ns["tile_kernel"], ns["other"], jit
    mod = types.ModuleType("user_kernels")
    mod.tile_kernel, mod.misnamed = tuner, alias  # `misnamed` wraps a function of another name
    monkeypatch.setitem(sys.modules, "user_kernels", mod)

    assert loaded_jit_functions("tile_kernel") == [jit]
    assert loaded_jit_functions("misnamed") == []
    assert loaded_jit_source("tile_kernel") == (MATMUL, "tile_kernel")
    assert triton_category("tile_kernel", live=True) == "gemm"
    assert find_jit_source("tile_kernel", [], live=True) == (str(path.resolve()), MATMUL.index("def tile_kernel")
                                                            and MATMUL[:MATMUL.index("def tile_kernel")].count("\n") + 1)
