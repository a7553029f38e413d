"""Interpolated precision at recall levels: IPrec, and its average over levels (by default the 11-point graph).

Interpolated precision at recall r is the best precision at any rank at or
below the one where recall first reaches r (Salton & McGill 1983; trec_eval's
iprec_at_recall and 11pt_avg). The level is turned into a number of relevant
documents as trec_eval 10 does, ``lround(r * R)`` (half away from zero), or
with ``rounding=v9`` as trec_eval 9 and pytrec_eval do, ``(long)(r * R + 0.9)``;
a level beyond the relevant documents retrieved scores 0.

>>> import judged
>>> run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
>>> qrels = {"q": {"b": 1, "d": 1, "e": 1}}
>>> r = judged.evaluate(run, qrels, ["IPrec(recall=0.3)", "IPrec(recall=0.6)", "IPrec(recall=1)"])
>>> [r.value(m) for m in ("IPrec(recall=0.3)", "IPrec(recall=0.6)", "IPrec(recall=1)")]  # lround: 1, 2, 3 of R=3
[0.5, 0.5, 0.0]
>>> levels = ["IPrec(recall=0.4)", "IPrec(recall=0.4,rounding=v9)"]  # 0.4 x R=3 = 1.2: the 1st or the 2nd
>>> r = judged.evaluate(run, {"q": {"a": 1, "d": 1, "e": 1}}, levels)
>>> [r.value(m) for m in levels]  # from a (1/1) on, or from d (2/4) on
[1.0, 0.5]
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.hits import relevant_hits
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import measure_view

_PARAMS = ("rel", "unjudged", "ties", "norel", "rounding")


def lround(values: np.ndarray) -> np.ndarray:
    """C's ``lround`` for values >= 0: to the nearest integer, halves away from zero.

    >>> lround(np.array([0.5, 1.49, 2.5, 0.49999999999999994])).tolist()
    [1.0, 1.0, 3.0, 0.0]
    """
    whole = np.floor(values)
    return whole + (values - whole >= 0.5)


def level_rank(share: np.ndarray, rounding: str) -> np.ndarray:
    """The how-many-th relevant document meets a recall level, ``share`` = level x R: trec_eval 10's ``lround``,
    or trec_eval 9's ``(long)(share + 0.9)`` (``rounding=v9``).

    >>> level_rank(np.array([0.3, 0.6, 1.5]), "round").tolist(), level_rank(np.array([0.3, 0.6, 1.5]), "v9").tolist()
    ([0.0, 1.0, 2.0], [1.0, 1.0, 2.0])
    """
    return lround(share) if rounding == "round" else np.floor(share + 0.9)


def interpolated_precision(view: RankedView, measure: Measure, level: float) -> np.ndarray:
    """Per query: the best precision at or after the relevant document that brings recall to ``level``."""
    hits = relevant_hits(view, measure.rel).within(measure.cutoff)
    relevant = view.num_relevant(measure.rel)
    rank = level_rank(level * relevant, measure.rounding)
    needed = np.maximum(rank, 1.0)
    found = hits.count()
    ordinal = hits.ordinal()
    precision = ordinal / (hits.position + 1.0)
    out = np.zeros(view.num_queries)
    counts = ordinal >= needed[hits.query]
    np.maximum.at(out, hits.query[counts], precision[counts])
    out[rank > found] = 0.0
    out[relevant == 0] = np.nan
    return out


@family(
    "IPrec",
    aliases=("IPrecAtRecall",),
    params=(*_PARAMS, "recall"),
    ties=ORDERED_TIES,
    cutoff="none",
    summary="interpolated precision at a recall level (trec_eval's iprec_at_recall): the highest precision "
    "at any rank where recall is at least the level",
    formula="max_{i: recall@i >= recall} P@i, the level met at the lround(recall * R)-th relevant document; "
    "0 beyond the relevant retrieved",
)
def iprec(view: RankedView, measure: Measure) -> np.ndarray:
    return interpolated_precision(measure_view(view, measure), measure, measure.recall)


@family(
    "IPrec11pt",
    aliases=("11pt_avg",),
    params=(*_PARAMS, "levels"),
    ties=ORDERED_TIES,
    cutoff="none",
    summary="interpolated precision averaged over recall levels (trec_eval's 11pt_avg): by default the 11 points "
    "0, 0.1, ..., 1 of the recall-precision graph, or the given levels (trec_eval 8's 3-point average is "
    "levels=[0.2,0.5,0.8])",
    formula="(1/|levels|) sum_{r in levels} IPrec(recall=r), a repeated level counted each time; levels "
    "default 0, 0.1, ..., 1",
)
def iprec_11pt(view: RankedView, measure: Measure) -> np.ndarray:
    """The mean of IPrec over ``measure.levels``, added from the highest level down as trec_eval adds them.

    >>> import judged
    >>> run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    >>> qrels = {"q": {"b": 1, "d": 1, "e": 1, "f": 1}}  # R = 4: b at rank 2 (1/2), d at rank 4 (2/4)
    >>> judged.evaluate(run, qrels, ["IPrec11pt(levels=[0.25,0.5,0.75])"]).value(
    ...     "IPrec11pt(levels=[0.25,0.5,0.75])")  # lround: the 1st, 2nd, 3rd relevant: (0.5 + 0.5 + 0) / 3
    0.3333333333333333
    """
    view = measure_view(view, measure)
    total = np.zeros(view.num_queries)
    for level in reversed(measure.levels):
        total += interpolated_precision(view, measure, level)
    return total / len(measure.levels)
