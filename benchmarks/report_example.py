"""The committed example report: bench-kernel's HTML report of real GPU results, and a screenshot.

On the GPU machine, ``benchmarks/gpu/report_example.sh`` writes the inputs into $OUT; then here
(any machine with Debian's chromium):

    python3 benchmarks/report_example.py /that/out/folder            # -> examples/report-h200.html, .png
    python3 benchmarks/report_example.py benchmarks/results/run-roofline-h200.json   # files work too

A folder contributes its ``sweep-gemm.json`` first (the comparison's baseline), then
``sweep-gemm-slow.json``, then ``run-*.json``, then its traces ``trace-*.json.gz`` (the timeline
section). ``benchmarks/results/report-h200/`` keeps the inputs of the committed example, so a change
to the report re-renders it on any machine: ``python3 benchmarks/report_example.py benchmarks/results/report-h200``. The screenshot is Chromium's own
(``--screenshot``), at 1280 px wide, with the flags that keep it offline.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDER = ("sweep-gemm.json", "sweep-gemm-slow.json")
OFFLINE = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars")


def inputs_of(paths: list[Path]) -> list[Path]:
    """Files as given; a folder's result files in the order described above."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            named = [p / n for n in ORDER if (p / n).is_file()]
            out += named + sorted(p.glob("run-*.json")) + sorted(p.glob("trace-*.json.gz"))
        else:
            out.append(p)
    return out


def screenshot(html: Path, png: Path, width: int = 1280, height: int = 2600) -> None:
    """A PNG of the top ``height`` pixels of ``html`` as headless Chromium renders it."""
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.TemporaryDirectory(prefix="bk-shot-") as profile:
        subprocess.run([chromium, *OFFLINE, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                        f"--screenshot={png.resolve()}", html.resolve().as_uri()],
                       check=True, capture_output=True, timeout=120)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", type=Path, help="the folder benchmarks/gpu/report_example.sh wrote, or files")
    ap.add_argument("--name", default="h200", help="examples/report-NAME.html (default h200)")
    ap.add_argument("--title", default="bench-kernel on an H200: GEMM sweep, roofline, kernels, a trace")
    args = ap.parse_args(argv)
    from bench_kernel.report import render_report  # PYTHONPATH=src, as every benchmark runs
    from bench_kernel.report_model import load_report

    files = inputs_of(args.paths)
    if not files:
        ap.error("no result files found")
    html = ROOT / "examples" / f"report-{args.name}.html"
    html.write_text(render_report(load_report([str(f) for f in files]), title=args.title), encoding="utf-8")
    png = html.with_suffix(".png")
    screenshot(html, png)
    print(f"{html.relative_to(ROOT)} ({html.stat().st_size // 1024} KiB) from {', '.join(f.name for f in files)}; "
          f"{png.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
