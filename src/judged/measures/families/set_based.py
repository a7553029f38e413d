"""Measures of the retrieved set (the top k, or everything retrieved): SetAP, SetF, RelP, Utility and two counts.

They read only how many relevant, non-relevant and retrieved documents the
set holds, not where they rank, as trec_eval's ``set_*`` measures do. With
``@k`` the set is the top k; without it, every retrieved document (after
``unjudged=drop`` when asked, trec_eval's -J). P and R without a cutoff are
trec_eval's set_P and set_recall (:mod:`judged.measures.families.binary`).

>>> import judged
>>> run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
>>> qrels = {"q": {"a": 1, "b": 0, "d": 1}}
>>> r = judged.evaluate(run, qrels, ["SetAP", "SetF", "RelP@1", "Utility", "NumNonRelJudgedRet", "NumQ"])
>>> r.value("SetAP"), r.value("SetF"), r.value("RelP@1"), r.value("Utility")  # 1*1/(3*2), 2(1/3)(1/2)/(1/3+1/2)
(0.16666666666666666, 0.4, 1.0, -1.0)
>>> r.value("NumNonRelJudgedRet"), r.value("NumQ")
(1.0, 1.0)
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.families.binary import relevant_retrieved
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import divide, measure_view

_SET_PARAMS = ("rel", "unjudged", "ties", "norel")


def _set_counts(view: RankedView, measure: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query: relevant in the set, size of the set, relevant judged (after the measure's own view)."""
    view = measure_view(view, measure)
    found = relevant_retrieved(view, measure)
    size = view.top(measure.cutoff).counts.astype(np.float64)
    return found, size, view.num_relevant(measure.rel)


@family(
    "SetAP",
    aliases=("set_map",),
    params=_SET_PARAMS,
    ties=ORDERED_TIES,
    summary="set average precision (trec_eval's set_map): set precision times set recall, "
    "as if every relevant document retrieved sat at the set's precision and every missed one at 0",
    formula="|relevant in set|^2 / (|set| * |relevant judged|); 0 when the set is empty",
)
def set_ap(view: RankedView, measure: Measure) -> np.ndarray:
    found, size, relevant = _set_counts(view, measure)
    return np.where(size > 0, divide(found * found, size * relevant), np.where(relevant > 0, 0.0, np.nan))


@family(
    "SetF",
    aliases=("set_F",),
    params=("rel", "unjudged", "ties", "norel", "beta"),
    ties=ORDERED_TIES,
    summary="set F measure (van Rijsbergen 1979, as trec_eval's set_F): weighted harmonic mean of set precision "
    "P and set recall R, recall weighted by beta",
    formula="(beta + 1) P R / (beta P + R); 0 when nothing relevant is in the set",
)
def set_f(view: RankedView, measure: Measure) -> np.ndarray:
    found, size, relevant = _set_counts(view, measure)
    out = np.where(relevant > 0, 0.0, np.nan)
    hit = found > 0
    p, r = found[hit] / size[hit], found[hit] / relevant[hit]
    out[hit] = (measure.beta + 1.0) * p * r / (measure.beta * p + r)
    return out


@family(
    "RelP",
    aliases=("RelativeP", "set_relative_P"),
    params=_SET_PARAMS,
    ties=ORDERED_TIES,
    summary="relative precision (trec_eval's relative_P and, without @k, set_relative_P): precision of the top k "
    "against the best precision possible at that size, i.e. precision up to R and recall after it",
    formula="|relevant in top k| / min(k, |relevant judged|); without @k: min(|retrieved|, |relevant judged|)",
)
def relative_precision(view: RankedView, measure: Measure) -> np.ndarray:
    found, size, relevant = _set_counts(view, measure)
    if measure.cutoff is not None:
        return divide(found, np.minimum(float(measure.cutoff), relevant))
    return np.where(size > 0, divide(found, np.minimum(size, relevant)), np.where(relevant > 0, 0.0, np.nan))


@family(
    "Utility",
    aliases=("utility",),
    params=("rel", "unjudged", "ties", "rel_ret", "nonrel_ret", "rel_missed"),
    ties=ORDERED_TIES,
    summary="set utility (trec_eval's utility): a worth for each relevant and non-relevant document retrieved and "
    "each relevant one missed, summed; trec_eval's fourth coefficient (non-relevant not retrieved) needs the "
    "collection size and is not offered",
    formula="rel_ret * |relevant in set| + nonrel_ret * (|set| - |relevant in set|) + "
    "rel_missed * (|relevant judged| - |relevant in set|)",
)
def utility(view: RankedView, measure: Measure) -> np.ndarray:
    found, size, relevant = _set_counts(view, measure)
    return measure.rel_ret * found + measure.nonrel_ret * (size - found) + measure.rel_missed * (relevant - found)


@family(
    "NumNonRelJudgedRet",
    aliases=("num_nonrel_judged_ret",),
    params=("rel", "ties"),
    without={"unjudged": "it counts judged documents only; the judged non-relevant among the first k judged "
             "documents are NumRelRet(rel=0,unjudged=drop)@k less NumRelRet(unjudged=drop)@k"},
    ties=ORDERED_TIES,
    summary="number of judged non-relevant documents retrieved in the top k (summed over queries); unaffected by "
    "unjudged documents, so it takes no unjudged parameter",
    formula="|judged with grade < rel in top k|",
    aggregate="sum",
    integer=True,
)
def num_nonrel_judged_ret(view: RankedView, measure: Measure) -> np.ndarray:
    judged = view.judged_within(measure.cutoff)
    return judged - relevant_retrieved(view, measure)


@family(
    "NumQ",
    aliases=("num_q",),
    params=(),
    without={"unjudged": "it counts queries, not documents"},
    cutoff="none",
    summary="number of queries scored (summed): the judged queries the run answered, or every judged query "
    "under missing=zero (trec_eval's num_q, with -c)",
    formula="1 per scored query",
    aggregate="sum",
    integer=True,
)
def num_q(view: RankedView, measure: Measure) -> np.ndarray:
    return np.ones(view.num_queries)
