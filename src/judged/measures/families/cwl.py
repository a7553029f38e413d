"""The C/W/L family (Moffat et al.; Azzopardi, Thomas & Moffat 2019, cwl_eval): SDCG, INSQ, INST, BPM, NERR8-11.

Each measure is a user model: after reading rank i the user continues with
probability C_i; W_i, the share of attention rank i receives, is
prod_{j<i} C_j normalised over the horizon of n ranks, and the measure is the
expected gain per document read, sum_i W_i g_i. Gains are scaled to [0, 1]
(``gain(grade) / gain(max_rel)``), as cwl-eval requires; unjudged documents
and the ranks past the end of the run gain 0. The horizon n is the cutoff, or
cwl-eval's default depth of 1000 ranks without one; the result equals
``cwl-eval --max_depth n`` on gains written as the scaled values.

* SDCG@k: C_i = log2(i+1) / log2(i+2) for i < k, else 0, so W_i is the DCG
  discount over the sum of the first k discounts (DCG scaled to [0, 1]).
* INSQ(T): C_i = ((i + 2T - 1) / (i + 2T))^2.
* INST(T): C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T minus the gain
  of ranks 1..i (the user stops sooner once the target is met).
* BPM(T)@K (static Bejewelled Player Model): C_i = 1 while the gain of
  ranks 1..i is below T and i < K, else 0.
* NERR8@k: C_i = 1 - g_i for i < k, else 0; NERR9@k: C_i = i/(i+1) (1 - g_i)
  for i < k; NERR10(p): C_i = p (1 - g_i); NERR11(T): INSQ's C_i times
  (1 - g_i) (Azzopardi, Moffat & Mackenzie 2021, "ERR is not C/W/L").

SDCG and INSQ weigh ranks independently of the gains, so every tie rule
applies (``worst``/``best`` are the exact extremes by rearrangement, and
``average`` spreads each tied group's weight). The others adapt to the gains
already seen, so no fixed order of a tied group bounds them: they take
``ties=trec`` or ``input`` only. :func:`static_weights` gives SDCG's and
INSQ's W, which are also what settle's exact joint bounds weigh ranks by.

>>> import judged
>>> run, qrels = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"a": 3, "b": 0, "c": 1}}
>>> r = judged.evaluate(run, qrels, ["SDCG(max_rel=3)@3", "INST(T=1)@2"])
>>> round(r.value("SDCG(max_rel=3)@3"), 6)  # (1 + 0 + (1/3)/2) / (1 + 1/log2(3) + 1/2)
0.547492
>>> round(r.value("INST(T=1)@2"), 6)  # gains 1, 0: T_1 = 0, C_1 = 1/4, W = [4/5, 1/5]
0.8
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from judged.engine.view import RankedView
from judged.errors import MeasureError
from judged.measures.conventions import RUN_ORDER_TIES
from judged.measures.dense import by_rank
from judged.measures.gains import scaled_gains
from judged.measures.registry import family
from judged.measures.spec import Measure
from judged.measures.views import measure_view, tie_weights

#: cwl-eval's default depth (``--max_depth``): the horizon of a measure given no cutoff.
DEFAULT_HORIZON = 1000
#: Tie rules of the models whose continuation depends on the gains already seen.
ADAPTIVE_TIES = RUN_ORDER_TIES
_GAINED = ("gain", "unjudged", "ties", "max_rel")

Continuation = Callable[[np.ndarray, np.ndarray, Measure, int], np.ndarray]


def horizon(measure: Measure) -> int:
    """The ranks the user model can reach: the cutoff, else cwl-eval's default of 1000."""
    return measure.cutoff if measure.cutoff is not None else DEFAULT_HORIZON


def expected_utility(view: RankedView, measure: Measure, continuation: Continuation) -> np.ndarray:
    """Per query, sum_i W_i g_i with W from the continuation probabilities ``continuation(gains, rank, ...)``."""
    view = measure_view(view, measure)
    n = horizon(measure)
    rank = np.arange(1, n + 1, dtype=np.float64)
    out = np.zeros(view.num_queries)
    for queries, gain in by_rank(view, n, scaled_gains(view, measure), width=n):
        go_on = continuation(gain, rank, measure, n)
        reach = np.ones_like(gain)
        reach[:, 1:] = np.cumprod(go_on[:, :-1], axis=1)
        out[queries] = (reach * gain).sum(axis=1) / reach.sum(axis=1)
    return out


def static_weights(measure: Measure) -> np.ndarray:
    """W_1..W_n of a C/W/L measure whose continuation does not depend on the gains (:data:`STATIC`).

    The one definition of those weights: the kernels below score with them,
    and settle's exact joint bounds (:mod:`judged.analysis.joint_families`)
    weigh each rank by them, since sum_i W_i g_i is then linear in every gain.

    >>> from judged.measures import parse
    >>> [round(w, 6) for w in static_weights(parse("SDCG@3")).tolist()]  # [1, 1/log2 3, 1/2] / their sum
    [0.469279, 0.296082, 0.234639]
    """
    if measure.name not in STATIC:
        raise MeasureError(f"{measure.name} has no fixed rank weights: only {', '.join(STATIC)} continue "
                           f"independently of the gains. Got {measure}.")
    go_on = STATIC[measure.name](np.arange(1, horizon(measure) + 1, dtype=np.float64), measure)
    reach = np.ones(len(go_on))
    reach[1:] = np.cumprod(go_on[:-1])
    return reach / reach.sum()


def static_utility(view: RankedView, measure: Measure) -> np.ndarray:
    """Per query, sum_i W_i g_i with W from :func:`static_weights`: one pass per row."""
    view = measure_view(view, measure)
    weight = static_weights(measure)
    values = scaled_gains(view, measure)
    n = len(weight)
    if measure.ties == "average":
        longest = max(int(view.lengths.max(initial=0)), n)
        cumulative = np.concatenate(([0.0], np.cumsum(weight), np.full(longest - n, weight.sum())))
        return view.top(None).sum(values * tie_weights(view, n, cumulative))
    top = view.top(n)
    return top.sum(top.take(values) * weight[top.positions])


def _insq_go_on(rank: np.ndarray, target: float) -> np.ndarray:
    return ((rank + (2.0 * target) - 1.0) / (rank + (2.0 * target))) ** 2.0


def _sdcg_go_on(rank: np.ndarray, measure: Measure) -> np.ndarray:
    return np.where(rank < len(rank), np.log2(rank + 1.0) / np.log2(rank + 2.0), 0.0)


def _insq_static(rank: np.ndarray, measure: Measure) -> np.ndarray:
    return _insq_go_on(rank, measure.T)


#: The continuations C_1..C_n (of the ranks 1..n, n the horizon) that do not depend on the gains.
STATIC: dict[str, Callable[[np.ndarray, Measure], np.ndarray]] = {"SDCG": _sdcg_go_on, "INSQ": _insq_static}


@family(
    "SDCG",
    params=_GAINED,
    summary="scaled DCG (C/W/L): DCG@k of gains scaled to [0, 1], divided by the sum of the first k discounts, "
    "so it assumes k fully relevant documents could exist (cwl-eval's NDCG-k)",
    formula="sum_{i<=k} g_i / log2(i+1) / sum_{i<=k} 1 / log2(i+1); without @k, k = 1000",
)
def sdcg(view: RankedView, measure: Measure) -> np.ndarray:
    return static_utility(view, measure)


@family(
    "INSQ",
    params=(*_GAINED, "T"),
    summary="INSQ (Moffat, Scholer & Thomas 2012): a user who wants gain T reads on with probability "
    "((i+2T-1)/(i+2T))^2",
    formula="sum_i W_i g_i, C_i = ((i+2T-1)/(i+2T))^2; horizon k (1000 without @k)",
)
def insq(view: RankedView, measure: Measure) -> np.ndarray:
    return static_utility(view, measure)


def _inst(gain: np.ndarray, rank: np.ndarray, measure: Measure, n: int) -> np.ndarray:
    remaining = measure.T - np.cumsum(gain, axis=1)
    return (((rank + measure.T + remaining) - 1.0) / (rank + measure.T + remaining)) ** 2.0


@family(
    "INST",
    params=(*_GAINED, "T"),
    ties=ADAPTIVE_TIES,
    summary="INST (Moffat, Bailey, Scholer & Thomas 2015): INSQ whose target shrinks by the gain already found",
    formula="sum_i W_i g_i, C_i = ((i+T+T_i-1)/(i+T+T_i))^2, T_i = T - sum_{j<=i} g_j; horizon k (1000)",
)
def inst(view: RankedView, measure: Measure) -> np.ndarray:
    if measure.T <= 0:  # rank 1 would divide by 1 + 2T - g_1, which is 0 for a fully relevant document
        raise MeasureError(f"INST needs a target T > 0. Got T={measure.T:g} in {measure}.")
    return expected_utility(view, measure, _inst)


def _bpm(gain: np.ndarray, rank: np.ndarray, measure: Measure, n: int) -> np.ndarray:
    return ((np.cumsum(gain, axis=1) < measure.T) & (rank < n)).astype(np.float64)


@family(
    "BPM",
    params=(*_GAINED, "T"),
    ties=ADAPTIVE_TIES,
    summary="static Bejewelled Player Model (Zhang et al. 2017): the user stops once gain T is found or K "
    "documents are read (K the cutoff)",
    formula="sum_i W_i g_i, C_i = 1[sum_{j<=i} g_j < T and i < K]; K = k (1000 without @k)",
)
def bpm(view: RankedView, measure: Measure) -> np.ndarray:
    return expected_utility(view, measure, _bpm)


def _nerr8(gain: np.ndarray, rank: np.ndarray, measure: Measure, n: int) -> np.ndarray:
    return np.where(rank < n, 1.0 - gain, 0.0)


def _nerr9(gain: np.ndarray, rank: np.ndarray, measure: Measure, n: int) -> np.ndarray:
    return np.where(rank < n, (1.0 * rank / (rank + 1.0)) * (1.0 - gain), 0.0)


def _nerr10(gain: np.ndarray, rank: np.ndarray, measure: Measure, n: int) -> np.ndarray:
    return measure.p * (1.0 - gain)


def _nerr11(gain: np.ndarray, rank: np.ndarray, measure: Measure, n: int) -> np.ndarray:
    return _insq_go_on(rank, measure.T) * (1.0 - gain)


_NERR = "Not (but Nearly) ERR (Azzopardi, Moffat & Mackenzie 2021), equation {}: "
for _name, _kernel, _extra, _summary, _formula in (
    ("NERR8", _nerr8, (), "stop at a relevant document, truncated at k", "C_i = 1 - g_i for i < k"),
    ("NERR9", _nerr9, (), "stop at a relevant document, reciprocal-rank discount, truncated at k",
     "C_i = i/(i+1) (1 - g_i) for i < k"),
    ("NERR10", _nerr10, ("p",), "stop at a relevant document, else go on with probability p",
     "C_i = p (1 - g_i)"),
    ("NERR11", _nerr11, ("T",), "stop at a relevant document, else go on as INSQ(T)",
     "C_i = ((i+2T-1)/(i+2T))^2 (1 - g_i)"),
):
    def _measure(view: RankedView, measure: Measure, _continuation: Continuation = _kernel) -> np.ndarray:
        return expected_utility(view, measure, _continuation)

    family(
        _name,
        params=(*_GAINED, *_extra),
        ties=ADAPTIVE_TIES,
        summary=_NERR.format(_name[4:]) + _summary,
        formula=f"sum_i W_i g_i, {_formula}; horizon k (1000 without @k)",
    )(_measure)
del _name, _kernel, _extra, _summary, _formula
