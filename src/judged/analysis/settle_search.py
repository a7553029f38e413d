"""The optimisation behind :mod:`judged.analysis.settle`: exact extremes of each shape of objective over grades.

The shapes are those of :mod:`judged.analysis.joint_families`: nDCG's ratio
over the ideal DCG, solved here by :func:`ratio_range`; a linear objective
(DCG, P, RBP, SDCG, INSQ), by :func:`linear_range`; the weight of the first relevant
document (RR, Success), by :func:`first_range`; the relevant documents in a
top cutoff over the number of relevant documents (R, R-prec), by
:func:`count_range`. docs/settle.md proves each exact.

**Ratio.** One *problem* is one query and one objective: ``n`` unjudged documents take
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
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judged.analysis.bounds_search import unit_ideal_dcg

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
    table = unit_ideal_dcg(int(p.counts.max(initial=0)) + width + 1, p.cutoff)
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


def linear_range(alpha: np.ndarray, coef: np.ndarray, n: np.ndarray,
                 values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact (min, max) of ``alpha + sum_i coef_i x_i`` per row, each ``x_i`` any of ``values``.

    The terms are independent, so each takes its own extreme: ``coef_i`` times
    the least or the greatest value, whichever is lower (or higher).

    >>> lo, hi = linear_range(np.array([0.5]), np.array([[1.0, -0.5, 0.0]]), np.array([2]), np.array([0.0, 1.0]))
    >>> float(lo[0]), float(hi[0])   # the second term is -0.5 at x = 1; the third is padding
    (0.0, 1.5)
    """
    low, high = _linear_terms(coef, values)
    valid = np.arange(coef.shape[1])[None, :] < n[:, None]
    return alpha + np.where(valid, low, 0.0).sum(axis=1), alpha + np.where(valid, high, 0.0).sum(axis=1)


def linear_fixed(alpha: float, coef: np.ndarray, values: np.ndarray,
                 fixed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`linear_range` of one problem with term ``i`` fixed at gain ``fixed[j]``, for every (i, j), i-major."""
    low, high = _linear_terms(coef, values)
    doc = np.repeat(np.arange(len(coef)), len(fixed))
    own = coef[doc] * np.tile(fixed, len(coef))
    return alpha + low.sum() - low[doc] + own, alpha + high.sum() - high[doc] + own


def _linear_terms(coef: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    least, most = coef * float(values.min()), coef * float(values.max())
    return np.minimum(least, most), np.maximum(least, most)


def first_range(a: np.ndarray, c: np.ndarray, b: np.ndarray, d: np.ndarray, n: np.ndarray,
                values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact (min, max) of ``max(a, max_{i in S} c_i) - max(b, max_{i in S} d_i)`` over the relevant sets S.

    Per row, the documents take gain 1 (relevant: in S) or 0, as ``values``
    allows (a subset of {0, 1}); ``a, b, c, d >= 0``. Both sides grow with S,
    so only the empty set and the sets of one document need trying: for any S,
    with u the document of S of largest c, the first side is the same for
    {u} and the second is no larger, so S never beats {u} at the maximum (and
    likewise at the minimum, with the sides' roles swapped). One run's value
    alone is ``b = d = 0``.

    >>> lo, hi = first_range(np.array([0.0]), np.array([[1.0, 0.5]]), np.array([0.25]), np.array([[0.5, 1.0]]),
    ...                      np.array([2]), np.array([0.0, 1.0]))
    >>> float(lo[0]), float(hi[0])   # {1}: 0.5 - 1; {0}: 1 - 0.5; nothing relevant: 0 - 0.25
    (-0.5, 0.5)
    """
    valid = np.arange(c.shape[1])[None, :] < n[:, None]
    none = a - b
    if not (values > 0).any():
        return none, none
    if not (values == 0).any():
        every = (np.maximum(a, np.where(valid, c, 0.0).max(axis=1, initial=0.0))
                 - np.maximum(b, np.where(valid, d, 0.0).max(axis=1, initial=0.0)))
        return every, every
    single = np.maximum(a[:, None], c) - np.maximum(b[:, None], d)
    return (np.minimum(none, np.where(valid, single, np.inf).min(axis=1, initial=np.inf)),
            np.maximum(none, np.where(valid, single, -np.inf).max(axis=1, initial=-np.inf)))


def first_fixed(a: float, c: np.ndarray, b: float, d: np.ndarray, values: np.ndarray,
                fixed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`first_range` of one problem with document ``i`` at gain ``fixed[j]``, for every (i, j), i-major.

    With i relevant, the sets to try are {i} and {i, j} for every j (i is in
    every set, and the argument of :func:`first_range` applies to the rest);
    with i not relevant, the empty set and {j} for every j other than i.
    """
    n, grades = len(c), len(fixed)
    if not (values == 0).any() or not (values > 0).any():  # the others are forced: all relevant or none
        lo, hi = first_range(np.array([a]), c[None, :], np.array([b]), d[None, :], np.array([n]), values)
        return np.full(n * grades, lo[0]), np.full(n * grades, hi[0])
    lo_rel, hi_rel = np.empty(n), np.empty(n)
    for start in range(0, n, _PAIR_ROWS):  # rows of the (i, j) matrix a few at a time
        rows = slice(start, min(start + _PAIR_ROWS, n))
        pair = (np.maximum(np.maximum(a, c[rows, None]), c[None, :])
                - np.maximum(np.maximum(b, d[rows, None]), d[None, :]))
        lo_rel[rows], hi_rel[rows] = pair.min(axis=1), pair.max(axis=1)
    single = np.maximum(a, c) - np.maximum(b, d)
    lo_not = np.minimum(a - b, _without_self(single, np.inf, np.minimum))
    hi_not = np.maximum(a - b, _without_self(single, -np.inf, np.maximum))
    relevant = np.tile(fixed > 0, n)
    doc = np.repeat(np.arange(n), grades)
    return np.where(relevant, lo_rel[doc], lo_not[doc]), np.where(relevant, hi_rel[doc], hi_not[doc])


_PAIR_ROWS = 256


def _without_self(values: np.ndarray, identity: float, better: np.ufunc) -> np.ndarray:
    """For each i, the best (``better``: np.minimum or np.maximum) of ``values`` over every j other than i."""
    if len(values) < 2:
        return np.full(len(values), identity)
    before = better.accumulate(np.concatenate(([identity], values[:-1])))
    after = better.accumulate(np.concatenate(([identity], values[:0:-1])))[::-1]
    return better(before, after)


def count_range(judged: Sequence[np.ndarray], ranks: np.ndarray, weights: np.ndarray, relevant: int,
                cutoff: float | None, empty: float, values: np.ndarray) -> tuple[float, float]:
    """Exact (min, max) of one query's recall-shaped objective over the relevant sets S of its pooled documents.

    With ``R = relevant + |S|`` the number of relevant documents and ``c`` the
    cutoff (``cutoff``, inf for none; R itself when ``cutoff`` is None, as for
    R-prec), the objective is ``(J(c) + sum_{i in S} w_i(c)) / R``:
    ``J(c) = sum_r weights[r] |judged[r] < c|`` counts each run's judged
    relevant documents above c (``judged[r]``: their 0-based ranks, sorted),
    ``w_i(c) = sum_r weights[r] [ranks[r, i] < c]`` (``ranks`` inf where a run
    does not rank the document); R = 0 scores ``empty``. For a given size m of
    S, c and R are fixed and the sum is largest (smallest) for the m documents
    of largest (smallest) w_i(c), so the extremes are over the sizes
    ``values`` allows (any, when it has a relevant and a non-relevant gain),
    each with its coefficients sorted.

    >>> judged = [np.array([0]), np.array([2])]   # a, judged relevant: rank 1 in A, rank 3 in B
    >>> ranks = np.array([[1.0], [0.0]])           # u: rank 2 in A, rank 1 in B
    >>> args = (judged, ranks, np.array([1.0, -1.0]), 1)
    >>> count_range(*args, None, 0.0, np.array([0.0, 1.0])), count_range(*args, 1.0, 0.0, np.array([0.0, 1.0]))
    ((0.5, 1.0), (0.0, 1.0))

    R-prec: u not relevant, R = 1 and A 1/1 - B 0/1 = 1; relevant, R = 2 and
    A 2/2 - B 1/2 = 0.5. R@1: 1/1 - 0/1 = 1, or 1/2 - 1/2 = 0.
    """
    t = _CountTables(judged, ranks, weights, relevant, cutoff)
    sizes = t.sizes(values)
    lows = t.value(sizes, t.bottom[sizes, sizes], empty)
    highs = t.value(sizes, t.top[sizes, sizes], empty)
    return float(lows.min()), float(highs.max())


def count_fixed(judged: Sequence[np.ndarray], ranks: np.ndarray, weights: np.ndarray, relevant: int,
                cutoff: float | None, empty: float, values: np.ndarray,
                fixed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`count_range` with document ``i`` at gain ``fixed[j]`` (1 relevant, 0 not), for every (i, j), i-major.

    A document fixed relevant is in every S: its w_i(c) plus the m - 1 best of
    the others; fixed non-relevant, in none: the m best of the others. The
    best k of the others is the best k of all when i is not among them, else
    the best k + 1 less w_i(c), so one sort per size serves every document.
    """
    t = _CountTables(judged, ranks, weights, relevant, cutoff)
    n = ranks.shape[1]
    m = np.arange(n + 1)
    free = bool((values == 0).any() and (values > 0).any())
    rows_in = (m >= 1) if free else (m == n)
    rows_out = (m <= n - 1) if free else (m == 0)
    ascending, descending = t.places()
    ends = []
    for prefix, place, pick, fill in ((t.bottom, ascending, np.min, np.inf), (t.top, descending, np.max, -np.inf)):
        inside = t.value(m, t.coef + t.excluding(prefix, place, np.maximum(m - 1, 0)), empty)
        outside = t.value(m, t.excluding(prefix, place, m), empty)
        ends.append((pick(np.where(rows_in[:, None], inside, fill), axis=0),
                     pick(np.where(rows_out[:, None], outside, fill), axis=0)))
    relevant_doc = np.tile(fixed > 0, n)
    doc = np.repeat(np.arange(n), len(fixed))
    (lo_in, lo_out), (hi_in, hi_out) = ends
    return np.where(relevant_doc, lo_in[doc], lo_out[doc]), np.where(relevant_doc, hi_in[doc], hi_out[doc])


class _CountTables:
    """Per size m of S (rows): the coefficients w_i(c_m), their sorted prefix sums and each one's place in them.

    With a fixed cutoff (R@k) every row is the same: it is computed and sorted once and broadcast.
    """

    def __init__(self, judged: Sequence[np.ndarray], ranks: np.ndarray, weights: np.ndarray, relevant: int,
                 cutoff: float | None) -> None:
        n = ranks.shape[1]
        self.n = n
        self.denominator = relevant + np.arange(n + 1)
        cut = self.denominator.astype(np.float64) if cutoff is None else np.full(1, cutoff)
        base = np.zeros(len(cut))
        coef = np.zeros((len(cut), n))
        for r in np.flatnonzero(weights).tolist():  # a run weighted 0 adds nothing
            base += weights[r] * np.searchsorted(judged[r], cut, side="left")
            coef += weights[r] * (ranks[r][None, :] < cut[:, None])
        self._up = np.argsort(coef, axis=1, kind="stable")
        ordered = np.take_along_axis(coef, self._up, axis=1)
        zero = np.zeros((len(cut), 1))
        shape = (n + 1, n)
        self.base = np.broadcast_to(base, (n + 1,))
        self.coef = np.broadcast_to(coef, shape)
        self.bottom = np.broadcast_to(np.concatenate((zero, np.cumsum(ordered, axis=1)), axis=1), (n + 1, n + 1))
        self.top = np.broadcast_to(np.concatenate((zero, np.cumsum(ordered[:, ::-1], axis=1)), axis=1),
                                   (n + 1, n + 1))

    def places(self) -> tuple[np.ndarray, np.ndarray]:
        """Each document's place in its row sorted ascending, and descending (the prefix sums' orders)."""
        rows = np.arange(len(self._up))[:, None]
        ascending, descending = np.empty_like(self._up), np.empty_like(self._up)
        ascending[rows, self._up] = np.arange(self.n)
        descending[rows, self._up[:, ::-1]] = np.arange(self.n)
        shape = (self.n + 1, self.n)
        return np.broadcast_to(ascending, shape), np.broadcast_to(descending, shape)

    def sizes(self, values: np.ndarray) -> np.ndarray:
        """The sizes S can have: any, or all documents when no grade is non-relevant, or none when none is relevant."""
        every = np.arange(self.n + 1)
        if not (values == 0).any():
            return every[-1:]
        if not (values > 0).any():
            return every[:1]
        return every

    def excluding(self, prefix: np.ndarray, place: np.ndarray, k: np.ndarray) -> np.ndarray:
        """(sizes x documents): the sum of the k (per size) best coefficients of the documents other than each one."""
        rows = np.arange(self.n + 1)[:, None]
        k = k[:, None]
        return np.where(place >= k, prefix[rows, k], prefix[rows, np.minimum(k + 1, self.n)] - self.coef)

    def value(self, sizes: np.ndarray, numerator: np.ndarray, empty: float) -> np.ndarray:
        """``(J(c) + numerator) / R`` at the given sizes, ``empty`` where R = 0."""
        denominator, base = self.denominator[sizes], self.base[sizes]
        if numerator.ndim == 2:
            denominator, base = denominator[:, None], base[:, None]
        return np.where(denominator > 0, (base + numerator) / np.maximum(denominator, 1), empty)
