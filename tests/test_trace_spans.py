"""_spans: union, intersection, difference and windowed measures equal a brute-force count on a grid."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bench_kernel.trace._spans import coverage, union

# Intervals on integer microseconds in [0, 60): a grid of half-integers samples each unit once.
_iv = st.lists(st.tuples(st.integers(0, 59), st.integers(0, 12)), max_size=12)
GRID = np.arange(0, 80) + 0.5


def _mask(ivs: list[tuple[int, int]]) -> np.ndarray:
    """Which grid points some interval [s, s + d) covers -- the definition, with no set algebra."""
    m = np.zeros(len(GRID), bool)
    for s, d in ivs:
        m |= (GRID >= s) & (GRID < s + d)
    return m


def _spans(ivs):
    return union(np.array([s for s, _ in ivs], float), np.array([s + d for s, d in ivs], float))


@settings(max_examples=200, deadline=None)
@given(_iv, _iv, st.integers(0, 70), st.integers(0, 30))
def test_set_algebra_matches_the_grid(a, b, lo, width):
    A, B = _spans(a), _spans(b)
    ma, mb = _mask(a), _mask(b)
    assert A.total_us == ma.sum()
    assert (A & B).total_us == (ma & mb).sum()
    assert (A | B).total_us == (ma | mb).sum()
    assert (A - B).total_us == (ma & ~mb).sum()
    inside = (GRID >= lo) & (GRID < lo + width)
    assert A.within(np.array([lo]), np.array([lo + width]))[0] == (ma & inside).sum()
    # disjoint, sorted, non-touching
    assert np.all(A.start < A.end) and np.all(A.end[:-1] < A.start[1:])


@settings(max_examples=100, deadline=None)
@given(_iv)
def test_coverage_counts_open_intervals(a):
    t, depth = coverage(np.array([s for s, _ in a], float), np.array([s + d for s, d in a], float))
    for g in GRID:
        k = np.searchsorted(t, g, side="right") - 1
        got = int(depth[k]) if k >= 0 else 0
        assert got == sum(s <= g < s + d for s, d in a)
