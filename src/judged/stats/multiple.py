"""Comparing more than two systems: corrections for many comparisons and a randomised Tukey HSD.

``holm`` and ``benjamini_hochberg`` adjust a family of p-values (for example
one per pair of systems). ``tukey_hsd_randomized`` tests every pair of
systems at once on a (queries x systems) matrix of per-query scores,
permuting the systems' scores *within each query* (Carterette 2012; Sakai
2018). A one-way ANOVA Tukey HSD treats the systems' scores as independent
samples, ignores that every system answered the same queries, and must not
be used here.

>>> holm([0.01, 0.04, 0.03])
array([0.03, 0.06, 0.06])
>>> benjamini_hochberg([0.01, 0.04, 0.03])
array([0.03, 0.04, 0.04])
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from judged.errors import UsageError
from judged.io.native import _native  # the C extension, or None (not built, or JUDGED_NATIVE=0)
from judged.stats.paired import positive_int, seeded_rng


def _pvalues(pvalues) -> np.ndarray:
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise UsageError(f"p-values must be a 1-D array. Got shape {p.shape} instead.")
    bad = np.flatnonzero(~((p >= 0.0) & (p <= 1.0)))
    if bad.size:
        raise UsageError(
            f"p-values must lie in [0, 1]. Got {p[bad[0]]!r} at position {bad[0]} instead."
        )
    return p


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (controls the family-wise error rate), in input order.

    Sorted ascending, ``p_(i)`` becomes ``max_{j <= i} min(1, (m - j + 1) p_(j))``.
    Reject where the adjusted p-value is at most the chosen level.
    """
    p = _pvalues(pvalues)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.maximum.accumulate(scaled)
    return out


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (controls the false discovery rate), in input order.

    Sorted ascending, ``p_(i)`` becomes ``min_{j >= i} min(1, m p_(j) / j)``; equals
    ``scipy.stats.false_discovery_control(p, method="bh")``.
    """
    p = _pvalues(pvalues)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


@dataclass(frozen=True)
class TukeyHSD:
    """Every pair of systems with its mean difference and randomised-Tukey adjusted p-value.

    ``differences[i, j] = means[i] - means[j]``; ``p_values[i, j]`` is the share
    (with the +1 correction) of within-query permutations whose largest
    difference between any two systems' means reaches ``|differences[i, j]|``.
    The diagonal of ``p_values`` is 1.
    """

    means: np.ndarray
    differences: np.ndarray
    p_values: np.ndarray
    permutations: int
    seed: int
    n: int

    def pairs(self) -> list[tuple[int, int, float, float]]:
        """``(i, j, difference, p_value)`` for every pair ``i < j``."""
        k = self.means.size
        return [
            (i, j, float(self.differences[i, j]), float(self.p_values[i, j]))
            for i in range(k)
            for j in range(i + 1, k)
        ]


#: Permutations whose shuffles the pure-numpy path draws at once (the C path draws each on its own).
_BLOCK = 1024

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_LOW = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)


def permutation_seeds(seed: int, permutations: int) -> np.ndarray:
    """One 64-bit seed per permutation, from ``numpy.random.Generator(PCG64(seed))``: permutation p's own stream."""
    return seeded_rng(seed).integers(0, 2**64, size=permutations, dtype=np.uint64)


def within_query_orders(seeds: np.ndarray, n: int, k: int) -> Iterator[np.ndarray]:
    """For each query in turn, the order of the k systems under each seed's permutation (seeds x k).

    Each seed starts a splitmix64 stream; each query takes one 64-bit draw and
    shuffles the previous query's order by Fisher-Yates, the index for step i
    being the high word of ``draw * (i + 1)`` with the low word kept for the
    next step (batched ranged draws; bias below ``k! / 2^64``). A uniform
    shuffle of any order is uniform, so each query's order is uniform and
    independent of the others'. ``judged._native.tukey_ranges`` draws exactly
    these orders in C.
    """
    state = np.array(seeds, dtype=np.uint64)
    order = np.tile(np.arange(k), (state.size, 1))
    rows = np.arange(state.size)
    with np.errstate(over="ignore"):
        for _ in range(n):
            state = state + _GOLDEN
            z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            draw = z ^ (z >> np.uint64(31))
            for i in range(k - 1, 0, -1):  # draw * (i + 1) as 128 bits, from its 32-bit halves
                bound = np.uint64(i + 1)
                high, low = (draw >> _32) * bound, (draw & _LOW) * bound
                j = ((high + (low >> _32)) >> _32).astype(np.intp)
                draw = (high << _32) + low
                swapped = order[:, i].copy()
                order[:, i] = order[rows, j]
                order[rows, j] = swapped
            yield order


def within_query_permutations(seed: int, n: int, k: int, permutations: int) -> Iterator[np.ndarray]:
    """Blocks of shape (rows, n, k): for each permutation and query, the order of the k systems, as the test draws."""
    seeds = permutation_seeds(seed, permutations)
    for start in range(0, permutations, _BLOCK):
        yield np.stack([order.copy() for order in within_query_orders(seeds[start : start + _BLOCK], n, k)], axis=1)


def _ranges(x: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """The range of the permuted system means under each seed's permutation: in C when built, else in numpy."""
    n, k = x.shape
    if _native is not None and k <= 256:
        threads = max(1, min(os.cpu_count() or 1, 8))
        return np.frombuffer(_native.tukey_ranges(np.ascontiguousarray(x), n, k, seeds, threads), dtype=np.float64)
    out = np.empty(seeds.size)
    for start in range(0, seeds.size, _BLOCK):
        block = seeds[start : start + _BLOCK]
        sums = np.zeros((block.size, k))
        for q, order in enumerate(within_query_orders(block, n, k)):
            sums += x[q][order]
        out[start : start + block.size] = (sums.max(axis=1) - sums.min(axis=1)) / n
    return out


def tukey_hsd_randomized(
    matrix, *, permutations: int = 10_000, seed: int = 0
) -> TukeyHSD:
    """Randomised Tukey HSD over a (queries x systems) matrix, permuting systems within each query.

    Under the null hypothesis the systems are exchangeable on each query. Each
    permutation shuffles every query's row of scores across the systems and
    records the range ``max(means) - min(means)`` of the permuted system means.
    Permutation p shuffles from its own random stream (:func:`within_query_orders`,
    seeded by :func:`permutation_seeds`), in C on every core when the extension
    is built (the same shuffles in numpy otherwise), so the answer depends on
    neither the number of cores nor the extension.
    The pair (i, j) gets ``p = (#{range >= |mean_i - mean_j|} + 1) / (B + 1)``,
    which controls the family-wise error over all pairs at once (the maximum
    over systems is what makes it a Tukey test). A relative tolerance of 1e-9
    keeps float rounding from splitting ties.

    >>> r = tukey_hsd_randomized([[0.1, 0.1], [0.4, 0.4]], permutations=99)
    >>> r.p_values.tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 2 or x.shape[0] < 1:
        raise UsageError(
            f"matrix must be 2-D (queries x systems) with at least 2 systems. Got shape {x.shape} instead."
        )
    bad = np.argwhere(~np.isfinite(x))
    if bad.size:
        q, s = bad[0]
        raise UsageError(
            f"matrix holds NaN or infinite scores (first at query row {q}, system {s})"
        )
    permutations = positive_int("permutations", permutations)
    n = x.shape[0]
    means = x.mean(axis=0)
    differences = means[:, None] - means[None, :]
    ranges = _ranges(x, permutation_seeds(seed, permutations)).copy()
    scale = max(float(np.abs(x).sum(axis=0).max()) / n, 1e-300)
    target = np.abs(differences) - 1e-9 * scale
    ranges.sort()
    # Number of ranges >= target, by binary search on the sorted ranges.
    count = permutations - np.searchsorted(ranges, target, side="left")
    p = (count + 1) / (permutations + 1)
    np.fill_diagonal(p, 1.0)
    return TukeyHSD(
        means=means,
        differences=differences,
        p_values=p,
        permutations=permutations,
        seed=seed,
        n=n,
    )
