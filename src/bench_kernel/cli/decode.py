"""``bench-kernel decode NAME...``: kernel name -> family, short name, category, fields."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.errors import UsageError
from bench_kernel.records import DECODE_SCHEMA_VERSION

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.DecodeOutput``).
SCHEMA_VERSION = DECODE_SCHEMA_VERSION


def _names(names: tuple[str, ...]) -> list[str]:
    if names and "-" not in names:
        return list(names)
    if not names and sys.stdin is not None and sys.stdin.isatty():
        raise UsageError("no kernel names: pass NAME... or pipe names, one per line, on stdin")
    from_stdin = [line.rstrip("\r\n") for line in sys.stdin] if sys.stdin is not None else []
    out: list[str] = []
    for n in names or ("-",):
        out.extend(x for x in from_stdin if x.strip()) if n == "-" else out.append(n)
    return out


@click.command("decode")
@click.argument("names", nargs=-1)
@click.option("--tree", is_flag=True, help="Draw each name with its positional fields labelled.")
@click.option("--rules", "rules_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="TSV of category rules (id, category, family, on, pattern) tried before the built-in ones.")
@output_options()
def command(names: tuple[str, ...], tree: bool, rules_path: Path | None, output: Output) -> None:
    """Decode kernel names (NAME..., or one per line on stdin when none or '-' is given).

    Shows the short name, family, category and decoded fields; --json gives the full record.
    """
    from bench_kernel.kernels import decode_document, key_fields, load_rules, render_tree
    from bench_kernel.report import Column, Table

    given = _names(names)
    if not given:
        raise UsageError("no kernel names on stdin: pass NAME... or pipe one name per line")
    doc = decode_document(given, load_rules(rules_path) if rules_path is not None else None)
    decoded = doc.kernels
    table = Table(
        columns=[Column("short", "kernel"), Column("family", "family"), Column("category", "category"),
                 Column("fields", "fields")],
        rows=[{"short": k.short, "family": k.family, "category": k.category, "fields": key_fields(k)}
              for k in decoded],
    )
    text = "\n\n".join(render_tree(k) for k in decoded) if tree else None
    # --tree replaces the table on the terminal (and in .txt); --json/--csv/--md/.xlsx keep their formats.
    emit(output, data=doc, tables=table, text=text)
