"""Counts and coverage: NumRet, NumRel and Judged (the share of the top k that has a judgment)."""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.registry import family
from judged.measures.spec import Measure


@family(
    "NumRet",
    params=(),
    without={"unjudged": "it counts every document retrieved; the judged ones retrieved are "
             "NumRelRet(rel=0,unjudged=drop) (trec_eval -J's num_ret)"},
    summary="number of documents retrieved (in the top k), summed over queries",
    formula="min(k, |retrieved|)",
    aggregate="sum",
    integer=True,
)
def num_ret(view: RankedView, measure: Measure) -> np.ndarray:
    return view.top(measure.cutoff).counts.astype(np.float64)


@family(
    "NumRel",
    params=("rel",),
    without={"unjudged": "it counts the judgments, which no document of the run changes"},
    cutoff="none",
    summary="number of judged relevant documents of the query, summed over queries",
    formula="|judged with grade >= rel|",
    aggregate="sum",
    integer=True,
)
def num_rel(view: RankedView, measure: Measure) -> np.ndarray:
    return view.num_relevant(measure.rel)


@family(
    "Judged",
    params=(),
    without={"unjudged": "dropping the unjudged documents would make it 1 by construction"},
    summary="share of the retrieved top k that has a judgment (grade >= 0; a negative grade is "
    "pooled but unjudged); low values mean the scores rest on guesses",
    formula="|judged in top k| / min(k, |retrieved|); 0 when nothing was retrieved",
)
def judged_share(view: RankedView, measure: Measure) -> np.ndarray:
    top = view.top(measure.cutoff)
    found = view.judged_within(measure.cutoff)
    return np.divide(found, top.counts, out=np.zeros(len(found)), where=top.counts > 0)
