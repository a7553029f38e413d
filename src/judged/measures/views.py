"""What each measure reads: the ranked view adjusted by the measure's own conventions."""

from __future__ import annotations

import dataclasses

import numpy as np

from judged.engine.view import RankedView, Top
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
    key = ("by_gain_within_ties", gain, descending)
    if key not in view._derived:
        row_gain = np.where(view.judged, gains(view.grade, gain), 0.0)
        start, _ = view.tie_bounds()
        group = view.offsets[view.qidx] + start
        order = np.lexsort((np.arange(len(row_gain)), -row_gain if descending else row_gain, group))
        view._derived[key] = dataclasses.replace(
            view, grade=view.grade[order], judged=view.judged[order],
            docid=None if view.docid is None else view.docid.gather(order), _derived={})
    return view._derived[key]


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


def nonzero_sum(top: Top, values: np.ndarray) -> np.ndarray:
    """Per-query sums of ``values`` (one per row of ``top``) over their nonzero terms only, in rank order.

    ``np.add.reduceat`` adds a long segment pairwise, so the same terms round
    differently when zeros stand between or after them. DCG and IDCG both sum
    this way: a ranking that is the ideal one followed by unjudged documents
    then adds exactly the terms of its IDCG in the same order, and its nDCG is
    exactly 1.0, not 1.0000000000000002.

    >>> top = Top(np.array([0, 3]), np.array([3]))
    >>> nonzero_sum(top, np.array([0.5, 0.0, 0.25])).tolist()
    [0.75]
    """
    values = np.asarray(values, dtype=np.float64)
    if np.count_nonzero(values) == len(values):
        return top.sum(values)
    terms = np.flatnonzero(values)
    ends = np.searchsorted(terms, np.append(top.starts, len(values)))
    counts = np.diff(ends)
    return Top(np.concatenate(([0], np.cumsum(counts))), counts).sum(values[terms])


def divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with NaN where the denominator is 0 (the ``norel`` policy decides)."""
    out = np.full(len(numerator), np.nan)
    ok = denominator != 0
    out[ok] = numerator[ok] / denominator[ok]
    return out
