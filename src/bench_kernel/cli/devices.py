"""``bench-kernel devices [NAME...]``: the peak table, or each figure of named devices with its source."""

from __future__ import annotations

from typing import Any

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.report import Column, Table

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (docs/json.md): raise it when a field changes its
#: name, type or meaning; a new field documented there does not need it.
SCHEMA_VERSION = 1

_DENSE = "Compute figures are DENSE peaks in TFLOP/s (int8: TOPS); sparse datasheet figures were halved."


def _summary(specs: Any) -> Table:
    cols = [Column("name", "Device"), Column("memory_tbps", "DRAM TB/s", "tbps"),
            Column("bf16", "bf16/fp16", "tflops"), Column("fp8", "fp8", "tflops"), Column("fp4", "fp4", "tflops"),
            Column("tf32", "tf32", "tflops"), Column("fp32", "fp32", "tflops"), Column("fp64", "fp64", "tflops"),
            Column("int8", "int8", "tflops"), Column("l2_bytes", "L2", "bytes"), Column("llc_bytes", "LLC", "bytes"),
            Column("sm_count", "SMs/CUs", "int"), Column("boost_clock_mhz", "MHz", "int")]
    rows = [{**s.to_dict(), **s.peak_tflops} for s in specs]
    return Table(cols, rows, title="Peak table", notes=[_DENSE, "'bench-kernel devices NAME' shows the sources."])


def _detail(spec: Any) -> Table:
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
    from bench_kernel.hardware import get_device, list_devices

    if names:
        specs = [get_device(n) for n in names]
        emit(output, data=_data(specs), tables=[_detail(s) for s in specs])
    else:
        specs = list(list_devices())
        emit(output, data=_data(specs), tables=_summary(specs))


def _data(specs: list[Any]) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "devices": [s.to_dict() for s in specs]}
