"""Running the counter tool around a child process that makes the one call to count.

``ncu`` (Nsight Compute) profiles only the launches inside the child's NVTX push/pop range, with
``--cache-control all`` (every replay starts from flushed caches, like bench-kernel's cold methods)
and ``--clock-control none`` (the GPU's own clocks; ncu's default locks them to base). Only the
metrics of ``data/ncu_metrics.tsv`` for the chip are asked for: ncu then needs fewer replay passes.

``rocprofv3`` has no NVTX filter for counters: the child's call is the last GPU work before it
exits, so its launches are the last ``last_n`` dispatches. That side has never run on AMD hardware.

Whatever goes wrong (no tool, counters not permitted, a timeout, a failing child) comes back as a
:class:`CounterReport` whose ``error`` says it in one line: counting never costs a case its timings.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Mapping, Sequence

from bench_kernel.counters._join import in_range, to_kernels
from bench_kernel.counters._ncu import NO_KERNELS, Launch, parse_ncu_csv
from bench_kernel.counters._rocprof import parse_rocprof_csv
from bench_kernel.counters._table import MetricTable, metric_table
from bench_kernel.errors import InputError
from bench_kernel.records import CounterReport, Note, warning

__all__ = ["RANGE_NAME", "CHILD_ERROR", "collect_ncu", "collect_rocprof", "ncu_command"]

#: The NVTX push/pop range the child opens around the counted call. No '/' in it: ncu reads
#: ``a/b/`` as range b nested in range a (the first H200 probe, 'bk/<case>', profiled nothing).
RANGE_NAME = "bk_counters"
#: How the child prints why it failed, on stderr, so the collector can repeat it.
CHILD_ERROR = "bench-kernel-child: error: "
_PERMISSION = "ERR_NVGPUCTRPERM"
_PERMISSION_HELP = "https://developer.nvidia.com/ERR_NVGPUCTRPERM"
_TAIL_CHARS = 300


def ncu_command(ncu: str, metrics: Sequence[str], child: Sequence[str], range_name: str = RANGE_NAME) -> list[str]:
    """The ncu command line that counts ``metrics`` for the launches in ``range_name`` of ``child``."""
    return [ncu, "--csv", "--page", "raw", "--nvtx", "--nvtx-include", f"{range_name}/",
            "--cache-control", "all", "--clock-control", "none", "--metrics", ",".join(metrics), *child]


def _run(cmd: Sequence[str], timeout_s: float, env: Mapping[str, str] | None
         ) -> tuple[int | None, str, str]:
    """(exit status or None on timeout, stdout, stderr); the whole process group is stopped on a timeout,
    so the child that ncu started does not outlive it."""
    proc = subprocess.Popen(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", env=dict(env) if env is not None else None, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout_s)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        _stop(proc)
        out, err = proc.communicate()
        return None, out, err
    except BaseException:
        # A case's time limit (or Ctrl-C) interrupted the wait: the tool and its child must not live on.
        _stop(proc)
        proc.communicate()
        raise


def _stop(proc: subprocess.Popen) -> None:
    """Stop the process group this module started (the tool and the child it launched)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _version(tool: str) -> str | None:
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"Version\s+(\S+)", out) or re.search(r"(\d+\.\d+(?:\.\d+)*)", out)
    return m.group(1) if m else None


def _failure(tool: str, rc: int | None, out: str, err: str, timeout_s: float) -> str:
    """One line: why ``tool`` gave no counts."""
    text = out + "\n" + err
    if _PERMISSION in text:
        return (f"{tool}: this user may not read the GPU's performance counters ({_PERMISSION}); an administrator "
                f"can allow it, see {_PERMISSION_HELP}")
    child = [ln[len(CHILD_ERROR):] for ln in err.splitlines() if ln.startswith(CHILD_ERROR)]
    if child:
        return f"the counted call failed in the child process: {child[-1]}"
    if rc is None:
        return f"{tool} did not finish within {timeout_s:g} s (stopped it and its child)"
    errors = [ln.strip() for ln in text.splitlines() if ln.startswith("==ERROR==")]
    said = errors[0] if errors else " ".join(text.split())[-_TAIL_CHARS:]
    return f"{tool} failed (exit status {rc}): {said or 'no output'}"


def _missing_metrics(out: str, err: str, metrics: Sequence[str]) -> list[str]:
    """Requested metrics an ``==ERROR==`` line names (another ncu version may lack or rename one)."""
    errors = [ln for ln in (out + "\n" + err).splitlines() if ln.startswith("==ERROR==")]
    return [m for m in metrics if any(m.split(".")[0] in ln for ln in errors)]


def collect_ncu(child: Sequence[str], *, chip: str | None, timeout_s: float,
                env: Mapping[str, str] | None = None, ncu: str | None = None,
                range_name: str = RANGE_NAME) -> CounterReport:
    """Count the launches inside ``range_name`` of the ``child`` command under ncu.

    ``chip`` is ncu's chip name (``gh100``) and picks the metrics; ``ncu`` the executable (default:
    ``ncu`` on PATH). The report's kernels are in launch order, not yet joined to a breakdown.
    """
    metric_rows = metric_table("ncu")
    exe = ncu or shutil.which("ncu")
    if exe is None:
        return CounterReport("ncu", error="ncu (Nsight Compute) is not on PATH: install it or add its folder to "
                                          "PATH to count bytes and FLOPs")
    metrics = metric_rows.requested(chip)
    notes: list[Note] = []
    t0 = time.perf_counter()
    cmd = ncu_command(exe, metrics, child, range_name)
    rc, out, err = _run(cmd, timeout_s, env)
    missing = _missing_metrics(out, err, metrics) if rc not in (0, None) and _PERMISSION not in out + err else []
    if missing and len(missing) < len(metrics):
        notes.append(warning("ncu-metrics-missing", f"this ncu does not know {', '.join(missing)}: counted without "
                             "them", metrics=missing))
        metrics = [m for m in metrics if m not in missing]
        cmd = ncu_command(exe, metrics, child, range_name)
        rc, out, err = _run(cmd, max(timeout_s - (time.perf_counter() - t0), 1.0), env)
    report = CounterReport("ncu", chip=chip, tool_version=_version(exe), wall_s=time.perf_counter() - t0,
                           command=tuple(cmd), notes=tuple(notes))
    if rc != 0 or _PERMISSION in out + err or CHILD_ERROR in err:
        return report.with_error(_failure("ncu", rc, out, err, timeout_s))
    # The table is on ncu's stdout; should a version print it with its messages on stderr, take it there.
    table = out if '"ID",' in out or '"ID",' not in err else err
    try:
        launches = in_range(parse_ncu_csv(table, "ncu's output"), range_name)
    except InputError as e:
        return report.with_error(str(e))
    if not launches:
        said = NO_KERNELS if NO_KERNELS in out else "none inside the range"
        return report.with_error(f"ncu counted no kernel in the NVTX range {range_name!r} ({said}): does the call "
                                 f"launch GPU work, from the calling thread?")
    return _with_kernels(report, launches, metric_rows)


def _with_kernels(report: CounterReport, launches: Sequence[Launch], table: MetricTable) -> CounterReport:
    kernels, formulas = to_kernels(launches, table)
    return report.replace(kernels=tuple(kernels), formulas=dict(formulas))


def collect_rocprof(child: Sequence[str], *, chip: str | None, timeout_s: float, last_n: int,
                    env: Mapping[str, str] | None = None, rocprof: str | None = None,
                    workdir: Callable[[], tempfile.TemporaryDirectory] = tempfile.TemporaryDirectory
                    ) -> CounterReport:
    """Count the last ``last_n`` dispatches of ``child`` under rocprofv3 (AMD).

    UNTESTED ON HARDWARE: the command follows AMD's rocprofv3 documentation and the parser is tested
    on AMD's recorded files, but no AMD GPU has run this function.
    """
    table = metric_table("rocprofv3")
    exe = rocprof or shutil.which("rocprofv3")
    if exe is None:
        return CounterReport("rocprofv3", error="rocprofv3 (ROCm) is not on PATH: install rocprofiler-sdk or add "
                                                "its folder to PATH to count bytes and FLOPs")
    if last_n < 1:
        return CounterReport("rocprofv3", error="no kernel launches per call are known (the 'kernel' method did "
                                                "not run): rocprofv3 cannot tell the counted call's dispatches")
    t0 = time.perf_counter()
    with workdir() as tmp:
        cmd = [exe, "--pmc", *table.requested(chip), "--output-format", "csv", "-d", tmp, "-o", "bk", "--", *child]
        rc, out, err = _run(cmd, timeout_s, env)
        report = CounterReport("rocprofv3", chip=chip, tool_version=_version(exe),
                               wall_s=time.perf_counter() - t0, command=tuple(cmd),
                               notes=(warning("rocprof-untested", "rocprofv3 collection has not been run on AMD "
                                              "hardware by bench-kernel"),))
        if rc != 0:
            return report.with_error(_failure("rocprofv3", rc, out, err, timeout_s))
        files = sorted(Path(tmp).rglob("*counter_collection.csv"))
        if not files:
            return report.with_error("rocprofv3 wrote no counter_collection.csv (are the counters supported here?)")
        try:
            launches = [launch for f in files for launch in parse_rocprof_csv(f.read_text(errors="replace"), f.name)]
        except InputError as e:
            return report.with_error(str(e))
    launches.sort(key=lambda launch: launch.id)
    return _with_kernels(report, launches[-last_n:], table)
