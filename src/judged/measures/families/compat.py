"""Compatibility: rank-biased overlap of a ranking with the ideal one (Clarke, Vtyurina & Smucker 2021).

C. L. A. Clarke, A. Vtyurina and M. D. Smucker, "Assessing top-k preferences", ACM TOIS 39(3), 2021.
The ideal ranking lists every relevant judged document (grade >= ``rel``) by
grade descending; compatibility is the rank-biased overlap (RBO, Webber,
Moffat & Zobel 2010) of the run's ranking R with that ideal I, evaluated to
depth D = max(|R|, |I|):

    RBO = sum_{d=1..D} p^(d-1) |R[:d] ∩ I[:d]| / d  /  sum_{d=1..D} p^(d-1)

``Compat`` divides it by the RBO of the ideal with itself, the best any
ranking of depth D can reach when the ideal is finite, so a ranking that
starts with the ideal one scores 1; ``Compat_raw`` is RBO unnormalised (what
ir_measures' ``Compat(normalize=False)`` gives).

Documents of one grade are tied in the ideal; the ideal breaks the tie in
the run's favour, listing them as the run ranks them (under ``ties``) and the
ones it did not retrieve after those it did. A query with no relevant
judgment has an empty ideal and takes the ``norel`` value.

A document counts in the overlap from the depth at which it is in both
prefixes, max(rank in R, rank in I), so with C(d) = sum_{j<=d} p^(j-1) / j the
overlap sum is a sum over the relevant retrieved documents of C(D) - C(m),
m = max of their two 0-based ranks: no loop over depths per query.

With p = 0.5, ranking [n, a, b] (n non-relevant) and ideal [a, b] (D = 3):
overlaps 0, 1, 2 at depths 1..3, so the sum is 0 + 0.5 * 1/2 + 0.25 * 2/3 =
5/12 and RBO = (5/12) / 1.75 = 0.238...; the ideal against itself sums
1 + 0.5 + 0.25 * 2/3 = 5/3, so Compat = (5/12) / (5/3) = 0.25.

>>> import judged
>>> r = judged.evaluate({"q": {"n": 3.0, "a": 2.0, "b": 1.0}}, {"q": {"a": 1, "b": 1, "n": 0}},
...                     ["Compat(p=0.5)", "Compat_raw(p=0.5)"])
>>> round(r.value("Compat(p=0.5)"), 12), round(r.value("Compat_raw(p=0.5)"), 6)
(0.25, 0.238095)
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.hits import relevant_hits
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import measure_view

_PARAMS = ("rel", "unjudged", "ties", "norel", "p")
_FORMULA = ("sum_{d<=D} p^(d-1) |R[:d] ∩ I[:d]| / d, I the ideal ranking (relevant judged documents by grade), "
            "D = max(|R|, |I|)")
_P_NOTE = "p defaults to 0.8 (the p convention); Clarke et al. and ir_measures use p=0.95"


def overlap_sums(view: RankedView, measure: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query: the RBO sum of the ranking against the ideal, the ideal's against itself, and sum_{d<=D} p^(d-1).

    Each sum still lacks its division by the weights; NaN marks none here, the callers decide.
    """
    hits = relevant_hits(view, measure.rel)
    num_ideal = view.num_relevant(measure.rel).astype(np.int64)
    depth = np.maximum(view.lengths, num_ideal)
    longest = int(depth.max(initial=0))
    powers = measure.p ** np.arange(longest, dtype=np.float64)  # p^(d-1) for d = 1..longest
    credit = np.concatenate(([0.0], np.cumsum(powers / np.arange(1, longest + 1))))  # C(d), C(0) = 0
    weights = np.concatenate(([0.0], np.cumsum(powers)))  # sum_{j<=d} p^(j-1)

    rows = view.offsets[hits.query] + hits.position
    grade = view.grade[rows].astype(np.int64)
    # the hit's place in the ideal: relevant documents of higher grade, then those of its grade the run ranks above
    top = int(view.ideal_grade.max(initial=0))
    ideal_query = np.repeat(np.arange(view.num_queries), np.diff(view.ideal_offsets))
    stride = np.int64(top - min(measure.rel, 0) + 2)
    ideal_keys = ideal_query * stride + (top - view.ideal_grade.astype(np.int64))
    hit_keys = hits.query * stride + (top - grade)
    higher = np.searchsorted(ideal_keys, hit_keys, side="left") - view.ideal_offsets[hits.query]
    order = np.lexsort((hits.position, hit_keys))  # by query, grade descending, then rank
    group_start = np.searchsorted(hit_keys[order], hit_keys[order], side="left")
    same_grade_above = np.empty(len(order), dtype=np.int64)
    same_grade_above[order] = np.arange(len(order)) - group_start
    meet = np.maximum(hits.position, higher + same_grade_above)

    ranking = hits.sum(credit[depth[hits.query]] - credit[meet])
    # the ideal against itself: its document at ideal rank i meets at i, for i < |I|
    ideal_credit = np.concatenate(([0.0], np.cumsum(credit)))  # sum_{i<n} C(i)
    best = num_ideal * credit[depth] - ideal_credit[num_ideal]
    return ranking, best, weights[depth]


@family(
    "Compat",
    aliases=("compat", "Compatibility"),
    params=_PARAMS,
    ties=ORDERED_TIES,
    cutoff="none",
    summary="compatibility (Clarke, Vtyurina & Smucker 2021): rank-biased overlap with the ideal ranking, "
    "divided by the ideal's own, so 1 for a ranking that starts with the ideal one; ideal ties in the run's "
    f"order; {_P_NOTE}",
    formula=f"RBO(R, I) / RBO(I, I); RBO = {_FORMULA}",
)
def compat(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    ranking, best, _ = overlap_sums(view, measure)
    out = np.full(view.num_queries, np.nan)
    np.divide(ranking, best, out=out, where=best > 0)
    return out


@family(
    "Compat_raw",
    aliases=("CompatRaw",),
    params=_PARAMS,
    ties=ORDERED_TIES,
    cutoff="none",
    summary="compatibility unnormalised (Clarke, Vtyurina & Smucker 2021): rank-biased overlap with the ideal "
    f"ranking, below 1 even for the ideal ranking when it is finite; {_P_NOTE}",
    formula=f"RBO(R, I) = {_FORMULA} / sum_{{d<=D}} p^(d-1)",
)
def compat_raw(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    ranking, best, weights = overlap_sums(view, measure)
    out = np.full(view.num_queries, np.nan)
    np.divide(ranking, weights, out=out, where=best > 0)
    return out
