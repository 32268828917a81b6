"""Correctness before timing: compare a callable's output with a reference's.

Tolerances are on the relative Frobenius error ||out - ref|| / ||ref||, by the output's dtype,
computed in float64. The values follow the usual error of each format's arithmetic: float32
lands far under 1e-4 unless TF32 is on, bf16 operands between 1e-3 and 1e-2.
"""

from __future__ import annotations

from typing import Any, Iterator

from bench_kernel.dtypes import lookup

__all__ = ["compare", "tolerance_for"]

#: Canonical dtype (bench_kernel.dtypes) -> allowed relative error.
_TOLERANCE = {
    "fp64": 1e-7,
    "complex128": 1e-7,
    "fp32": 1e-4,
    "complex64": 1e-4,
    "fp16": 2e-3,
    "bf16": 1.6e-2,
    "fp8e4m3": 1.25e-1,
    "fp8e4m3fnuz": 1.25e-1,
    "fp8e5m2": 2.5e-1,
    "fp8e5m2fnuz": 2.5e-1,
}


def tolerance_for(dtype: Any) -> float:
    """Relative error allowed for an output of ``dtype``; 0 (exact) for integers and bool."""
    import torch

    key = lookup(dtype)
    if key == "fp32" and torch.backends.cuda.matmul.allow_tf32:
        return 1e-3  # TF32 keeps 10 mantissa bits
    if key in _TOLERANCE:
        return _TOLERANCE[key]
    return 0.0 if not (dtype.is_floating_point or dtype.is_complex) else 1e-2


def _leaves(obj: Any, path: str = "out") -> Iterator[tuple[str, Any]]:
    if isinstance(obj, (list, tuple)):
        for i, x in enumerate(obj):
            yield from _leaves(x, f"{path}[{i}]")
    elif isinstance(obj, dict):
        for k in sorted(obj, key=str):
            yield from _leaves(obj[k], f"{path}[{k!r}]")
    else:
        yield path, obj


def compare(out: Any, ref: Any, rtol: float | None = None) -> str | None:
    """None when ``out`` matches ``ref``; else one sentence saying where and by how much."""
    import torch

    a, b = list(_leaves(out)), list(_leaves(ref))
    if len(a) != len(b):
        return f"output has {len(a)} values, reference has {len(b)}"
    for (path, x), (_, y) in zip(a, b):
        if isinstance(x, torch.Tensor) != isinstance(y, torch.Tensor):
            return f"{path}: output is {type(x).__name__}, reference is {type(y).__name__}"
        if not isinstance(x, torch.Tensor):
            if x != y and not (isinstance(x, float) and isinstance(y, float) and abs(x - y) <= 1e-6 * max(abs(y), 1)):
                return f"{path}: {x!r} != reference {y!r}"
            continue
        if tuple(x.shape) != tuple(y.shape):
            return f"{path}: shape {tuple(x.shape)} != reference {tuple(y.shape)}"
        tol = tolerance_for(x.dtype) if rtol is None else rtol
        xd = x.detach().to(torch.float64 if not x.is_complex() else torch.complex128)
        yd = y.detach().to(xd.dtype).to(xd.device)
        bad_nan = torch.isnan(xd) & ~torch.isnan(yd)
        if bool(bad_nan.any()):
            return f"{path}: {int(bad_nan.sum())} NaN values where the reference has none"
        finite = torch.isfinite(yd)
        if bool((torch.isinf(xd) & finite).any()) or bool((xd[~finite] != yd[~finite]).any()):
            return f"{path}: infinities differ from the reference"
        diff = torch.linalg.vector_norm((xd - yd)[finite])
        scale = torch.linalg.vector_norm(yd[finite])
        err = float(diff / scale) if float(scale) > 0 else float(diff)
        if err > tol:
            return f"{path}: relative error {err:.3g} exceeds the {x.dtype} tolerance {tol:.3g}"
    return None
