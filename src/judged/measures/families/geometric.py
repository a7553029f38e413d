"""AP combined across queries without the arithmetic mean: GMAP, GMBpref (Robertson 2006) and yaap (Robertson 2012).

Per query they are AP and bpref; only the aggregate differs: the geometric
mean, each query's value floored at 1e-5 first (trec_eval's MIN_GEO_MEAN), so
one query at 0 pulls the mean down hard instead of making it 0. That rewards
runs that are consistent over queries. yaap ("yet another AP") smooths AP per
query into log((1 + S) / (1 + R - S)), S = AP * R, which averages better. The floor and the mean live in the
aggregation (``aggregate="gmean"``, :mod:`judged.engine.evaluate`), so a
query's value prints as its AP or bpref (trec_eval prints gm_* for ``all`` only).

>>> import judged
>>> run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}}
>>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
>>> round(judged.evaluate(run, qrels, ["GMAP"]).value("GMAP"), 12)  # exp((log 1 + log 0.5) / 2) = sqrt(0.5)
0.707106781187
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.families.ranked import average_precision, bpref
from judged.measures.hits import relevant_hits
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import measure_view


@family(
    "GMAP",
    aliases=("gm_map",),
    params=("rel", "unjudged", "ties", "norel"),
    ties=ORDERED_TIES,
    summary="geometric mean average precision (Robertson 2006; trec_eval's gm_map): AP per query, "
    "combined by the geometric mean with each value floored at 1e-5",
    formula="exp(mean_q log(max(AP_q, 1e-5)))",
    aggregate="gmean",
)
def gmap(view: RankedView, measure: Measure) -> np.ndarray:
    return average_precision(view, measure)


@family(
    "GMBpref",
    aliases=("gm_bpref",),
    params=("rel", "ties", "norel"),
    without={"unjudged": "bpref reads judged documents only (Buckley & Voorhees 2004) and gm_bpref takes no "
             "cutoff, so dropping the unjudged ones would change nothing"},
    ties=ORDERED_TIES,
    cutoff="none",
    summary="geometric mean bpref (trec_eval's gm_bpref): bpref per query, combined by the geometric mean "
    "with each value floored at 1e-5",
    formula="exp(mean_q log(max(bpref_q, 1e-5)))",
    aggregate="gmean",
)
def gm_bpref(view: RankedView, measure: Measure) -> np.ndarray:
    return bpref(view, measure)


@family(
    "yaap",
    aliases=("YAAP",),
    params=("rel", "unjudged", "ties"),
    ties=ORDERED_TIES,
    cutoff="none",
    summary="yet another average precision (Robertson 2012, 'On smoothing average precision'; trec_eval's "
    "yaap): AP's sum of precisions S smoothed as a log-odds, 0 when nothing is relevant",
    formula="log((1 + S) / (1 + R - S)), S = sum_{relevant i} P@i = AP * R",
)
def yaap(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    hits = relevant_hits(view, measure.rel)
    found = hits.sum(hits.ordinal() / (hits.position + 1.0)).astype(np.float64)
    return np.log((1.0 + found) / (1.0 + view.num_relevant(measure.rel) - found))
