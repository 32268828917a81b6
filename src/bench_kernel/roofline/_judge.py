"""Judging a result that lands above its roof: no implementation beats the roof, so a result above
100% means the counts, the dtype or the roof are wrong -- say which is likely, instead of printing
1188% and moving on.

The causes, in the order they are checked:

- a wrong dtype: the work ran in a faster dtype than it is judged in (a bf16 GEMM judged against
  the fp32 roof; an fp32 GEMM that ran on TF32 tensor cores);
- FLOPs over-counted: stated FLOPs that count more than the kernel does (causal attention stated at
  full cost), or counted FLOPs that are an upper bound;
- sparse or causal work: the kernel skips work the count includes;
- bytes over-counted or served from cache: for memory-bound work, data that stayed in L2;
- a roof too low for this SKU or clock: the peak table's datasheet figure, against the GPU's
  measured roof when it is calibrated.
"""

from __future__ import annotations

from bench_kernel.hardware import DeviceSpec
from bench_kernel.records import RooflineResult

__all__ = ["over_roof", "OVER_ROOF_MARK"]

#: What the `run` and `ops` tables add to a % of roof above 100.
OVER_ROOF_MARK = "(!)"


def _faster_dtypes(result: RooflineResult, device: DeviceSpec) -> list[tuple[str, float]]:
    return sorted(((d, p) for d, p in device.peak_tflops.items()
                   if p > result.peak_tflops and result.achieved_tflops <= p and d not in ("int8", "fp4")),
                  key=lambda dp: dp[1])


def over_roof(result: RooflineResult, device: DeviceSpec, *, dtype_source: str = "given",
              flops_source: str | None = "given", bytes_source: str | None = "given", causal: bool = False,
              estimated: bool = False, warm_cache: bool = False) -> str | None:
    """One note naming the likely causes when ``result`` is above 100% of its spec roof, else None.

    ``dtype_source``: ``params``/``given`` (stated), ``ops`` (the counted ops), ``inputs`` or
    ``default`` (guessed). ``flops_source``/``bytes_source``: ``given`` or ``counted``.
    ``causal``: causal attention ran. ``estimated``: counts include estimates or bounds.
    ``warm_cache``: the inputs were warm in L2 (``--cache warm``, or too small to rotate beyond it).
    """
    pct = result.pct_of_roof
    if not pct > 100.0:
        return None
    causes: list[str] = []
    compute = result.spec.compute_us >= result.spec.memory_us and result.flops > 0
    if compute:
        faster = _faster_dtypes(result, device)
        guessed = dtype_source in ("inputs", "default")
        if faster or guessed:
            where = f" (taken from the {dtype_source}, not from the ops)" if guessed else ""
            text = f"wrong dtype: judged as {result.dtype}{where} at {result.peak_tflops:g} TFLOP/s"
            if faster:
                d, p = faster[0]
                text += f", but {result.achieved_tflops:.0f} TFLOP/s fits under the {d} peak ({p:g})"
                if result.dtype == "fp32" and d == "tf32":
                    text += ": fp32 GEMMs run as TF32 when torch allows it"
            causes.append(text)
        if flops_source == "given":
            causes.append("FLOPs over-counted: the case states them" +
                          (" and causal attention ran: a causal mask halves the work" if causal else ""))
        elif estimated:
            causes.append("FLOPs over-counted: the counted FLOPs include an upper bound")
        causes.append("sparse or causal work: the kernel skips work the count includes")
    else:
        if warm_cache:
            causes.append("served from cache: the inputs were warm in L2, not read from DRAM")
        if bytes_source == "given":
            causes.append("bytes over-counted: the case states them")
        elif estimated:
            causes.append("bytes over-counted: they include an estimate")
        if not warm_cache:
            causes.append("served from cache: data reused from L2 is not read from DRAM again")
    roof = f"roof too low for this SKU/clock: the peak table gives {device.name} {result.peak_tflops:g} " \
           f"TFLOP/s {result.dtype}, {result.peak_tbps:g} TB/s"
    if result.measured is not None:
        roof += f"; against this GPU's calibrated roof it is {result.measured.pct_of_roof:.0f}%"
    causes.append(roof)
    return (f"{OVER_ROOF_MARK} above the roof: {pct:.0f}% of the {result.dtype} spec roof ({result.bound}-bound); "
            f"likely: {'; '.join(causes)}")
