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
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from judged.errors import UsageError
from judged.stats import paired
from judged.stats.paired import _positive_int, _rng


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


def within_query_permutations(
    rng: np.random.Generator, n: int, k: int, permutations: int
) -> Iterator[np.ndarray]:
    """Blocks of shape (rows, n, k): for each permutation and query, a random order of the k systems."""
    for keys in _within_query_keys(rng, n, k, permutations):
        yield np.argsort(keys, axis=2)


def _within_query_keys(
    rng: np.random.Generator, n: int, k: int, permutations: int
) -> Iterator[np.ndarray]:
    """The random keys whose argsort along axis 2 is :func:`within_query_permutations`."""
    for rows in paired._chunks(permutations, n * k):
        yield rng.random((rows, n, k))


def _block_ranges(x: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Range of the permuted system means for each permutation (row) of one block of keys."""
    order = np.argsort(keys, axis=2)
    shape = (order.shape[0],) + x.shape
    permuted = np.take_along_axis(np.broadcast_to(x, shape), order, axis=2).mean(
        axis=1
    )  # rows x k
    return permuted.max(axis=1) - permuted.min(axis=1)


def tukey_hsd_randomized(
    matrix, *, permutations: int = 10_000, seed: int = 0
) -> TukeyHSD:
    """Randomised Tukey HSD over a (queries x systems) matrix, permuting systems within each query.

    Under the null hypothesis the systems are exchangeable on each query. Each
    permutation shuffles every query's row of scores across the systems and
    records the range ``max(means) - min(means)`` of the permuted system means.
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
    permutations = _positive_int("permutations", permutations)
    n, k = x.shape
    means = x.mean(axis=0)
    differences = means[:, None] - means[None, :]
    ranges = np.empty(permutations)
    done = 0
    # Keys are drawn in order on this thread (the random stream is that of
    # within_query_permutations); sorting and averaging run on worker threads,
    # which numpy lets run without the GIL. At most 2 blocks per worker wait.
    workers = max(1, min(os.cpu_count() or 1, 8))
    pending: deque = deque()

    def collect() -> None:
        nonlocal done
        block = pending.popleft().result()
        ranges[done : done + block.size] = block
        done += block.size

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for keys in _within_query_keys(_rng(seed), n, k, permutations):
            pending.append(pool.submit(_block_ranges, x, keys))
            if len(pending) > 2 * workers:
                collect()
        while pending:
            collect()
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
