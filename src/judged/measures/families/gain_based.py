"""binG (trec_eval's binary G): relevant documents credited by how many non-relevant ones precede them.

An experimental measure of trec_eval's (Buckley, 2008) between AP and nDCG:
each relevant document retrieved earns 1 / log2(2 + n), n the documents
ranked above it that are not relevant, and the sum is divided by R. A
relevant document behind only relevant ones earns 1 whatever its rank.

>>> import judged
>>> run = {"q": {"x": 3.0, "a": 2.0, "b": 1.0}}
>>> qrels = {"q": {"a": 1, "b": 1, "c": 1}}
>>> round(judged.evaluate(run, qrels, ["binG"]).value("binG"), 12)  # (1/log2 3 + 1/log2 3) / 3
0.420619835714
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.hits import relevant_hits
from judged.measures.registry import family
from judged.measures.spec import ORDERED_TIES, Measure
from judged.measures.views import divide, measure_view


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
