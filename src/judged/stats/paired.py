"""Paired comparison of two systems over the per-query scores of the same queries.

Every function takes two equal-length float arrays ``a`` and ``b``: the
per-query scores of two systems on the same queries, in the same order (for a
:class:`judged.Result`, ``result.values[measure]`` once both results report the
same ``qids``). A NaN (an unscored query) or a length mismatch raises
:class:`judged.UsageError`: align the queries first, deciding what a missing
query is worth, rather than letting a test silently drop it.

Tests are paired because both systems answer the same queries and query
difficulty dominates the variance of IR scores; an unpaired test throws that
pairing away and loses most of its power.

Randomised procedures are seeded and draw from ``numpy.random.Generator(PCG64(seed))``
in a fixed order, so the same inputs and seed always give the same answer.
The bootstrap intervals, built on the same validation and seeded blocks, are in
:mod:`judged.stats.bootstrap`.

>>> a = [0.5, 0.6, 0.7, 0.8, 0.9, 0.4, 0.6, 0.7]
>>> b = [0.4, 0.5, 0.7, 0.6, 0.8, 0.4, 0.5, 0.5]
>>> r = randomization_test(a, b, permutations=1000, seed=1)
>>> round(r.mean_difference, 4), r.p_value < 0.05
(0.1, True)
>>> wins_ties_losses(a, b)
WinsTiesLosses(wins=6, ties=2, losses=0, tolerance=0.0)
"""

from __future__ import annotations

import os
import queue
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from judged.errors import UsageError

#: Upper bound on the elements of one random block (rows x queries), to keep memory bounded.
CHUNK_ELEMENTS = 1 << 22


def paired_scores(a, b, *, minimum: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Validate two per-query score arrays and return them as 1-D float64 arrays.

    Raises :class:`judged.UsageError` when they are not 1-D, differ in length,
    hold NaN, or hold fewer than ``minimum`` queries.

    >>> paired_scores([1, 2], [1])
    Traceback (most recent call last):
    ...
    judged.errors.UsageError: paired scores must have the same length (same queries, same order): got 2 and 1
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1:
        raise UsageError(
            f"paired scores must be 1-D arrays of per-query scores: got shapes {x.shape} and {y.shape}"
        )
    if x.shape != y.shape:
        raise UsageError(
            f"paired scores must have the same length (same queries, same order): got {x.size} and {y.size}"
        )
    for name, v in (("a", x), ("b", y)):
        bad = np.flatnonzero(~np.isfinite(v))
        if bad.size:
            raise UsageError(
                f"paired scores {name} hold {bad.size} NaN or infinite value(s) (first at position {bad[0]}); "
                "decide what an unscored query is worth before comparing"
            )
    if x.size < minimum:
        raise UsageError(f"paired scores need at least {minimum} queries: got {x.size}")
    return x, y


def positive_int(name: str, value: int) -> int:
    """``value`` as an int, refused unless it is an integer >= 1 (counts of permutations, resamples, queries)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise UsageError(f"{name} must be an int >= 1. Got {value!r} instead.")
    return int(value)


def seeded_rng(seed: int) -> np.random.Generator:
    """The generator every seeded statistic of judged.stats draws from (PCG64), so a seed means one stream."""
    return np.random.Generator(np.random.PCG64(seed))


def chunks(total: int, n: int) -> Iterator[int]:
    """Row counts of successive blocks of ``total`` rows of length ``n``; depends on ``n`` only."""
    rows = max(1, CHUNK_ELEMENTS // max(n, 1))
    done = 0
    while done < total:
        step = min(rows, total - done)
        yield step
        done += step


def block_workers(total: int, n: int) -> int:
    """Threads worth running over the :func:`chunks` of ``total`` rows of ``n``: one per block, at most 4 and
    the machine's cores."""
    blocks = -(-total // max(1, CHUNK_ELEMENTS // max(n, 1)))
    return max(1, min(os.cpu_count() or 1, 4, blocks))


def in_workers(blocks: Iterator[np.ndarray], work: Callable[[np.ndarray, int], None], workers: int) -> None:
    """``work(block, done)`` for each of ``blocks`` (``done``: the rows of the blocks before it) on ``workers``
    threads, at most ``2 * workers`` blocks ahead. The blocks are drawn here, in order, so a seeded stream is
    read exactly as by one thread, and each block's work writes its own rows: the same bits on any number of
    threads (numpy's gathers and sums release the GIL, so the threads run at once)."""
    done = 0
    if workers == 1:
        for block in blocks:
            work(block, done)
            done += block.shape[0]
        return
    pending: deque = deque()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for block in blocks:
            pending.append(pool.submit(work, block, done))
            done += block.shape[0]
            if len(pending) > 2 * workers:
                pending.popleft().result()
        while pending:
            pending.popleft().result()


def sign_flip_bytes(rng: np.random.Generator, n: int, permutations: int) -> Iterator[np.ndarray]:
    """Blocks of packed signs (rows: permutations, columns: ``ceil(n / 8)`` bytes); bit 7 of byte g is query 8g."""
    for rows in chunks(permutations, n):
        yield rng.integers(0, 256, size=(rows, (n + 7) // 8), dtype=np.uint8)


def sign_flip_bits(
    rng: np.random.Generator, n: int, permutations: int
) -> Iterator[np.ndarray]:
    """Blocks of 0/1 matrices (rows: permutations, columns: queries); 1 flips a query's sign.

    The same signs as :func:`sign_flip_bytes`, unpacked (for checks; the test itself reads the bytes).
    """
    for raw in sign_flip_bytes(rng, n, permutations):
        yield np.unpackbits(raw, axis=1, count=n)


#: ``_BYTE_BITS[v]`` is byte value v as 8 bits, most significant first (the order of ``numpy.unpackbits``).
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float64)


def _byte_sums(d: np.ndarray) -> np.ndarray:
    """The (ceil(n/8) x 256) table of partial sums: row g, column v sums the queries of byte g whose bit is set in v.

    One lookup per byte of packed signs replaces eight multiply-adds, and the
    signs never leave their packed form (no float cast, 8x less memory moved).
    """
    groups = (d.size + 7) // 8
    padded = np.zeros(groups * 8)
    padded[: d.size] = d
    return np.einsum("gj,vj->gv", padded.reshape(groups, 8), _BYTE_BITS)


@dataclass(frozen=True, eq=False)
class SignFlips:
    """The sign-flip draws of one randomization test: per draw, the sum and number of the flipped differences.

    Flipping the queries of a draw turns ``sum(d)`` into ``sum(d) - 2 * flipped_sums``;
    testing the shifted differences ``d - shift`` on the same draws needs only
    ``flipped_counts`` more, so the p-value at every shift (and so the interval
    the test does not reject) comes from one pass over the random signs.
    """

    differences: np.ndarray
    flipped_sums: np.ndarray
    flipped_counts: np.ndarray
    seed: int

    @property
    def permutations(self) -> int:
        return int(self.flipped_sums.size)

    def count(self, shift: float = 0.0) -> int:
        """Draws whose ``|sum(d - shift)|`` after flipping reaches the observed one (relative tolerance 1e-9)."""
        d = self.differences
        n = d.size
        observed = abs(float(d.sum()) - n * shift)
        threshold = observed - 1e-9 * max(float(np.abs(d - shift).sum()), 1e-300)
        flipped = (float(d.sum()) - 2.0 * self.flipped_sums) - shift * (n - 2.0 * self.flipped_counts)
        return int(np.count_nonzero(np.abs(flipped) >= threshold))

    def p_value(self, shift: float = 0.0) -> float:
        """``(count + 1) / (permutations + 1)`` for the differences less ``shift``."""
        return (self.count(shift) + 1) / (self.permutations + 1)

    def interval(self, confidence: float = 0.95) -> Interval:
        """The shifts of the mean difference this test does not reject at ``1 - confidence``: its own interval.

        Each end is found by bisection between the estimate (p = 1) and a shift
        past every difference, on the side of 0 that matches ``p_value(0)``, so
        the interval excludes 0 exactly when ``p_value() <= 1 - confidence``.
        An end the test can never reject (too few queries) is infinite.
        """
        d = self.differences
        estimate = float(d.mean())
        alpha = 1.0 - confidence
        rejects_zero = self.p_value(0.0) <= alpha
        reach = float(np.abs(d - estimate).max()) + 1.0
        ends = []
        for side in (-1.0, 1.0):
            far = estimate + side * reach
            if self.p_value(far) > alpha:
                ends.append(side * np.inf)
                continue
            inside, outside = estimate, far
            zero_here = side * (0.0 - estimate) > 0
            if zero_here:  # bracket the end on the side of 0 that the test at 0 says
                inside, outside = (estimate, 0.0) if rejects_zero else (0.0, far)
            for _ in range(200):
                middle = 0.5 * (inside + outside)
                if middle in (inside, outside):
                    break
                if self.p_value(middle) > alpha:
                    inside = middle
                else:
                    outside = middle
            ends.append(inside)
        return Interval(estimate=estimate, low=float(ends[0]), high=float(ends[1]))


def sign_flips(a, b, *, permutations: int = 10_000, seed: int = 0, counts: bool = True) -> SignFlips:
    """Draw the sign flips of :func:`randomization_test` for ``d = a - b`` (``counts=False``: sums only)."""
    x, y = paired_scores(a, b)
    return shared_sign_flips([x - y], permutations=permutations, seed=seed, counts=counts)[0]


def shared_sign_flips(differences: Sequence[np.ndarray], *, permutations: int = 10_000, seed: int = 0,
                      counts: bool = True) -> list[SignFlips]:
    """:func:`sign_flips` of each of ``differences`` (validated, over the same queries), from one drawing.

    A seed draws the same signs whatever the differences, so the tests of many runs against one baseline
    share the draws, their byte indices and their flip counts; only each one's lookups and sums are its own.
    Each result has the bits :func:`sign_flips` gives it alone.
    """
    permutations = positive_int("permutations", permutations)
    n = differences[0].size
    tables = [_byte_sums(d).ravel() for d in differences]
    groups = (n + 7) // 8
    offsets = np.arange(groups, dtype=np.intp)[:, None] * 256
    last = np.uint8((0xFF << (8 * groups - n)) & 0xFF)  # the bits of the last byte that are queries
    sums = [np.empty(permutations) for _ in differences]
    flips = np.zeros(permutations)
    # Byte-major buffers (bytes x draws), one set per worker, reused across blocks: consecutive lookups read one
    # 2 KiB row of the table, which stays in cache, where draw-major order would sweep the whole table per draw.
    spare: queue.SimpleQueue = queue.SimpleQueue()

    def block(raw: np.ndarray, done: int) -> None:
        rows = raw.shape[0]
        packed, index, gathered = spare.get()
        if index.shape[1] != rows:  # all blocks but the last have the same size
            packed, index, gathered = (np.empty((groups, rows), dtype=np.uint8),
                                       np.empty((groups, rows), dtype=np.intp), np.empty((groups, rows)))
        packed[...] = raw.T
        np.add(packed, offsets, out=index)
        for table, out in zip(tables, sums):
            np.take(table, index, out=gathered)
            gathered.sum(axis=0, out=out[done : done + rows])
        if counts:
            raw[:, -1] &= last
            flips[done : done + rows] = np.bitwise_count(raw).sum(axis=1, dtype=np.int64)
        spare.put((packed, index, gathered))

    workers = block_workers(permutations, n)
    for _ in range(workers):
        spare.put((np.empty((groups, 0), dtype=np.uint8), np.empty((groups, 0), dtype=np.intp),
                   np.empty((groups, 0))))
    in_workers(sign_flip_bytes(seeded_rng(seed), n, permutations), block, workers)
    flips.setflags(write=False)  # shared by every result
    return [SignFlips(differences=d, flipped_sums=out, flipped_counts=flips, seed=seed)
            for d, out in zip(differences, sums)]


@dataclass(frozen=True)
class RandomizationTest:
    """Paired sign-flip randomization test of the mean difference ``mean(a - b)``.

    ``p_value = (count + 1) / (permutations + 1)`` where ``count`` is the number of
    sign flips whose ``|mean difference|`` reaches the observed one (two-sided).
    """

    mean_difference: float
    p_value: float
    count: int
    permutations: int
    seed: int
    n: int


def randomization_test(
    a, b, *, permutations: int = 10_000, seed: int = 0
) -> RandomizationTest:
    """Paired randomization (sign-flip) test of ``mean(a - b)``, two-sided.

    Under the null hypothesis the two systems are exchangeable on each query,
    so each per-query difference is equally likely to carry either sign. Each
    of ``permutations`` draws flips every difference's sign with probability
    1/2; ``count`` is how many drawn ``|mean|`` reach the observed ``|mean|``
    (within a relative tolerance of 1e-9 so that float rounding does not split
    ties), and ``p = (count + 1) / (permutations + 1)``, which is never 0.

    The signs stay packed, eight to a byte, and each byte is looked up in a
    table of partial sums (:class:`SignFlips`); work is done in blocks of at
    most :data:`CHUNK_ELEMENTS` signs, so memory stays bounded for any number
    of queries or permutations, and no BLAS is involved.

    >>> randomization_test([0.3, 0.5], [0.3, 0.5], permutations=99).p_value
    1.0
    """
    flips = sign_flips(a, b, permutations=permutations, seed=seed, counts=False)
    d = flips.differences
    count = flips.count()
    return RandomizationTest(
        mean_difference=float(d.sum()) / d.size,
        p_value=(count + 1) / (flips.permutations + 1),
        count=count,
        permutations=flips.permutations,
        seed=seed,
        n=d.size,
    )


@dataclass(frozen=True)
class TTest:
    """Paired t-test of ``mean(a - b) = 0``, two-sided, with ``df = n - 1``."""

    statistic: float
    p_value: float
    df: int
    mean_difference: float


def t_test(a, b) -> TTest:
    """Paired t-test; equals ``scipy.stats.ttest_rel(a, b)`` (scipy is needed for the t distribution).

    ``t = mean(d) / (sd(d) / sqrt(n))`` with ``d = a - b`` and ``sd`` the sample
    standard deviation (``ddof=1``). When every difference is the same, scipy
    answers NaN; here all-zero differences give ``t = 0, p = 1`` (no evidence of
    a difference) and a constant non-zero difference gives ``t = ±inf, p = 0``.

    >>> t_test([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    TTest(statistic=0.0, p_value=1.0, df=2, mean_difference=0.0)
    """
    x, y = paired_scores(a, b, minimum=2)
    d = x - y
    n = d.size
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        if mean == 0.0:
            return TTest(statistic=0.0, p_value=1.0, df=n - 1, mean_difference=0.0)
        return TTest(
            statistic=float(np.copysign(np.inf, mean)),
            p_value=0.0,
            df=n - 1,
            mean_difference=mean,
        )
    stats = scipy_stats()
    t = mean / (sd / np.sqrt(n))
    p = float(2.0 * stats.t.sf(abs(t), n - 1))
    return TTest(
        statistic=float(t), p_value=min(p, 1.0), df=n - 1, mean_difference=mean
    )


@dataclass(frozen=True)
class Wilcoxon:
    """Wilcoxon signed-rank test of ``a - b``, two-sided; see :func:`wilcoxon` for conventions."""

    statistic: float
    p_value: float
    n_nonzero: int


def wilcoxon(a, b) -> Wilcoxon:
    """Wilcoxon signed-rank test; equals ``scipy.stats.wilcoxon(a, b, zero_method="wilcox", correction=False)``.

    Conventions (those of scipy's defaults): zero differences are dropped
    (``zero_method="wilcox"``), no continuity correction, two-sided, and
    ``method="auto"``, whose choice depends on scipy's version (recorded in
    every output's provenance): in scipy 1.17 the exact null distribution for
    at most 50 differences without ties or zeros, with ties or zeros an
    exhaustive permutation distribution up to 13 and the normal approximation
    above. The statistic is the smaller
    of the positive and negative rank sums. When every difference is zero the
    test is undefined in scipy; here it gives ``statistic = 0, p = 1``.

    >>> wilcoxon([0.1, 0.2], [0.1, 0.2])
    Wilcoxon(statistic=0.0, p_value=1.0, n_nonzero=0)
    """
    x, y = paired_scores(a, b)
    d = x - y
    nonzero = int(np.count_nonzero(d))
    if nonzero == 0:
        return Wilcoxon(statistic=0.0, p_value=1.0, n_nonzero=0)
    stats = scipy_stats()
    res = stats.wilcoxon(
        x, y, zero_method="wilcox", correction=False, alternative="two-sided"
    )
    return Wilcoxon(
        statistic=float(res.statistic), p_value=float(res.pvalue), n_nonzero=nonzero
    )


def scipy_stats():
    """``scipy.stats``, or a UsageError with the pip line when scipy is not installed."""
    try:
        import scipy.stats
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise UsageError(
            "the t-test and Wilcoxon test need scipy: pip install scipy"
        ) from exc
    return scipy.stats


@dataclass(frozen=True)
class Interval:
    """A point estimate with its confidence interval ``[low, high]``.

    The randomization test's own interval (:meth:`SignFlips.interval`) and the
    bootstrap's (:mod:`judged.stats.bootstrap`) are both of this type.
    """

    estimate: float
    low: float
    high: float


@dataclass(frozen=True)
class EffectSize:
    """Paired standardised effect size Cohen's ``d_z = mean(d) / sd(d)`` with ``d = a - b``."""

    d_z: float
    mean_difference: float
    sd_difference: float
    n: int


def effect_size(a, b) -> EffectSize:
    """Paired Cohen's ``d_z``: the mean per-query difference over its sample standard deviation (``ddof=1``).

    This is the paired effect size (standardised by the spread of the
    differences, not of the scores), so it is not comparable with an unpaired
    Cohen's d. All-zero differences give 0; a constant non-zero difference ±inf.

    >>> round(effect_size([0.5, 0.7, 0.9], [0.4, 0.5, 0.6]).d_z, 6)
    2.0
    """
    x, y = paired_scores(a, b, minimum=2)
    d = x - y
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        dz = 0.0 if mean == 0.0 else float(np.copysign(np.inf, mean))
    else:
        dz = mean / sd
    return EffectSize(d_z=dz, mean_difference=mean, sd_difference=sd, n=d.size)


@dataclass(frozen=True)
class WinsTiesLosses:
    """Queries where ``a`` beats ``b`` by more than ``tolerance``, is within it, or loses by more."""

    wins: int
    ties: int
    losses: int
    tolerance: float


def wins_ties_losses(a, b, tolerance: float = 0.0) -> WinsTiesLosses:
    """Count wins (``a - b > tolerance``), ties (``|a - b| <= tolerance``) and losses of ``a`` against ``b``.

    >>> wins_ties_losses([0.5, 0.5, 0.1], [0.45, 0.5, 0.3], tolerance=0.1)
    WinsTiesLosses(wins=0, ties=2, losses=1, tolerance=0.1)
    """
    x, y = paired_scores(a, b)
    if not (tolerance >= 0.0 and np.isfinite(tolerance)):
        raise UsageError(
            f"tolerance must be a finite float >= 0. Got {tolerance!r} instead."
        )
    d = x - y
    wins = int(np.count_nonzero(d > tolerance))
    losses = int(np.count_nonzero(d < -tolerance))
    return WinsTiesLosses(
        wins=wins,
        ties=d.size - wins - losses,
        losses=losses,
        tolerance=float(tolerance),
    )
