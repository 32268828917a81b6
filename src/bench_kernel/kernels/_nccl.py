"""NCCL and RCCL collective kernels."""

from __future__ import annotations

import re

from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._spans import Builder

__all__ = ["decode_nccl"]

# ncclDevKernel_<Coll>_<Algo>_<Proto>[_<RedOp>_<type>] (NCCL src/device/generate.py) and the older
# ncclKernel_… form. Since NCCL 2.19 one device kernel serves every algorithm and protocol of a
# collective, so the "_RING_LL" in the name is the kernel's label, not what ran.
_NCCL = re.compile(r"^(?P<prefix>nccl(?:Dev)?Kernel)_(?P<coll>[A-Za-z]+)(?:_(?P<algo>[A-Z_]+?)_(?P<proto>LL128|LL|SIMPLE))?"
                   r"(?:_(?P<redop>[A-Z][A-Za-z]+)_(?P<dtype>[a-z0-9]+))?(?:\(.*)?$")
_NAME_ALGO_NOTE = ("the algorithm/protocol in an NCCL kernel name (e.g. RING_LL) is not the one that ran: "
                   "since NCCL 2.19 one kernel serves all of them; use NCCL_DEBUG=INFO or the NCCL profiler")


def decode_nccl(name: str, readable: str) -> Decoded | None:
    """Decode an NCCL/RCCL kernel name, or None when it is not one."""
    m = _NCCL.match(name)
    if not m:
        return None
    b = Builder("nccl", name)
    b.set("collective", m["coll"], start=m.start("coll"), end=m.end("coll"), label="collective")
    if m["algo"]:
        # Kept under a name that says what it is; deliberately not "algorithm"/"protocol".
        b.set("name_suffix", f"{m['algo']}_{m['proto']}", start=m.start("algo"), end=m.end("proto"),
              label="kernel variant label: NOT the algorithm/protocol that ran (NCCL >= 2.19)")
        b.notes.append(_NAME_ALGO_NOTE)
    if m["redop"]:
        b.set(("reduce_op", "dtype"), (m["redop"], m["dtype"]), start=m.start("redop"), end=m.end("dtype"),
              label="reduction op and dtype")
    return b.build(short=f"{m['prefix']}_{m['coll']}")
