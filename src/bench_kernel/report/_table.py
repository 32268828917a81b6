"""A table as data (columns with a display hint, rows of raw values) and its renderers.

Commands build a :class:`Table` of raw numbers in the tool's units (microseconds, bytes, FLOP/s
as TFLOP/s, ...). Only here are they turned into text, chosen by each column's ``hint`` -- the
bookkeeping/render split of ``torch.utils.benchmark.Compare``, and nvbench's summaries rendered by
their ``hint``. One table serves every format: a column can be for reading (``only="display"``:
the terminal, Markdown, HTML; ``params`` as ``M=128 N=4096``) or for pivoting (``only="raw"``: CSV
and xlsx; one column per axis, a CI's two bounds as numbers).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Literal, Mapping, Sequence

from bench_kernel.report._text import printable
from bench_kernel.units import format_bytes, format_duration_us

if TYPE_CHECKING:  # rich is imported where a table is printed, not by every command that builds one
    from rich.console import Console

__all__ = ["Column", "Table", "format_value", "to_csv", "to_markdown", "render_rich", "verdict_style"]

#: hint -> how a raw value is shown. Durations are microseconds everywhere inside the tool, but for
#: the serving benchmark's latencies, which are milliseconds as every serving tool stores them
#: (``ttft_ms``): ``duration_ms`` reads those, so a table never converts a value to fit a hint.
HINTS = ("text", "int", "float", "duration_us", "duration_ms", "pct", "roof_pct", "ratio", "tflops", "tbps", "bytes",
         "verdict")
#: Which formats show a column: every one (None), the ones people read, or the ones tools read.
VIEWS = (None, "display", "raw")
#: A verdict's colour on a terminal, as the HTML report's badges (``_html_table.verdict_badge``);
#: ``yes``/``no`` answer "is the fastest provider's margin significant?" (``sweep --best``).
VERDICT_STYLES = {"slower": "bold red", "faster": "bold green", "same": "dim", "inconclusive": "yellow",
                  "yes": "bold green", "no": "dim"}


@dataclass(frozen=True)
class Column:
    """One column: the row key it reads, its header and how to format it."""

    key: str
    header: str
    hint: str = "text"
    #: right-align numbers; text columns stay left-aligned.
    justify: Literal["left", "center", "right"] | None = None
    #: None: every format; "display": terminal, Markdown, HTML; "raw": CSV and xlsx (see the module docstring)
    only: str | None = None
    #: the row key of this cell's longer story, shown on hover in HTML (a median's CI and sample count)
    detail: str | None = None

    def __post_init__(self) -> None:
        if self.hint not in HINTS:
            raise ValueError(f"Column {self.key!r}: unknown hint {self.hint!r}; expected one of {HINTS}")
        if self.only not in VIEWS:
            raise ValueError(f"Column {self.key!r}: only={self.only!r}; expected one of {VIEWS}")


@dataclass
class Table:
    """Rows of raw values (dicts keyed by ``Column.key``) plus a title and notes."""

    columns: list[Column]
    #: cells are any raw value a column's hint formats (numbers, words, None, user data): hence Any
    rows: Sequence[Mapping[str, Any]] = field(default_factory=list)
    title: str | None = None
    #: what to know or distrust about the rows (the terminal's "note:" lines)
    notes: list[str] = field(default_factory=list)
    #: how the rows were made, kept apart from the notes so that a warning stands out ("info:")
    info: list[str] = field(default_factory=list)
    #: a short name for the table where a long title does not fit (an xlsx sheet: 31 characters)
    sheet: str | None = None
    #: what a reader is told instead of headers over no rows ("no kernel changed"); CSV and xlsx
    #: keep their header row, which a program reads as "no rows"
    empty: str | None = None

    def view(self, which: str) -> list[Column]:
        """The columns of the ``display`` or the ``raw`` formats."""
        return [c for c in self.columns if c.only in (None, which)]


# Any: a cell is whatever a row holds (a number, a word, None, a user's value); the hint says what it is.
def format_value(value: Any, hint: str) -> str:
    """Format one raw value for display according to ``hint`` (see :data:`HINTS`)."""
    if value is None:
        return "-"
    if isinstance(value, float) and math.isnan(value):
        return "-"
    if hint in ("text", "verdict") or isinstance(value, str):
        # A word in a number column is a status the row has instead of a number ("unsupported").
        return str(value)
    if hint == "int":
        return f"{int(value):,}"
    if hint == "float":
        return f"{value:.4g}"
    if hint == "duration_us":
        return format_duration_us(float(value))
    if hint == "duration_ms":
        return format_duration_us(float(value) * 1e3)
    if hint == "pct":
        return f"{value:.1f}%"
    if hint == "roof_pct":
        # No implementation beats its roof: above 100% something is wrong, and the notes say what
        # (bench_kernel.roofline.over_roof, whose notes start with the same mark).
        from bench_kernel.roofline import OVER_ROOF_MARK

        return f"{value:.1f}%" + (f" {OVER_ROOF_MARK}" if value > 100.0 else "")
    if hint == "ratio":
        # Two decimals read well near 1 (1.03x); a tiny ratio keeps 3 significant digits (0.000912x, not 0.00x).
        return f"{value:.2f}x" if abs(value) >= 0.1 or value == 0 else f"{value:.3g}x"
    if hint == "tflops":
        # 3 significant figures for small rates, so a CPU's 0.05 TFLOP/s does not print as 0.0
        return f"{value:.1f}" if abs(value) >= 1 else f"{value:.3g}"
    if hint == "tbps":
        return f"{value:.2f}" if abs(value) >= 0.1 else f"{value:.3g}"
    if hint == "bytes":
        return format_bytes(float(value))
    raise ValueError(f"unknown hint {hint!r}")


def verdict_style(verdict: str) -> str:
    """The terminal style of a verdict: red slower, green faster, dim same; a verdict the lower
    SM clock can explain (``slower (clock)``) in yellow, as the report's amber badge."""
    if verdict.endswith("(clock)"):
        return "yellow"
    return VERDICT_STYLES.get(verdict.split()[0] if verdict else "", "")


def _cells(table: Table) -> Iterable[list[str]]:
    # Every cell goes through printable(): a name's control characters are shown, never obeyed.
    columns = table.view("display")
    for row in table.rows:
        yield [printable(format_value(row.get(c.key), c.hint)) for c in columns]


def _raw(value: object) -> object:
    return printable(value) if isinstance(value, str) else value


def to_csv(table: Table) -> str:
    """Raw values (no unit conversion) under the column keys, for spreadsheets and scripts.

    Text keeps its characters except controls (``ESC`` -> ``\\x1b``), so a CSV piped to a
    terminal cannot drive it.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    columns = table.view("raw")
    w.writerow([c.key for c in columns])
    for row in table.rows:
        w.writerow(["" if row.get(c.key) is None else _raw(row.get(c.key)) for c in columns])
    return buf.getvalue()


def _md_escape(text: str) -> str:
    return printable(text.replace("|", "\\|").replace("\n", " "))


def to_markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table with formatted values, then the notes as a list."""
    lines = []
    if table.title:
        lines += [f"### {printable(table.title)}", ""]
    if not table.rows and table.empty:
        lines.append(printable(table.empty))
        lines += _md_notes(table)
        return "\n".join(lines) + "\n"
    columns = table.view("display")
    lines.append("| " + " | ".join(_md_escape(c.header) for c in columns) + " |")
    lines.append("|" + "|".join("---" if c.hint in ("text", "verdict") else "---:" for c in columns) + "|")
    for cells in _cells(table):
        lines.append("| " + " | ".join(_md_escape(x) for x in cells) + " |")
    lines += _md_notes(table)
    return "\n".join(lines) + "\n"


def _md_notes(table: Table) -> list[str]:
    if not (table.notes or table.info):
        return []
    return ([""] + [f"- {printable(n)}" for n in table.notes]
            + [f"- info: {printable(n)}" for n in table.info])


def render_rich(table: Table, console: Console) -> None:
    """Print ``table`` on a rich ``Console`` (imported lazily by the caller).

    Titles, headers, cells and notes are handed to rich as ``Text``, never as markup: a kernel
    named ``[/]`` or ``[bold]x[/bold]`` prints as itself (names are data).
    """
    from rich.table import Table as RichTable
    from rich.text import Text

    if not table.rows and table.empty:  # one line, not headers over nothing
        said = f"{table.title}: {table.empty}" if table.title else table.empty
        console.print(Text(printable(said)), highlight=False, soft_wrap=True)
        _rich_notes(table, console)
        return
    title = Text(printable(table.title)) if table.title else None
    rt = RichTable(title=title, title_justify="left", header_style="bold")
    columns = table.view("display")
    for c in columns:
        justify = c.justify or ("left" if c.hint in ("text", "verdict") else "right")
        # Numbers and headers never break mid-word; only text columns fold when space runs out.
        numeric = c.hint not in ("text", "verdict")
        rt.add_column(Text(printable(c.header)), justify=justify, overflow="fold", no_wrap=numeric,
                      min_width=max(len(w) for w in c.header.split()) if c.header else None)
    for cells in _cells(table):
        rt.add_row(*(Text(x, style=verdict_style(x) if c.hint == "verdict" else "") for c, x in zip(columns, cells)))
    console.print(rt)
    _rich_notes(table, console)


def _rich_notes(table: Table, console: Console) -> None:
    from rich.text import Text

    for n in table.notes:
        console.print(Text.assemble(("note:", "dim"), " ", printable(n)), highlight=False)
    for n in table.info:
        console.print(Text.assemble(("info:", "dim"), " ", (printable(n), "dim")), highlight=False)
