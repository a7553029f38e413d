"""Gain and discount as vectors: the arithmetic of DCG, applied to whole columns at once."""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.errors import MeasureError
from judged.measures.hits import Hits, judged_hits
from judged.measures.spec import Gain, Measure


def gains(grades: np.ndarray, gain: Gain) -> np.ndarray:
    """The gain of each grade: ``linear`` g, ``exp`` 2^g - 1 (both 0 for g <= 0) or the explicit map.

    >>> gains(np.array([3, 2, 0, -1]), Gain("exp")).tolist()
    [7.0, 3.0, 0.0, 0.0]
    """
    grades = np.asarray(grades)
    if grades.dtype.kind not in "iu":
        grades = grades.astype(np.int64)
    positive = np.maximum(grades, 0).astype(np.float64)  # from the view's int32 grades: no int64 copy first
    if gain.kind == "exp":
        return np.exp2(positive) - 1.0
    out = positive
    if gain.kind == "map":
        out = positive.copy()
        for grade, value in gain.mapping:
            out[grades == grade] = value
    return out


def view_gains(view: RankedView, gain: Gain) -> np.ndarray:
    """:func:`judged_gains` of every row of ``view``, computed once per view and gain, for what weighs every row
    (``ties=average`` spreads a tied group's credit over all of it; the C/W/L measures' scaled gains); read-only,
    like the view's other cached columns. The sums in rank order read :func:`gained_hits` instead.

    >>> from judged.engine.ranking import build_view
    >>> from judged.io.inputs import Qrels, Run
    >>> run = Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> view = build_view(run, Qrels.from_dict({"q": {"a": 2, "c": 1}}))
    >>> view_gains(view, Gain("exp")).tolist()   # b is unjudged
    [3.0, 0.0, 1.0]
    """
    return view.derived(("judged_gains", gain), lambda: judged_gains(view.grade, view.judged, gain))


def gained_hits(view: RankedView, gain: Gain) -> tuple[Hits, np.ndarray]:
    """The rows of ``view`` whose gain is not 0, as :class:`~judged.measures.hits.Hits`, and their gains:
    computed once per view and gain.

    Every sum of gains in rank order (DCG, G, RBP) reads these rows alone: an unjudged row gains 0, and in a
    deep run most rows are unjudged, so they are a few per cent of the rows. Left out, a zero changes no sum.

    >>> from judged.engine.ranking import build_view
    >>> from judged.io.inputs import Qrels, Run
    >>> run = Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> view = build_view(run, Qrels.from_dict({"q": {"a": 0, "c": 2}}))
    >>> hits, values = gained_hits(view, Gain())
    >>> hits.position.tolist(), values.tolist()
    ([2], [2.0])
    """
    def compute() -> tuple[Hits, np.ndarray]:
        values = gains(view.judged_grades, gain)
        keep = values != 0
        return judged_hits(view).where(keep), values[keep]

    return view.derived(("gained_hits", gain), compute)


def judged_gains(grades: np.ndarray, judged: np.ndarray, gain: Gain) -> np.ndarray:
    """Gain of each ranked document: its grade's gain when judged, 0 when unjudged.

    An unjudged document gains 0 whatever the gain map says of grade 0:

    >>> judged_gains(np.array([2, 0, 0]), np.array([True, True, False]), Gain("map", ((0, 0.5), (2, 4.0)))).tolist()
    [4.0, 0.5, 0.0]
    """
    return np.where(judged, gains(grades, gain), 0.0)


def discounts(ranks: np.ndarray) -> np.ndarray:
    """``1 / log2(rank + 2)`` for 0-based ranks: 1, 0.631, 0.5, 0.431, ...

    >>> np.round(discounts(np.arange(4)), 3).tolist()
    [1.0, 0.631, 0.5, 0.431]
    """
    return 1.0 / np.log2(np.asarray(ranks, dtype=np.float64) + 2.0)


def cumulative_discounts(length: int) -> np.ndarray:
    """``D[r]`` = sum of the discounts of ranks 0..r-1, with ``D[0] = 0`` (for tie averaging)."""
    return np.concatenate(([0.0], np.cumsum(discounts(np.arange(length)))))


def scale_of(view: RankedView, measure: Measure) -> np.ndarray:
    """Per query, the top grade of the measure's scale: ``max_rel``, or with ``max_rel=query`` the query's
    highest judged grade (at least 1, so a query judged all 0 keeps its gains of 0).

    Every judged grade above it is refused with a :class:`~judged.errors.MeasureError`: a gain above the
    top of the scale is what cwl-eval and a stopping probability cannot express.
    """
    top = np.full(view.num_queries, -1, dtype=np.int64)
    counts = np.diff(view.ideal_offsets)
    nonempty = counts > 0
    top[nonempty] = view.ideal_grade[view.ideal_offsets[:-1][nonempty]]  # ideal grades are sorted descending
    if measure.max_rel == "query":
        return np.maximum(top, 1)
    if (top > measure.max_rel).any():
        worst = int(np.argmax(top))
        raise MeasureError(
            f"{measure.name} needs every judged grade <= max_rel={measure.max_rel}, so that gains lie in [0, 1]; "
            f"query {view.qids[worst]!r} has grade {int(top[worst])}. Set max_rel to the top grade of the "
            "scale (or max_rel=query).")
    return np.full(view.num_queries, measure.max_rel, dtype=np.int64)


def scaled_gains(view: RankedView, measure: Measure) -> np.ndarray:
    """Per row, the gain of its grade divided by the gain of the top grade of the scale, in [0, 1].

    Unjudged rows gain 0. A gain map must give the top grade a positive gain and no grade a gain
    outside [0, that gain]; anything else is refused, as cwl-eval refuses gains outside [0, 1].

    >>> from judged.engine.ranking import build_view
    >>> from judged.io.inputs import Qrels, Run
    >>> from judged.measures import parse
    >>> run, qrels = Run.from_dict({"q": {"a": 2.0, "b": 1.0, "u": 0.5}}), Qrels.from_dict({"q": {"a": 1, "b": 3}})
    >>> view = build_view(run, qrels)
    >>> scaled_gains(view, parse("SDCG(max_rel=3)@3")).tolist()
    [0.3333333333333333, 1.0, 0.0]
    """
    def compute() -> np.ndarray:  # the C/W/L measures, at every cutoff, read the same gains
        row_scale = np.repeat(top_gains(view, measure), np.diff(view.offsets))
        return view_gains(view, measure.gain) / row_scale  # an unjudged row's 0 stays 0

    return view.derived(("scaled_gains", measure.gain, measure.max_rel), compute)


def scaled_gained_hits(view: RankedView, measure: Measure) -> tuple[Hits, np.ndarray]:
    """:func:`scaled_gains` of the rows with a gain only (:func:`gained_hits`): the same values, row for row.

    >>> from judged.engine.ranking import build_view
    >>> from judged.io.inputs import Qrels, Run
    >>> from judged.measures import parse
    >>> run, qrels = Run.from_dict({"q": {"a": 2.0, "b": 1.0, "u": 0.5}}), Qrels.from_dict({"q": {"a": 1, "b": 3}})
    >>> view = build_view(run, qrels)
    >>> scaled_gained_hits(view, parse("RBP(max_rel=3)"))[1].tolist()
    [0.3333333333333333, 1.0]
    """
    def compute() -> tuple[Hits, np.ndarray]:  # RBP at every p and cutoff reads the same gains
        hits, values = gained_hits(view, measure.gain)
        return hits, values / top_gains(view, measure)[hits.query]

    return view.derived(("scaled_gained_hits", measure.gain, measure.max_rel), compute)


def top_gains(view: RankedView, measure: Measure) -> np.ndarray:
    """Per query, the gain of the top grade of the measure's scale (:func:`scale_of`), which every gain is
    divided by; a gain map that would take a gain outside [0, 1] is refused."""
    scale = scale_of(view, measure)
    level_gains = gains(np.arange(int(scale.max(initial=1)) + 1), measure.gain)
    used = np.unique(scale)
    top = level_gains[used]
    if (top <= 0).any() or (np.minimum.accumulate(level_gains)[used] < 0).any() or (
            np.maximum.accumulate(level_gains)[used] > top).any():
        raise MeasureError(
            f"{measure.name} needs gains in [0, 1]: with gain={measure.gain}, every grade from 0 to the top of the "
            f"scale (max_rel={measure.max_rel}) must gain between 0 and the top grade's gain, which must be "
            "positive.")
    return level_gains[scale]
