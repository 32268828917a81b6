"""NCCL and RCCL collective kernels."""

from __future__ import annotations

import re

from bench_kernel.kernels._model import Decoded
from bench_kernel.kernels._spans import Builder, tokens

__all__ = ["decode_nccl"]

# ncclDevKernel_<Coll>_<Algo>_<Proto>[_<RedOp>_<type>] (NCCL src/device/generate.py) and the older
# ncclKernel_… form. Since NCCL 2.19 one device kernel serves every algorithm and protocol of a
# collective, so the "_RING_LL" in the name is the kernel's label, not what ran.
# The name is read token by token ("_"-separated): the algorithm may itself hold "_" (COLLNET_DIRECT),
# and a single regex with a lazy algorithm group and optional tails backtracks quadratically.
_HEAD = re.compile(r"(nccl(?:Dev)?Kernel)_([A-Za-z]+)$")
_ALGO = re.compile(r"[A-Z]+")
_PROTOS = ("LL128", "LL", "SIMPLE")
_REDOP = re.compile(r"[A-Z][A-Za-z]+")
_DTYPE = re.compile(r"[a-z0-9]+")
_NAME_ALGO_NOTE = ("the algorithm/protocol in an NCCL kernel name (e.g. RING_LL) is not the one that ran: "
                   "since NCCL 2.19 one kernel serves all of them; use NCCL_DEBUG=INFO or the NCCL profiler")


def decode_nccl(name: str, readable: str) -> Decoded | None:
    """Decode an NCCL/RCCL kernel name, or None when it is not one."""
    if not name.startswith(("ncclDevKernel_", "ncclKernel_")):
        return None
    body = name.split("(", 1)[0]  # "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"
    toks = tokens(body)
    head = _HEAD.match(f"{toks[0][0]}_{toks[1][0]}")
    if head is None:
        return None
    rest = toks[2:]
    proto = next((i for i, (t, _) in enumerate(rest) if t in _PROTOS), None)
    algo: list[tuple[str, int]] = []
    if proto is not None:
        algo = rest[:proto]
        if not algo or not all(_ALGO.fullmatch(t) for t, _ in algo):
            return None
        tail = rest[proto + 1:]
    else:
        tail = rest
    if tail and not (len(tail) == 2 and _REDOP.fullmatch(tail[0][0]) and _DTYPE.fullmatch(tail[1][0])):
        return None
    b = Builder("nccl", name)
    coll, coll_at = toks[1]
    b.set("collective", coll, start=coll_at, end=coll_at + len(coll), label="collective")
    if proto is not None:
        p, p_at = rest[proto]
        # Kept under a name that says what it is; deliberately not "algorithm"/"protocol".
        b.set("name_suffix", "_".join(t for t, _ in algo) + f"_{p}", start=algo[0][1], end=p_at + len(p),
              label="kernel variant label: NOT the algorithm/protocol that ran (NCCL >= 2.19)")
        b.notes.append(_NAME_ALGO_NOTE)
    if tail:
        (op, op_at), (dt, dt_at) = tail
        b.set(("reduce_op", "dtype"), (op, dt), start=op_at, end=dt_at + len(dt), label="reduction op and dtype")
    return b.build(short=f"{head.group(1)}_{coll}")
