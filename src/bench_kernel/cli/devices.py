"""``bench-kernel devices [NAME...]``: the peak table, or each figure of named devices with its source."""

from __future__ import annotations

from typing import Any, Sequence

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.records import DEVICES_SCHEMA_VERSION, DeviceSpec
from bench_kernel.report import Column, Table

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.DevicesOutput``).
SCHEMA_VERSION = DEVICES_SCHEMA_VERSION

_DENSE = "Compute figures are DENSE peaks in TFLOP/s (int8: TOPS); sparse datasheet figures were halved."


def _summary(specs: Sequence[DeviceSpec]) -> Table:
    cols = [Column("name", "Device"), Column("memory_tbps", "DRAM TB/s", "tbps"),
            Column("bf16", "bf16/fp16", "tflops"), Column("fp8", "fp8", "tflops"), Column("fp4", "fp4", "tflops"),
            Column("tf32", "tf32", "tflops"), Column("fp32", "fp32", "tflops"), Column("fp64", "fp64", "tflops"),
            Column("int8", "int8", "tflops"), Column("l2_bytes", "L2", "bytes"), Column("llc_bytes", "LLC", "bytes"),
            Column("sm_count", "SMs/CUs", "int"), Column("boost_clock_mhz", "MHz", "int")]
    rows = [{**s.to_dict(), **s.peak_tflops} for s in specs]
    return Table(cols, rows, title="Peak table", notes=[_DENSE, "'bench-kernel devices NAME' shows the sources."])


def _detail(spec: DeviceSpec) -> Table:
    rows: list[dict[str, Any]] = [
        {"figure": "memory_tbps", "value": spec.memory_tbps, "unit": "TB/s"},
        *({"figure": dt, "value": v, "unit": "TOPS" if dt == "int8" else "TFLOP/s"}
          for dt, v in spec.peak_tflops.items()),
        {"figure": "l2_mib", "value": None if spec.l2_bytes is None else spec.l2_bytes / 2**20, "unit": "MiB"},
        {"figure": "llc_mib", "value": None if spec.llc_bytes is None else spec.llc_bytes / 2**20, "unit": "MiB"},
        {"figure": "sm_count", "value": spec.sm_count, "unit": ""},
        {"figure": "boost_clock_mhz", "value": spec.boost_clock_mhz, "unit": "MHz"},
    ]
    for row in rows:
        row["source"] = spec.sources.get(row["figure"], "")
    notes = [_DENSE, f"aliases: {', '.join(spec.aliases)}"] + ([spec.notes] if spec.notes else [])
    cols = [Column("figure", "Figure"), Column("value", "Value", "float"), Column("unit", "Unit"),
            Column("source", "Source")]
    return Table(cols, rows, title=f"{spec.name} ({spec.vendor} {spec.arch})", notes=notes)


@click.command("devices")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@output_options()
def command(names: tuple[str, ...], output: Output) -> None:
    """List the peak table; with NAME (a table name or what torch reports), every figure and its source."""
    from bench_kernel.hardware import devices_document

    doc = devices_document(names)
    emit(output, data=doc, tables=[_detail(s) for s in doc.devices] if names else _summary(doc.devices))
