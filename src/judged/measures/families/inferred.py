"""Inferred average precision (Yilmaz & Aslam 2006, CIKM), as trec_eval's infAP computes it.

The judgments are a random sample of a pool: a document with a negative grade
was pooled but not sampled for judging, a document not in the judgments was
not pooled. At each relevant document at rank k > 1 the precision above it is
estimated from the judged documents alone and then diluted by the unpooled
ones, which count as non-relevant; pooled-but-unjudged documents are assumed
relevant in the proportion the judged ones are:

    E[prec@k] = 1/k + ((k-1)/k) * (|pooled above| / (k-1)) * ((rel + eps) / (rel + nonrel + 2 eps))

with rel, nonrel the judged relevant and non-relevant documents above k,
|pooled above| those plus the pooled-but-unjudged, and eps = 1e-5. The sum
over relevant documents is divided by R. With complete judgments it is AP (up to eps).

>>> import judged
>>> run = {"q": {"a": 4.0, "u": 3.0, "p": 2.0, "b": 1.0}}
>>> qrels = {"q": {"a": 1, "b": 1, "p": -1}}
>>> round(judged.evaluate(run, qrels, ["infAP"]).value("infAP"), 6)  # (1 + 1/4 + 3/4 * 2/3 * (1+e)/(1+2e)) / 2
0.874998
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.hits import Hits, nonrelevant_hits, relevant_hits
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import divide, measure_view

#: trec_eval's INFAP_EPSILON, which keeps the estimate defined when nothing above is judged.
EPSILON = 1e-5


@family(
    "infAP",
    aliases=("InfAP", "infap"),
    params=("rel", "unjudged", "ties", "norel"),
    ties=ORDERED_TIES,
    cutoff="none",
    summary="inferred average precision (Yilmaz & Aslam 2006): AP estimated from a sampled pool, where a "
    "negative grade marks a pooled document left unjudged and an unlisted document was not pooled",
    formula="(1/R) sum_{relevant k} [1/k + ((k-1)/k) (pooled_above/(k-1)) "
    "(rel_above+eps)/(rel_above+nonrel_above+2eps)]",
)
def inferred_ap(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    relevant = relevant_hits(view, measure.rel)
    nonrelevant = nonrelevant_hits(view, measure.rel)
    pooled = Hits.of(view, ~view.judged & (view.grade < 0))
    rel_above = relevant.ordinal() - 1.0
    nonrel_above = relevant.preceding(nonrelevant).astype(np.float64)
    pooled_above = rel_above + nonrel_above + relevant.preceding(pooled)
    k = relevant.position.astype(np.float64)  # documents above, trec_eval's j
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = 1.0 / (k + 1.0) + (k / (k + 1.0)) * (pooled_above / k) * (
            (rel_above + EPSILON) / (rel_above + nonrel_above + 2 * EPSILON))
    estimate[k == 0] = 1.0
    return divide(relevant.sum(estimate), view.num_relevant(measure.rel))
