"""The optimisation behind :mod:`judged.analysis.settle`: exact extremes of (a + c.x) / IDCG(x) over grades.

One *problem* is one query and one objective: ``n`` unjudged documents take
gains ``x_i`` from the levels ``v_1 < ... < v_L``; the objective is

    f(x) = (a + sum_i c_i x_i) / I(x),

with ``I`` the ideal DCG of the query's judged gains plus the ``x_i``, and
``c_i`` of any sign. One run's nDCG has ``c_i`` = the document's discount in
its top k (0 outside it); the difference of two runs' nDCG has ``c_i`` = the
difference of the two discounts, because both runs share the query's ideal:
``nDCG_A - nDCG_B = (DCG_A - DCG_B) / I``. An assignment whose ideal is empty
scores ``empty`` (the ``norel`` value of one run; 0 for a difference).

:func:`ratio_range` returns the exact minimum and maximum per problem:
Dinkelbach's method, whose inner problem ``max N - lam I`` is solved exactly
by a dynamic programme over the level counts (docs/settle.md proves it). It
reuses the layer-cake form of ``I`` that ``docs/bounds.md`` derives.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from judged.measures.gains import discounts

#: Dinkelbach stops when the best assignment improves on lam by less than this, relative to the ideal.
_TOL = 1e-12
_MAX_ITERATIONS = 200
#: Cells of one (problems x counts) matrix per level handled at once.
_CHUNK_CELLS = 1 << 21


@dataclass(frozen=True, eq=False)
class Problems:
    """A batch of problems sharing the gain levels, the thresholds and the cutoff.

    ``coef`` is (problems x width), each row's first ``n`` entries used (any
    order); ``counts[:, t]`` is the number of judged documents with gain >=
    ``tau[t]`` (``tau``: every distinct positive gain of the levels and the
    judgments, ascending); ``cutoff`` is -1 for no cutoff.
    """

    alpha: np.ndarray
    coef: np.ndarray
    n: np.ndarray
    counts: np.ndarray
    empty: np.ndarray
    tau: np.ndarray
    values: np.ndarray
    cutoff: int

    def rows(self, index: np.ndarray) -> Problems:
        """The problems at ``index``, their coefficient matrix trimmed to the widest of them."""
        width = int(self.n[index].max(initial=0))
        return Problems(self.alpha[index], self.coef[index, :width], self.n[index], self.counts[index],
                        self.empty[index], self.tau, self.values, self.cutoff)


def ratio_range(problems: Problems) -> tuple[np.ndarray, np.ndarray]:
    """Exact (min, max) of every problem's objective over every assignment of the levels.

    >>> p = Problems(alpha=np.array([1.0]), coef=np.array([[0.5]]), n=np.array([1]),
    ...              counts=np.array([[1, 0, 0]]), empty=np.array([0.0]), tau=np.array([1.0, 2.0, 3.0]),
    ...              values=np.array([0.0, 1.0, 2.0, 3.0]), cutoff=3)
    >>> lo, hi = ratio_range(p)   # run [a, b, u]: a judged 1, b judged 0, u unjudged (docs/bounds.md, fact 2)
    >>> round(float(lo[0]), 4), round(float(hi[0]), 4)
    (0.6885, 1.0)
    """
    lo, hi = np.empty(len(problems.n)), np.empty(len(problems.n))
    order = np.argsort(problems.n, kind="stable")
    levels = max(len(problems.values), 1)
    start = 0
    while start < len(order):
        stop = start + 1
        while stop < len(order) and (stop + 1 - start) * (problems.n[order[stop]] + 1) * levels <= _CHUNK_CELLS:
            stop += 1
        rows = order[start:stop]
        part = problems.rows(rows)
        hi[rows] = _maximum(part)
        negated = Problems(-part.alpha, -part.coef, part.n, part.counts, -part.empty, part.tau, part.values,
                           part.cutoff)
        lo[rows] = -_maximum(negated)
        start = stop
    return lo, hi


def _sorted_descending(coef: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Each row's first ``n`` coefficients sorted in decreasing order, the padding after them as 0."""
    width = coef.shape[1]
    valid = np.arange(width)[None, :] < n[:, None]
    ordered = -np.sort(np.where(valid, -coef, np.inf), axis=1)
    return np.where(valid, ordered, 0.0)


def _ideal_table(size: int, cutoff: int) -> np.ndarray:
    """``D[i]``: the ideal DCG of i gains of 1 (the first min(i, k) discounts)."""
    ranks = np.arange(size)
    disc = discounts(ranks)
    if cutoff >= 0:
        disc = np.where(ranks < cutoff, disc, 0.0)
    return np.concatenate(([0.0], np.cumsum(disc)))


def _maximum(p: Problems) -> np.ndarray:
    """max f per problem: Dinkelbach, the inner problem solved exactly over sorted assignments.

    For a fixed multiset of gains the ideal is fixed and the numerator is
    largest when larger gains go to larger coefficients, so an optimum is
    described by the level counts ``n >= c_2 >= ... >= c_L >= 0`` (``c_l``
    documents, the ones with the largest coefficients, at gain >= ``v_l``).
    """
    q = len(p.n)
    coef = _sorted_descending(p.coef, p.n)
    width = coef.shape[1] + 1
    prefix = np.concatenate((np.zeros((q, 1)), np.cumsum(coef, axis=1)), axis=1)
    valid = np.arange(width)[None, :] <= p.n[:, None]
    v = p.values.astype(np.float64)
    widths = np.diff(np.concatenate(([0.0], p.tau)))
    table = _ideal_table(int(p.counts.max(initial=0)) + width + 1, p.cutoff)
    rows = np.arange(q)

    def term(t: int, extra: np.ndarray) -> np.ndarray:
        base = p.counts[:, t] if extra.ndim == 1 else p.counts[:, t][:, None]
        return widths[t] * table[base + extra]

    num0 = p.alpha + v[0] * prefix[rows, p.n]
    den0 = np.zeros(q)
    for t, threshold in enumerate(p.tau):
        if threshold <= v[0]:
            den0 += term(t, p.n)
        elif threshold > v[-1]:
            den0 += term(t, np.zeros(q, dtype=np.int64))
    counts_grid = np.broadcast_to(np.arange(width)[None, :], (q, width))
    gain_part, ideal_part = [], []
    for lower, upper in itertools.pairwise(v):
        gain_part.append((upper - lower) * prefix)
        part = np.zeros((q, width))
        for t, threshold in enumerate(p.tau):
            if lower < threshold <= upper:
                part += term(t, counts_grid)
        ideal_part.append(part)

    def evaluate(chosen: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        num, den = num0.copy(), den0.copy()
        for level, cl in enumerate(chosen):
            num += gain_part[level][rows, cl]
            den += ideal_part[level][rows, cl]
        return num, den

    levels = len(gain_part)
    best = np.full(q, -np.inf)
    for at in (np.zeros(q, dtype=np.int64), p.n):  # every document at the lowest level, every one at the highest
        num, den = evaluate([at] * levels)
        best = np.where(den > 0, np.fmax(best, np.divide(num, den, out=np.zeros(q), where=den > 0)), best)
    lam = np.where(np.isfinite(best), best, 0.0)
    active = np.isfinite(best) & (p.n > 0) & (levels > 0)
    for _ in range(_MAX_ITERATIONS):
        if not active.any():
            break
        num, den = evaluate(_inner_argmax(gain_part, ideal_part, lam, valid))
        improved = active & (den > 0) & (num - lam * den > _TOL * den)
        lam = np.where(improved, np.divide(num, den, out=np.zeros(q), where=den > 0), lam)
        best = np.where(improved, np.fmax(best, lam), best)
        active = improved
    else:  # pragma: no cover - Dinkelbach stops after finitely many strict improvements
        raise RuntimeError("settle bounds: Dinkelbach did not converge")
    # the assignment whose ideal is empty: no judged positive gain, and every document (if any) at gain 0
    no_judged = (p.counts == 0).all(axis=1) if p.counts.shape[1] else np.ones(q, dtype=bool)
    empty_possible = no_judged & ((v[0] == 0) | (p.n == 0))
    return np.where(empty_possible, np.fmax(best, p.empty), best)


def _inner_argmax(gain_part, ideal_part, lam: np.ndarray, valid: np.ndarray) -> list[np.ndarray]:
    """Level counts maximising N - lam I over chains c_2 >= ... >= c_L: a dynamic programme from the top level.

    F_L(c) = h_L(c); F_l(c) = h_l(c) + max_{c' <= c} F_{l+1}(c'); the counts are
    read back from the top of the chain down. Exact for any sign of lam and of the coefficients.
    """
    levels = len(gain_part)
    width = valid.shape[1]
    grid = np.arange(width)[None, :]
    best_below: list[np.ndarray] = [np.empty(0)] * levels  # argmax of F_l over c' <= c
    running = None
    for level in range(levels - 1, -1, -1):
        value = np.where(valid, gain_part[level] - lam[:, None] * ideal_part[level], -np.inf)
        if running is not None:
            value = value + running
        top = np.maximum.accumulate(value, axis=1)
        best_below[level] = np.maximum.accumulate(np.where(value >= top, grid, 0), axis=1)
        running = top
    rows = np.arange(len(lam))
    chosen = []
    limit = valid.sum(axis=1) - 1  # n
    for level in range(levels):
        limit = best_below[level][rows, limit]
        chosen.append(limit)
    return chosen
