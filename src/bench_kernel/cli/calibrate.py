"""``bench-kernel calibrate``: measure this GPU's real ceilings, show them next to the spec, cache them."""

from __future__ import annotations

from typing import Any

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.records import CALIBRATION_SCHEMA_VERSION
from bench_kernel.report import Column, Table

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.Calibration``): the
#: calibration file's own, since the document is that record.
SCHEMA_VERSION = CALIBRATION_SCHEMA_VERSION


def _table(cal: Any, spec: Any) -> Table:
    def row(quantity: str, measured: float | None, spec_value: float | None) -> dict[str, Any]:
        pct = None if measured is None or not spec_value else 100.0 * measured / spec_value
        return {"quantity": quantity, "measured": measured, "spec": spec_value, "pct_of_spec": pct}

    rows = [row("DRAM copy, read+write (TB/s)", cal.dram_tbps, spec.memory_tbps),
            row("L2 read (TB/s)", cal.l2_tbps, None)]
    rows += [row(f"{dt} GEMM (TFLOP/s)", v, spec.peak_tflops.get(dt)) for dt, v in cal.matmul_tflops.items()]
    rows += [row("launch, empty kernel with events (us)", cal.launch_events_us, None),
             row("launch, per CUDA-graph node (us)", cal.launch_graph_node_us, None)]
    cols = [Column("quantity", "Quantity"), Column("measured", "Measured", "float"),
            Column("spec", "Spec (dense)", "float"), Column("pct_of_spec", "% of spec", "pct")]
    notes = [f"{cal.reported_name}, driver {cal.driver}, torch {cal.torch_version}, {cal.measured_at}",
             "medians of CUDA-event timings on random data; the measured roof used by 'bench-kernel roofline'",
             *cal.notes]
    return Table(cols, rows, title=f"Calibration of {cal.device}", notes=notes)


@click.command("calibrate")
@click.option("--device", default=None, help="File the result under this peak-table device [default: the GPU's name].")
@click.option("--no-save", is_flag=True, help="Measure and print only; leave the cache alone.")
@output_options()
def command(device: str | None, no_save: bool, output: Output) -> None:
    """Measure DRAM/L2 bandwidth, GEMM peak per dtype and launch cost on this GPU (about a minute)."""
    from bench_kernel.hardware import calibrate, get_device

    cal = calibrate(device, save=not no_save)
    emit(output, data=cal, tables=_table(cal, get_device(cal.device)))
