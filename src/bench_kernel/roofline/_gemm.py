"""GEMMs and convolutions: ``2*M*N*K`` per product (a multiply-add is 2 FLOPs); a convolution is
``2 * output elements * (C_in / groups) * kernel volume``. A bias add is not counted.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Sequence

from bench_kernel.roofline._opargs import UNKNOWN, TensorArg
from bench_kernel.roofline._optable import scalar_type
from bench_kernel.roofline._work import FormulaError, OpCall, Work, broadcast, formula, work

__all__: list[str] = []


def _gemm(call: OpCall, a: TensorArg, b: TensorArg, skip: Sequence[int] = ()) -> Work:
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise FormulaError(f"a GEMM needs matrices, got shapes {list(a.shape)} and {list(b.shape)}")
    (m, k), (k2, n) = a.shape[-2:], b.shape[-2:]
    if k != k2:
        raise FormulaError(f"inner dimensions differ: {list(a.shape)} x {list(b.shape)}")
    batch = math.prod(broadcast(a.shape[:-2], b.shape[:-2]))
    out_dtype = scalar_type(call.scalar("out_dtype")) or call.dtype(a)
    return work(call, 2 * batch * m * n * k, call.io_bytes([(batch * m * n, out_dtype)], skip), call.dtype(a))


@formula("gemm")
def gemm(call: OpCall) -> Work:
    return _gemm(call, call.tensor("a"), call.tensor("b"))  # type: ignore[arg-type]


@formula("matmul")
def matmul(call: OpCall) -> Work:
    """``torch.matmul``: a 1-D operand is a vector (a row on the left, a column on the right)."""
    a, b = call.tensor("a"), call.tensor("b")
    assert a is not None and b is not None
    va, vb = len(a.shape) == 1, len(b.shape) == 1
    a2 = replace(a, shape=(1,) + a.shape, strides=None) if va else a
    b2 = replace(b, shape=b.shape + (1,), strides=None) if vb else b
    return _gemm(call, a2, b2)


@formula("linear")
def linear(call: OpCall) -> Work:
    """``x @ w.T + bias`` with ``x`` of any rank and ``w`` as ``[out_features, in_features]``."""
    x, w = call.tensor("x"), call.tensor("w")
    assert x is not None and w is not None
    if not x.shape or w.shape[-1] != x.shape[-1] or len(w.shape) > 2:
        raise FormulaError(f"linear needs x[..., K] and w[N, K], got {list(x.shape)} and {list(w.shape)}")
    rows, k = math.prod(x.shape[:-1]), x.shape[-1]
    n = w.shape[0] if len(w.shape) == 2 else 1
    return work(call, 2 * rows * n * k, call.io_bytes([(rows * n, call.dtype(x))]), call.dtype(x))


@formula("grouped_gemm")
def grouped_gemm(call: OpCall) -> Work:
    """``torch._grouped_mm``: 2-D x 3-D (ragged rows of ``a``, one expert matrix per group), 3-D x
    3-D (a batch), 2-D x 2-D (ragged K: one output per group), 3-D x 2-D (ragged columns of ``b``)."""
    a, b = call.tensor("a"), call.tensor("b")
    assert a is not None and b is not None
    out_dtype = scalar_type(call.scalar("out_dtype")) or call.dtype(a)
    offs = call.tensor("offs", required=False)
    shapes = (len(a.shape), len(b.shape))
    if shapes == (3, 3):
        return _gemm(call, a, b)
    if shapes == (2, 3):
        (m, k), (_, k2, n) = a.shape, b.shape
        flops, out = 2 * m * k * n, m * n
    elif shapes == (2, 2):
        (m, k), (k2, n) = a.shape, b.shape
        groups = offs.shape[0] if offs is not None and offs.shape else 1
        flops, out = 2 * m * k * n, groups * m * n
    elif shapes == (3, 2):
        (_, m, k), (k2, n) = a.shape, b.shape
        flops, out = 2 * m * k * n, m * n
    else:
        raise FormulaError(f"grouped GEMM of {len(a.shape)}-D x {len(b.shape)}-D operands")
    if k != k2:
        raise FormulaError(f"inner dimensions differ: {list(a.shape)} x {list(b.shape)}")
    return work(call, flops, call.io_bytes([(out, out_dtype)]), call.dtype(a))


# -- convolution ---------------------------------------------------------------------------------

def _per_dim(value: Any, n: int, name: str, default: int) -> tuple[int, ...]:
    if value is None:
        return (default,) * n
    if value is UNKNOWN:
        raise FormulaError(f"its {name} is not recorded (the trace has no Concrete Inputs)")
    vals = [value] if isinstance(value, int) else list(value)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in vals) or len(vals) not in (1, n):
        raise FormulaError(f"{name} {value!r} is not {n} non-negative integers")
    return tuple(vals * n if len(vals) == 1 else vals)


def _conv_flops(x: TensorArg, w: TensorArg, out_spatial: Sequence[int], transposed: bool) -> int:
    kernel = math.prod(w.shape[2:])
    if transposed:  # each input element scatters into C_out/groups x kernel outputs
        return 2 * x.shape[0] * math.prod(x.shape[2:]) * w.shape[0] * w.shape[1] * kernel
    return 2 * x.shape[0] * math.prod(out_spatial) * w.shape[0] * w.shape[1] * kernel


@formula("conv")
def conv(call: OpCall) -> Work:
    x, w = call.tensor("x"), call.tensor("w")
    assert x is not None and w is not None
    nsp = len(x.shape) - 2
    if nsp < 1 or len(w.shape) != len(x.shape):
        raise FormulaError(f"convolution of input {list(x.shape)} with weight {list(w.shape)}")
    stride = _per_dim(call.value("stride"), nsp, "stride", 1)
    pad = _per_dim(call.value("padding"), nsp, "padding", 0)
    dil = _per_dim(call.value("dilation"), nsp, "dilation", 1)
    transposed = call.scalar("transposed", False) is True
    groups = call.scalar("groups", 1)
    if transposed:
        opad = _per_dim(call.value("output_padding"), nsp, "output_padding", 0)
        out_sp = [(i - 1) * s - 2 * p + d * (k - 1) + op + 1
                  for i, s, p, d, k, op in zip(x.shape[2:], stride, pad, dil, w.shape[2:], opad)]
        c_out = w.shape[1] * (groups if isinstance(groups, int) and groups > 0 else 1)
    else:
        out_sp = [(i + 2 * p - d * (k - 1) - 1) // s + 1 for i, s, p, d, k in zip(x.shape[2:], stride, pad, dil,
                                                                                  w.shape[2:])]
        c_out = w.shape[0]
    if any(o <= 0 for o in out_sp) or 0 in stride:
        raise FormulaError(f"no output: input {list(x.shape)}, weight {list(w.shape)}, stride {list(stride)}")
    out = x.shape[0] * c_out * math.prod(out_sp)
    return work(call, _conv_flops(x, w, out_sp, transposed), call.io_bytes([(out, call.dtype(x))]), call.dtype(x))


@formula("conv_backward")
def conv_backward(call: OpCall) -> Work:
    """Input and weight gradients each cost one forward convolution (``output_mask`` says which run)."""
    grad, x, w = call.tensor("grad"), call.tensor("x"), call.tensor("w")
    assert grad is not None and x is not None and w is not None
    mask = call.value("mask")
    if not (isinstance(mask, list) and len(mask) == 3 and all(isinstance(m, bool) for m in mask)):
        mask = [True, True, False]
        call.notes.append("output_mask not recorded: both the input and the weight gradient counted")
    transposed = call.scalar("transposed", False) is True
    fwd_x, fwd_out = (grad, x) if transposed else (x, grad)
    fwd = _conv_flops(fwd_x, w, fwd_out.shape[2:], False)
    new = [(x.numel, call.dtype(x))] * mask[0] + [(w.numel, call.dtype(w))] * mask[1]
    new += [(w.shape[1] if transposed else w.shape[0], call.dtype(w))] * mask[2]
    return work(call, fwd * (int(mask[0]) + int(mask[1])), call.io_bytes(new), call.dtype(x))
