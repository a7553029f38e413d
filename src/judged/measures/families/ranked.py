"""Measures that depend on the exact rank of each relevant document: AP, RR, R-prec, bpref.

They read positions inside tied groups, so they accept ``ties=trec`` or
``ties=input`` but not ``average``.
"""

from __future__ import annotations

import numpy as np

from judged.measures.registry import family
from judged.measures.spec import Measure
from judged.measures.views import divide, measure_view
from judged.view import RankedView, Top

_ORDERED = ("trec", "input")


def _running_count(top: Top, flags: np.ndarray) -> np.ndarray:
    """For each selected row, how many flagged rows of its query are at or above it."""
    total = np.cumsum(flags, dtype=np.int64)
    before = np.zeros(len(top.counts), dtype=np.int64)
    nonempty = top.counts > 0
    first = top.starts[nonempty]
    before[nonempty] = total[first] - flags[first]
    return total - np.repeat(before, top.counts)


@family(
    "AP",
    aliases=("MAP", "map"),
    params=("rel", "unjudged", "ties", "norel"),
    ties=_ORDERED,
    summary="average precision: mean of the precision at each relevant document, over all relevant judged",
    formula="sum_{relevant i<=k} P@i / |relevant judged|",
)
def average_precision(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    top = view.top(measure.cutoff)
    relevant = top.take(view.relevant(measure.rel))
    precision = _running_count(top, relevant) / (top.positions + 1.0)
    return divide(top.sum(np.where(relevant, precision, 0.0)), view.num_relevant(measure.rel))


@family(
    "RR",
    aliases=("MRR", "recip_rank"),
    params=("rel", "unjudged", "ties"),
    ties=_ORDERED,
    summary="reciprocal rank of the first relevant document in the top k (0 when there is none)",
    formula="1 / rank of the first relevant document",
)
def reciprocal_rank(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    top = view.top(measure.cutoff)
    relevant = top.take(view.relevant(measure.rel))
    return top.max(np.where(relevant, 1.0 / (top.positions + 1.0), 0.0))


@family(
    "Rprec",
    aliases=("R-prec", "RPrec"),
    params=("rel", "unjudged", "ties", "norel"),
    ties=_ORDERED,
    cutoff="none",
    summary="R-precision: precision at rank R, where R is the number of relevant judged documents",
    formula="|relevant in top R| / R",
)
def r_precision(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    num_relevant = view.num_relevant(measure.rel)
    top = view.prefix(num_relevant)
    found = top.sum(top.take(view.relevant(measure.rel)))
    return divide(found, num_relevant)


@family(
    "Bpref",
    aliases=("bpref", "BPref"),
    params=("rel", "ties", "norel"),
    ties=_ORDERED,
    summary="binary preference (Buckley & Voorhees 2004): how rarely judged non-relevant documents outrank relevant ones",
    formula="(1/R) sum_{relevant retrieved r} (1 - min(n_r, R) / min(R, N)); "
    "n_r judged non-relevant above r, N judged non-relevant",
)
def bpref(view: RankedView, measure: Measure) -> np.ndarray:
    top = view.top(measure.cutoff)
    judged = top.take(view.judged)
    relevant = top.take(view.relevant(measure.rel))
    nonrelevant = judged & ~relevant
    above = _running_count(top, nonrelevant)
    num_relevant = view.num_relevant(measure.rel)
    num_nonrelevant = view.num_nonrelevant(measure.rel)
    bound = np.repeat(np.minimum(num_relevant, num_nonrelevant), top.counts)
    cap = np.repeat(num_relevant, top.counts)
    penalty = np.divide(np.minimum(above, cap), bound, out=np.zeros(len(above)), where=bound > 0)
    return divide(top.sum(np.where(relevant, 1.0 - penalty, 0.0)), num_relevant)
