"""nDCG and DCG (Järvelin & Kekäläinen 2002): graded gain, log2 discount, ideal from the judgments.

DCG@k = sum over ranks i = 1..k of gain(grade_i) / log2(i + 1);
nDCG@k = DCG@k / IDCG@k, where IDCG@k is the DCG of every judged document
of the query sorted by grade and cut at k (``ideal=judged``), never of the
returned list unless ``ideal=returned`` asks for scikit-learn's convention.
Unjudged documents gain 0 (``unjudged=zero``, even when a gain map gives
judged grade-0 documents a gain, as trec_eval does) or are dropped before the
cutoff (``unjudged=drop``). With ``gain=exp`` and grades
[1,3,0,2,0,0,2,0,0,1] against judged {3,2,2,1,1}, nDCG@10 = 7.998 / 11.210
= 0.713.
"""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.gains import cumulative_discounts, discounts, gained_hits, gains, view_gains
from judged.measures.registry import family
from judged.measures.spec import Gain, Measure
from judged.measures.views import at_depth, divide, measure_view, running_sums, tie_weights

_PARAMS = ("gain", "ideal", "unjudged", "ties", "norel")


def dcg(view: RankedView, measure: Measure) -> np.ndarray:
    """Per-query DCG at the measure's cutoff under its tie rule."""
    if measure.ties == "average":
        longest = int(view.lengths.max(initial=0))
        weights = tie_weights(view, measure.cutoff, cumulative_discounts(longest))
        return view.top(None).sum(view_gains(view, measure.gain) * weights)
    return dcg_at(view, measure.gain, np.arange(view.num_queries), view.top(measure.cutoff).counts)


def running_dcg(view: RankedView, gain: Gain) -> np.ndarray:
    """At each row with a gain (:func:`~judged.measures.gains.gained_hits`, in their order), the DCG of its
    query's ranking down to it, added in rank order; computed once per view and gain (every nDCG@k, DCG@k
    and G read it). The rows without a gain add nothing, so the DCG at any depth is the one at the last row
    with a gain above it (:func:`dcg_at`).

    >>> from judged.engine.ranking import build_view
    >>> from judged.io.inputs import Qrels, Run
    >>> run = Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> view = build_view(run, Qrels.from_dict({"q": {"a": 1, "c": 2}}))
    >>> running_dcg(view, Gain()).tolist()   # a: 1/log2(2); c: + 2/log2(4) (b, unjudged, adds nothing)
    [1.0, 2.0]
    >>> dcg_at(view, Gain(), np.array([0, 0, 0]), np.array([1, 2, 3])).tolist()
    [1.0, 1.0, 2.0]
    >>> [round(v, 4) for v in running_ideal_dcg(view, Gain()).tolist()]   # c then a: 2, 2 + 1/log2(3)
    [2.0, 2.6309]
    """
    def compute() -> np.ndarray:
        hits, values = gained_hits(view, gain)
        return running_sums(hits.offsets, values * discounts(hits.position))

    return view.derived(("running_dcg", gain), compute)


def dcg_at(view: RankedView, gain: Gain, query: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """The DCG of the first ``depth[i]`` rows of each ``query[i]`` (0 for none), read from :func:`running_dcg`."""
    hits, _ = gained_hits(view, gain)
    return at_depth(running_dcg(view, gain), hits.offsets[query], hits.above(query, depth))


def ideal_dcg(view: RankedView, measure: Measure) -> np.ndarray:
    """Per-query DCG of the ideal ordering (gains descending), cut at the measure's cutoff.

    Documents are ordered by gain, not grade, so a gain map that is not
    monotone in the grade still gets its true ideal; only positive gains take
    a place in the ideal list.
    """
    top = view.ideal_top(measure.cutoff)
    return at_depth(running_ideal_dcg(view, measure.gain), view.ideal_offsets[:-1], top.counts)


def running_ideal_dcg(view: RankedView, gain: Gain) -> np.ndarray:
    """Per ideal row, the ideal DCG down to it (negative gains count 0), added in rank order like
    :func:`running_dcg`, so a ranking in the ideal order scores exactly 1.0 (example there)."""
    def compute() -> np.ndarray:
        ranks = view.ideal_top(None).positions
        return running_sums(view.ideal_offsets, np.maximum(ideal_gains(view, gain), 0.0) * discounts(ranks))

    return view.derived(("running_ideal_dcg", gain), compute)


def ideal_gains(view: RankedView, gain: Gain) -> np.ndarray:
    """The gain of every judged document, per query in descending order of gain (the ideal ranking's gains)."""
    everything = view.ideal_top(None)
    out = gains(view.ideal_grade, gain)
    if gain.kind == "map":
        query = np.repeat(np.arange(len(everything.counts)), everything.counts)
        out = out[np.lexsort((-out, query))]
    return out


@family(
    "nDCG",
    aliases=("NDCG", "ndcg"),
    params=_PARAMS,
    summary="normalised discounted cumulative gain: DCG divided by the DCG of the ideal ordering",
    formula="DCG@k / IDCG@k; IDCG from every judged document (ideal=judged)",
)
def ndcg(view: RankedView, measure: Measure) -> np.ndarray:
    view = measure_view(view, measure)
    return divide(dcg(view, measure), ideal_dcg(view, measure))


@family(
    "DCG",
    params=("gain", "unjudged", "ties"),
    summary="discounted cumulative gain, not normalised (not comparable across queries)",
    formula="sum_{i<=k} gain(grade_i) / log2(i+1)",
)
def dcg_measure(view: RankedView, measure: Measure) -> np.ndarray:
    return dcg(measure_view(view, measure), measure)


@family(
    "IDCG",
    aliases=("ideal_dcg",),
    params=("gain", "ideal"),
    without={"unjudged": "the ideal list is built from the judgments alone; no unjudged document enters it"},
    summary="ideal discounted cumulative gain: the DCG of the judged documents sorted by gain, nDCG's "
    "denominator (trec_eval's ideal_dcg)",
    formula="sum_{i<=k} gain_i / log2(i+1) over the judged gains sorted descending (positive gains only)",
)
def ideal_dcg_measure(view: RankedView, measure: Measure) -> np.ndarray:
    """nDCG's denominator on its own, from every judged document whatever the run retrieved.

    >>> import judged
    >>> r = judged.evaluate({"q": {"a": 1.0}}, {"q": {"a": 0, "b": 2, "c": 1}}, ["IDCG", "IDCG@1"])
    >>> r.value("IDCG"), r.value("IDCG@1")  # 2/log2(2) + 1/log2(3), and 2/log2(2)
    (2.6309297535714578, 2.0)
    """
    return ideal_dcg(measure_view(view, measure), measure)
