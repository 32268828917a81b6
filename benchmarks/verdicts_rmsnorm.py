"""The sweep spec of the verdict benchmarks: RMSNorm by several providers, at several token counts.

    bench-kernel sweep benchmarks/verdicts_rmsnorm.py            # as benchmarks/verdicts_cpu.py and
                                                                 # benchmarks/gpu/verdicts.py run it

On a GPU: hidden 4096, bf16, tokens in {1, 16, 256, 4096}; providers ``torch``
(``F.rms_norm``), ``manual`` (x * rsqrt(mean(x^2) + eps) * w, three kernels) and ``compiled``
(``torch.compile`` of the manual one): the sweep whose verdicts were judged three times on the H200. On the
CPU: hidden 1024, float32, tokens in {1, 16, 64}, ``torch`` and ``manual`` (Inductor's CPU
backend needs a C++ toolchain and minutes of compiling on a 2-core machine), one intra-op thread
(``torch.set_num_threads(1)``): on the project's 2-core machine shared with other jobs, two
threads made a 256x256 matmul read anywhere from 1.9 to 64 ms, because a step waits for the
slower thread at every barrier and the other thread is often descheduled; one thread measures
the kernel, not the barrier. Not 256 tokens: there (1 MiB a tensor) a process's fastest call of
the manual RMSNorm read either ~100 us or 900-2,600 us, process after process, in a script
outside bench-kernel too (benchmarks/results/verdicts-cpu.md): the machine's memory, shared
with other jobs, not the statistics, decides those points.

``VERDICTS_SLOW=<provider>:<k>`` makes that provider slower by exactly 1/k: every k-th call runs
the kernel twice (k = 1: 2x, k = 10: +10%); ``<provider>:<k>:<n>`` runs it n times instead
(``manual:1:3``: 3x). Work, not a sleep: inside a CUDA graph a sleep kernel
is a node of its own (~1.1 us on an H200, more than 10% of a 2 us kernel), while a repeated
kernel costs what the kernel costs, at every size.
"""

from __future__ import annotations

import os

import torch

GPU = torch.cuda.is_available()
EPS = 1e-6
if not GPU:
    torch.set_num_threads(1)


def _slow() -> tuple[str, int, int]:
    """(provider, k, n): every k-th call of the provider runs its kernel n times (n default 2)."""
    name, _, rest = os.environ.get("VERDICTS_SLOW", "").partition(":")
    k, _, n = rest.partition(":")
    return name, int(k or 0), int(n or 2)


def _manual(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w


def _torch(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), w, EPS)


_COMPILED = []


def _compiled(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    if not _COMPILED:
        _COMPILED.append(torch.compile(_manual, dynamic=False))
    return _COMPILED[0](x, w)


def _slowed(fn, name: str):
    """``fn``, or ``fn`` run n times on every k-th call when VERDICTS_SLOW names this provider."""
    slow, k, times = _slow()
    if slow != name or k < 1:
        return fn
    calls = [0]

    def slowed(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        calls[0] += 1
        if calls[0] % k == 0:
            for _ in range(times - 1):
                fn(x, w)
        return fn(x, w)

    return slowed


def _provider(name: str, fn):
    hidden, dtype, dev = (4096, torch.bfloat16, "cuda") if GPU else (1024, torch.float32, "cpu")

    def factory(point: dict) -> dict:
        tokens = point["tokens"]

        def make_inputs():
            return (torch.randn(tokens, hidden, device=dev, dtype=dtype),
                    torch.rand(hidden, device=dev, dtype=dtype) + 0.5)

        size = torch.empty((), dtype=dtype).element_size()
        return {"fn": _slowed(fn, name), "make_inputs": make_inputs,
                "bytes": float(size * (2 * tokens * hidden + hidden))}

    return factory


def sweep() -> dict:
    providers = {"torch": _provider("torch", _torch), "manual": _provider("manual", _manual)}
    if GPU:
        providers["compiled"] = _provider("compiled", _compiled)
    tokens = [1, 16, 256, 4096] if GPU else [1, 16, 64]
    # bf16 RMSNorm by different kernel sequences rounds differently: the relative RMS error
    # between them is ~3e-3, within bf16's default 1.6e-2; float32 agrees to ~1e-7.
    return {"axes": {"tokens": tokens}, "providers": providers, "baseline": "torch"}
