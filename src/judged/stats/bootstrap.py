"""Paired bootstrap confidence intervals: resample the queries, keep each query's pair of scores together.

The bootstrap answers how precisely a mean score (or a mean difference) is
known from the queries at hand: each resample draws ``n`` queries with
replacement, and the spread of the resampled means is the interval.
Resampling whole queries keeps the pairing that :mod:`judged.stats.paired`
is built on, so ``mean(a)``, ``mean(b)`` and ``mean(a - b)`` all come from
the same resamples. Two methods: ``"percentile"`` (the quantiles of the
resampled means) and ``"bca"`` (Efron's bias-corrected and accelerated
levels, which track skewed and tied IR score distributions better).

The resampled indices are drawn from ``numpy.random.Generator(PCG64(seed))``
in blocks of at most :data:`judged.stats.paired.CHUNK_ELEMENTS`, so the same
inputs and seed always give the same interval and memory stays bounded.
An :class:`~judged.stats.paired.Interval` is a point estimate with its
interval; the randomization test's own interval
(:meth:`judged.stats.paired.SignFlips.interval`) is one too.

>>> a = [0.5, 0.6, 0.7, 0.8, 0.9, 0.4, 0.6, 0.7]
>>> b = [0.4, 0.5, 0.7, 0.6, 0.8, 0.4, 0.5, 0.5]
>>> ci = bootstrap_ci(a, b, resamples=2000, method="bca", seed=1)
>>> round(ci.difference.estimate, 4), 0.0 < ci.difference.low < ci.difference.high
(0.1, True)
"""

from __future__ import annotations

import os
import queue
from collections.abc import Iterator
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from judged.errors import UsageError
from judged.io.native import _native  # the C extension, or None (not built, or JUDGED_NATIVE=0)
from judged.stats.paired import Interval, block_workers, chunks, in_workers, paired_scores, positive_int, seeded_rng

#: Elements gathered at once from the resampled indices (512 KiB of values: they stay in cache).
_GATHER_ELEMENTS = 1 << 16

_METHODS = ("percentile", "bca")


def bootstrap_indices(
    rng: np.random.Generator, n: int, resamples: int
) -> Iterator[np.ndarray]:
    """Blocks of resampled query indices (rows: resamples, columns: draws with replacement)."""
    for rows in chunks(resamples, n):
        yield rng.integers(0, n, size=(rows, n))


@dataclass(frozen=True)
class BootstrapCI:
    """Paired bootstrap confidence intervals for ``mean(a)``, ``mean(b)`` and ``mean(a - b)``."""

    a: Interval
    b: Interval
    difference: Interval
    confidence: float
    resamples: int
    method: str
    seed: int


def bootstrap_ci(
    a,
    b,
    *,
    confidence: float = 0.95,
    resamples: int = 10_000,
    method: str = "percentile",
    seed: int = 0,
) -> BootstrapCI:
    """Paired bootstrap confidence intervals (percentile or BCa) for both means and their difference.

    Each resample draws ``n`` queries with replacement and keeps each query's
    pair of scores together, so all three intervals come from the same
    resamples. ``method="percentile"`` takes the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` quantiles of the resampled means (linear
    interpolation, as ``numpy.quantile``). ``method="bca"`` (Efron 1987) shifts
    those levels by the bias correction ``z0 = Φ⁻¹(share of resampled means below
    the estimate)``, those equal to it counting half (mid-rank, as scipy), and
    the jackknife acceleration ``â``; the share is clipped to
    ``[1/(2B), 1 - 1/(2B)]`` so that ``z0`` stays finite. A statistic that does
    not vary across resamples (identical systems) gets the interval ``[estimate,
    estimate]``.

    >>> ci = bootstrap_ci([0.2, 0.4, 0.6], [0.2, 0.4, 0.6], resamples=200)
    >>> ci.difference
    Interval(estimate=0.0, low=0.0, high=0.0)
    """
    x, y = paired_scores(a, b)
    a_ci, b_ci, d_ci = bootstrap_means(np.stack([x, y, x - y]), confidence=confidence, resamples=resamples,
                                       method=method, seed=seed)
    return BootstrapCI(a=a_ci, b=b_ci, difference=d_ci, confidence=confidence, resamples=resamples, method=method,
                       seed=seed)


def bootstrap_means(
    rows: np.ndarray, *, confidence: float = 0.95, resamples: int = 10_000, method: str = "percentile", seed: int = 0
) -> tuple[Interval, ...]:
    """Bootstrap intervals for the mean of each row of ``rows`` (series x queries), all from the same resamples.

    The resampled query indices are those of :func:`bootstrap_ci` with the same
    ``seed``, so a row gets the interval it would get there; a comparison of
    many runs draws the indices once for all of them. The means are summed in C where the extension is built
    (``judged._native.resampled_means``: numpy's pairwise sum step for step, without writing the drawn values
    out), on threads while the next draws are made, else in numpy; the bits are the same either way.

    >>> [ci.estimate for ci in bootstrap_means(np.array([[0.25, 0.75], [1.0, 1.0]]), resamples=50)]
    [0.5, 1.0]
    """
    data = np.asarray(rows, dtype=np.float64)
    resamples = positive_int("resamples", resamples)
    if not 0.0 < confidence < 1.0:
        raise UsageError(f"confidence must be a float in (0, 1). Got {confidence!r} instead.")
    if method not in _METHODS:
        raise UsageError(f"method must be one of {', '.join(_METHODS)}. Got {method!r} instead.")
    n = data.shape[1]
    means = np.empty((data.shape[0], resamples))
    draws = bootstrap_indices(seeded_rng(seed), n, resamples)
    if _native is not None:
        by_query = np.ascontiguousarray(data.T)  # each query's values of every series side by side
        workers = block_workers(resamples, n)  # blocks summed while the next ones are drawn
        threads = max(1, min(os.cpu_count() or 1, 8) // workers)

        def block(idx: np.ndarray, done: int) -> None:
            sums = _native.resampled_means(by_query, data.shape[0], n, idx, threads)
            means[:, done : done + idx.shape[0]] = np.frombuffer(sums, dtype=np.float64).reshape(data.shape[0], -1)

        in_workers(draws, block, workers)
    else:
        _gathered_means(data, draws, means)
    return tuple(_interval(data[k], means[k], confidence, method) for k in range(data.shape[0]))


def _gathered_means(data: np.ndarray, draws: Iterator[np.ndarray], means: np.ndarray) -> None:
    """The resampled means in numpy (without the C extension; the same bits): the drawn values gathered a few
    rows of draws at a time into a small buffer per thread, reused for every block and series, so that the
    draws and the values stay in cache (a block's are 32 MiB each), then averaged."""
    n = data.shape[1]
    step = max(1, _GATHER_ELEMENTS // n)
    workers = block_workers(means.shape[1], n)
    spare: queue.SimpleQueue = queue.SimpleQueue()
    for _ in range(workers):
        spare.put(np.empty((step, n)))

    def block(idx: np.ndarray, done: int) -> None:
        gathered = spare.get()
        for start in range(0, idx.shape[0], step):
            part = idx[start : start + step]
            count = part.shape[0]
            for k in range(data.shape[0]):
                np.take(data[k], part, out=gathered[:count])
                gathered[:count].mean(axis=1, out=means[k, done + start : done + start + count])
        spare.put(gathered)

    in_workers(draws, block, workers)


def _interval(
    values: np.ndarray, boot: np.ndarray, confidence: float, method: str
) -> Interval:
    estimate = float(values.mean())
    if float(boot.max() - boot.min()) <= 1e-12 * max(1.0, abs(estimate)):
        return Interval(estimate=estimate, low=estimate, high=estimate)
    tail = (1.0 - confidence) / 2.0
    levels = np.array([tail, 1.0 - tail])
    if method == "bca":
        levels = _bca_levels(values, boot, estimate, levels)
    low, high = np.quantile(boot, levels)
    return Interval(estimate=estimate, low=float(low), high=float(high))


def _bca_levels(
    values: np.ndarray, boot: np.ndarray, estimate: float, levels: np.ndarray
) -> np.ndarray:
    normal = NormalDist()
    b = boot.size
    # Mid-rank share: resampled means equal to the estimate (common, IR scores are discrete) count half, as
    # scipy.stats.bootstrap does; counting them all on one side shifts the interval by a whole step.
    tie = 1e-10 * max(float(np.abs(values).max()), 1e-300)
    below = np.count_nonzero(boot < estimate - tie)
    equal = np.count_nonzero(np.abs(boot - estimate) <= tie)
    share = min(max(float(below + 0.5 * equal) / b, 1.0 / (2 * b)), 1.0 - 1.0 / (2 * b))
    z0 = normal.inv_cdf(share)
    n = values.size
    # Jackknife means, leaving each query out in turn (closed form for the mean).
    jack = (values.sum() - values) / (n - 1) if n > 1 else values.copy()
    dev = jack.mean() - jack
    denom = 6.0 * float(np.sum(dev**2)) ** 1.5
    accel = float(np.sum(dev**3)) / denom if denom > 0 else 0.0
    out = []
    for level in levels:
        z = normal.inv_cdf(float(level))
        shifted = z0 + (z0 + z) / (1.0 - accel * (z0 + z))
        out.append(normal.cdf(shifted))
    return np.array(out)
