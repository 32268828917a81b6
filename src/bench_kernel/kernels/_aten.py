"""PyTorch's native CUDA/HIP kernels (``at::native::…``, ``at::cuda::…``, cub inside ``at_cuda_detail``).

TensorIterator kernels (``vectorized_elementwise_kernel``, ``elementwise_kernel``, ``reduce_kernel``,
…) are generic over a functor or lambda; what they compute is read from that argument, so
``vectorized_elementwise_kernel<8, CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>>``
becomes op ``add``, dtype ``bf16``, vector width 8, shown as
``at::native::vectorized_elementwise_kernel<add, bf16>``.
"""

from __future__ import annotations

import re

from bench_kernel.kernels._cxx import parse_function, split_args, split_component, split_scope
from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._shorten import dtype_of, lambda_owner
from bench_kernel.kernels._spans import Builder

__all__ = ["decode_aten", "op_name"]

_NAMESPACES = ("at::", "at_cuda_detail::", "c10::", "torch::", "c10d::")
# PyTorch kernels defined in anonymous namespaces (softmax, arange, symmetric-memory all-reduce).
_ANONYMOUS = {"softmax_warp_forward", "softmax_warp_backward", "elementwise_kernel_with_index",
              "multimem_all_reduce_kernel", "multimem_all_gather_kernel", "one_shot_all_reduce_kernel",
              "two_shot_all_reduce_kernel", "multimem_one_shot_all_reduce_kernel"}
# kernel -> names of its leading integer template parameters (aten/src/ATen/native/cuda/Loops.cuh,
# CUDALoops.cuh, Reduce.cuh).
_LEADING_INTS = {
    "vectorized_elementwise_kernel": ("vector_width",),
    "vectorized_templated_elementwise_kernel": ("vector_width",),
    "elementwise_kernel": ("threads", "items_per_thread"),
    "elementwise_kernel_manual_unroll": ("threads", "items_per_thread"),
    "index_elementwise_kernel": ("threads", "items_per_thread"),
    "unrolled_elementwise_kernel_for_multi_outputs": ("outputs",),
    "reduce_kernel": ("threads", "output_vec_size"),
}
_WRAPPERS = ("gpu_kernel_impl", "gpu_kernel_impl_nocast", "apply", "gpu_index_kernel")
_PREFIXES = ("CUDAFunctorOnSelf_", "CUDAFunctorOnOther_", "CUDAFunctor_", "launch_")
_SUFFIXES = ("KernelImplInternal", "CUDAKernelImpl", "KernelImpl", "_kernel_cuda", "_kernel_impl", "_cuda_kernel",
             "_kernel", "_cuda_out", "_cuda", "Functor", "_functor", "Ops", "_impl")
_ALIASES = {"direct_copy": "copy", "bfloat16_copy": "copy", "bfloat16tofloat32_copy": "copy",
            "pow_tensor_scalar": "pow", "arg_max": "argmax", "arg_min": "argmin", "norm_two": "norm",
            "max_nan": "max", "min_nan": "min", "compare_eq": "eq", "clamp_scalar": "clamp",
            "normal_and_transform": "normal", "plus": "add", "minus": "sub", "multiplies": "mul", "uniform_and_transform": "uniform", "index_put": "index_put"}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def op_name(identifier: str) -> str:
    """A functor or kernel function's name as an op: ``CUDAFunctor_add`` -> ``add``, ``GeluCUDAKernelImpl`` -> ``gelu``."""
    n = identifier
    for p in _PREFIXES:
        if n.startswith(p):
            n = n[len(p):]
    for _ in range(2):
        for s in _SUFFIXES:
            if n.endswith(s) and len(n) > len(s):
                n = n[: -len(s)]
                break
    n = _CAMEL.sub("_", n).lower()
    return _ALIASES.get(n, n)


def _op_of(arg: str, depth: int = 0) -> tuple[str | None, str | None]:
    """(op, dtype) computed by a TensorIterator functor or lambda argument."""
    if depth > 4 or not arg:
        return None, None
    parts = split_scope(arg)
    if any(p.startswith("{lambda") for p in parts):
        owner_idx = None
        for i, p in enumerate(parts):
            if p.startswith("{lambda"):
                break
            if not p.startswith("operator"):
                owner_idx = i
        if owner_idx is None:
            return None, None
        name, targs, _ = split_component(parts[owner_idx])
        if name in _WRAPPERS and targs:
            return _op_of(split_args(targs)[0], depth + 1)
        _, dtype = lambda_owner(arg)
        if dtype is None and targs:
            dtype = next((d for d in (dtype_of(t) for t in split_args(targs)) if d), None)
        return op_name(name), dtype
    last = parts[-1] if not parts[-1].startswith("operator") or len(parts) < 2 else parts[-2]
    name, targs, _ = split_component(last)
    targ_list = split_args(targs) if targs else []
    if name in _WRAPPERS and targ_list:
        return _op_of(targ_list[0], depth + 1)
    if name in ("BinaryFunctor", "AUnaryFunctor", "BUnaryFunctor", "UnaryFunctor", "func_wrapper_t",
                "ReduceOp") and len(targ_list) >= 2:
        inner = targ_list[-1] if name.endswith("Functor") else targ_list[1]
        op, inner_dtype = _op_of(inner, depth + 1)
        return op, dtype_of(targ_list[0]) or inner_dtype
    dtype = next((d for d in (dtype_of(t) for t in targ_list) if d), None)
    return op_name(name), dtype


def decode_aten(name: str, readable: str) -> Decoded | None:
    """Decode a PyTorch native kernel name, or None when it is not one."""
    fn = parse_function(readable)
    parts = split_scope(fn.qualified)
    kernel, targs, _ = split_component(parts[-1])
    # A short name drops the "(anonymous namespace)::" these PyTorch kernels live in.
    anonymous = kernel in _ANONYMOUS and ("(anonymous namespace)::" in readable or "::" not in fn.qualified)
    if not (fn.qualified.startswith(_NAMESPACES) or anonymous):
        return None
    b = Builder("aten")
    b.set("kernel", kernel)
    args = split_args(targs) if targs else []
    leading = _LEADING_INTS.get(kernel, ())
    rest = list(args)
    for field in leading:
        if rest and re.fullmatch(r"-?\d+u?l{0,2}", rest[0]):
            b.set(field, int(re.sub(r"[ul]", "", rest.pop(0))))
    op = dtype = None
    if kernel == "multi_tensor_apply_kernel" and rest:
        # <TensorListMetadata, Functor, Op[, scalar types]>: the op (Copy, std::plus) says the most.
        # (A short name, multi_tensor_apply_kernel<copy, int32>, has only the op and the dtype.)
        ops = [a for a in rest if "TensorListMetadata" not in a and dtype_of(a) is None
               and not re.fullmatch(r"-?\d+\w*", a)]
        op, dtype = _op_of(ops[-1]) if ops else (None, None)
    elif kernel in _LEADING_INTS or kernel in ("unrolled_elementwise_kernel", "elementwise_kernel_with_index"):
        functor = next((a for a in rest if not re.fullmatch(r"-?\d+\w*", a) and dtype_of(a) is None), None)
        op, dtype = _op_of(functor) if functor else (None, None)
        if kernel == "elementwise_kernel_with_index" and rest:
            dtype = dtype_of(rest[0]) or dtype
    else:
        dtype = next((d for d in (dtype_of(a) for a in rest) if d), None)
    if op:
        b.set("op", op)
    if dtype:
        b.set("dtype", dtype)
    short = None
    if op:
        short = _short(parts, kernel, op, dtype)
    return b.build(short=short)


def _short(parts: list[str], kernel: str, op: str, dtype: str | None, limit: int = 80) -> str:
    """``ns::kernel<op, dtype>`` within ``limit``: the inner namespaces go first, then the dtype,
    then the op is cut inside the brackets. The root namespace (``at``) and balanced brackets stay,
    so decoding the short name gives the same family and category."""
    namespace = [split_component(p)[0] for p in parts[:-1] if p and not p.startswith("{")] or ["at", "native"]
    for ns in ("::".join(namespace), namespace[0]):
        for inner in ((f"{op}, {dtype}" if dtype else op), op):
            text = f"{ns}::{kernel}<{inner}>"
            if len(text) <= limit:
                return text
    room = limit - len(f"{namespace[0]}::{kernel}<…>")
    return f"{namespace[0]}::{kernel}<{op[:max(room, 1)]}…>"
