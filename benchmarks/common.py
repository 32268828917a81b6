"""What the benchmark scripts share: where things are, what machine ran them, the trace scripts'
common options. Scripts here are run by path (``PYTHONPATH=src python benchmarks/x.py``), so this
module sits beside them and is imported as ``common``; bench_kernel comes from ``PYTHONPATH=src`` or
an installed checkout, never from a path a script inserts.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

__all__ = ["ROOT", "RESULTS", "SHARED_TRACES", "DEFAULT_SOURCE", "machine", "load_average", "trace_parser",
           "import_examples", "child_env"]

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
SHARED_TRACES = ROOT.parent / "shared" / "data" / "traces"
#: The real trace the large traces are built from (copies with shifted timestamps and ids).
DEFAULT_SOURCE = SHARED_TRACES / "h200__llama_eager_generate.json.gz"


def machine() -> str:
    """One line: host, CPU model, cores, RAM, OS, Python and msgspec versions."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    try:
        import msgspec

        extra = f", msgspec {msgspec.__version__}"
    except ImportError:
        extra = ""
    return (f"{platform.node() or 'host'}: {cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, "
            f"{platform.system()} {platform.release()}, Python {platform.python_version()}{extra}")


def load_average() -> float:
    """The 1-minute load average now (``uptime``'s first figure): other jobs on a shared machine."""
    return os.getloadavg()[0]


def trace_parser(doc: str, out: Path | None) -> argparse.ArgumentParser:
    """The options every large-trace script takes: the source trace, the size to build, the runs per
    command and the results file (``out=None``: no default file)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="the real trace the copies come from")
    ap.add_argument("--size-mb", type=int, default=1000, help="size of the built trace (default 1000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each timed command (default 3)")
    ap.add_argument("--out", type=Path, default=out, help="the Markdown results file")
    return ap


def import_examples() -> None:
    """Make ``examples/`` importable (fidelity.py times its Triton kernel): the one path a script adds."""
    path = str(ROOT / "examples")
    if path not in sys.path:
        sys.path.insert(0, path)


def child_env(**extra: str) -> dict[str, str]:
    """This process's environment for a child ``python -m bench_kernel``: the repository's ``src``
    first on ``PYTHONPATH``, what was there kept (dependencies carried to a GPU machine live there:
    replacing it cost a device call), and ``extra`` on top."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(ROOT / "src") + (os.pathsep + path if path else ""), **extra}
