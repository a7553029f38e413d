"""Expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan 2009, CIKM): the cascade model.

The user reads down the ranking and stops at rank i, satisfied, with
probability R_i = (2^g_i - 1) / 2^max_rel (g_i the grade, 0 when unjudged);
ERR@k is the expected reciprocal of the rank where the user stops:
ERR@k = sum_{i<=k} (1/i) R_i prod_{j<i} (1 - R_j). ``max_rel`` is the top
grade of the scale (gdeval, the script ir_measures runs for ERR, fixes it
at 4); a judged grade above it is refused, since its R would exceed 1.

With grades [2, 0, 1] and max_rel = 2: R = [3/4, 0, 1/4], ERR@3 =
3/4 + 0 + (1/3)(1/4)(1/4)(1) = 0.75 + 1/48 = 0.7708333.

Swapping a document with a higher R ahead of one with a lower R never lowers
ERR (the difference is P (a - b) (1/i - 1/(i+1)) >= 0), so ``ties=worst``
and ``best`` (each tied group in ascending or descending grade) are its
exact minimum and maximum over tie orders.

>>> import judged
>>> r = judged.evaluate({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"a": 2, "b": 0, "c": 1}}, ["ERR(max_rel=2)@3"])
>>> round(r.value("ERR(max_rel=2)@3"), 7)
0.7708333
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.dense import by_rank
from judged.measures.gains import scale_of
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import measure_view


def stop_probability(view: RankedView, measure: Measure) -> np.ndarray:
    """Per row, the probability that the user stops there satisfied: (2^g - 1) / 2^max_rel, 0 when unjudged."""
    scale = np.repeat(scale_of(view, measure), np.diff(view.offsets)).astype(np.float64)
    grade = np.maximum(view.grade, 0).astype(np.float64)
    return np.where(view.judged, (np.exp2(grade) - 1.0) / np.exp2(scale), 0.0)


@family(
    "ERR",
    params=("unjudged", "ties", "max_rel"),
    ties=ORDERED_TIES,
    summary="expected reciprocal rank (Chapelle et al. 2009): the cascade user stops at rank i with probability "
    "(2^g-1)/2^max_rel; ERR is the expected 1/rank of the stop",
    formula="sum_{i<=k} (1/i) R_i prod_{j<i} (1 - R_j), R = (2^g - 1) / 2^max_rel",
)
def err(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    out = np.zeros(view.num_queries)
    for queries, stop in by_rank(view, measure.cutoff, stop_probability(view, measure)):
        reach = np.ones(len(queries))
        total = np.zeros(len(queries))
        for rank in range(stop.shape[1]):  # in rank order, as gdeval sums it
            total += reach * stop[:, rank] / (rank + 1.0)
            reach *= 1.0 - stop[:, rank]
        out[queries] = total
    return out
