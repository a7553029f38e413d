"""Precision at a multiple of R (trec_eval's Rprec_mult): R-precision measured earlier or later in the ranking.

R-precision reads the top R; Rprec_mult reads the top ``mult * R``, rounded
as trec_eval does, ``(long)(mult * R + 0.9)``. Comparing low and high
multiples tells a precision-oriented run from a recall-oriented one. At
``mult=1`` it is R-precision. A cutoff of 0 documents (R = 0, or ``mult * R``
below 0.1) scores 0, as in trec_eval.

>>> import judged
>>> run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
>>> qrels = {"q": {"a": 1, "d": 1}}
>>> r = judged.evaluate(run, qrels, ["Rprec_mult(mult=0.5)", "Rprec_mult(mult=2)"])
>>> r.value("Rprec_mult(mult=0.5)"), r.value("Rprec_mult(mult=2)")  # top (long)1.9 = 1: 1/1; top 4: 2/4
(1.0, 0.5)
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.hits import relevant_hits
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import measure_view


@family(
    "Rprec_mult",
    aliases=("RprecMult",),
    params=("rel", "unjudged", "ties", "norel", "mult"),
    ties=ORDERED_TIES,
    cutoff="none",
    summary="precision at a multiple of R (trec_eval's Rprec_mult): precision of the top mult * R documents",
    formula="|relevant in top c| / c, c = floor(mult * R + 0.9); 0 when c = 0",
)
def rprec_mult(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    relevant = view.num_relevant(measure.rel)
    depth = np.floor(measure.mult * relevant + 0.9)
    found = relevant_hits(view, measure.rel).within(depth.astype(np.int64)).count()
    out = np.divide(found, depth, out=np.zeros(view.num_queries), where=depth > 0)
    out[relevant == 0] = np.nan
    return out
