"""Stored results and their statistics: the SQLite store, run/point records, comparisons.

Contract (read by ``report`` and the pytest plugin; names are stable):

``open_store(path=None, *, timeout_s=None) -> Store``
    One SQLite file (default ``$BENCH_KERNEL_DB`` or ``<user data dir>/bench-kernel/results.db``,
    see ``default_db_path()``), WAL, schema versioned by ``PRAGMA user_version`` and migrated in
    place. Refuses (``StoreError``, one line) a directory, a non-SQLite or foreign file, a newer
    schema, a corrupted file, a lock held longer than ``timeout_s``; never overwrites any of them.
``Store``
    ``runs(limit=None) -> list[RunInfo]`` newest first; ``run(12 | "12" | "latest" | "latest~N")
    -> RunInfo``; ``points(run) -> list[PointResult]`` (a point's rounds joined into one);
    ``history(pattern, where, kind)`` -> (RunInfo, PointResult) pairs, oldest first;
    ``round_times(run, provider, params, method)`` (the point's history in other runs);
    writing: ``start_run(kind=, name=, config=, env=, command=, source=, total_points=) -> RunInfo``,
    ``claim_point(run_id, provider, params, round=1)`` (mark ``running`` before measuring),
    ``save_result(run_id, BenchResult, status=, error=, worker=, wall_s=, round=1) -> PointResult``
    (one transaction per point and round), ``rounds_done(run_id)``, ``finish_run(run_id, ...)``.
``RunInfo``
    ``id, kind ("sweep"|"run"), name, status, created_at, finished_at, wall_s, source_path,
    source_hash, git_commit, git_dirty, command, config (axes, providers, baseline, methods,
    cache, precision, max_time_s), env (device, driver, versions, clocks before/after, workers),
    total_points, n_points``.
``PointResult``
    ``provider, params, status ("ok"|"mismatch"|"unsupported"|"error"), result (BenchResult with
    raw samples), error, worker ("main"|"host:N"|"gpu:N"|"ray:..."), wall_s, run_id, finished_at,
    roofline (dict)``; ``median_us`` is the primary method's median.
``check_threshold(t, option)`` the one range check of a threshold (a fraction in [0, 1), else UsageError).
``compare(a, b, threshold=0.04, *, history=None) -> Comparison`` (a, b: Measurements, or samples of one round)
    ``a_us, b_us, ratio`` (geometric means of the rounds' times, and B/A = b_us / a_us, >1 = B
    slower; ``statistic``), ``ci_low, ci_high`` at ``confidence`` (a 99% t-interval of the log
    round times: see ``_noise``'s docstring for why; None without one), ``noise``/``noise_floor``
    (the run-to-run noise it used -- rounds, history, or the method's floor -- and the smallest
    change it can see), ``verdict`` ("faster"|"slower"|"same"|"inconclusive": ``verdict()``, the
    one rule of ``_verdict``), ``rounds_needed``, ``significant``, ``describe()``; ``compare_samples(a, b, threshold)`` the bootstrap
    of the ratio of medians for sets of independent trials (a serving run's request latencies);
    ``clock_a_mhz, clock_b_mhz`` (median SM clocks, None without readings), ``clock_limited``
    (the slower side's lower clock can explain the verdict) and ``is_regression(strict_clocks)``.
``compare_points(a_points, b_points, threshold=, method=, by_provider=, strict_clocks=, history=) -> ResultsComparison``
    ``rows`` (MatchedPoint: provider, params, method, comparison, explanation), ``unmatched`` (with
    reasons), ``regressions`` (clock-limited ones only with ``strict_clocks``), ``inconclusive``,
    ``clock_limited``, ``failed(fail_on)``, ``output(fail_on) -> CompareOutput`` (``compare --json``).
    ``explain(a_point, b_point, method, comparison) -> Explanation``: what both sides recorded that
    differs (kernels, kernel set, launch configuration, outside the kernels, methods, machine, code).
    ``best_per_point(points, threshold) -> list[Best]`` (fastest, runner-up, margin, verdict).
    ``load_results_file(path)`` reads ``run --json`` / ``sweep --json`` output
    (``points_from_output(data, where)`` the same output already parsed);
    ``resolve_ref("12" | "latest" | "file.json" | "12:torch", open_db) -> PointSet`` names a side;
    ``store_history(store, a, b)`` is the ``history`` that gives one-round points the noise of
    their stored earlier runs (``Store.round_times``).
    ``ref_file(ref)`` the results file it reads (None for a stored run).
    ``store_files(db_path)``: the database file (``--db``, else the default) and SQLite's files beside it.
``params_text(params)`` names a point (``M=128 N=4096``); ``PointResult.label`` prefixes its provider.
``clock_spread(points) -> ClockSpread | None``: the points' median SM clocks, and which ran more
    than 10% below the run's highest (``median_clock_mhz``, ``point_clock_mhz`` read them).
``Recorder(store, name=, config=, env=, source=)`` records results that are not a sweep (``run
    --save``, a pytest session) as one run: ``save(BenchResult)``, ``save_error(...)``, ``finish()``.
``save_serve_run(store, ServeOutput.to_dict(), command=) -> run id`` and ``serve_points(store, run)``:
    serving runs (kind ``serve``) and their load points with every request, in ``serve_points``.
``history(db_path, pattern=, where=, limit=) -> HistoryOutput``: the stored runs, or the stored
    points of some cases with their runs (``bench-kernel history --json``).
``provenance(path) -> Provenance`` (sha256, git commit, dirty flag of the file's repository).
"""

from bench_kernel.records import VERDICTS, Best, Comparison, MatchedPoint, Noise, Unmatched
from bench_kernel.results._bootstrap import compare_samples
from bench_kernel.results._clocks import (
                                           CLOCK_SPREAD,
                                           ClockSpread,
                                           clock_spread,
                                           median_clock_mhz,
                                           point_clock_mhz,
)
from bench_kernel.results._compare import (
                                           DEFAULT_THRESHOLD,
                                           check_threshold,
                                           clock_explains,
                                           compare,
                                           samples_problem,
)
from bench_kernel.results._explain import MOVED_SHARE, explain, launch_text
from bench_kernel.results._files import load_results_file, points_from_output
from bench_kernel.results._history import history
from bench_kernel.results._match import (
                                           History,
                                           ResultsComparison,
                                           best_per_point,
                                           compare_points,
)
from bench_kernel.results._noise import (
                                           CONFIDENCE,
                                           MIN_HISTORY,
                                           noise_from_history,
                                           noise_from_rounds,
                                           t_quantile,
)
from bench_kernel.results._open import open_store
from bench_kernel.results._paths import (
                                           DB_ENV,
                                           default_db_path,
                                           resolve_db_path,
                                           store_files,
)
from bench_kernel.results._provenance import Provenance, file_sha256, provenance
from bench_kernel.results._recorder import Recorder
from bench_kernel.results._records import merge_rounds
from bench_kernel.results._refs import PointSet, ref_file, resolve_ref, store_history
from bench_kernel.results._schema import SCHEMA, SCHEMA_V1, SCHEMA_VERSION
from bench_kernel.results._serve import (
                                           SERVE_TABLE,
                                           save_serve_run,
                                           serve_points,
                                           serve_side,
)
from bench_kernel.results._store import Store
from bench_kernel.results._verdict import (
                                           DEFAULT_FLOOR,
                                           MAX_ROUNDS_NEEDED,
                                           METHOD_FLOORS,
                                           floor_noise,
                                           geometric_mean,
                                           rounds_to_resolve,
                                           verdict,
)

__all__ = [
    "CLOCK_SPREAD", "CONFIDENCE", "DB_ENV", "DEFAULT_THRESHOLD", "MIN_HISTORY", "SCHEMA", "SCHEMA_V1",
    "SCHEMA_VERSION", "VERDICTS", "DEFAULT_FLOOR", "MAX_ROUNDS_NEEDED", "METHOD_FLOORS", "MOVED_SHARE",
    "floor_noise", "geometric_mean", "rounds_to_resolve", "verdict", "explain", "launch_text",
    "Best", "ClockSpread", "Comparison", "History", "MatchedPoint", "Noise", "PointSet", "Provenance",
    "Recorder", "ResultsComparison",
    "Store", "Unmatched", "best_per_point", "check_threshold", "clock_explains", "clock_spread", "compare", "compare_points",
    "compare_samples", "default_db_path", "median_clock_mhz", "merge_rounds", "noise_from_history", "noise_from_rounds",
    "point_clock_mhz", "samples_problem",
    "file_sha256", "history", "load_results_file", "open_store", "points_from_output",
    "provenance", "ref_file", "resolve_db_path", "resolve_ref", "store_files", "store_history", "t_quantile", "SERVE_TABLE", "save_serve_run", "serve_points", "serve_side",
]
