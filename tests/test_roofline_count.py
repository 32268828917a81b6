"""FLOP and byte counting of torch callables on the CPU (and on meta tensors)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

torch = pytest.importorskip("torch")

from bench_kernel.errors import InputError  # noqa: E402
from bench_kernel.roofline import count  # noqa: E402
from bench_kernel.roofline._count import _parse_op_tables, aten_packet, op_tables  # noqa: E402

F32 = 4


def test_gemm_counts_2mnk_flops_and_each_matrix_once():
    m, n, k = 64, 48, 32
    c = count(torch.mm, torch.randn(m, k), torch.randn(k, n))
    assert c.flops == 2 * m * n * k
    assert c.bytes == (m * k + k * n + m * n) * F32
    assert (c.read_bytes, c.write_bytes) == ((m * k + k * n) * F32, m * n * F32)


def test_gemm_on_meta_tensors_counts_shapes_too_large_to_run():
    m, n, k = 8192, 8192, 8192
    a = torch.empty(m, k, device="meta", dtype=torch.bfloat16)
    b = torch.empty(k, n, device="meta", dtype=torch.bfloat16)
    c = count(torch.matmul, a, b)
    assert c.flops == 2 * m * n * k
    assert c.bytes == (m * k + k * n + m * n) * 2


def test_linear_reads_bias_weight_input_once():
    lin = torch.nn.Linear(32, 16)
    c = count(lin, torch.randn(64, 32))
    assert c.flops == 2 * 64 * 32 * 16  # torch's addmm formula ignores the bias add
    assert c.bytes == (16 + 32 * 16 + 64 * 32 + 64 * 16) * F32  # the weight transpose is a view


def test_elementwise_one_flop_per_output_and_three_arrays():
    n = 1000
    c = count(torch.add, torch.randn(n), torch.randn(n))
    assert (c.flops, c.bytes) == (n, 3 * n * F32)


def test_broadcast_operand_is_read_once_not_per_row():
    row, mat = torch.randn(1, 256), torch.randn(64, 256)
    c = count(lambda r, m: r.expand(64, 256) + m, row, mat)
    assert c.bytes == (256 + 2 * 64 * 256) * F32


def test_reduction_reads_the_input_and_writes_one_value_per_row():
    x = torch.randn(64, 256)
    c = count(lambda t: t.sum(-1), x)
    assert c.flops == 64 * 256
    assert c.bytes == (64 * 256 + 64) * F32


def test_intermediates_are_written_once_and_read_once():
    n = 1000
    c = count(lambda x, y: x * 2 + y, torch.randn(n), torch.randn(n))
    # read x, write t=x*2, read t, read y, write out
    assert c.bytes == 5 * n * F32
    assert c.flops == 2 * n


def test_attention_sdpa_flops_and_bytes():
    b, h, lq, lk, d = 2, 4, 128, 96, 64
    q, k, v = torch.randn(b, h, lq, d), torch.randn(b, h, lk, d), torch.randn(b, h, lk, d)
    c = count(torch.nn.functional.scaled_dot_product_attention, q, k, v)
    assert c.flops == 4 * b * h * lq * lk * d  # QK^T and PV, 2*b*h*lq*lk*d each
    gqa = count(lambda: torch.nn.functional.scaled_dot_product_attention(q, k[:, :2], v[:, :2], enable_gqa=True))
    assert gqa.flops == c.flops  # the query's 4 heads attend, whatever the number of K/V heads
    # The fused CPU kernel reads q, k, v, writes the output and a float32 logsumexp per query row.
    assert c.bytes == (q.numel() + k.numel() + v.numel() + b * h * lq * d) * F32 + b * h * lq * 4


@pytest.mark.parametrize("fn, expected_bytes", [
    (lambda x: x.add_(1), 2 * 1000 * F32),             # in place: read and write
    (lambda x: x.zero_(), 1000 * F32),                 # overwritten without being read
    (lambda x: torch.add(x, 1, out=torch.empty(1000)), 2 * 1000 * F32),  # out= buffer: written only
    (lambda x: x.view(10, 100).t(), 0),                # views move nothing
    (lambda x: x[::2].clone(), 2 * 500 * F32),         # a strided view reads only its elements
])
def test_in_place_out_and_view_rules(fn, expected_bytes):
    assert count(fn, torch.randn(1000)).bytes == expected_bytes


def test_breakdown_sums_to_total():
    c = count(lambda x, y: (x @ y).relu().sum(), torch.randn(16, 8), torch.randn(8, 4))
    assert c.read_bytes + c.write_bytes == c.bytes
    assert c.flops == sum(o.flops for o in c.ops) == sum(c.flops_by_dtype.values())
    assert [(o.op, o.calls, o.source) for o in c.ops] == [("aten::mm", 1, "bench-kernel"),
                                                          ("aten::relu", 1, "bench-kernel"),
                                                          ("aten::sum", 1, "bench-kernel")]
    d = c.to_dict()
    assert (d["flops"], d["bytes"], d["dtype"]) == (c.flops, c.bytes, "fp32")


def test_the_dtype_is_the_one_carrying_most_flops():
    a16, b16 = torch.randn(64, 64, dtype=torch.bfloat16), torch.randn(64, 64, dtype=torch.bfloat16)
    big32 = torch.randn(1 << 16)
    c = count(lambda: (a16 @ b16, big32 * 2))  # more fp32 bytes, but the bf16 GEMM carries the FLOPs
    assert c.dtype == "bf16" and c.flops_by_dtype == {"bf16": 2 * 64**3, "fp32": 1 << 16}
    assert count(lambda: big32.clone()).dtype == "fp32"  # no FLOPs: the dtype moving most bytes


def test_an_op_without_a_formula_is_listed_as_uncounted():
    c = count(lambda x: torch.nn.functional.hardtanh(x), torch.randn(100))
    assert c.uncounted == ("aten::hardtanh",) and c.flops == 0


def test_every_op_table_row_names_a_real_aten_op():
    tables = op_tables()
    for name in [*tables.no_traffic, *tables.write_only_self]:
        assert aten_packet(torch, name) is getattr(torch.ops.aten, name)


def test_op_table_validation():
    raw = json.loads(resources.files("bench_kernel.roofline").joinpath("data", "ops.json").read_bytes())
    raw["no_traffic"] = ["empty", 3]
    with pytest.raises(InputError, match=r"ops.json: no_traffic must be a list of op names"):
        _parse_op_tables(json.dumps(raw).encode(), "ops.json")
    with pytest.raises(InputError, match="no aten op 'not_an_op'"):
        aten_packet(torch, "not_an_op")


FRESH_COUNT = r"""
import sys
import torch
from bench_kernel.roofline import count
c = count(torch.add, torch.ones(256), torch.ones(256))
after_eager = "torch._dynamo" in sys.modules
compiled = torch.compile(lambda a, b: a * b + 1)
k = count(compiled, torch.ones(4), torch.ones(4))
print(c.flops, c.bytes, after_eager, k.flops, k.bytes)
"""


@pytest.mark.multiprocess
@pytest.mark.slow
def test_counting_plain_ops_does_not_load_dynamo_and_a_compiled_function_still_counts():
    # A dispatch mode's __torch_dispatch__ is wrapped by torch._disable_dynamo, and set_stance imports
    # Dynamo too: counting a one-element add cost 1.7 s of imports on a 2-core CPU machine. In a
    # fresh process, counting eager ops must leave Dynamo unloaded; a compiled function (which loads
    # it) is still counted on its eager twin.
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", FRESH_COUNT], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    flops, nbytes, dynamo, k_flops, k_bytes = out.stdout.split()[-5:]
    assert (flops, nbytes, dynamo) == ("256", "3072", "False")  # 256 adds, 2 fp32 reads + 1 write of 1 KiB
    # its eager twin: a * b reads 2 x 16 B and writes 16 B, + 1 reads those 16 B and writes 16 B
    assert (k_flops, k_bytes) == ("8", "80")
