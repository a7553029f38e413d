"""The optimisation behind :mod:`judged.analysis.bounds`: exact minimum and maximum nDCG over unjudged grades.

The model, the algorithms (a candidate sweep for the minimum; Dinkelbach's
method with a per-level decomposition for the maximum) and their proofs are
in ``docs/bounds.md``; :func:`exact_range` and :func:`closed_bound` are the
two entry points.
"""

from __future__ import annotations

import itertools

import numpy as np

from judged.measures.gains import discounts
from judged.measures.spec import Measure

#: Dinkelbach stops when the best assignment improves on lam by less than this (relative to nDCG's scale of 1).
_TOL = 1e-12
_MAX_ITERATIONS = 200
#: Cells of the (queries x assignments) matrices handled at once, per gain level.
_CHUNK_CELLS = 1 << 21


def unit_ideal_dcg(size: int, cutoff: int) -> np.ndarray:
    """``D[i]`` = sum of the discounts of the first min(i, k) ideal ranks: the ideal DCG of i equal gains of 1
    (``cutoff`` -1: none); settle's solver reads the same table."""
    ranks = np.arange(size)
    disc = discounts(ranks)
    if cutoff >= 0:
        disc = np.where(ranks < cutoff, disc, 0.0)
    return np.concatenate(([0.0], np.cumsum(disc)))


def _norel_value(measure: Measure) -> float:
    """What an assignment without any positive gain scores: the measure's ``norel`` (NaN: not scored)."""
    return float("nan") if measure.norel == "skip" else float(measure.norel)


def _ratio(num: np.ndarray, den: np.ndarray, norel: float) -> np.ndarray:
    out = np.full(np.broadcast(num, den).shape, norel)
    ok = den > 0
    np.divide(num, den, out=out, where=ok)
    return out


# -- the exact range ---------------------------------------------------------------------------


def exact_range(data: dict[str, np.ndarray], values: np.ndarray, measure: Measure):
    """Exact min and max per query, in chunks of queries with similar numbers of unjudged documents."""
    n = data["n"]
    order = np.argsort(n, kind="stable")
    lo, hi = np.empty(len(n)), np.empty(len(n))
    levels = max(len(values), 1)
    start = 0
    while start < len(order):
        stop = start + 1
        while stop < len(order) and (stop + 1 - start) * (n[order[stop]] + 1) * levels <= _CHUNK_CELLS:
            stop += 1
        rows = order[start:stop]
        width = int(n[rows].max()) + 1
        part = {key: value[rows] for key, value in data.items()}
        part["udisc"] = part["udisc"][:, : width - 1]
        lo[rows] = _exact_min(part, values, measure)
        hi[rows] = _exact_max(part, values, measure)
        start = stop
    return lo, hi


class _Ideal:
    """IDCG of a chunk of queries as a function of how many assigned documents reach each threshold.

    IDCG = sum_t width[t] * D(counts[:, t] + extra_t), the layer-cake form of
    the ideal DCG: D(i) is the ideal DCG of i gains of 1, and a document of
    gain g adds 1 to the count of every threshold tau[t] <= g.
    """

    def __init__(self, data: dict[str, np.ndarray]) -> None:
        self.counts = data["counts"]
        self.tau = data["tau"][0] if len(data["tau"]) else np.empty(0)
        self.width = np.diff(np.concatenate(([0.0], self.tau)))
        size = int((self.counts[:, 0] if self.counts.shape[1] else np.zeros(1, dtype=np.int64)).max(initial=0))
        size += int((data["n"] + data["beyond"]).max(initial=0)) + 1
        self.table = unit_ideal_dcg(size, int(data["cutoff"][0]) if len(data["cutoff"]) else -1)

    def term(self, t: int, extra: np.ndarray) -> np.ndarray:
        """width[t] * D(counts[:, t] + extra), ``extra`` shaped (queries,) or (queries, m)."""
        base = self.counts[:, t]
        if extra.ndim == 2:
            base = base[:, None]
        return self.width[t] * self.table[base + extra]


def _prefix(udisc: np.ndarray) -> np.ndarray:
    """``P[:, c]`` = sum of the discounts of the first c unjudged ranks (row-wise, so no cancellation)."""
    return np.concatenate((np.zeros((len(udisc), 1)), np.cumsum(udisc, axis=1)), axis=1)


def _exact_min(data: dict[str, np.ndarray], values: np.ndarray, measure: Measure) -> np.ndarray:
    """min over m in 0..n of nDCG with the m lowest-ranked unjudged documents at gmax, the rest at gmin.

    Under ``scope=retrieved`` the unjudged documents below k are at gmax.
    """
    gmin, gmax = float(values[0]), float(values[-1])
    n, beyond = data["n"], data["beyond"]
    prefix = _prefix(data["udisc"])
    q, width = prefix.shape
    m = np.arange(width)[None, :]
    valid = m <= n[:, None]
    total = prefix[np.arange(q), n]
    low = np.take_along_axis(prefix, np.maximum(n[:, None] - m, 0), axis=1)
    suffix = total[:, None] - low  # discounts of the last m unjudged ranks
    num = data["dcg"][:, None] + gmin * total[:, None] + (gmax - gmin) * suffix
    ideal = _Ideal(data)
    den = np.zeros((q, width))
    for t, threshold in enumerate(ideal.tau):
        if threshold <= gmin:
            extra = np.broadcast_to((n + beyond)[:, None], (q, width))
        elif threshold <= gmax:
            extra = np.minimum(m, n[:, None]) + beyond[:, None]
        else:
            extra = np.zeros((q, width), dtype=np.int64)
        den += ideal.term(t, extra)
    f = _ratio(num, den, _norel_value(measure))
    f = np.where(valid & ~np.isnan(f), f, np.inf)
    out = f.min(axis=1)
    out[np.isinf(out)] = np.nan
    return out


def _exact_max(data: dict[str, np.ndarray], values: np.ndarray, measure: Measure) -> np.ndarray:
    """Dinkelbach over the level counts c_l (module docstring); documents below k at gmin."""
    n, beyond = data["n"], data["beyond"]
    prefix = _prefix(data["udisc"])
    q, width = prefix.shape
    valid = np.arange(width)[None, :] <= n[:, None]
    ideal = _Ideal(data)
    v = values.astype(np.float64)
    # Constant parts: the base gain v_1 on every unjudged document; thresholds <= v_1 reached by
    # all of them (and by those below k), thresholds above v_L by none.
    num0 = data["dcg"] + v[0] * prefix[np.arange(q), n]
    den0 = np.zeros(q)
    for t, threshold in enumerate(ideal.tau):
        if threshold <= v[0]:
            den0 += ideal.term(t, n + beyond)
        elif threshold > v[-1]:
            den0 += ideal.term(t, np.zeros(q, dtype=np.int64))
    gain_part, ideal_part = [], []  # per free level l >= 2: as functions of c_l (columns)
    c = np.broadcast_to(np.arange(width)[None, :], (q, width))
    for lower, upper in itertools.pairwise(v):
        gain_part.append((upper - lower) * prefix)
        part = np.zeros((q, width))
        for t, threshold in enumerate(ideal.tau):
            if lower < threshold <= upper:
                part += ideal.term(t, c)
        ideal_part.append(part)

    def evaluate_counts(chosen: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        num, den = num0.copy(), den0.copy()
        for level, cl in enumerate(chosen):
            num += gain_part[level][np.arange(q), cl]
            den += ideal_part[level][np.arange(q), cl]
        return num, den

    norel = _norel_value(measure)
    levels = len(gain_part)
    best = np.full(q, -np.inf)
    for counts_at in (np.zeros(q, dtype=np.int64), n):  # all at gmin, all at gmax
        num, den = evaluate_counts([counts_at] * levels)
        value = _ratio(num, den, norel)
        best = np.where(np.isnan(value), best, np.fmax(best, value))
    if levels:
        lam = np.where(np.isfinite(best), best, 0.0)
        active = n > 0
        for _ in range(_MAX_ITERATIONS):
            if not active.any():
                break
            chosen = []
            for level in range(levels):
                objective = gain_part[level] - lam[:, None] * ideal_part[level]
                objective = np.where(valid, objective, -np.inf)
                chosen.append(width - 1 - np.argmax(objective[:, ::-1], axis=1))  # the largest maximiser
            for level in range(levels - 2, -1, -1):  # non-increasing in the level (Topkis; guards rounding)
                chosen[level] = np.maximum(chosen[level], chosen[level + 1])
            num, den = evaluate_counts(chosen)
            improved = active & (den > 0) & (num - lam * den > _TOL * den)
            lam = np.where(improved, np.divide(num, den, out=np.zeros(q), where=den > 0), lam)
            best = np.where(improved, np.fmax(best, lam), best)
            active = improved
        else:  # pragma: no cover - Dinkelbach converges in a handful of steps on a finite set
            raise RuntimeError("unjudged bounds: the maximum did not converge")
    best[np.isinf(best)] = np.nan
    return _fewest_raised(best, data, v, ideal, num0, measure)


def _fewest_raised(best, data, v: np.ndarray, ideal: _Ideal, num0: np.ndarray, measure: Measure) -> np.ndarray:
    """Under ``norel=skip``, a query whose top k holds no unjudged document scores only when some document
    below k becomes relevant; the best such assignment raises exactly one of them, to the smallest
    positive gain (DCG is fixed, and IDCG grows with every gain added)."""
    positive = v[v > 0]
    stuck = np.isnan(best) & (data["n"] == 0) & (data["beyond"] > 0)
    if measure.norel != "skip" or not len(positive) or not stuck.any():
        return best
    q = len(best)
    den = np.zeros(q)
    for t, threshold in enumerate(ideal.tau):
        at_base = (data["n"] + data["beyond"]) if threshold <= v[0] else np.zeros(q, dtype=np.int64)
        raised = np.ones(q, dtype=np.int64) if v[0] < threshold <= positive.min() else np.zeros(q, dtype=np.int64)
        den += ideal.term(t, at_base + raised)
    best = best.copy()
    best[stuck] = np.divide(num0[stuck], den[stuck], out=np.zeros(int(stuck.sum())), where=den[stuck] > 0)
    return best


# -- the closed-form bound ---------------------------------------------------------------------


def closed_bound(data: dict[str, np.ndarray], values: np.ndarray, measure: Measure):
    """min >= N(all gmin) / I(all gmax); max <= min(1, N(all gmax) / I(all gmin)).

    N and I are non-decreasing in every assigned gain, so each ratio pairs the
    smallest possible numerator with the largest possible denominator (or the
    reverse); nDCG <= 1 because every ranked document is in the ideal list.
    """
    gmin, gmax = float(values[0]), float(values[-1])
    n, beyond = data["n"], data["beyond"]
    total = data["udisc"].sum(axis=1)
    ideal = _Ideal(data)
    everything = n + beyond
    den_max, den_min = np.zeros(len(n)), np.zeros(len(n))
    for t, threshold in enumerate(ideal.tau):
        den_max += ideal.term(t, np.where(threshold <= gmax, everything, 0))
        den_min += ideal.term(t, np.where(threshold <= gmin, everything, 0))
    norel = _norel_value(measure)
    lo = _ratio(data["dcg"] + gmin * total, den_max, norel)
    hi = np.minimum(1.0, _ratio(data["dcg"] + gmax * total, den_min, 1.0))
    hi[den_max == 0] = norel  # no assignment gives a relevant document: every one scores norel
    return lo, hi
