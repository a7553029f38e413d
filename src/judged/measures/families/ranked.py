"""Measures that depend on the exact rank of each relevant document: AP, RR, R-prec, bpref.

They read positions inside tied groups, so they accept every tie rule that
fixes an order (``trec``, ``input``, ``worst``, ``best``) but not ``average``. Each works on the relevant rows only
(:class:`~judged.measures.hits.Hits`), not on every retrieved row.
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.hits import nonrelevant_hits, relevant_hits
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import divide, measure_view


@family(
    "AP",
    aliases=("MAP", "map"),
    params=("rel", "unjudged", "ties", "norel"),
    ties=ORDERED_TIES,
    summary="average precision: mean of the precision at each relevant document, over all relevant judged",
    formula="sum_{relevant i<=k} P@i / |relevant judged|",
)
def average_precision(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    hits = relevant_hits(view, measure.rel).within(measure.cutoff)
    precision = hits.ordinal() / (hits.position + 1.0)
    return divide(hits.sum(precision), view.num_relevant(measure.rel))


@family(
    "RR",
    aliases=("MRR", "recip_rank"),
    params=("rel", "unjudged", "ties"),
    ties=ORDERED_TIES,
    summary="reciprocal rank of the first relevant document in the top k (0 when there is none)",
    formula="1 / rank of the first relevant document",
)
def reciprocal_rank(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    first = relevant_hits(view, measure.rel).within(measure.cutoff).first_position()
    return np.divide(1.0, first + 1.0, out=np.zeros(len(first)), where=first >= 0)


@family(
    "Rprec",
    aliases=("R-prec", "RPrec"),
    params=("rel", "unjudged", "ties", "norel"),
    ties=ORDERED_TIES,
    cutoff="none",
    summary="R-precision: precision at rank R, where R is the number of relevant judged documents",
    formula="|relevant in top R| / R",
)
def r_precision(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    num_relevant = view.num_relevant(measure.rel)
    found = relevant_hits(view, measure.rel).within(num_relevant).count()
    return divide(found, num_relevant)


@family(
    "Bpref",
    aliases=("bpref", "BPref"),
    params=("rel", "ties", "norel"),
    without={"unjudged": "bpref reads judged documents only (Buckley & Voorhees 2004), so dropping the unjudged "
             "ones would change nothing but where a cutoff falls"},
    ties=ORDERED_TIES,
    summary="binary preference (Buckley & Voorhees 2004): "
    "how rarely judged non-relevant documents outrank relevant ones",
    formula="(1/R) sum_{relevant retrieved r} (1 - min(n_r, R) / min(R, N)); "
    "n_r judged non-relevant above r, N judged non-relevant",
)
def bpref(view: RankedView, measure: Measure) -> np.ndarray:
    relevant = relevant_hits(view, measure.rel).within(measure.cutoff)
    nonrelevant = nonrelevant_hits(view, measure.rel)
    num_relevant = view.num_relevant(measure.rel)
    bound = np.minimum(num_relevant, view.num_nonrelevant(measure.rel))[relevant.query]
    above = np.minimum(relevant.preceding(nonrelevant), num_relevant[relevant.query])
    penalty = np.divide(above, bound, out=np.zeros(len(above)), where=bound > 0)
    return divide(relevant.sum(1.0 - penalty), num_relevant)
