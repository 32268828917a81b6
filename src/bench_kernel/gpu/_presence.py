"""Is there a GPU, and is torch here at all: the one place that asks.

torch is imported only when asked; CUDA and HIP (ROCm) both answer through ``torch.cuda``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from bench_kernel.errors import DeviceError

__all__ = ["has_torch", "has_gpu", "import_torch", "no_gpu_driver", "require_gpu"]

#: Said wherever torch is missing, so the fix reads the same from every command.
TORCH_MISSING = ("PyTorch is not installed; install it (pip install 'bench-kernel[torch]', or your own "
                 "CUDA/ROCm build of torch)")


def has_torch() -> bool:
    """True when ``import torch`` works."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


#: What a loaded GPU driver puts on a Linux machine: NVIDIA's control device and proc folder, ROCm's
#: kernel fusion driver, WSL2's paravirtual GPU. torch sees no CUDA/HIP device without one of them.
_DRIVER_NODES = ("/dev/nvidiactl", "/proc/driver/nvidia", "/dev/kfd", "/dev/dxg")


def no_gpu_driver() -> bool:
    """True when this is Linux and no GPU driver is loaded: certainly no GPU, known without torch
    (whose import costs 2-7 s: `run --roofline` on a laptop should fail at once, not after that)."""
    return sys.platform.startswith("linux") and not any(os.path.exists(p) for p in _DRIVER_NODES)


def has_gpu() -> bool:
    """True when torch is importable and sees a CUDA or HIP device."""
    if no_gpu_driver() or not has_torch():
        return False
    import torch

    return bool(torch.cuda.is_available())


def import_torch(why: str = "") -> Any:
    """``torch``, or one DeviceError saying how to install it (``why``: what needed it)."""
    try:
        import torch
    except ImportError:
        raise DeviceError(f"{why + ': ' if why else ''}{TORCH_MISSING}") from None
    return torch


def require_gpu(what: str, fix: str = "") -> Any:
    """``torch`` when a CUDA/HIP device is visible; else one DeviceError naming ``what`` needs it.

    ``fix`` is appended to the message: how to go on without a GPU (``"pass --device NAME"``).
    """
    torch = import_torch(what)
    if not torch.cuda.is_available():
        raise DeviceError(f"{what} needs a CUDA/HIP GPU and none is visible (torch.cuda.is_available() is False)"
                          + (f"; {fix}" if fix else ""))
    return torch
