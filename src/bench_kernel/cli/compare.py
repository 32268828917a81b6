"""``bench-kernel compare A B``: B against A per point, with confidence intervals; exit 1 on a regression."""

from __future__ import annotations

import click

from bench_kernel.cli._common import Output, db_option, emit, output_options, print_error
from bench_kernel.errors import UsageError
from bench_kernel.options import METHODS
from bench_kernel.results import DEFAULT_THRESHOLD, check_threshold

__all__ = ["command"]


@click.command("compare")
@click.argument("a")
@click.argument("b")
@db_option
@click.option("--threshold", type=float, default=DEFAULT_THRESHOLD, show_default=True,
              help="Relative difference below which points are 'same' even when significant.")
@click.option("-m", "--method", default=None, type=click.Choice(list(METHODS)),
              help="Compare this method's samples (default: A's primary method at each point).")
@click.option("--strict-clocks", is_flag=True,
              help="Count a slowdown that B's lower SM clock can explain ('slower (clock)') as a regression too.")
@output_options()
def command(a: str, b: str, db_path: str | None, threshold: float, method: str | None, strict_clocks: bool,
            output: Output) -> int:
    """Compare B against A: stored runs (12, latest, latest~1), --json result files, or one
    provider of either (12:torch 12:triton).

    Per matched point: both medians, B/A, a 95% bootstrap CI of that ratio from the stored
    samples and a verdict (faster, slower, same). Exit status 1 when B is significantly slower
    than A anywhere (beyond --threshold), so CI jobs can gate on it. Where both sides recorded SM
    clocks and B's was lower by enough to explain the slowdown, the verdict reads 'slower (clock)'
    and does not count unless --strict-clocks.
    """
    from bench_kernel.report import comparison_table
    from bench_kernel.results import compare_points, open_store, params_text, resolve_ref

    check_threshold(threshold)
    opened = []

    def open_db():  # opened only if a side names a stored run, and once
        if not opened:
            opened.append(open_store(db_path, create=False))
        return opened[0]

    try:
        side_a, side_b = resolve_ref(a, open_db), resolve_ref(b, open_db)
    finally:
        for s in opened:
            s.close()
    if (side_a.provider is None) != (side_b.provider is None):
        raise UsageError("give a provider on both sides (12:torch 12:triton) or on neither")
    rc = compare_points(side_a.points, side_b.points, threshold=threshold, method=method,
                        by_provider=side_a.provider is None, a_label=side_a.label, b_label=side_b.label,
                        strict_clocks=strict_clocks)
    emit(output, data=rc.to_dict(), tables=comparison_table(rc))
    slower = rc.regressions
    if slower:
        worst = max(slower, key=lambda r: r.comparison.ratio)
        where = params_text(worst.params)
        print_error(f"{len(slower)} significant regression(s) of {side_b.label} against {side_a.label}; worst: "
                    f"{worst.b_provider} {where}: {worst.comparison.describe()}")
        return 1
    return 0
