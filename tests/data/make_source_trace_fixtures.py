"""Write the Source Trace fixtures under tests/data/source_trace/ (deterministic; re-run to refresh).

    PYTHONPATH=src python tests/data/make_source_trace_fixtures.py

Shaped like what Kineto writes for an eager HF model with ``record_shapes``, ``with_stack`` and
``with_modules`` (modelled on ../shared/data/traces/h200__llama_eager_generate.json.gz): nested
``python_function`` events whose names are ``file(def line): function``, ``nn.Module: Cls_<i>``
markers followed by ``torch/nn/modules/module.py(1783): _call_impl`` and the module's ``forward``,
``cpu_op`` events with ``Input Dims``/``Input type``, ``cudaLaunchKernel`` and ``kernel`` events
linked by ``correlation`` and ``External id``, and one ``ProfilerStep#N`` per step.

- op_linear_silu.json    one op: ``linear_silu(x, w)`` = an nvjet GEMM and a SiLU kernel, 2 steps.
- moe_L2.json.gz         a Qwen2-MoE-like decoder forward, 2 layers (4 experts, 3 or 4 hit per layer,
- moe_L8.json.gz         a shared expert), 2 steps; the same with 8 layers. Layer i's kernels take
                         (1 + 0.02 * (i % 3)) of the base time, so the layers differ a little.
"""

from __future__ import annotations

import contextlib
import gzip
import json
from pathlib import Path
from typing import Iterator

OUT = Path(__file__).resolve().parent / "source_trace"
MODELING = "transformers/models/qwen2_moe/modeling_qwen2_moe.py"
CALL_IMPL = "torch/nn/modules/module.py(1783): _call_impl"
NVJET = "nvjet_sm90_tst_128x64_64x4_1x2_h_bz_coopA_TNT"
NVJET_HEAD = "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT"
SILU = ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_kernel("
        "at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#6}::operator()() const::"
        "{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::silu_kernel("
        "at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#6}::operator()() const::"
        "{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)")
MUL = ("void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
       "c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, "
       "at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::"
       "MulFunctor<float> >, std::array<char*, 3ul>)")
ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
       "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)")
MEAN = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, "
        "float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, "
        "float, float>, unsigned int, float, 4>)")
RSQRT = ("void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)"
         "::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, "
         "2ul> >(int, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::"
         "{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)")
SIN = ("void at::native::vectorized_elementwise_kernel<4, at::native::sin_kernel_cuda(at::TensorIteratorBase&)::"
       "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >"
       "(int, at::native::sin_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::"
       "operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)")
EMBED = ("void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, "
         "true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 "
         "const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, "
         "unsigned int, long)")
SOFTMAX = ("void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, c10::BFloat16, float, 3, false, false>"
           "(c10::BFloat16*, c10::BFloat16 const*, int, int, int, bool const*, int, bool)")
TOPK = ("void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda::detail::TensorInfo<float const, "
        "unsigned int>, unsigned int, unsigned int, bool, unsigned int, unsigned int, at::cuda::detail::TensorInfo<"
        "float, unsigned int>, unsigned int, at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int, float*)")
FLASH = ("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
         "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, "
         "true, false, false, false, true, false>(pytorch_flash::Flash_fwd_params)")
BF16, F32, I64 = "c10::BFloat16", "float", "long int"
T, H, I, V, E = 16, 256, 512, 1000, 4  # tokens, hidden, expert intermediate, vocab, experts


class _Trace:
    """Nested host events (``with tr.py(...)``) and kernels launched inside them."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self.t, self.gpu_t, self.corr, self.ext, self.pyid = 1000.0, 1500.0, 1, 1, 1
        self.scale = 1.0

    def x(self, cat: str, name: str, ts: float, dur: float, pid: int = 7, tid: int = 7, **args) -> dict:
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(ts, 3), "dur": round(dur, 3)}
        if args:
            e["args"] = args
        self.events.append(e)
        return e

    @contextlib.contextmanager
    def py(self, name: str) -> Iterator[None]:
        start, pid = self.t, self.pyid
        self.pyid += 1
        self.t += 0.25
        yield
        self.t += 0.25
        self.x("python_function", name, start, self.t - start, **{"Python id": pid})

    @contextlib.contextmanager
    def module(self, cls: str, inst: int, file: str, line: int) -> Iterator[None]:
        with self.py(f"nn.Module: {cls}_{inst}"), self.py(CALL_IMPL), self.py(f"{file}({line}): forward"):
            yield

    def kernel(self, name: str, op: str, dur: float, dims: list, types: list, grid=(8, 1, 1), block=(128, 1, 1),
               regs: int = 32, smem: int = 0) -> None:
        ext, corr = self.ext, self.corr
        self.ext += 1
        self.corr += 1
        self.x("cpu_op", op, self.t, 6.0, **{"External id": ext, "Input Dims": dims, "Input type": types})
        self.x("cuda_runtime", "cudaLaunchKernel", self.t + 1.0, 3.0, correlation=corr, cbid=211,
               **{"External id": ext})
        start = max(self.gpu_t, self.t + 2.0)
        dur = round(dur * self.scale, 3)
        self.x("kernel", name, start, dur, pid=0, tid=7, device=0, stream=7, correlation=corr, grid=list(grid),
               block=list(block), **{"External id": ext, "registers per thread": regs, "shared memory": smem})
        self.gpu_t = start + dur + 0.5
        self.t += 8.0

    def step(self, i: int, body) -> None:
        s0 = self.t
        self.t += 1.0
        body()
        self.t += 1.0
        self.x("user_annotation", f"ProfilerStep#{i}", s0, self.t - s0, **{"External id": 90000 + i})
        self.t += 20.0

    def write(self, name: str) -> None:
        doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200"}], "with_stack": 1,
               "record_shapes": 1, "traceEvents": self.events, "traceName": name}
        text = json.dumps(doc, indent=0, separators=(",", ":"))
        OUT.mkdir(parents=True, exist_ok=True)
        path = OUT / name
        if name.endswith(".gz"):
            path.write_bytes(gzip.compress(text.encode(), mtime=0))
        else:
            path.write_text(text)


def op_trace() -> _Trace:
    tr = _Trace()

    def body() -> None:
        with tr.py("scripts/run_op.py(9): linear_silu"):
            tr.kernel(NVJET, "aten::mm", 590.0, [[4096, 4096], [4096, 14336]], [BF16, BF16], grid=(2, 66, 1),
                      block=(384, 1, 1), regs=168, smem=188416)
            with tr.py("torch/nn/functional.py(2375): silu"):
                tr.kernel(SILU, "aten::silu", 61.0, [[4096, 14336]], [BF16], grid=(57344, 1, 1))

    with tr.py("scripts/run_op.py(20): <module>"):
        for i in range(2):
            tr.step(i, body)
    return tr


def _linear(tr: _Trace, inst: int, m: int, k: int, n: int, dur: float, name: str = NVJET) -> None:
    with tr.module("Linear", inst, "torch/nn/modules/linear.py", 130):
        tr.kernel(name, "aten::mm", dur, [[m, k], [k, n]], [BF16, BF16], grid=(n // 64 or 1, 1, 1),
                  block=(384, 1, 1), regs=168, smem=163840)


def _norm(tr: _Trace, inst: int) -> None:
    with tr.module("Qwen2MoeRMSNorm", inst, MODELING, 61):
        tr.kernel(MEAN, "aten::mean", 3.0, [[T, H], [], [], []], [F32, "", "", ""])
        tr.kernel(RSQRT, "aten::rsqrt", 1.5, [[T, 1]], [F32])
        tr.kernel(MUL, "aten::mul", 2.0, [[H], [T, H]], [BF16, BF16])


def moe_trace(layers: int) -> _Trace:
    tr = _Trace()
    lin = [0]

    def linear(m: int, k: int, n: int, dur: float, name: str = NVJET) -> None:
        _linear(tr, lin[0], m, k, n, dur, name)
        lin[0] += 1

    def layer(i: int) -> None:
        tr.scale = 1.0 + 0.02 * (i % 3)
        with tr.module("Qwen2MoeDecoderLayer", i, MODELING, 480):
            _norm(tr, 2 * i)
            with tr.module("Qwen2MoeAttention", i, MODELING, 300):
                for n in (H, 64, 64):
                    linear(T, H, n, 6.0)
                with tr.py(f"{MODELING}(120): apply_rotary_pos_emb"):
                    tr.kernel(MUL, "aten::mul", 2.0, [[1, 4, T, 64], [1, 1, T, 64]], [BF16, BF16])
                with tr.py("transformers/integrations/sdpa_attention.py(79): sdpa_attention_forward"):
                    tr.kernel(FLASH, "aten::_flash_attention_forward", 12.0,
                              [[1, T, 4, 64], [1, T, 1, 64], [1, T, 1, 64]], [BF16] * 3, grid=(1, 4, 1),
                              regs=255, smem=49152)
                linear(T, H, H, 6.0)
            tr.scale = 1.0 + 0.02 * (i % 3)
            _norm(tr, 2 * i + 1)
            with tr.module("Qwen2MoeSparseMoeBlock", i, MODELING, 400):
                linear(T, H, E, 3.0)
                tr.kernel(SOFTMAX, "aten::_softmax", 2.5, [[T, E], [], []], [F32, "", ""])
                tr.kernel(TOPK, "aten::topk", 4.0, [[T, E], [], [], [], []], [F32, "", "", "", ""])
                hit = 3 + i % 2
                for e in range(hit + 1):  # the routed experts hit, then the shared expert
                    with tr.module("Qwen2MoeMLP", i * (E + 1) + e, MODELING, 250):
                        linear(T, H, I, 8.0)
                        linear(T, H, I, 8.0)
                        with tr.module("SiLUActivation", i * (E + 1) + e, "transformers/activations.py", 102):
                            tr.kernel(SILU, "aten::silu", 2.0, [[T, I]], [BF16])
                        tr.kernel(MUL, "aten::mul", 2.0, [[T, I], [T, I]], [BF16, BF16])
                        linear(T, I, H, 8.0)
            tr.kernel(ADD, "aten::add", 1.5, [[T, H], [T, H], []], [BF16, BF16, "Scalar"])

    def body() -> None:
        lin[0] = 0
        with tr.py("scripts/run_moe.py(14): forward_once"):
            with tr.module("Qwen2MoeForCausalLM", 0, MODELING, 900):
                with tr.module("Qwen2MoeModel", 0, MODELING, 700):
                    tr.scale = 1.0
                    tr.kernel(ADD, "aten::add", 1.0, [[1, T], [], []], [I64, "Scalar", "Scalar"])
                    with tr.module("Embedding", 0, "torch/nn/modules/sparse.py", 188):
                        tr.kernel(EMBED, "aten::index_select", 2.0, [[V, H], [], [T]], [BF16, "Scalar", I64])
                    with tr.module("Qwen2MoeRotaryEmbedding", 0, MODELING, 80):
                        tr.kernel(SIN, "aten::sin", 1.0, [[1, T, 64]], [F32])
                    for i in range(layers):
                        layer(i)
                    tr.scale = 1.0
                    _norm(tr, 2 * layers)
                _linear(tr, 9999, T, H, V, 4.0, NVJET_HEAD)

    with tr.py("scripts/run_moe.py(30): <module>"):
        for s in range(2):
            tr.step(s, body)
    return tr


def main() -> None:
    op_trace().write("op_linear_silu.json")
    moe_trace(2).write("moe_L2.json.gz")
    moe_trace(8).write("moe_L8.json.gz")


if __name__ == "__main__":
    main()
