"""Set and precision-style measures over binary relevance (grade >= rel): P, R, Success, NumRelRet.

P@k divides by k even when fewer than k documents were retrieved, as
trec_eval does; without a cutoff it divides by the number retrieved
(trec_eval's set_P). R@k divides by the number of judged relevant documents
of the query, retrieved or not.
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.hits import relevant_hits
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import divide, measure_view, tie_weights


def relevant_retrieved(view: RankedView, measure: Measure) -> np.ndarray:
    """Per query: relevant documents in the top k (expected count when ties are averaged)."""
    if measure.ties == "average":
        return view.top(None).sum(view.relevant(measure.rel) * tie_weights(view, measure.cutoff))
    return relevant_hits(view, measure.rel).within(measure.cutoff).count()


@family(
    "P",
    aliases=("Precision",),
    params=("rel", "unjudged", "ties"),
    summary="precision: share of the top k that is relevant (k, not the number retrieved, is the denominator)",
    formula="|relevant in top k| / k; without @k: / number retrieved",
)
def precision(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    found = relevant_retrieved(view, measure)
    if measure.cutoff is None:
        return np.where(view.lengths > 0, found / np.maximum(view.lengths, 1), 0.0)
    return found / measure.cutoff


@family(
    "R",
    aliases=("Recall",),
    params=("rel", "unjudged", "ties", "norel"),
    summary="recall: share of the query's judged relevant documents found in the top k",
    formula="|relevant in top k| / |relevant judged|",
)
def recall(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    return divide(relevant_retrieved(view, measure), view.num_relevant(measure.rel))


@family(
    "Success",
    aliases=("HitRate", "Hit"),
    params=("rel", "unjudged", "ties"),
    ties=ORDERED_TIES,
    summary="success (hit rate): 1 if any relevant document is in the top k, else 0",
    formula="1[|relevant in top k| > 0]",
)
def success(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    return (relevant_retrieved(view, measure) > 0).astype(np.float64)


@family(
    "NumRelRet",
    params=("rel", "unjudged", "ties"),
    ties=ORDERED_TIES,
    summary="number of relevant documents retrieved in the top k (summed over queries)",
    formula="|relevant in top k|",
    aggregate="sum",
    integer=True,
)
def num_rel_ret(view: RankedView, measure: Measure) -> np.ndarray:
    return relevant_retrieved(measure_view(view, measure), measure)
