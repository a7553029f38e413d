"""trec_eval's experimental gain measures (Buckley, 2008): binG, G, ndcg_rel and Rndcg.

binG credits each relevant document retrieved 1 / log2(2 + n), n the
documents above it that are not relevant, and divides the sum by R; a
relevant document behind only relevant ones earns 1 whatever its rank. G does
the same with graded gains: a document earns gain / log2(2 + cost - gained),
cost the ideal gain so far (at least 1 a rank) and gained the gain retrieved
so far, normalised by the total ideal gain. ndcg_rel averages nDCG at every
document with a positive gain (at the end of the ranking for those not
retrieved); Rndcg averages nDCG at the ranks where the ideal gain changes
level (and once more at the end when more was retrieved). Gains are the
measure's ``gain`` (trec_eval's default: the grade), the ideal ranking every
judged document's gain descending, unjudged documents gain 0.

>>> import judged
>>> run = {"q": {"x": 3.0, "a": 2.0, "b": 1.0}}
>>> qrels = {"q": {"a": 1, "b": 1, "c": 1}}
>>> round(judged.evaluate(run, qrels, ["binG"]).value("binG"), 12)  # (1/log2 3 + 1/log2 3) / 3
0.420619835714
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView, Top
from judged.measures.families.ndcg import dcg_at, ideal_gains, running_dcg, running_ideal_dcg
from judged.measures.gains import gained_hits
from judged.measures.hits import relevant_hits
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import divide, measure_view, running_sums

_GAIN_PARAMS = ("gain", "unjudged", "ties", "norel")


@family(
    "binG",
    aliases=("BinG",),
    params=("rel", "unjudged", "ties", "norel"),
    ties=ORDERED_TIES,
    summary="binary G (trec_eval's binG, experimental): each relevant document retrieved earns "
    "1 / log2(2 + the non-relevant documents above it), summed and divided by R",
    formula="(1/R) sum_{relevant i<=k} 1 / log2(2 + |not relevant above i|)",
)
def bin_g(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    hits = relevant_hits(view, measure.rel).within(measure.cutoff)
    credit = 1.0 / np.log2(3.0 + hits.position - hits.ordinal())
    return divide(hits.sum(credit), view.num_relevant(measure.rel))


class _GainWalk:
    """What the measures read: the rows with a gain, their gains and running DCG; per query the positive
    ideal gains."""

    def __init__(self, view: RankedView, measure: Measure) -> None:
        self.view, self.measure_gain = view, measure.gain
        self.hits, self.gain = gained_hits(view, measure.gain)
        self.dcg = running_dcg(view, measure.gain)  # at each of the hits
        everything = view.ideal_top(None)
        ideal = ideal_gains(view, measure.gain)
        self.num_ideal = everything.sum(ideal > 0).astype(np.int64)  # M: positive ideal gains, first in each query
        keep = Top(view.ideal_offsets, self.num_ideal)
        self.ideal_offsets = np.concatenate(([0], np.cumsum(self.num_ideal))).astype(np.int64)
        self.ideal = keep.take(ideal)
        self.ideal_rank = keep.positions
        self.idcg = keep.take(running_ideal_dcg(view, measure.gain))  # the first M of the ideal DCG's sums

    @classmethod
    def of(cls, view: RankedView, measure: Measure) -> _GainWalk:
        """The walk of ``view`` under ``measure``'s gain, built once per view and gain: G, nDCG_rel, Rndcg and
        nDCG_p of one evaluation share it."""
        return view.derived(("gain_walk", measure.gain), lambda: cls(view, measure))

    def dcg_at(self, query: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """DCG of the top ``depth`` rows of each ``query`` (all rows when fewer were retrieved)."""
        return dcg_at(self.view, self.measure_gain, query, np.minimum(depth, self.view.lengths[query]))

    def idcg_at(self, query: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """IDCG of the first ``depth`` (>= 1) positive ideal gains of each ``query`` (all when fewer)."""
        return self.idcg[self.ideal_offsets[query] + np.minimum(depth, self.num_ideal[query]) - 1]


@family(
    "G",
    params=_GAIN_PARAMS,
    ties=ORDERED_TIES,
    cutoff="none",
    summary="normalised gain G (trec_eval's G, experimental): each document earns gain / log2(2 + the ideal "
    "gain so far, at least 1 a rank, minus the gain retrieved so far), over the total ideal gain",
    formula="(1/sum g*) sum_i g_i / log2(2 + sum_{j<=i} max(g*_j, 1) - sum_{j<=i} g_j)",
)
def normalised_gain(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    walk = _GainWalk.of(view, measure)
    query, rank = walk.hits.query, walk.hits.position  # only a document with a gain earns: the rest go unread
    cost_ideal = running_sums(walk.ideal_offsets, np.maximum(walk.ideal, 1.0))
    within = np.minimum(rank + 1, walk.num_ideal[query])
    cost = (rank + 1 - within).astype(np.float64)  # one a rank past the ideal gains
    inside = within > 0
    cost[inside] += cost_ideal[walk.ideal_offsets[query[inside]] + within[inside] - 1]
    gained = running_sums(walk.hits.offsets, walk.gain)
    earned = walk.gain / np.log2(2.0 + cost - gained)
    total = np.bincount(query, weights=earned, minlength=view.num_queries).astype(np.float64)
    return divide(total, Top(walk.ideal_offsets, walk.num_ideal).sum(walk.ideal))


@family(
    "nDCG_rel",
    aliases=("ndcg_rel",),
    params=_GAIN_PARAMS,
    ties=ORDERED_TIES,
    cutoff="none",
    summary="nDCG averaged over the relevant documents (trec_eval's ndcg_rel, experimental): at each retrieved "
    "document with a positive gain, and at the end of the ranking for each one not retrieved",
    formula="(1/M) [sum_{g_i > 0} DCG@i / IDCG@min(i, M) + (M - |g_i > 0 retrieved|) DCG / IDCG]",
)
def ndcg_rel(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    walk = _GainWalk.of(view, measure)
    positive = walk.gain > 0
    query = walk.hits.query[positive]
    ratios = walk.dcg[positive] / walk.idcg_at(query, walk.hits.position[positive] + 1)
    at_rows = np.bincount(query, weights=ratios, minlength=view.num_queries).astype(np.float64)
    found = np.bincount(query, minlength=view.num_queries)
    queries = np.flatnonzero(walk.num_ideal > 0)
    out = np.full(view.num_queries, np.nan)
    whole = walk.dcg_at(queries, view.lengths[queries]) / walk.idcg_at(queries, walk.num_ideal[queries])
    total = at_rows[queries] + (walk.num_ideal[queries] - found[queries]) * whole
    out[queries] = np.where(total > 0, total / walk.num_ideal[queries], 0.0)
    return out


@family(
    "Rndcg",
    aliases=("RnDCG",),
    params=("rel", *_GAIN_PARAMS),
    ties=ORDERED_TIES,
    cutoff="none",
    summary="nDCG averaged at the R levels (trec_eval's Rndcg, experimental): at each rank where the ideal "
    "gain drops to the next level, and at the end of the ranking when it is longer than that plus one",
    formula="mean over level ends c of nDCG@c (and nDCG when |retrieved| > M + 1); "
    "norel when nothing is judged >= rel",
)
def rndcg(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    walk = _GainWalk.of(view, measure)
    last = np.ones(len(walk.ideal), dtype=bool)  # an ideal row that ends its level
    last[:-1] = walk.ideal[:-1] != walk.ideal[1:]
    last[walk.ideal_offsets[1:][walk.num_ideal > 0] - 1] = True
    rows = np.flatnonzero(last)
    query = np.repeat(np.arange(view.num_queries), walk.num_ideal)[rows]
    depth = walk.ideal_rank[rows] + 1
    ratios = walk.dcg_at(query, depth) / walk.idcg_at(query, depth)
    total = np.bincount(query, weights=ratios, minlength=view.num_queries).astype(np.float64)
    points = np.bincount(query, minlength=view.num_queries).astype(np.float64)
    longer = np.flatnonzero((view.lengths > walk.num_ideal + 1) & (walk.num_ideal > 0))
    total[longer] += walk.dcg_at(longer, view.lengths[longer]) / walk.idcg_at(longer, walk.num_ideal[longer])
    points[longer] += 1
    out = np.divide(total, points, out=np.zeros(view.num_queries), where=points > 0)
    out[view.num_relevant(measure.rel) == 0] = np.nan
    return out


@family(
    "nDCG_p",
    aliases=("ndcg_p",),
    params=("rel", *_GAIN_PARAMS),
    ties=ORDERED_TIES,
    cutoff="none",
    summary="nDCG with Järvelin & Kekäläinen's original discount (trec_eval's m_ndcg_p.c, which trec_eval 10 "
    "does not register): the first two ranks undiscounted, rank i > 1 by 1/log2(i); 0 when nothing >= rel "
    "was retrieved",
    formula="sum_i g_i / max(1, log2 i) over the same for the ideal ordering",
)
def ndcg_p(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    walk = _GainWalk.of(view, measure)
    dcg = walk.hits.sum(walk.gain / np.log2(np.maximum(walk.hits.position + 1.0, 2.0)))
    ideal = Top(walk.ideal_offsets, walk.num_ideal).sum(walk.ideal / np.log2(np.maximum(walk.ideal_rank + 1.0, 2.0)))
    found = relevant_hits(view, measure.rel).count()
    out = np.divide(dcg, ideal, out=np.zeros(view.num_queries), where=(found > 0) & (ideal > 0))
    out[view.num_relevant(measure.rel) == 0] = np.nan
    return out
