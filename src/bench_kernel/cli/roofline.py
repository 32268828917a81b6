"""``bench-kernel roofline --flops F --bytes B --time-us T``: one measurement against the roofs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.records import ROOFLINE_SCHEMA_VERSION, RooflineOutput
from bench_kernel.report import Column, Table, format_value

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.RooflineOutput``).
SCHEMA_VERSION = ROOFLINE_SCHEMA_VERSION


def _table(result: Any, plot: Path | None) -> Table:
    cols = [Column("source", "Roof"), Column("peak_tflops", "Peak TFLOP/s", "tflops"),
            Column("peak_tbps", "Peak TB/s", "tbps"), Column("ridge_intensity", "Ridge FLOP/B", "float"),
            Column("floor_us", "Floor", "duration_us"), Column("pct_of_roof", "% of roof", "pct"),
            Column("headroom", "Headroom", "ratio"), Column("bound", "Bound")]
    rows = [a.to_dict() for a in (result.spec, result.measured) if a is not None]
    notes = [f"arithmetic intensity {result.arithmetic_intensity:.4g} FLOP/byte; achieved "
             f"{result.achieved_tflops:.4g} TFLOP/s and {result.achieved_tbps:.4g} TB/s in "
             f"{format_value(result.time_us, 'duration_us')}"]
    if result.launch_us is not None:
        notes.append(f"launch cost {format_value(result.launch_us, 'duration_us')} ({result.launch_source})")
    if result.measured is None:
        notes.append("no measured roof: run 'bench-kernel calibrate' on this GPU to add one")
    notes += list(result.notes)
    if plot is not None:
        notes.append(f"plot written to {plot}")
    title = f"Roofline of {result.name or 'one call'} on {result.device}, {result.dtype} (dense peaks)"
    return Table(cols, rows, title=title, notes=notes)


@click.command("roofline")
@click.option("--flops", type=float, required=True, help="FLOPs of one call (0 for a pure copy).")
@click.option("--bytes", "n_bytes", type=float, required=True,
              help="Bytes one call moves (minimal: inputs read once, outputs written once).")
@click.option("--time-us", type=float, required=True, help="Measured time of one call, in microseconds.")
@click.option("--device", default=None, help="Peak-table device or torch name [default: this GPU].")
@click.option("--dtype", default="bf16", show_default=True, help="Operand type that picks the compute roof.")
@click.option("--name", default=None, help="Label of the point in the table and the plot.")
@click.option("--launch-us", type=float, default=None, help="Known launch overhead of one call, microseconds.")
@click.option("--events-us", type=float, default=None, help="The call timed with events (with --graph-us).")
@click.option("--graph-us", type=float, default=None, help="The call timed in a CUDA graph (with --events-us).")
@click.option("--timed-with", type=click.Choice(["graph", "events"]), default="graph", show_default=True,
              help="How --time-us was measured: picks the calibrated launch floor.")
@click.option("--no-measured", is_flag=True, help="Ignore the cached calibration: spec roof only.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the roofline plot to FILE (.png or .svg).")
@click.option("--counters", "counters_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Check the model against hardware counts: an ncu CSV (--csv, --page raw or --import) or a "
                   "rocprofv3 counter_collection.csv of the same call; all its launches are summed.")
@click.option("--nvtx-range", default=None, help="With --counters: only the launches in this NVTX push/pop range.")
@output_options(outputs={"plot_path": "--plot"}, inputs=lambda kw: [kw["counters_path"]] if kw.get("counters_path") else [])
def command(flops: float, n_bytes: float, time_us: float, device: str | None, dtype: str, name: str | None,
            launch_us: float | None, events_us: float | None, graph_us: float | None, timed_with: str,
            no_measured: bool, plot_path: Path | None, counters_path: Path | None, nvtx_range: str | None,
            output: Output) -> None:
    """Place one measurement under the spec roof (and the measured roof when calibrated); with
    --counters, also the counted bytes and FLOPs on the DRAM/L2/L1 roofline, the model checked."""
    from bench_kernel.counters import read_counters
    from bench_kernel.errors import UsageError
    from bench_kernel.hardware import detect_device, get_device, load_calibration
    from bench_kernel.report import counter_kernels_table, counters_table
    from bench_kernel.roofline import (
        analyze,
        place_measured,
        plot_measured,
        plot_roofline,
    )

    if nvtx_range is not None and counters_path is None:
        raise UsageError("--nvtx-range selects launches of --counters FILE: add --counters")
    report = read_counters(counters_path, nvtx_range=nvtx_range) if counters_path is not None else None
    spec = get_device(device) if device is not None else detect_device()
    cal = None if no_measured else load_calibration(spec.name)
    result = analyze(flops, n_bytes, time_us, device=spec, dtype=dtype, name=name,
                      launch_overhead_us=launch_us, events_us=events_us, graph_us=graph_us,
                      timed_with=timed_with, calibration=cal if cal is not None else False)
    label = name or "one call"  # what the counted call is named in the plot and the tables
    placed = None if report is None else place_measured(
        report, time_us, device=spec, name=label, time_method=timed_with, model_flops=flops,
        model_bytes=n_bytes, model_dtype=dtype, calibration=cal if cal is not None else False)
    if plot_path is not None and placed is not None:
        plot_measured({label: placed}, plot_path)
    elif plot_path is not None:
        plot_roofline([result], spec, dtype, plot_path, measured=cal)
    data = RooflineOutput(roofline=result, counters=report if placed is not None else None, measured_roofline=placed,
                          plot=str(plot_path) if plot_path is not None else None)
    tables = [_table(result, plot_path)]
    if placed is not None and report is not None:  # placed only with a report
        triples = [(label, report, placed)]
        tables += [counters_table(triples), counter_kernels_table(triples)]
    emit(output, data=data, tables=tables)
