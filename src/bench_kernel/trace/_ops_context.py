"""What a serving op's arguments lack and the trace around it records: the roofline formulas'
``context`` (``roofline/_serving.py``).

- **Attention lengths per step.** Engines annotate each step on the host. vLLM's detailed annotation
  (``--profiler-config.detailed_trace_annotation``; ``vllm/v1/worker/gpu_worker.py``,
  ``Worker.annotate_profile``) writes, for the context (prefill) and generation (decode) requests
  apart, Σq (``sq``), Σs (``sk``), Σq² (``sqsq``) and Σq·s (``sqsk``), q a request's new tokens and s
  its sequence length: ``execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_37(…)``.
  SGLang and ATOM write the same sums when patched as TraceLens documents
  (``step[DECODE bs=64 g_sq=128 g_sqsq=256 g_sqsk=262144 g_sk=131072]``,
  ``decode[bs=32 tok=128 sqsq=512 sqsk=262144 sk=65536]``). vLLM's plain annotation
  (``execute_context_1(888)_generation_0(0)``) has token counts only: one prompt and no generation
  is counted as a prompt with no cached prefix (an estimate, said so); anything else needs
  ``--context-len``. A call belongs to the innermost annotation around its host time (its op's
  start, or for a replayed kernel its graph launch).
- **A MoE's top-k**: the ``TopK`` routing op inside the call (its ``k`` argument), else an index
  buffer of ``[tokens, k]`` the call allocates (flashinfer's trtllm MoE).
- **Gated experts and weight width** from the call's kernel names: ``swiglu``/``silu``/``act_and_mul``
  say gated; ``mxfp4``/``E2m1`` say 4-bit weights with one 8-bit scale per 32 (4.25 bits).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from bench_kernel.trace._trace import Trace

__all__ = ["StepLengths", "step_lengths", "ServingContext"]

# Numbers of at most 18 digits: a hostile annotation cannot make a count no float can hold.
_N = r"(\d{1,18})"
_VLLM_DETAILED = re.compile(rf"execute_\d+_context_\d+\(sq{_N}sk{_N}sqsq{_N}sqsk{_N}\)"
                            rf"_generation_\d+\(sq{_N}sk{_N}sqsq{_N}sqsk{_N}\)")
_VLLM_PLAIN = re.compile(rf"execute_context_{_N}\({_N}[^)]*\)_generation_{_N}\({_N}[^)]*\)")
_KEYED = re.compile(r"^(?:step\[(?:EXTEND|DECODE|MIXED)\b|(?:prefill|decode)\[).*sqsq=\d+")
_PAIR = re.compile(rf"\b(\w+)={_N}\b")
_ONE_PROMPT = "the step annotation records token counts only: one prompt with no cached prefix assumed"


@dataclass(frozen=True)
class StepLengths:
    """One annotated step's attention lengths, summed over its requests."""

    start_us: float
    end_us: float
    sum_q: int
    sum_k: int
    sum_qq: int
    sum_qk: int
    estimate: bool = False
    note: str | None = None


def parse_step(name: str) -> tuple[int, int, int, int, bool] | None:
    """(Σq, Σs, Σq², Σq·s, estimate) from a step annotation, or None when it records no lengths."""
    m = _VLLM_DETAILED.search(name)
    if m:
        c = [int(x) for x in m.groups()]
        return c[0] + c[4], c[1] + c[5], c[2] + c[6], c[3] + c[7], False
    if _KEYED.search(name):
        kv = {k: int(v) for k, v in _PAIR.findall(name)}
        if "sqsq" in kv:  # ATOM: one phase per annotation, tok = Σq
            return kv.get("tok", 0), kv.get("sk", 0), kv["sqsq"], kv.get("sqsk", 0), False
        get = lambda k: kv.get("c_" + k, 0) + kv.get("g_" + k, 0)  # noqa: E731
        return get("sq"), get("sk"), get("sqsq"), get("sqsk"), False
    m = _VLLM_PLAIN.search(name)
    if m:
        ctx_reqs, ctx_tok, gen_reqs, _ = (int(x) for x in m.groups())
        if ctx_reqs == 1 and gen_reqs == 0:
            return ctx_tok, ctx_tok, ctx_tok * ctx_tok, ctx_tok * ctx_tok, True
    return None


def step_lengths(trace: Trace) -> list[StepLengths]:
    """Every host step annotation of ``trace`` that records attention lengths, by start time."""
    a = trace.annotations
    out: list[StepLengths] = []
    parsed: dict[int, tuple[int, int, int, int, bool] | None] = {}
    for i in np.flatnonzero(~a.gpu).tolist():
        nid = int(a.name[i])
        if nid not in parsed:
            parsed[nid] = parse_step(trace.names[nid])
        p = parsed[nid]
        if p is not None:
            start = float(a.start_us[i])
            out.append(StepLengths(start, start + float(a.dur_us[i]), *p[:4], estimate=p[4],
                                   note=_ONE_PROMPT if p[4] else None))
    out.sort(key=lambda s: s.start_us)
    return out


_GATED = re.compile(r"swiglu|silu|act_and_mul|gelu_and_mul|geglu", re.I)
_FP4 = re.compile(r"mxfp4|e2m1", re.I)
_INT_CODES = (3, 4)  # c10 ScalarType numbers of int32 and int64 (roofline/data/scalar_types.tsv)


class ServingContext:
    """``context`` for each call's op, from the trace(s) the calls come from and the user's values."""

    def __init__(self, trace: Trace, *, context_len: int | None = None, moe_intermediate: int | None = None) -> None:
        self.trace = trace
        self.steps = step_lengths(trace)
        self._starts = np.array([s.start_us for s in self.steps])
        self._longest = max((s.end_us - s.start_us for s in self.steps), default=0.0)
        self.context_len = context_len
        self.moe_intermediate = moe_intermediate
        info = trace.metadata.get("distributedInfo")
        size = info.get("world_size") if isinstance(info, dict) else None
        self.world_size = size if isinstance(size, int) and not isinstance(size, bool) and size > 1 else 1
        self.used: set[str] = set()
        """What the counts drew on, for the report's notes: ``annotation``, ``--context-len``, ..."""
        self._threads: dict[int, dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]] = {}

    def _children(self, t: Trace, k: int) -> np.ndarray:
        """Ops on ``k``'s thread that start inside it (itself excluded), in start order."""
        o = t.ops
        if id(t) not in self._threads:  # per source trace, for this one report: ops by thread and start
            order = np.lexsort((o.start_us, o.tid, o.pid))
            p, q = o.pid[order], o.tid[order]
            cuts = np.flatnonzero((p[1:] != p[:-1]) | (q[1:] != q[:-1])) + 1
            lows, highs = np.concatenate(([0], cuts)).tolist(), np.concatenate((cuts, [len(order)])).tolist()
            self._threads[id(t)] = {(int(p[lo]), int(q[lo])): (order[lo:hi], o.start_us[order[lo:hi]])
                                    for lo, hi in zip(lows, highs) if hi > lo}
        rows, starts = self._threads[id(t)][(int(o.pid[k]), int(o.tid[k]))]
        start, end = float(o.start_us[k]), float(o.start_us[k] + o.dur_us[k])
        idx = rows[np.searchsorted(starts, start, "left"):np.searchsorted(starts, end, "right")]
        return idx[idx != k]

    def step_at(self, t_us: float) -> StepLengths | None:
        """The latest-starting annotated step whose host interval contains ``t_us``."""
        j = int(np.searchsorted(self._starts, t_us, side="right")) - 1
        while j >= 0 and t_us - self.steps[j].start_us <= self._longest:
            if t_us <= self.steps[j].end_us:
                return self.steps[j]
            j -= 1
        return None

    def attention(self, host_us: float) -> dict[str, Any]:
        step = self.step_at(host_us)
        if step is not None and not step.estimate:
            self.used.add("annotation")
            return {"sum_q": step.sum_q, "sum_k": step.sum_k, "sum_qq": step.sum_qq, "sum_qk": step.sum_qk}
        if self.context_len is not None:
            self.used.add("--context-len")
            return {"context_len": self.context_len}
        if step is not None:
            self.used.add("annotation (one prompt assumed)")
            return {"sum_q": step.sum_q, "sum_k": step.sum_k, "sum_qq": step.sum_qq, "sum_qk": step.sum_qk,
                    "estimate": 1, "note": step.note}
        return {}

    def moe(self, src: Trace, op: int, kernel_names: list[str]) -> dict[str, Any]:
        ctx: dict[str, Any] = {}
        topk = _topk(src, op, self._children(src, op))
        if topk is not None:
            ctx["topk"] = topk
        if self.moe_intermediate is not None:
            ctx["moe_intermediate"] = self.moe_intermediate
        elif self.world_size > 1:
            ctx["moe_split"] = self.world_size
        if any(_GATED.search(n) for n in kernel_names):
            ctx["gated"] = 1
        if any(_FP4.search(n) for n in kernel_names):
            ctx["weight_bits"] = 4.25
            ctx["note"] = "mxfp4 expert weights (the kernel names say): 4 bits and one 8-bit scale per 32 elements"
        return ctx


def _topk(t: Trace, k: int, children: np.ndarray) -> int | None:
    """The routing's top-k inside op ``k``: a ``TopK`` op's k, else a ``[tokens, k]`` int allocation."""
    o = t.ops
    if o.input_dims is None or o.concrete_inputs is None:
        return None
    dims = o.input_dims[k]
    tokens = dims[0][0] if isinstance(dims, tuple) and dims and isinstance(dims[0], tuple) and dims[0] else None
    experts = dims[1][-1] if isinstance(dims, tuple) and len(dims) > 1 and isinstance(dims[1], tuple) and dims[1] \
        else None
    fallback = None
    for c in children.tolist():
        name = t.names[int(o.name[c])]
        conc = o.concrete_inputs[c]
        if not isinstance(conc, tuple):
            continue
        if name == "TopK" and len(conc) > 1 and str(conc[1]).isdigit():
            return int(conc[1])
        if fallback is None and name == "aten::empty" and len(conc) > 1 and _int_code(conc[1]) in _INT_CODES:
            size = _int_pair(conc[0])
            if size and size[0] == tokens and experts and 0 < size[1] <= experts:
                fallback = size[1]
    return fallback


def _int_code(text: Any) -> int | None:
    return int(text) if isinstance(text, str) and text.isdigit() else None


@lru_cache(maxsize=256)
def _int_pair(text: Any) -> tuple[int, int] | None:
    m = re.fullmatch(r"\[(\d+), (\d+)\]", text) if isinstance(text, str) else None
    return (int(m.group(1)), int(m.group(2))) if m else None
