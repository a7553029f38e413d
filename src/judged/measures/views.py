"""What each measure reads: the ranked view adjusted by the measure's own conventions."""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView, Top
from judged.io.native import _native
from judged.measures.gains import gains
from judged.measures.spec import Gain, Measure


def measure_view(view: RankedView, measure: Measure) -> RankedView:
    """Apply ``unjudged=drop`` (condensed list), then ``ideal=returned``, then order tied groups by gain.

    ``ties=worst`` and ``best`` rank each tied group by grade when the view is
    built, which orders it by gain only when the gain grows with the grade
    and an unjudged document gains what grade 0 gains. A gain map need not
    (``{0:1,1:2}`` gives a judged grade 0 more than an unjudged document, a
    map like ``{1:3,2:1}`` is not monotone), so for a map the tied groups are
    re-ordered by the gain itself: ascending for ``worst``, descending for
    ``best``, which is the true minimum and maximum over tie orders of every
    measure whose rank weights do not increase down the ranking.
    """
    if measure.unjudged == "drop":
        view = view.judged_only()
    if measure.ideal == "returned":
        view = view.returned_ideal()
    if measure.ties in ("worst", "best") and "gain" in measure.family.params and measure.gain.kind == "map":
        view = by_gain_within_ties(view, measure.gain, descending=measure.ties == "best")
    return view


def by_gain_within_ties(view: RankedView, gain: Gain, *, descending: bool) -> RankedView:
    """``view`` with each group of tied scores re-ordered by gain (unjudged gain 0), stably.

    >>> from judged.engine.ranking import build_view
    >>> from judged.io.inputs import Qrels, Run
    >>> base = build_view(Run.from_dict({"q": {"u": 1.0, "z": 1.0}}), Qrels.from_dict({"q": {"z": 0}}), "worst")
    >>> base.judged.tolist(), by_gain_within_ties(base, Gain.parse("{0:1}"), descending=False).judged.tolist()
    ([True, False], [False, True])
    """
    def compute() -> RankedView:
        row_gain = np.where(view.judged, gains(view.grade, gain), 0.0)
        start, _ = view.tie_bounds()
        group = view.offsets[view.qidx] + start
        order = np.lexsort((np.arange(len(row_gain)), -row_gain if descending else row_gain, group))
        return view.reordered(order)

    return view.derived(("by_gain_within_ties", gain, descending), compute)


def tie_weights(view: RankedView, cutoff: int | None, unit: np.ndarray | None = None) -> np.ndarray:
    """Per row, the share of rank credit it receives when its tied group is averaged (McSherry & Najork).

    A group holding ranks [a, b) spreads the credit of those ranks that fall
    inside the cutoff evenly over its members: with ``unit`` (cumulative
    credit by rank, ``unit[r]`` = credit of ranks 0..r-1) the weight is
    ``(unit[min(b,k)] - unit[min(a,k)]) / (b - a)``; without it every rank is
    worth 1 (precision-style counting).
    """
    start, stop = view.tie_bounds()
    limit = np.iinfo(np.int64).max if cutoff is None else cutoff
    lo, hi = np.minimum(start, limit), np.minimum(stop, limit)
    if unit is None:
        return (hi - lo) / (stop - start)
    return (unit[hi] - unit[lo]) / (stop - start)


def running_sums(offsets: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per row, the sum of ``values`` over its query's rows up to and including it, added left to right.

    Each query is added on its own in rank order, as trec_eval adds: in one pass in C, or without the
    extension by padding queries of similar length into the rows of one matrix (longest first, a group
    closed once padding would pass four times its rows) and accumulating each row, which adds the same terms
    in the same order. So the sum of a query's rows never depends on the queries before it, and
    zeros between or after its terms change nothing: DCG and IDCG of the same gains at the same ranks are
    the same bits, and a ranking that is the ideal one followed by unjudged documents scores exactly 1.0.

    >>> running_sums(np.array([0, 2, 3]), np.array([1.0, 2.0, 5.0])).tolist()
    [1.0, 3.0, 5.0]
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if len(offsets) == 0 or offsets[0] != 0 or offsets[-1] != len(values) or (np.diff(offsets) < 0).any():
        raise ValueError("running_sums: the offsets must rise from 0 to the number of values")
    if _native is not None:
        return np.frombuffer(_native.running_sums(values, offsets), dtype=np.float64)
    lengths = np.diff(offsets)
    widest, count = int(lengths.max(initial=0)), len(lengths)
    if count * widest == len(values):  # every query as long as the longest: the rows are the matrix already
        return np.add.accumulate(values.reshape(count, widest), axis=1).ravel()
    out = np.empty(len(values))
    order = np.argsort(-lengths, kind="stable")
    order = order[lengths[order] > 0]
    filled = np.cumsum(lengths[order])  # rows of the longest i + 1 queries
    first = 0
    while first < len(order):
        width = int(lengths[order[first]])
        cells = width * np.arange(1, len(order) - first + 1)
        fits = cells <= 4 * (filled[first:] - (filled[first - 1] if first else 0))  # True, then False for good
        last = first + (len(fits) if fits.all() else int(np.argmin(fits)))
        _accumulate_padded(offsets, values, order[first:last], width, out)
        first = last
    return out


def _accumulate_padded(offsets: np.ndarray, values: np.ndarray, group: np.ndarray, width: int,
                       out: np.ndarray) -> None:
    """Write into ``out`` the running sums of the queries in ``group``, each a row of a (group x width) matrix."""
    group_lengths = np.diff(offsets)[group]
    starts = np.concatenate(([0], np.cumsum(group_lengths)[:-1]))
    within = np.arange(int(group_lengths.sum())) - np.repeat(starts, group_lengths)
    rows = np.repeat(offsets[group], group_lengths) + within
    flat = np.repeat(np.arange(len(group)) * width, group_lengths) + within
    padded = np.zeros(len(group) * width)
    padded[flat] = values[rows]
    out[rows] = np.add.accumulate(padded.reshape(len(group), width), axis=1).ravel()[flat]


def rank_order_sum(top: Top, values: np.ndarray) -> np.ndarray:
    """Per-query sums of ``values`` (one per row of ``top``), added in rank order like :func:`running_sums`.

    ``np.add.reduceat`` adds a long segment pairwise, so the same terms round differently when zeros stand
    between or after them; this adds left to right, so DCG and IDCG of the same terms agree to the bit.

    >>> top = Top(np.array([0, 3]), np.array([3]))
    >>> rank_order_sum(top, np.array([0.5, 0.0, 0.25])).tolist()
    [0.75]
    """
    compact = np.concatenate(([0], np.cumsum(top.counts))).astype(np.int64)
    return at_depth(running_sums(compact, values), top.starts, top.counts)


def at_depth(running: np.ndarray, starts: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """The running sum of the first ``depth[i]`` rows from row ``starts[i]`` (at most the query's length), 0 for
    none: with a view's ``offsets[:-1]``, one value per query; with ``offsets[query]``, any queries, repeated.

    >>> at_depth(np.array([1.0, 3.0, 5.0]), np.array([0, 2]), np.array([1, 0])).tolist()
    [1.0, 0.0]
    """
    out = np.zeros(len(depth))
    some = depth > 0
    out[some] = running[starts[some] + depth[some] - 1]
    return out


def divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with NaN where the denominator is 0 (the ``norel`` policy decides)."""
    out = np.full(len(numerator), np.nan)
    ok = denominator != 0
    out[ok] = numerator[ok] / denominator[ok]
    return out
