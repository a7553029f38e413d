"""Unjudged bounds: how far nDCG@k (or RBP) could move if the unjudged documents a run shows were judged.

For every judged query, :func:`unjudged_bounds` reports nDCG@k with unjudged
documents counted as gain 0 (judged's default), the condensed score (unjudged
documents dropped before the cutoff, trec_eval -J), and the exact minimum and
maximum nDCG@k over every assignment of grades to the unjudged documents in
scope. ``docs/bounds.md`` has the model, the algorithms and the proofs; this
docstring is their summary.

**Model.** The grade domain is 0..G, G the highest grade in the qrels (or the
``grades`` given). An *assignment* gives every unjudged document in scope one
grade of the domain; such a document then counts exactly like a judged one:
its gain enters DCG at its rank and the ideal list of its query. Every other
document keeps its state: judged documents their grades, unjudged documents
out of scope gain 0 and stay out of the ideal list, and documents the run did
not retrieve are what the qrels say. The scope is

* ``top_k`` (default): the unjudged documents the run ranks in its top k.
  Judging exactly these (the depth-k pool extension the remedy for pooling
  bias calls for) yields a score inside [min, max], and every value of the
  range's ends is reached by some outcome. The range does not depend on how
  deep the run file goes.
* ``retrieved``: every unjudged document the run retrieved, at any rank. One
  ranked below k cannot add to DCG but can raise IDCG, so the minimum is
  usually much lower and grows with the depth of the run file.

A document with a negative grade (pooled, not judged) is unjudged here, as
everywhere in judged.

**Algorithm.** Let U be the unjudged documents of a query in its top k, d_u
their discounts, gmin and gmax the smallest and largest gain of the domain.
nDCG = N(x) / I(x): N is affine and increasing in every assigned gain, I (the
ideal DCG) is convex and non-decreasing in each of them (a weighted sum of the
largest values with decreasing weights).

* *Minimum.* Along one coordinate, N/I is quasi-concave (its superlevel sets
  {N - lam I >= 0} are intervals, N - lam I being concave), so its minimum is
  at gmin or gmax; coordinate by coordinate, a minimiser exists with every
  gain at gmin or gmax. With m documents at gmax the ideal is the same
  whichever they are, and DCG is least when they are the m lowest-ranked ones.
  So the minimum is the least of |U|+1 candidates. Under ``retrieved`` the
  unjudged documents below k are at gmax (they only raise IDCG).
* *Maximum.* For a fixed multiset of gains, DCG is largest when the gains
  decrease with rank (rearrangement), and IDCG does not depend on where they
  sit. Dinkelbach's method: max N/I >= lam iff max_x N(x) - lam I(x) >= 0;
  iterate lam <- N(x*)/I(x*) with x* the maximiser, until N(x*) - lam I(x*)
  <= 1e-12 I(x*). Written by gain levels v_1 < ... < v_L with c_l the number
  of documents at gain >= v_l (the first c_l unjudged ranks), the inner
  problem separates into one problem per level over c_l in 0..|U|; its
  increments decrease with the level, so the largest maximisers are
  non-increasing in l (Topkis) and form a valid assignment. Each iteration
  costs O(L |U|) per query; all queries run at once as numpy matrices. Under
  ``retrieved`` the documents below k are at gmin (they cannot add to DCG).

Both are exact (up to floating-point rounding) for any number of unjudged
documents and any gain, so ``exact_limit`` defaults to no limit. A query with
more than ``exact_limit`` unjudged documents in its top k gets the closed-form
``bound`` instead: min >= N(all gmin) / I(all gmax) and max <= min(1, N(all
gmax) / I(all gmin)), since N and I are non-decreasing in every gain and
nDCG <= 1 whenever every ranked document takes part in the ideal list.

**Facts** (docs/bounds.md proves them). When some grade of the domain gains 0
(linear and exp gain; a map unless it gives every grade a gain), unjudged-as-0
is the assignment "all 0", so min <= zero <= max; the minimum can be strictly
lower, because an unjudged document given a grade raises IDCG more than DCG.
The condensed score is >= zero (so >= min) but can exceed max: dropping
unjudged documents promotes judged ones to ranks the true grades might not let
them keep. Assignments are per query, so the mean of the minima is the least
mean any assignment reaches (and likewise for the maxima), as long as the set
of scored queries does not change, which holds unless ``norel=skip``.

**RBP** is linear in every gain and has no ideal list, so its range is
closed-form: from RBP with the unjudged documents at the least gain of the
domain to RBP with them at the greatest, the difference being their RBP
weight (in either scope: a document below k carries none). That is
RBP_resid without the ranks the run left empty, which no judgment fills.
ERR and the adaptive C/W/L models are refused: no derivation here covers them.

>>> import judged
>>> from judged.analysis.bounds import unjudged_bounds
>>> run = {"q": {"a": 3.0, "b": 2.0, "u": 1.0}}
>>> qrels = {"q": {"a": 1, "b": 0}}          # u is unjudged; grades run 0..3
>>> b = unjudged_bounds(run, qrels, "nDCG@3", grades=range(4))
>>> [round(float(v), 4) for v in (b.zero[0], b.condensed[0], b.minimum[0], b.maximum[0])]
[1.0, 1.0, 0.6885, 1.0]
>>> b.method
('exact',)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from judged.analysis.bounds_search import closed_bound, exact_range
from judged.engine.evaluate import evaluate, reported_queries
from judged.engine.ranking import build_view
from judged.errors import UsageError
from judged.io import read_qrels, read_run
from judged.measures import parse
from judged.measures.conventions import RUN_ORDER_TIES
from judged.measures.families.rbp import unjudged_weight
from judged.measures.gains import discounts, gains, judged_gains
from judged.measures.spec import Measure
from judged.measures.views import measure_view, rank_order_sum
from judged.params import convention_choice

SCOPES = ("top_k", "retrieved")
#: The families whose exact range over the unjudged grades judged derives.
BOUNDED = ("nDCG", "RBP")
#: Tie rules whose order does not depend on grades (``worst``/``best`` sort by grade, ``average`` is not one order).
BOUND_TIES = RUN_ORDER_TIES


@dataclass(frozen=True, eq=False)
class BoundsResult:
    """Per-query unjudged bounds of one run, as plain data (see the module docstring).

    Arrays hold one value per entry of ``qids`` (every judged query, in qid
    byte order, as :class:`judged.Result`); NaN where a query is not scored
    (missing from the run under ``missing=skip``, or, under ``norel=skip``, no
    relevant document under that value's grades). ``method[i]`` is ``exact``,
    ``bound`` (more than ``exact_limit`` unjudged documents in the top k) or
    ``skipped`` (missing from the run under ``missing=skip``).
    """

    run: str
    measure: Measure  #: the measure with ``unjudged=zero``; ``condensed`` is the same with ``unjudged=drop``
    scope: str
    grades: tuple[int, ...]  #: the grade domain the unjudged documents range over
    gain_values: tuple[float, ...]  #: the distinct gains of that domain, ascending
    exact_limit: int | None
    missing: str
    qids: tuple[str, ...]
    zero: np.ndarray  #: nDCG with unjudged documents as gain 0 (judged's default)
    condensed: np.ndarray  #: nDCG with unjudged documents dropped before the cutoff
    minimum: np.ndarray
    maximum: np.ndarray
    unjudged_top_k: np.ndarray  #: unjudged documents among the first k retrieved
    unjudged_retrieved: np.ndarray  #: unjudged documents retrieved at any rank
    method: tuple[str, ...]
    mean_zero: float
    mean_condensed: float
    mean_minimum: float
    mean_maximum: float

    @property
    def means(self) -> dict[str, float]:
        """The four means, keyed like the columns of :meth:`to_frame`."""
        return {
            "zero": self.mean_zero,
            "condensed": self.mean_condensed,
            "min": self.mean_minimum,
            "max": self.mean_maximum,
        }

    def to_frame(self) -> pl.DataFrame:
        """One row per judged query: run, qid, unjudged counts, the four values and the method."""
        return pl.DataFrame(
            {
                "run": [self.run] * len(self.qids),
                "qid": list(self.qids),
                "unjudged_top_k": self.unjudged_top_k,
                "unjudged_retrieved": self.unjudged_retrieved,
                "zero": self.zero,
                "condensed": self.condensed,
                "min": self.minimum,
                "max": self.maximum,
                "method": list(self.method),
            },
            schema={
                "run": pl.String,
                "qid": pl.String,
                "unjudged_top_k": pl.Int64,
                "unjudged_retrieved": pl.Int64,
                "zero": pl.Float64,
                "condensed": pl.Float64,
                "min": pl.Float64,
                "max": pl.Float64,
                "method": pl.String,
            },
        )


def unjudged_bounds(
    run,
    qrels,
    measure: Measure | str,
    *,
    missing: str = "skip",
    exact_limit: int | None = None,
    grades: Iterable[int] | None = None,
    scope: str = "top_k",
) -> BoundsResult:
    """nDCG with unjudged as 0, condensed, and its exact range over the unjudged documents' grades.

    ``measure`` is an nDCG measure (any cutoff, gain and ``norel``; ``ties``
    trec or input; ``ideal=judged``) or an RBP measure (a fixed ``max_rel``
    at or above every grade of the domain); its ``unjudged`` parameter is ignored,
    both conventions are reported. ``run``, ``qrels`` and ``missing`` are as
    in :func:`judged.evaluate`. ``grades`` is the grade domain the unjudged
    documents range over (default 0..the highest grade in ``qrels``);
    ``scope`` is ``top_k`` or ``retrieved`` (module docstring). A query with
    more than ``exact_limit`` unjudged documents in its top k gets a proven
    looser bound instead of the exact range (default: always exact, which
    costs O(levels x unjudged) per query and iteration).
    """
    convention_choice("missing", missing)
    if scope not in SCOPES:
        raise UsageError(f"scope must be one of {'|'.join(SCOPES)}. Got {scope!r} instead.")
    if exact_limit is not None and (
        isinstance(exact_limit, bool) or not isinstance(exact_limit, int) or exact_limit < 0
    ):
        raise UsageError(f"exact_limit must be an int >= 0 or None. Got {exact_limit!r} instead.")
    measure = _bounds_measure(parse(measure) if isinstance(measure, str) else measure)
    run, qrels = read_run(run), read_qrels(qrels)
    domain = _grade_domain(qrels, grades)
    values = np.unique(gains(np.asarray(domain), measure.gain))
    if (values < 0).any():
        raise UsageError(
            f"unjudged bounds need gains >= 0; gain {measure.gain} gives a negative gain to a grade in {list(domain)}."
        )

    zero_m, drop_m = replace(measure, unjudged="zero"), replace(measure, unjudged="drop")
    result = evaluate(run, qrels, [zero_m, drop_m], missing=missing)
    view = build_view(run, qrels, measure.ties)
    reported = reported_queries(view)
    if measure.name == "RBP":
        return _rbp_bounds(result, view, reported, zero_m, drop_m, domain, values, scope, exact_limit, missing)

    data = _query_data(view, measure, values, scope)
    data = {key: value[reported] for key, value in data.items()}
    zero, condensed = result.values[zero_m], result.values[drop_m]
    n, beyond = data["n"], data["beyond"]
    in_scope = n + beyond
    exact = np.ones(len(reported), dtype=bool) if exact_limit is None else n <= exact_limit
    lo, hi = zero.copy(), zero.copy()  # nothing in scope: the one assignment is unjudged-as-0
    todo = in_scope > 0
    for mask, solve in ((todo & exact, exact_range), (todo & ~exact, closed_bound)):
        if mask.any():
            part = {key: value[mask] for key, value in data.items()}
            lo[mask], hi[mask] = solve(part, values, measure)
    if (values == 0).any():  # unjudged-as-0 is an assignment: keep the range around it despite rounding
        scored = ~np.isnan(zero)
        lo[scored] = np.fmin(lo[scored], zero[scored])
        hi[scored] = np.fmax(hi[scored], zero[scored])
    skipped = view.missing[reported] & (missing == "skip")
    lo[skipped] = hi[skipped] = np.nan
    method = tuple(
        "skipped" if s else ("exact" if e else "bound") for s, e in zip(skipped.tolist(), exact.tolist())
    )
    return BoundsResult(
        run=run.name,
        measure=zero_m,
        scope=scope,
        grades=tuple(domain),
        gain_values=tuple(float(v) for v in values),
        exact_limit=exact_limit,
        missing=missing,
        qids=result.qids,
        zero=zero,
        condensed=condensed,
        minimum=lo,
        maximum=hi,
        unjudged_top_k=n.astype(np.int64),
        unjudged_retrieved=(data["n"] + data["all_beyond"]).astype(np.int64),
        method=method,
        mean_zero=result.aggregate[zero_m],
        mean_condensed=result.aggregate[drop_m],
        mean_minimum=_mean(lo),
        mean_maximum=_mean(hi),
    )


def _bounds_measure(measure: Measure) -> Measure:
    if measure.name not in BOUNDED:
        raise UsageError(
            f"unjudged bounds are derived for nDCG (docs/bounds.md) and RBP (linear in each gain, so its range is "
            f"RBP to RBP plus the weight of the unjudged documents at the top gain); {measure.name} is neither: "
            "the adaptive user models (ERR, INST, BPM, NERR) and the rank measures have no such derivation here. "
            f"Got {measure}.")
    if measure.name == "RBP" and measure.max_rel == "query":
        raise UsageError("unjudged bounds of RBP need a fixed max_rel: under max_rel=query a grade given to an "
                         f"unjudged document can move its query's scale. Got {measure}.")
    if measure.ideal != "judged":
        raise UsageError(f"unjudged bounds need ideal=judged (the ideal list the grades change). Got {measure}.")
    if measure.ties not in BOUND_TIES:
        raise UsageError(
            f"unjudged bounds need a tie rule that does not depend on grades: ties={'|'.join(BOUND_TIES)}. "
            f"Got ties={measure.ties}."
        )
    return measure


def _rbp_bounds(result, view, reported: np.ndarray, zero_m: Measure, drop_m: Measure, domain: tuple[int, ...],
                values: np.ndarray, scope: str, exact_limit: int | None, missing: str) -> BoundsResult:
    """RBP is linear in every gain and has no ideal list: its range over the unjudged grades is RBP plus the
    RBP weight of the unjudged documents in the top k, times the least and the greatest scaled gain of the domain
    (in either scope: an unjudged document below k carries no weight)."""
    scale = int(zero_m.max_rel)
    top_gain = gains(np.asarray([scale]), zero_m.gain)[0]
    if max(domain) > scale or top_gain <= 0 or values.max(initial=0) > top_gain:
        raise UsageError(f"unjudged bounds of {zero_m} need the grade domain {list(domain)} within the scale "
                         f"0..{scale} (max_rel), so that every gain lies in [0, 1].")
    scoped = measure_view(view, zero_m)
    weight = unjudged_weight(scoped, zero_m)[reported]
    zero = result.values[zero_m]
    lo, hi = zero + weight * values.min() / top_gain, zero + weight * values.max() / top_gain
    top = view.top(zero_m.cutoff)
    n = (top.counts - view.judged_within(zero_m.cutoff)).astype(np.int64)[reported]
    retrieved = (view.lengths - view.judged_within(None)).astype(np.int64)[reported]
    skipped = view.missing[reported] & (missing == "skip")
    lo[skipped] = hi[skipped] = np.nan
    return BoundsResult(
        run=result.run, measure=zero_m, scope=scope, grades=domain, gain_values=tuple(float(v) for v in values),
        exact_limit=exact_limit, missing=missing, qids=result.qids, zero=zero, condensed=result.values[drop_m],
        minimum=lo, maximum=hi, unjudged_top_k=n, unjudged_retrieved=retrieved,
        method=tuple("skipped" if s else "exact" for s in skipped.tolist()),
        mean_zero=result.aggregate[zero_m], mean_condensed=result.aggregate[drop_m], mean_minimum=_mean(lo),
        mean_maximum=_mean(hi),
    )


def _grade_domain(qrels, grades: Iterable[int] | None) -> tuple[int, ...]:
    if grades is None:
        judged = qrels.frame["grade"].to_numpy()
        judged = judged[judged >= 0]
        top = int(judged.max()) if len(judged) else 0
        return tuple(range(top + 1))
    domain = sorted(set(grades))
    if not domain or any(isinstance(g, bool) or not isinstance(g, (int, np.integer)) or g < 0 for g in domain):
        raise UsageError(f"grades must be a non-empty set of integers >= 0. Got {grades!r} instead.")
    return tuple(int(g) for g in domain)


def _mean(values: np.ndarray) -> float:
    """Mean over scored queries, accumulated in query order like :func:`judged.evaluate`."""
    scored = values[~np.isnan(values)]
    return float(np.cumsum(scored)[-1]) / len(scored) if len(scored) else float("nan")


# -- per-query inputs ---------------------------------------------------------------------------


def _query_data(view, measure: Measure, values: np.ndarray, scope: str) -> dict[str, np.ndarray]:
    """Per query (view order): judged DCG, unjudged discounts, judged counts at each gain threshold.

    ``udisc`` is a (queries x max unjudged) matrix of the discounts of the
    unjudged documents in the top k, in rank order, padded with 0;
    ``counts[:, t]`` is the number of judged documents with gain >= ``tau[t]``
    (the ``tau`` are the distinct positive gains of the domain and the
    judgments, shared by every query, and ``width[t] = tau[t] - tau[t-1]``).
    """
    q = view.num_queries
    top = view.top(measure.cutoff)
    row_judged = top.take(view.judged)
    row_gains = judged_gains(top.take(view.grade), row_judged, measure.gain)
    row_disc = discounts(top.positions)
    dcg = rank_order_sum(top, row_gains * row_disc)  # the same arithmetic as the nDCG kernel
    unj = ~row_judged
    n = (top.counts - view.judged_within(measure.cutoff)).astype(np.int64)
    all_unjudged = (view.lengths - view.judged_within(None)).astype(np.int64)
    width = int(n.max(initial=0))
    udisc = np.zeros((q, width))
    uq = np.repeat(np.arange(q), top.counts)[unj]
    ustart = np.concatenate(([0], np.cumsum(n)[:-1]))
    udisc[uq, np.arange(len(uq)) - ustart[uq]] = row_disc[unj]

    ideal = view.ideal_top(None)
    ideal_gains = np.maximum(gains(view.ideal_grade, measure.gain), 0.0)
    iq = np.repeat(np.arange(q), ideal.counts)
    tau = np.unique(np.concatenate((values, ideal_gains)))
    tau = tau[tau > 0]
    counts = np.zeros((q, len(tau)), dtype=np.int64)
    for t, threshold in enumerate(tau):
        counts[:, t] = np.bincount(iq, weights=ideal_gains >= threshold, minlength=q).astype(np.int64)
    beyond = all_unjudged - n
    return {
        "dcg": dcg,
        "n": n,
        "beyond": beyond if scope == "retrieved" else np.zeros(q, dtype=np.int64),
        "all_beyond": beyond,
        "udisc": udisc,
        "counts": counts,
        "tau": np.broadcast_to(tau, (q, len(tau))),
        "cutoff": np.full(q, -1 if measure.cutoff is None else measure.cutoff, dtype=np.int64),
    }
