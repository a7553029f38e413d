"""Unjudged@k (trec_eval's unj): the share of the top k without a judgment, k always the denominator.

A "red flag" beside the scores: high values at small k mean the judgments
barely cover the run. It is not ``1 - Judged@k``: Judged divides by the
documents retrieved in the top k, Unjudged by k itself (a ranking shorter
than k is padded with judged non-relevant documents, as in trec_eval), so the
two agree exactly only where at least k documents were retrieved. Without a
cutoff it is the unjudged share of everything retrieved, ``1 - Judged``.

>>> import judged
>>> r = judged.evaluate({"q": {"a": 2.0, "u": 1.0}}, {"q": {"a": 1}}, ["Unjudged@2", "Unjudged@5", "Judged@5"])
>>> r.value("Unjudged@2"), r.value("Unjudged@5"), r.value("Judged@5")  # 1/2; 1/5, where Judged@5 = 1/2
(0.5, 0.2, 0.5)
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.registry import family
from judged.measures.spec import Measure


@family(
    "Unjudged",
    aliases=("unjudged",),
    params=(),
    without={"unjudged": "dropping the unjudged documents would make it 0 by construction"},
    summary="share of the top k that has no judgment (trec_eval's unj): k is the denominator, so a short "
    "ranking is padded with judged documents; a negative grade counts as unjudged",
    formula="|unjudged in top k| / k; without @k: / |retrieved| (0 when nothing was retrieved)",
)
def unjudged_share(view: RankedView, measure: Measure) -> np.ndarray:
    top = view.top(measure.cutoff)
    missing = top.counts - view.judged_within(measure.cutoff)
    size = top.counts if measure.cutoff is None else np.full(view.num_queries, measure.cutoff)
    return np.divide(missing, size, out=np.zeros(view.num_queries), where=size > 0)
