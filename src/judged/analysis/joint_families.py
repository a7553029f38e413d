"""The measure families settle's joint bounds cover, each as its rank weights, its grade gains and its shape.

Per query, every family settle accepts is a function of the gains ``x_u``
the pooled, unjudged documents take, with ``w_r(u)`` the weight at which run
r ranks u in its top k (0 outside it) and ``a_r`` what the judged documents
give. Four shapes cover them, each with its exact algorithm
(:mod:`judged.analysis.settle_search`; docs/settle.md derives each):

* ``linear``: ``a_r + sum_u w_r(u) x_u``. DCG@k (w the log2 discount, x the
  gain), P@k (w = 1/k, or 1/retrieved without a cutoff; x = 1 when the grade
  is >= rel), RBP (w = (1-p) p^(rank-1), x = gain / gain(max_rel)), and
  the C/W/L models whose continuation does not depend on the gains, SDCG@k
  and INSQ (w = W_rank, their fixed share of attention,
  :func:`judged.measures.families.cwl.static_weights`; x as RBP's).
* ``ratio``: ``(a_r + sum_u w_r(u) x_u) / I(x)``, the ideal DCG at k of the
  judged and assigned gains shared by every run: nDCG@k.
* ``first``: ``max(a_r, max over relevant u of w_r(u))``, the weight of the
  first relevant document: RR (w = 1/rank), Success@k (w = 1).
* ``count``: the relevant documents in the top c over R, the number of
  relevant documents (judged or assigned): R@k (c = k) and R-prec (c = R,
  which moves with the grades). Its data are each run's ranks of the pooled
  documents and of the judged relevant ones, not weights.

Every other family is refused with its reason (:func:`refusal`).

>>> from judged.measures import parse
>>> FAMILIES["RR"].shape, FAMILIES["RR"].rank_weight(parse("RR@10"), np.array([0, 1, 3]), 4).tolist()
('first', [1.0, 0.5, 0.25])
>>> FAMILIES["P"].grade_gain(parse("P(rel=2)@5"), np.array([0, 1, 2, 3])).tolist()
[0.0, 0.0, 1.0, 1.0]
>>> [round(w, 4) for w in FAMILIES["SDCG"].rank_weight(parse("SDCG(max_rel=3)@2"), np.array([0, 1]), 2).tolist()]
[0.6131, 0.3869]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from judged.errors import UsageError
from judged.measures.families.cwl import static_weights
from judged.measures.gains import discounts, gains
from judged.measures.spec import Measure

Shape = Literal["linear", "ratio", "first", "count"]


@dataclass(frozen=True)
class JointFamily:
    """How one family enters the joint bounds (module docstring).

    ``rank_weight(measure, ranks, retrieved)`` is the weight of each 0-based
    rank inside the cutoff (``retrieved``: how many documents the run returned
    for the query); ``grade_gain(measure, grades)`` the gain of each grade, for
    judged documents and for the grades an unjudged one may take alike;
    ``moving_cut`` says that a ``count``'s cutoff is R itself (R-prec), not the
    measure's.
    """

    shape: Shape
    rank_weight: Callable[[Measure, np.ndarray, int], np.ndarray]
    grade_gain: Callable[[Measure, np.ndarray], np.ndarray]
    moving_cut: bool = False


def _discount(measure: Measure, ranks: np.ndarray, retrieved: int) -> np.ndarray:
    return discounts(ranks)


def _per_rank(measure: Measure, ranks: np.ndarray, retrieved: int) -> np.ndarray:
    return np.full(len(ranks), 1.0 / (measure.cutoff if measure.cutoff is not None else max(retrieved, 1)))


def _one(measure: Measure, ranks: np.ndarray, retrieved: int) -> np.ndarray:
    return np.ones(len(ranks))


def _persistence(measure: Measure, ranks: np.ndarray, retrieved: int) -> np.ndarray:
    return (1.0 - measure.p) * measure.p ** np.asarray(ranks, dtype=np.float64)


def _attention(measure: Measure, ranks: np.ndarray, retrieved: int) -> np.ndarray:
    """The C/W/L weight W of each rank, 0 past the user model's horizon (1000 ranks without a cutoff)."""
    weight = static_weights(measure)
    ranks = np.asarray(ranks, dtype=np.int64)
    return np.where(ranks < len(weight), weight[np.minimum(ranks, len(weight) - 1)], 0.0)


def _reciprocal(measure: Measure, ranks: np.ndarray, retrieved: int) -> np.ndarray:
    return 1.0 / (np.asarray(ranks, dtype=np.float64) + 1.0)


def _graded(measure: Measure, grades: np.ndarray) -> np.ndarray:
    return gains(grades, measure.gain)


def _relevant(measure: Measure, grades: np.ndarray) -> np.ndarray:
    return (np.asarray(grades) >= measure.rel).astype(np.float64)


def _scaled(measure: Measure, grades: np.ndarray) -> np.ndarray:
    """``gain / gain(max_rel)``; every grade must lie within 0..max_rel and gain within [0, the top grade's]."""
    if measure.max_rel == "query":
        raise UsageError(f"settle needs a fixed max_rel for {measure.name}: under max_rel=query a grade given to "
                         f"an unjudged document can move its query's scale. Got {measure}.")
    scale = int(measure.max_rel)
    top = float(gains(np.array([scale]), measure.gain)[0])
    values = gains(grades, measure.gain)
    if len(grades) and (int(np.max(grades)) > scale or top <= 0 or (values > top).any()):
        raise UsageError(f"settle on {measure} needs every grade (judged or assignable: {sorted(set(grades))}) "
                         f"within the scale 0..{scale} (max_rel), so that every gain lies in [0, 1].")
    return values / top


#: The families with exact joint bounds, by name.
FAMILIES: dict[str, JointFamily] = {
    "nDCG": JointFamily("ratio", _discount, _graded),
    "R": JointFamily("count", _one, _relevant),
    "DCG": JointFamily("linear", _discount, _graded),
    "P": JointFamily("linear", _per_rank, _relevant),
    "RBP": JointFamily("linear", _persistence, _scaled),
    "SDCG": JointFamily("linear", _attention, _scaled),
    "INSQ": JointFamily("linear", _attention, _scaled),
    "RR": JointFamily("first", _reciprocal, _relevant),
    "Success": JointFamily("first", _one, _relevant),
    "Rprec": JointFamily("count", _one, _relevant, moving_cut=True),
}

_ADAPTIVE = ("a document's weight depends on the gains ranked above it, so no assignment of one document can be "
             "weighed apart from the others; no exact joint bound is derived for it")
#: Why a family has no exact joint bound, where there is more to say than that none is derived.
_REASONS = {
    "AP": "its sum of precisions at the relevant documents adds a term for every pair of relevant documents, so "
          "the difference of two runs is a quadratic function of the unknown relevances with terms of both signs, "
          "whose exact extremes are a quadratic pseudo-Boolean optimisation (NP-hard in general); settle refuses "
          "rather than give a bound it cannot prove tight",
    "Bpref": "it counts the judged non-relevant documents above each relevant one, and every assignment judges "
             "the pooled documents",
    "infAP": "it estimates AP from a sample of the judgments; the pooled-but-unjudged documents are its sample's "
             "gaps, not grades to assign",
    "Judged": "it counts which documents are judged, not their grades, and every assignment judges them all",
    "Unjudged": "it counts which documents are judged, not their grades, and every assignment judges them all",
    **{name: _ADAPTIVE for name in ("ERR", "INST", "BPM", "NERR8", "NERR9", "NERR10", "NERR11")},
}


def refusal(measure: Measure) -> str | None:
    """Why settle has no exact joint bound for ``measure``'s family, or None when it has one.

    >>> from judged.measures import parse
    >>> refusal(parse("P@10")) is None, refusal(parse("ERR@10"))[:40]
    (True, "a document's weight depends on the gains")
    """
    if measure.name in FAMILIES:
        return None
    return _REASONS.get(measure.name, "no exact joint bound over the unknown grades is derived for it")
