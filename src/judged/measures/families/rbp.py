"""Rank-biased precision and its residual (Moffat & Zobel 2008, ACM TOIS 27(1)).

A user reads rank 1, then goes on from each rank to the next with
probability ``p``; RBP is the expected gain per document read:
RBP = (1 - p) * sum_i p^(i-1) * g_i, with g_i the document's gain scaled to
[0, 1] (``gain(grade) / gain(max_rel)``; binary judgments gain 0 or 1).
Unjudged documents gain 0, so RBP is a lower bound, and the residual
RBP_resid says how much higher it could be: the weight of every unjudged
document in the top k plus the weight of every rank the run left empty,
(1 - p) * sum_{unjudged i} p^(i-1) + p^n - p^k, n the documents retrieved in
the top k (p^k = 0 without a cutoff). The true RBP lies in
[RBP, RBP + RBP_resid] whatever the unjudged documents turn out to be.

With p = 0.5 and gains [1, 0, unjudged]: RBP = 0.5 * (1 + 0) = 0.5 and
RBP_resid = 0.5 * 0.25 + 0.5^3 = 0.25.

trec_eval's ``rbp`` is ``RBP(p=0.9,max_rel=query)``; its ``rbp_resid`` is 0
when no unjudged document was retrieved (it leaves out the empty ranks then).

>>> import judged
>>> r = judged.evaluate({"q": {"a": 3.0, "b": 2.0, "u": 1.0}}, {"q": {"a": 1, "b": 0}},
...                     ["RBP(p=0.5)", "RBP_resid(p=0.5)"])
>>> r.value("RBP(p=0.5)"), r.value("RBP_resid(p=0.5)")
(0.5, 0.25)
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.gains import scaled_gained_hits, top_gains
from judged.measures.hits import Hits, judged_hits
from judged.measures.registry import family
from judged.measures.spec import Measure
from judged.measures.views import measure_view, tie_weights

_PARAMS = ("gain", "unjudged", "ties", "p", "max_rel")


def persistence_weights(view: RankedView, measure: Measure, hits: Hits, values: np.ndarray) -> np.ndarray:
    """Per query, sum over its ``hits`` in the top k of (1 - p) p^(rank) * value (0-based rank, one value per
    hit), under the tie rule; the other rows count 0. Added in rank order, as trec_eval adds."""
    p = measure.p
    if measure.ties == "average":
        longest = int(view.lengths.max(initial=0))
        cumulative = 1.0 - p ** np.arange(longest + 1, dtype=np.float64)  # credit of ranks 0..r-1
        rows = np.zeros(len(view.grade))
        rows[view.offsets[hits.query] + hits.position] = values
        return view.top(None).sum(rows * tie_weights(view, measure.cutoff, cumulative))
    keep = slice(None) if measure.cutoff is None else hits.position < measure.cutoff
    position = hits.position[keep]
    powers = p ** np.arange(int(position.max(initial=-1)) + 1, dtype=np.float64)  # p^r once per rank, not per hit
    return np.bincount(hits.query[keep], weights=values[keep] * (1.0 - p) * powers[position],
                       minlength=view.num_queries)


def unjudged_weight(view: RankedView, measure: Measure) -> np.ndarray:
    """Per query, the RBP weight of the unjudged documents in the top k: (1 - p) sum_{unjudged i<=k} p^(i-1).

    Under an ordered tie rule it is the weight of every retrieved rank there, 1 - p^n, less the judged ones'
    (which are few): exactly 0 when nothing there is unjudged, and never below 0. Under ``ties=average`` a tied
    group straddling k spreads its weight past k, so the unjudged rows' own weights are summed.
    """
    if measure.ties == "average":
        unjudged = Hits.of(view, ~view.judged)
        return persistence_weights(view, measure, unjudged, np.ones(len(unjudged.query)))
    judged = judged_hits(view)
    top = view.top(measure.cutoff)
    rest = 1.0 - persistence_weights(view, measure, judged, np.ones(len(judged.query))) - measure.p ** top.counts
    return np.where(view.judged_within(measure.cutoff) < top.counts, np.maximum(rest, 0.0), 0.0)


def empty_weight(view: RankedView, measure: Measure) -> np.ndarray:
    """Per query, the RBP weight of the ranks in the top k the run left empty: p^n - p^k (p^k = 0 without a
    cutoff), exactly 0 when the run filled them all."""
    retrieved = view.top(measure.cutoff).counts
    if measure.cutoff is None:
        return measure.p ** retrieved.astype(np.float64)
    powers = measure.p ** np.append(retrieved, measure.cutoff).astype(np.float64)  # one power function for both
    return np.where(retrieved < measure.cutoff, np.maximum(powers[:-1] - powers[-1], 0.0), 0.0)


@family(
    "RBP",
    params=_PARAMS,
    summary="rank-biased precision (Moffat & Zobel 2008): expected scaled gain per document read by a user who "
    "goes on from each rank with probability p; a lower bound when documents are unjudged (see RBP_resid)",
    formula="(1-p) sum_{i<=k} p^(i-1) g_i, g_i = gain(grade_i) / gain(max_rel) in [0, 1]",
)
def rbp(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    return persistence_weights(view, measure, *scaled_gained_hits(view, measure))


@family(
    "RBP_resid",
    aliases=("RBPResid",),
    params=_PARAMS,
    summary="the residual of RBP (Moffat & Zobel 2008): how much RBP would rise if every unjudged document in the "
    "top k, and every rank the run left empty, had the top gain",
    formula="(1-p) sum_{unjudged i<=k} p^(i-1) + p^n - p^k; n = retrieved in the top k, p^k = 0 without @k",
)
def rbp_residual(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    top_gains(view, measure)  # refuses grades above the scale, as RBP does
    return unjudged_weight(view, measure) + empty_weight(view, measure)
