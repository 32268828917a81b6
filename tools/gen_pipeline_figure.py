"""Draw the README's picture, ``docs/pipeline.svg``: what you bring, what bench-kernel does with it,
what you get. Plain SVG text written by hand (no plotting library), so the file is the same on every
machine and a test can hold it to this script.

    python tools/gen_pipeline_figure.py           # write docs/pipeline.svg
    python tools/gen_pipeline_figure.py --check   # exit 1 if the committed file differs (tests/test_docs.py)
"""

from __future__ import annotations

import sys
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "pipeline.svg"

WIDTH, HEIGHT = 980, 440
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
#: (x, width) of the three columns: inputs, what is done, outputs.
COLUMNS = ((20, 270), (340, 330), (720, 240))
#: Top of each row; every box is BOX_H high.
ROWS = (50, 185, 320)
BOX_H = 105

INPUT = ("#eef4fb", "#4a7ab5")
WORK = ("#fdf3e6", "#c98a2b")
OUTPUT = ("#eef7ee", "#4f9a58")

#: Each row: (input title, input lines), (work title, work lines). A line in backquotes is code.
LANES = (
    (("a kernel", ["any Python callable: `bench(fn)`", "`bench-kernel run file.py:cases`",
                   "a sweep spec, a pytest test"]),
     ("measure", ["graph · events · kernel · host methods", "cold L2, rounds, a reference check",
                  "roofline placement, hardware counters"])),
    (("a trace", ["Kineto JSON from torch.profiler", "Nsight Systems SQLite, rocprofv3",
                  "or record one: `bench-kernel profile`"]),
     ("explain", ["kernels, idle time and why, layers", "per-op TFLOP/s and % of the roof",
                  "call → kernel, file:line by file:line"])),
    (("a served model", ["any OpenAI-compatible server", "`--url URL` or `--launch \"vllm serve …\"`",
                         "random, ShareGPT or JSONL prompts"]),
     ("load", ["TTFT · TPOT · ITL · E2E per request", "throughput, goodput, rate sweeps",
               "a profiled window → its kernels"])),
)
#: The output panel's sections: title, lines.
OUTPUTS = (
    ("tables", ["terminal, CSV, Markdown, xlsx", "`--json`: one versioned document"]),
    ("results store", ["every run and point, raw samples", "`compare`: B/A, 99% CI, verdict", "`history`"]),
    ("HTML report", ["one file, opens offline", "runs, sweeps and traces"]),
)


def _text(x: float, y: float, s: str, size: int = 13, weight: str = "normal", anchor: str = "start",
          fill: str = "#222") -> str:
    """One line of text; a line wrapped in backquotes is set in the monospace font."""
    family = FONT
    if s.startswith("`") and s.endswith("`") and s.count("`") == 2:
        s, family = s[1:-1], MONO
    elif "`" in s:  # code inside a sentence: the code parts in monospace
        parts = s.split("`")
        spans = "".join(f'<tspan font-family="{MONO}">{escape(p)}</tspan>' if i % 2 else escape(p)
                        for i, p in enumerate(parts))
        return (f'<text x="{x}" y="{y}" font-family="{FONT}" font-size="{size}" font-weight="{weight}" '
                f'text-anchor="{anchor}" fill="{fill}">{spans}</text>')
    return (f'<text x="{x}" y="{y}" font-family="{family}" font-size="{size}" font-weight="{weight}" '
            f'text-anchor="{anchor}" fill="{fill}">{escape(s)}</text>')


def _box(x: float, y: float, w: float, h: float, colours: tuple[str, str], title: str, lines: list[str]) -> list[str]:
    fill, stroke = colours
    out = [f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="8" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>',
           _text(x + 14, y + 24, title, size=15, weight="bold", fill=stroke)]
    out += [_text(x + 14, y + 48 + 20 * i, line, size=12.5) for i, line in enumerate(lines)]
    return out


def _arrow(x1: float, y1: float, x2: float, y2: float, dashed: bool = False) -> str:
    dash = ' stroke-dasharray="5 4"' if dashed else ""
    return (f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#555" stroke-width="1.6"{dash} '
            f'marker-end="url(#head)"/>')


def svg() -> str:
    """The whole picture as SVG text."""
    (xi, wi), (xw, ww), (xo, wo) = COLUMNS
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="bench-kernel: a kernel, a trace or a served '
             f'model in; measurements, explanations and load figures out, as tables, a results store and a report">',
             '<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
             'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
             f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>']
    for (x, w), head in zip(COLUMNS, ("what you bring", "what bench-kernel does", "what you get")):
        parts.append(_text(x + w / 2, 32, head, size=14, weight="bold", anchor="middle", fill="#555"))
    for y, ((in_title, in_lines), (work_title, work_lines)) in zip(ROWS, LANES):
        parts += _box(xi, y, wi, BOX_H, INPUT, in_title, in_lines)
        parts += _box(xw, y, ww, BOX_H, WORK, work_title, work_lines)
        mid = y + BOX_H / 2
        parts.append(_arrow(xi + wi, mid, xw - 2, mid))
        parts.append(_arrow(xw + ww, mid, xo - 2, mid))
    # The two ways one lane feeds another: a kernel profiled into a trace, a served window profiled too.
    gap_top, gap_bottom = ROWS[0] + BOX_H, ROWS[1]
    parts.append(_arrow(xi + 60, gap_top, xi + 60, gap_bottom - 2, dashed=True))
    parts.append(_text(xi + 70, (gap_top + gap_bottom) / 2 + 4, "profile", size=12, fill="#555"))
    gap_top, gap_bottom = ROWS[1] + BOX_H, ROWS[2]
    parts.append(_arrow(xw + 60, gap_bottom, xw + 60, gap_top + 2, dashed=True))
    parts.append(_text(xw + 70, (gap_top + gap_bottom) / 2 + 4, "serve --profile", size=12, fill="#555"))
    # One output panel for all three lanes, in sections.
    top, bottom = ROWS[0], ROWS[-1] + BOX_H
    fill, stroke = OUTPUT
    parts.append(f'<rect x="{xo}" y="{top}" width="{wo}" height="{bottom - top}" rx="8" fill="{fill}" '
                 f'stroke="{stroke}" stroke-width="1.5"/>')
    section = (bottom - top) / len(OUTPUTS)
    for i, (title, lines) in enumerate(OUTPUTS):
        y = top + i * section
        if i:
            parts.append(f'<line x1="{xo + 10}" y1="{y}" x2="{xo + wo - 10}" y2="{y}" stroke="{stroke}" '
                         f'stroke-width="1" stroke-dasharray="3 3"/>')
        parts.append(_text(xo + 14, y + 26, title, size=15, weight="bold", fill=stroke))
        parts += [_text(xo + 14, y + 50 + 19 * j, line, size=12.5) for j, line in enumerate(lines)]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    text = svg()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} differs from what {Path(__file__).name} draws: run it", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
