"""A Triton kernel as a bench-kernel target: ``bench-kernel run examples/triton_add.py:cases``.
A vector add, memory-bound: 3 x N x 2 bytes per call (two bf16 reads, one write). GPU only."""
import torch

if not torch.cuda.is_available():  # say it in one line, not from deep inside Triton or make_inputs
    raise ImportError("examples/triton_add.py needs a CUDA/HIP GPU and Triton; on a CPU try examples/torch_ops.py:cases")
import triton  # noqa: E402 - after the check (lines from 11 on are cited by examples/source_trace_triton_add.*.md)
import triton.language as tl  # noqa: E402


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def triton_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = out.numel()
    grid = (triton.cdiv(n, 1024),)
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    return out


def cases():
    n = 1 << 26  # 64 Mi elements, 128 MiB per bf16 tensor: far beyond L2
    return {
        "name": "triton_add",
        "fn": triton_add,
        "make_inputs": lambda: (torch.randn(n, device="cuda", dtype=torch.bfloat16),
                                torch.randn(n, device="cuda", dtype=torch.bfloat16)),
        "reference": torch.add,
        "flops": float(n),
        "bytes": 3.0 * n * 2,
        "params": {"n": n, "dtype": "bfloat16"},
    }
