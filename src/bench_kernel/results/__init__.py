"""Stored results and their statistics: the SQLite store, run/point records, comparisons.

Contract (read by ``report`` and the pytest plugin; names are stable):

``open_store(path=None, *, timeout_s=None) -> Store``
    One SQLite file (default ``$BENCH_KERNEL_DB`` or ``<user data dir>/bench-kernel/results.db``,
    see ``default_db_path()``), WAL, schema versioned by ``PRAGMA user_version`` and migrated in
    place. Refuses (``StoreError``, one line) a directory, a non-SQLite or foreign file, a newer
    schema, a corrupted file, a lock held longer than ``timeout_s``; never overwrites any of them.
``Store``
    ``runs(limit=None) -> list[RunInfo]`` newest first; ``run(12 | "12" | "latest" | "latest~N")
    -> RunInfo``; ``points(run) -> list[PointResult]``; ``history(pattern, where, kind)`` ->
    (RunInfo, PointResult) pairs, oldest first; writing: ``start_run(kind=, name=, config=, env=,
    command=, source=, total_points=) -> RunInfo``, ``claim_point(run_id, provider, params)``
    (mark ``running`` before measuring), ``save_result(run_id, BenchResult, status=, error=,
    worker=, wall_s=) -> PointResult`` (one transaction per point), ``finish_run(run_id, ...)``.
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
``compare(a_samples, b_samples, threshold=0.04, *, a_clocks_mhz=(), b_clocks_mhz=()) -> Comparison``
    ``a_median_us, b_median_us, ratio`` (B/A, >1 = B slower), ``ci95_low, ci95_high`` (percentile
    bootstrap of the ratio of medians, 2,000 resamples, fixed seed: see ``_compare``'s docstring
    for why), ``verdict`` ("faster"|"slower"|"same"), ``significant``, ``describe()``;
    ``clock_a_mhz, clock_b_mhz`` (median SM clocks, None without readings), ``clock_limited``
    (the slower side's lower clock can explain the verdict) and ``is_regression(strict_clocks)``.
``compare_points(a_points, b_points, threshold=, method=, by_provider=, strict_clocks=) -> ResultsComparison``
    ``rows`` (MatchedPoint: provider, params, method, comparison), ``unmatched`` (with reasons),
    ``regressions`` (clock-limited ones only with ``strict_clocks``), ``clock_limited``.
    ``best_per_point(points) -> list[Best]`` (fastest, runner-up, margin, significant).
    ``load_results_file(path)`` reads ``run --json`` / ``sweep --json`` output
    (``points_from_output(data, where)`` the same output already parsed);
    ``resolve_ref("12" | "latest" | "file.json" | "12:torch", open_db) -> PointSet`` names a side;
    ``ref_file(ref)`` the results file it reads (None for a stored run).
    ``store_files(db_path)``: the database file (``--db``, else the default) and SQLite's files beside it.
``params_text(params)`` names a point (``M=128 N=4096``); ``PointResult.label`` prefixes its provider.
``clock_spread(points) -> ClockSpread | None``: the points' median SM clocks, and which ran more
    than 10% below the run's highest (``median_clock_mhz``, ``point_clock_mhz`` read them).
``Recorder(store, name=, config=, env=, source=)`` records results that are not a sweep (``run
    --save``, a pytest session) as one run: ``save(BenchResult)``, ``save_error(...)``, ``finish()``.
``save_serve_run(store, ServeRun.to_dict(), command=) -> run id`` and ``serve_points(store, run)``:
    serving runs (kind ``serve``) and their load points with every request, in ``serve_points``.
``provenance(path) -> Provenance`` (sha256, git commit, dirty flag of the file's repository).
"""

from bench_kernel.results._clocks import CLOCK_SPREAD, ClockSpread, clock_spread, median_clock_mhz, point_clock_mhz
from bench_kernel.results._compare import (DEFAULT_THRESHOLD, Comparison, check_threshold, clock_explains, compare,
                                          samples_problem)
from bench_kernel.results._files import load_results_file, points_from_output
from bench_kernel.results._match import (
    Best,
    MatchedPoint,
    ResultsComparison,
    Unmatched,
    best_per_point,
    compare_points,
)
from bench_kernel.results._paths import DB_ENV, default_db_path, resolve_db_path, store_files
from bench_kernel.results._provenance import Provenance, file_sha256, provenance
from bench_kernel.results._recorder import Recorder
from bench_kernel.results._refs import PointSet, ref_file, resolve_ref
from bench_kernel.results._records import POINT_STATUSES, PointResult, RunInfo, params_key, params_text, point_label, status_of
from bench_kernel.results._serve import SERVE_TABLE, save_serve_run, serve_points, serve_side
from bench_kernel.results._schema import SCHEMA, SCHEMA_V1, SCHEMA_VERSION
from bench_kernel.results._store import Store, open_store

__all__ = [
    "CLOCK_SPREAD", "DB_ENV", "DEFAULT_THRESHOLD", "POINT_STATUSES", "SCHEMA", "SCHEMA_V1", "SCHEMA_VERSION",
    "Best", "ClockSpread", "Comparison", "MatchedPoint", "PointResult", "PointSet", "Provenance", "Recorder",
    "ResultsComparison", "RunInfo",
    "Store", "Unmatched", "best_per_point", "check_threshold", "clock_explains", "clock_spread", "compare", "compare_points",
    "default_db_path", "median_clock_mhz", "point_clock_mhz", "samples_problem",
    "file_sha256", "load_results_file", "open_store", "params_key", "params_text", "point_label", "points_from_output", "provenance", "ref_file", "resolve_db_path", "resolve_ref",
    "status_of", "store_files", "SERVE_TABLE", "save_serve_run", "serve_points", "serve_side",
]
