"""``bench-kernel compare A B``: B against A per point, with confidence intervals and what changed;
exit 1 on a regression (and, with ``--fail-on inconclusive``, on a point whose data cannot tell)."""

from __future__ import annotations

import click

from bench_kernel.cli._common import (
    Output,
    db_option,
    emit,
    output_options,
    print_error,
)
from bench_kernel.errors import UsageError
from bench_kernel.options import METHODS
from bench_kernel.records import COMPARE_SCHEMA_VERSION
from bench_kernel.results import (
    DEFAULT_THRESHOLD,
    check_threshold,
    ref_file,
    store_files,
)

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``records.CompareOutput``, docs/json.md).
SCHEMA_VERSION = COMPARE_SCHEMA_VERSION


@click.command("compare")
@click.argument("a")
@click.argument("b")
@db_option
@click.option("--threshold", type=float, default=DEFAULT_THRESHOLD, show_default=True,
              help="A change within this fraction is no change: 'same' needs the whole CI within it, "
                   "'slower'/'faster' a ratio beyond it.")
@click.option("-m", "--method", default=None, type=click.Choice(list(METHODS)),
              help="Compare this method's samples (default: A's primary method at each point).")
@click.option("--fail-on", type=click.Choice(["slower", "inconclusive"]), default="slower", show_default=True,
              help="What fails the exit status: 'slower' (a regression shown beyond --threshold), or "
                   "'inconclusive' (also a point whose data cannot tell: a CI gate that wants every point shown).")
@click.option("--strict-clocks", is_flag=True,
              help="Count a slowdown that B's lower SM clock can explain ('slower (clock)') as a regression too.")
@output_options(inputs=lambda kw: [ref_file(kw["a"]), ref_file(kw["b"]), *store_files(kw["db_path"])])
def command(a: str, b: str, db_path: str | None, threshold: float, method: str | None, fail_on: str,
            strict_clocks: bool, output: Output) -> int:
    """Compare B against A: stored runs (12, latest, latest~1), --json result files, or one
    provider of either (12:torch 12:triton).

    Per matched point: each side's time (the geometric mean of its round times, what the ratio is
    of), B/A with a 99% confidence interval across the rounds each side was timed in (--rounds),
    the noise floor that interval implies, and a verdict: slower/faster (the CI excludes 1 and the
    ratio is beyond --threshold), same (the whole CI within the threshold), else inconclusive, with
    the rounds that would likely resolve it. With one round a side and no stored history, the CI
    is bounded by the method's worst run-to-run noise. Under the table, one line per changed point
    says what changed (kernels, kernel set, launch configuration, outside the kernels, machine,
    code); --json has the detail. Exit status 1 when B is slower than A anywhere (and with
    --fail-on inconclusive where a point cannot tell), so CI jobs can gate on it. Where both sides
    recorded SM clocks and B's was lower by enough to explain the slowdown, the verdict reads
    'slower (clock)' and does not count unless --strict-clocks.
    """
    from bench_kernel.records import params_text
    from bench_kernel.report import comparison_table
    from bench_kernel.results import (
        Store,
        compare_points,
        open_store,
        resolve_ref,
        serve_side,
        store_history,
    )

    check_threshold(threshold)
    opened: list[Store] = []

    def open_db() -> Store:  # opened only if a side names a stored run, and once
        if not opened:
            opened.append(open_store(db_path, create=False))
        return opened[0]

    try:
        serve_a, serve_b = serve_side(a, open_db), serve_side(b, open_db)
        if serve_a is not None or serve_b is not None:
            return _compare_serving(a, b, serve_a, serve_b, threshold, fail_on, output)
        side_a, side_b = resolve_ref(a, open_db), resolve_ref(b, open_db)
        if (side_a.provider is None) != (side_b.provider is None):
            raise UsageError("give a provider on both sides (12:torch 12:triton) or on neither")
        # one-round points take their run-to-run noise from the store's earlier runs of them
        rc = compare_points(side_a.points, side_b.points, threshold=threshold, method=method,
                            by_provider=side_a.provider is None, a_label=side_a.label, b_label=side_b.label,
                            strict_clocks=strict_clocks, history=store_history(open_db(), side_a, side_b),
                            a_run=side_a.run, b_run=side_b.run)
    finally:
        for s in opened:
            s.close()
    emit(output, data=rc.output(fail_on).to_dict(), tables=comparison_table(rc))  # type: ignore[arg-type]
    slower, invalid = rc.regressions, rc.invalid
    said = []
    if slower:
        worst = max(slower, key=lambda r: r.comparison.ratio)
        where = params_text(worst.params)
        why = f"; {worst.explanation.summary}" if worst.explanation else ""
        said.append(f"{len(slower)} significant regression(s) of {side_b.label} against {side_a.label}; worst: "
                    f"{worst.b_provider} {where}: {worst.comparison.describe()}{why}")
    if fail_on == "inconclusive" and rc.inconclusive:
        first_i = rc.inconclusive[0]
        said.append(f"{len(rc.inconclusive)} inconclusive point(s) (--fail-on inconclusive); first: "
                    f"{first_i.b_provider} {params_text(first_i.params)}: {first_i.comparison.describe()}")
    if invalid:  # a damaged input is never passed over as "same": exit 1, one line with the rest
        first = invalid[0]
        name = " ".join(x for x in (first.provider, params_text(first.params)) if x)
        said.append(f"{len(invalid)} point(s) not compared; first: {name}: {first.reason}")
    if said:
        print_error("; and ".join(said))
        return 1
    return 0


def _compare_serving(a: str, b: str, serve_a: tuple | None, serve_b: tuple | None, threshold: float,
                     fail_on: str, output: Output) -> int:
    """Two serving runs: per load point and latency metric, B/A with its interval (between runs, or a
    bootstrap over requests) and a verdict."""
    from bench_kernel.report import serve_comparison_table
    from bench_kernel.serve import compare_serve

    if serve_a is None or serve_b is None:
        raise UsageError(f"{a if serve_a is None else b} is not a serving run: compare serving runs with serving runs")
    rc = compare_serve(serve_a[1], serve_b[1], threshold=threshold, a_label=serve_a[0], b_label=serve_b[0])
    emit(output, data=rc.to_dict(), tables=serve_comparison_table(rc))
    said = []
    if rc.regressions:
        worst = max(rc.regressions, key=lambda r: r.ratio)
        said.append(f"{len(rc.regressions)} significant latency regression(s) of {rc.b_label} against {rc.a_label}; "
                    f"worst: {worst.metric} at {worst.load}: {worst.describe()}")
    unsure = [r for r in rc.rows if r.verdict == "inconclusive"]
    if fail_on == "inconclusive" and unsure:
        said.append(f"{len(unsure)} inconclusive latency comparison(s) (--fail-on inconclusive); first: "
                    f"{unsure[0].metric} at {unsure[0].load}: {unsure[0].describe()}")
    if said:
        print_error("; and ".join(said))
        return 1
    return 0
