"""Accuracy: how often a retrieved relevant document is ranked above a retrieved non-relevant one.

ir_measures' ``Accuracy`` (its accuracy provider, after the train/test
accuracy check of learning-to-rank diagnostics): over the pairs of one
relevant and one non-relevant document in the top k, the share ranked in the
right order,

    Accuracy = 1 - sum_{relevant r in top k} n_r / (R N),

with n_r the non-relevant documents ranked above r, R the relevant and N the
non-relevant documents in the top k. Non-relevant means every retrieved
document below ``rel``, unjudged ones included (``unjudged=drop`` removes
them first). Only retrieved documents take part, so a relevant document the
run missed costs nothing: this is a diagnostic, not an effectiveness measure.
A query with no relevant document in the top k has no pair and takes the
``norel`` value (as ir_measures, which leaves such a query out, when
``norel=skip``); one whose top k is all relevant has no pair out of order
and scores 1 (ir_measures divides by zero there).

With ranking [n, a, m, b] (a, b relevant): n_a = 1, n_b = 2, R = N = 2, so
Accuracy = 1 - 3/4 = 0.25; at @2 only (n, a) remains: 1 - 1/1 = 0.

>>> import judged
>>> r = judged.evaluate({"q": {"n": 4.0, "a": 3.0, "m": 2.0, "b": 1.0}}, {"q": {"a": 1, "b": 2}},
...                     ["Accuracy", "Accuracy@2"])
>>> r.value("Accuracy"), r.value("Accuracy@2")
(0.25, 0.0)
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.hits import relevant_hits
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import measure_view


@family(
    "Accuracy",
    params=("rel", "unjudged", "ties", "norel"),
    ties=ORDERED_TIES,
    summary="pairwise accuracy (ir_measures' Accuracy): the share of (relevant, non-relevant) pairs in the top k "
    "ranked relevant first; unjudged documents are non-relevant, a query with no relevant document in the top k "
    "takes norel",
    formula="1 - sum_{relevant r in top k} n_r / (R N); n_r non-relevant above r, R relevant and N non-relevant "
    "in the top k",
)
def accuracy(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    hits = relevant_hits(view, measure.rel).within(measure.cutoff)
    nonrelevant_above = hits.position - (hits.ordinal() - 1)
    relevant = hits.count()
    nonrelevant = view.top(measure.cutoff).counts - relevant
    pairs = relevant * nonrelevant
    misordered = hits.sum(nonrelevant_above.astype(np.float64))
    out = np.where(relevant > 0, 1.0, np.nan)
    np.subtract(1.0, misordered / np.where(pairs > 0, pairs, 1.0), out=out, where=pairs > 0)
    return out
