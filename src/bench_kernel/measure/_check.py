"""Correctness before timing: compare a callable's output with a reference's.

The error of one output tensor is its relative RMS error, ||out - ref|| / ||ref|| (Frobenius
norms, computed in float64): one number per tensor that a few large elements cannot hide and a
few near-zero reference values cannot blow up (an element-wise relative error would). It passes
when

    RMS(out - ref) <= atol + rtol * RMS(ref),   i.e.   ||out - ref|| / ||ref|| <= rtol + atol / RMS(ref)

``rtol`` defaults by the output's dtype (:func:`tolerance_for`): the usual error of each format's
arithmetic -- float32 lands far under 1e-4 unless TF32 is on, bf16 operands between 1e-3 and 1e-2;
``atol`` (an RMS allowance in the output's units) defaults to 0. A case, ``bench()`` and a sweep
spec set their own (``rtol=``, ``atol=``) when the reference is a different formula: a tanh-GELU
against the exact erf-GELU differs by 2e-4 at float32, above the 1e-4 default, and is right.
The error measured is kept (:class:`Check`): printed when the check fails, in the JSON when it passes.
"""

from __future__ import annotations

import math
import sys
from typing import Any, Callable, Iterator

from bench_kernel.dtypes import lookup
from bench_kernel.records import Check

__all__ = ["Check", "compare", "tolerance_for", "check_tolerances"]

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
    """Relative error allowed for an output of ``dtype`` (torch's or NumPy's); 0 (exact) for
    integers and bool."""
    key = lookup(dtype)
    torch = sys.modules.get("torch")
    if key == "fp32" and torch is not None and isinstance(dtype, torch.dtype) and torch.backends.cuda.matmul.allow_tf32:
        return 1e-3  # TF32 keeps 10 mantissa bits (torch's matmuls only)
    if key in _TOLERANCE:
        return _TOLERANCE[key]
    floating = getattr(dtype, "kind", "") in ("f", "c") or getattr(dtype, "is_floating_point", False) or getattr(
        dtype, "is_complex", False)
    return 1e-2 if floating else 0.0


def check_tolerances(rtol: Any, atol: Any) -> str | None:
    """What is wrong with a given ``rtol``/``atol`` (each None or a finite number >= 0), or None."""
    for key, v in (("rtol", rtol), ("atol", atol)):
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            return f"'{key}' must be a finite number >= 0 (None: the default), got {v!r}"
    return None




def _is_tensor(x: Any) -> bool:
    """``x`` is a torch tensor; never imports torch (without it loaded, no tensor can exist, and a
    pure-Python case's check would pay its import: seconds in each fresh process)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _is_array(x: Any) -> bool:
    """``x`` is a NumPy array, checked like a tensor (``!=`` of two arrays has no truth value); a
    NumPy scalar is a number."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.ndarray)


def _is_float(x: Any) -> bool:
    np = sys.modules.get("numpy")
    return isinstance(x, float) or (np is not None and isinstance(x, np.floating))


def _array_check(path: str, x: Any, y: Any, rtol: float | None, atol: float) -> Check:
    """:func:`_tensor_check` for NumPy arrays, by the same rule."""
    import numpy as np

    x, y = np.asarray(x), np.asarray(y)
    dtype = lookup(x.dtype) or str(x.dtype)
    if x.shape != y.shape:
        return Check(False, path, dtype, reason=f"shape {x.shape} != reference {y.shape}")
    if x.dtype.kind not in "biufc" or y.dtype.kind not in "biufc":
        # Strings, dates, objects, records: no error to measure, so equal or not (converting them
        # to float64 raised, and the check blamed the case).
        if np.array_equal(x, y):
            return Check(True, path, dtype, rel_error=0.0, rtol=0.0, atol=atol)
        return Check(False, path, dtype, reason=f"{x.dtype} values differ from the reference's ({y.dtype})")
    tol = tolerance_for(x.dtype) if rtol is None else float(rtol)
    wide = np.complex128 if np.iscomplexobj(x) or np.iscomplexobj(y) else np.float64
    xd, yd = x.astype(wide), y.astype(wide)
    with np.errstate(all="ignore"):  # infinities and NaNs are judged there, not warned about
        return _masked_verdict(np, np.linalg.norm, path, dtype, xd, yd, tol, atol)


def _masked_verdict(xp: Any, norm: Callable[[Any], Any], path: str, dtype: str, xd: Any, yd: Any, tol: float,
                    atol: float) -> Check:
    """The general rule on widened values ``xd``/``yd`` of one array library ``xp`` (torch or
    NumPy, whose ``isnan``/``isfinite``/``isinf``, masks and ``abs`` read alike; ``norm``: its
    vector 2-norm): a NaN or an infinity the reference lacks is named, NaN against NaN matches,
    and the finite values give the error."""
    bad_nan = xp.isnan(xd) & ~xp.isnan(yd)
    if bool(bad_nan.any()):
        return Check(False, path, dtype, rtol=tol, atol=atol,
                     reason=f"{int(bad_nan.sum())} NaN values where the reference has none")
    finite = xp.isfinite(yd)
    odd_x, odd_y = xd[~finite], yd[~finite]  # NaN where the reference has NaN is a match, not a difference
    if bool((xp.isinf(xd) & finite).any()) or bool(((odd_x != odd_y) & ~(xp.isnan(odd_x) & xp.isnan(odd_y))).any()):
        return Check(False, path, dtype, rtol=tol, atol=atol, reason="infinities differ from the reference")
    d = (xd - yd)[finite]
    max_abs = float(abs(d).max()) if len(d) else 0.0
    return _verdict(path, dtype, float(norm(d)), float(norm(yd[finite])), max_abs, len(d), tol, atol)


def _leaves(obj: Any, path: str = "out") -> Iterator[tuple[str, Any]]:
    if isinstance(obj, (list, tuple)):
        for i, x in enumerate(obj):
            yield from _leaves(x, f"{path}[{i}]")
    elif isinstance(obj, dict):
        for k in sorted(obj, key=str):
            yield from _leaves(obj[k], f"{path}[{k!r}]")
    else:
        yield path, obj


def _tensor_check(path: str, x: Any, y: Any, rtol: float | None, atol: float) -> Check:
    import torch

    dtype = lookup(x.dtype) or str(x.dtype).removeprefix("torch.")
    if tuple(x.shape) != tuple(y.shape):
        return Check(False, path, dtype, reason=f"shape {tuple(x.shape)} != reference {tuple(y.shape)}")
    tol = tolerance_for(x.dtype) if rtol is None else float(rtol)
    xd = x.detach().to(torch.float64 if not x.is_complex() else torch.complex128)
    yd = y.detach().to(xd.dtype).to(xd.device)
    quick = _finite_check(path, dtype, xd, yd, tol, atol)
    if quick is not None:
        return quick
    return _masked_verdict(torch, torch.linalg.vector_norm, path, dtype, xd, yd, tol, atol)


def _finite_check(path: str, dtype: str, xd: Any, yd: Any, tol: float, atol: float) -> Check | None:
    """The usual case in one read of the results: the error's norm, the reference's norm and the
    largest error, whose finiteness shows that neither side holds a NaN or an infinity (either
    makes a norm non-finite). None sends the general path to say what is not finite. That path's
    masks and masked copies took 2 s for 16M float32 values on a 2-core CPU (35 ms for 1M): more
    than the timing of a sweep's point."""
    import torch

    if not xd.numel():
        return None
    d = xd - yd
    diff, scale, max_abs = torch.stack([torch.linalg.vector_norm(d), torch.linalg.vector_norm(yd),
                                        d.abs().max()]).tolist()
    if not all(math.isfinite(v) for v in (diff, scale, max_abs)):
        return None
    return _verdict(path, dtype, diff, scale, max_abs, int(d.numel()), tol, atol)


def _verdict(path: str, dtype: str, diff: float, scale: float, max_abs: float, count: int, tol: float,
             atol: float) -> Check:
    """Pass or fail from the error's norm ``diff``, the reference's norm ``scale`` and ``count`` values."""
    n = max(count, 1)
    # A reference of zeros has no relative error: the absolute one stands in for it (as before rtol/atol).
    rel = diff / scale if scale > 0 else diff
    passed = diff / math.sqrt(n) <= atol + tol * scale / math.sqrt(n) if scale > 0 else (
        rel <= tol or diff / math.sqrt(n) <= atol)
    return Check(passed, path, dtype, rel, max_abs, tol, atol)


def compare(out: Any, ref: Any, rtol: float | None = None, atol: float | None = None) -> Check:
    """Check ``out`` against ``ref`` (torch tensors, NumPy arrays, numbers, or lists/tuples/dicts of them).

    rtol: the relative tolerance (None: by each output's dtype, :func:`tolerance_for`); atol: an
    allowance on the RMS error in the output's units (None: 0). Returns the first failing
    :class:`Check`, else the passing one with the largest relative error.
    """
    atol = 0.0 if atol is None else float(atol)
    a, b = list(_leaves(out)), list(_leaves(ref))
    if len(a) != len(b):
        return Check(False, reason=f"output has {len(a)} values, reference has {len(b)}")
    worst: Check | None = None
    for (path, x), (_, y) in zip(a, b):
        if _is_tensor(x) != _is_tensor(y) or _is_array(x) != _is_array(y):
            return Check(False, path, reason=f"output is {type(x).__name__}, reference is {type(y).__name__}")
        if _is_array(x):
            c = _array_check(path, x, y, rtol, atol)
        elif not _is_tensor(x):
            close = _is_float(x) and _is_float(y) and abs(float(x) - float(y)) <= max(
                1e-6 * max(abs(float(y)), 1), atol, (rtol or 0.0) * abs(float(y)))
            if x != y and not close:
                return Check(False, path, reason=f"{x!r} != reference {y!r}", rtol=rtol, atol=atol)
            continue
        else:
            c = _tensor_check(path, x, y, rtol, atol)
        if not c.passed:
            return c
        if worst is None or (c.rel_error or 0.0) > (worst.rel_error or 0.0):
            worst = c
    return worst or Check(True, rtol=rtol, atol=atol)
