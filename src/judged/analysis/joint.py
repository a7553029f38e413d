"""Several runs over one pool of unjudged documents: the per-query data every joint bound is computed from.

A grade given to a pooled, unjudged document is one grade for every run: it
enters each run's value where that run ranks the document in its top k, and,
for nDCG and R, the query's normaliser (the ideal DCG, the number of relevant
documents), which all runs share. :class:`JointPool` holds, per query, the
pooled unjudged documents, each run's weight for them and the judged part of
everything, in the terms of the measure's family
(:mod:`judged.analysis.joint_families`), and gives the exact range of one
run's value or of the difference of two (:meth:`JointPool.ranges`),
unconditionally or with one document fixed at one grade, what judging it
would reveal (:meth:`JointPool.fixed_ranges`).

Which documents are pooled: ``top_k`` (every run's top k, the depth-k pool at
the measure's cutoff), ``retrieved`` (everything a run retrieved) or an
explicit set of (qid, docid) pairs, such as a store's pool. Pooled documents
that are judged keep their grade; unjudged documents outside the pool gain 0
and stay out of the normaliser (judged's usual rule: the judgments are taken
as complete outside the pool).

>>> import judged
>>> from judged.analysis.joint_families import FAMILIES
>>> from judged.measures import parse
>>> runs = [judged.read_run({"q": {"a": 2.0, "u": 1.0}}, name="A"), judged.read_run({"q": {"u": 2.0}}, name="B")]
>>> pool = joint_pool(runs, judged.read_qrels({"q": {"a": 1}}), parse("RR@2"), (0, 1))
>>> lo, hi = pool.ranges(np.array([1.0, -1.0]), 0.0)   # RR_A is 1; RR_B is 1 when u is relevant, else 0
>>> float(lo[0]), float(hi[0])
(0.0, 1.0)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from judged.analysis.bounds import BOUND_TIES
from judged.analysis.joint_families import FAMILIES, JointFamily, refusal
from judged.analysis.settle_search import (
    Problems,
    count_fixed,
    count_range,
    first_fixed,
    first_range,
    linear_fixed,
    linear_range,
    ratio_range,
)
from judged.engine.ranking import build_view
from judged.errors import UsageError
from judged.io.inputs import Qrels, Run
from judged.measures.spec import Measure

POOLS = ("top_k", "retrieved")


def check_measure(measure: Measure) -> Measure:
    """The measures joint bounds are defined for: a family of :data:`FAMILIES`, ideal=judged, ties trec|input,
    norel 0|1; anything else is refused with the reason."""
    reason = refusal(measure)
    if reason is not None:
        raise UsageError(f"settle has exact joint bounds for {', '.join(FAMILIES)} only, not for {measure.name}: "
                         f"{reason}. Got {measure}.")
    if measure.ideal != "judged":
        raise UsageError(f"settle needs ideal=judged (the ideal list the grades change). Got {measure}.")
    if measure.ties not in BOUND_TIES:
        raise UsageError(f"settle needs a tie rule that does not depend on grades: ties={'|'.join(BOUND_TIES)}. "
                         f"Got ties={measure.ties}.")
    if measure.norel == "skip":
        raise UsageError("settle needs norel=0 or norel=1: under norel=skip whether a query is scored depends on "
                         f"the grades, so the queries of a mean would change with them. Got {measure}.")
    return measure


@dataclass(frozen=True, eq=False)
class JointPool:
    """Per query (``qids``, every judged query in byte order): the pooled unjudged documents and each run's share.

    ``alpha[r, q]`` is run r's value from judged documents (the sum of their
    gains times their weights; for the ``first`` shape the weight of its first
    relevant judged document); ``discount[q][r, i]`` the weight at which run r
    ranks ``pool[q][i]`` in its top k (0 when it does not); for a ``ratio`` or
    a ``count``, ``counts[q, t]`` the judged documents with gain >= ``tau[t]``
    (empty otherwise; a count's single threshold is relevance).
    """

    measure: Measure
    runs: tuple[str, ...]
    qids: tuple[str, ...]
    grades: tuple[int, ...]
    grade_gains: np.ndarray  #: the gain of each grade of ``grades``
    values: np.ndarray  #: the distinct gains of the grades, ascending
    tau: np.ndarray
    counts: np.ndarray
    alpha: np.ndarray
    pool: tuple[tuple[str, ...], ...]
    discount: tuple[np.ndarray, ...]
    #: the ``count`` shape (R, R-prec) only, per query: each run's 0-based rank of each pooled document (inf when
    #: it does not rank it), and each run's sorted ranks of its judged relevant documents
    ranks: tuple[np.ndarray, ...] = ()
    judged_ranks: tuple[tuple[np.ndarray, ...], ...] = ()

    @property
    def unjudged(self) -> int:
        """Pooled documents without a judgment, over all queries."""
        return sum(len(docs) for docs in self.pool)

    @property
    def family(self) -> JointFamily:
        """How the measure enters the bounds (:data:`~judged.analysis.joint_families.FAMILIES`)."""
        return FAMILIES[self.measure.name]

    def ranges(self, weights: np.ndarray, empty: float) -> tuple[np.ndarray, np.ndarray]:
        """Per query, the exact (min, max) of sum_r weights[r] * value_r over every assignment of the pool.

        ``weights`` is a one-hot (one run's value) or +1/-1 (a difference);
        ``empty`` what a ratio scores when its normaliser is 0 (``norel``, or 0 for a difference).
        """
        n = np.array([len(docs) for docs in self.pool], dtype=np.int64)
        shape = self.family.shape
        if shape == "ratio":
            return ratio_range(self.problems(weights, empty))
        if shape == "linear":
            return linear_range(weights @ self.alpha, self._coef(weights, n), n, self.values)
        if shape == "first":
            (a, c), (b, d) = (self._side(weights, sign, n) for sign in (1, -1))
            return first_range(a, c, b, d, n, self.values)
        lo, hi = np.empty(len(n)), np.empty(len(n))
        for q in range(len(n)):
            lo[q], hi[q] = count_range(self.judged_ranks[q], self.ranks[q], weights, self.relevant(q),
                                       self.count_cutoff, empty, self.values)
        return lo, hi

    def fixed_ranges(self, weights: np.ndarray, empty: float,
                     query: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`ranges` of ``query`` with each of its pooled documents fixed at each grade, what judging it reveals.

        Returns (min, max, document index in the pool, grade index in ``grades``), one entry per (document, grade).
        """
        docs = len(self.pool[query])
        doc = np.repeat(np.arange(docs), len(self.grades))
        grade = np.tile(np.arange(len(self.grades)), docs)
        shape = self.family.shape
        if shape == "ratio":
            lo, hi = ratio_range(self.fixed(weights, empty, query)[0])
        elif shape == "linear":
            lo, hi = linear_fixed(float(weights @ self.alpha[:, query]), weights @ self.discount[query], self.values,
                                  self.grade_gains)
        elif shape == "count":
            lo, hi = count_fixed(self.judged_ranks[query], self.ranks[query], weights, self.relevant(query),
                                 self.count_cutoff, empty, self.values, self.grade_gains)
        else:
            one = np.array([docs])
            (a, c), (b, d) = (self._side(weights, sign, one, query) for sign in (1, -1))
            lo, hi = first_fixed(float(a[0]), c[0, :docs], float(b[0]), d[0, :docs], self.values, self.grade_gains)
        return lo, hi, doc, grade

    def relevant(self, query: int) -> int:
        """The judged relevant documents of ``query`` (R before any assignment: R@k's and R-prec's)."""
        return int(self.counts[query, 0]) if self.counts.shape[1] else 0

    def _coef(self, weights: np.ndarray, n: np.ndarray) -> np.ndarray:
        coef = np.zeros((len(n), int(n.max(initial=0))))
        for q, share in enumerate(self.discount):
            coef[q, : n[q]] = weights @ share
        return coef

    def _side(self, weights: np.ndarray, sign: int, n: np.ndarray,
              query: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The run weighted ``sign`` (its judged part and its weights), or zeros: the ``first`` shape's sides."""
        chosen = np.flatnonzero(weights == sign)
        if len(chosen) > 1 or not np.isin(weights, (-1.0, 0.0, 1.0)).all():
            raise UsageError(f"the bounds of {self.measure.name} weigh at most one run +1 and one -1. "
                             f"Got weights {weights.tolist()}.")
        queries = range(len(self.qids)) if query is None else (query,)
        width = int(n.max(initial=0))
        if not len(chosen):
            return np.zeros(len(queries)), np.zeros((len(queries), width))
        r = int(chosen[0])
        weight = np.zeros((len(queries), width))
        for row, q in enumerate(queries):
            weight[row, : len(self.pool[q])] = self.discount[q][r]
        return self.alpha[r, list(queries)], weight

    def problems(self, weights: np.ndarray, empty: float) -> Problems:
        """The ratio objective sum_r weights[r] * numerator_r / normaliser, one problem per query.

        ``weights`` (runs,) is a one-hot for one run's nDCG, +1/-1 for a
        difference; ``empty`` is what an assignment with an empty ideal scores.
        """
        n = np.array([len(docs) for docs in self.pool], dtype=np.int64)
        return Problems(weights @ self.alpha, self._coef(weights, n), n, self.counts, np.full(len(n), empty), self.tau,
                        self.values, self.cutoff)

    def fixed(self, weights: np.ndarray, empty: float, query: int) -> tuple[Problems, np.ndarray, np.ndarray]:
        """One problem for every (document of ``query``'s pool, grade): that document judged at that grade.

        Returns the problems with, for each, the document's index in the pool and the grade's index in ``grades``.
        """
        docs = len(self.pool[query])
        coef_all = weights @ self.discount[query]
        doc = np.repeat(np.arange(docs), len(self.grades))
        grade = np.tile(np.arange(len(self.grades)), docs)
        gain = self.grade_gains[grade]
        keep = np.ones((docs, docs), dtype=bool)
        np.fill_diagonal(keep, False)
        coef = np.broadcast_to(coef_all, (docs, docs))[keep].reshape(docs, max(docs - 1, 0))[doc]
        alpha = weights @ self.alpha[:, query] + coef_all[doc] * gain
        counts = self.counts[query][None, :] + (gain[:, None] >= self.tau[None, :])
        rows = len(doc)
        return (Problems(alpha, coef, np.full(rows, docs - 1, dtype=np.int64), counts.astype(np.int64),
                         np.full(rows, empty), self.tau, self.values, self.cutoff), doc, grade)

    @property
    def cutoff(self) -> int:
        """The measure's cutoff as :class:`~judged.analysis.settle_search.Problems` takes it: -1 for none."""
        return -1 if self.measure.cutoff is None else int(self.measure.cutoff)

    @property
    def count_cutoff(self) -> float | None:
        """A ``count``'s cutoff: None when it is R (R-prec), else the measure's (inf for none)."""
        if self.family.moving_cut:
            return None
        return float("inf") if self.measure.cutoff is None else float(self.measure.cutoff)

    def restrict(self, keep: np.ndarray) -> JointPool:
        """The same data for the queries at ``keep`` only."""
        return replace(self, qids=tuple(self.qids[q] for q in keep), counts=self.counts[keep],
                       alpha=self.alpha[:, keep], pool=tuple(self.pool[q] for q in keep),
                       discount=tuple(self.discount[q] for q in keep),
                       ranks=tuple(self.ranks[q] for q in keep) if self.ranks else (),
                       judged_ranks=tuple(self.judged_ranks[q] for q in keep) if self.judged_ranks else ())


def joint_pool(runs: Sequence[Run], qrels: Qrels, measure: Measure, grades: tuple[int, ...],
               pool: str | Iterable[tuple[str, str]] = "top_k") -> JointPool:
    """Build the joint data of ``runs`` (read already) over ``pool``; ``measure`` as :func:`check_measure` allows."""
    if isinstance(pool, str) and pool not in POOLS:
        raise UsageError(f"pool must be one of {'|'.join(POOLS)} or a set of (qid, docid) pairs. Got {pool!r}.")
    family = FAMILIES[measure.name]
    grade_gains = family.grade_gain(measure, np.asarray(grades))
    values = np.unique(grade_gains)
    if (values < 0).any():
        raise UsageError(f"settle needs gains >= 0; gain {measure.gain} gives a negative gain to a grade in "
                         f"{list(grades)}.")
    frame = qrels.frame
    judged_grade: dict[str, dict[str, int]] = defaultdict(dict)
    for qid, docid, grade in zip(frame["qid"].to_list(), frame["docid"].to_list(), frame["grade"].to_list()):
        if grade >= 0:
            judged_grade[qid][docid] = grade
    qids = tuple(sorted(frame["qid"].unique().to_list(), key=lambda qid: qid.encode()))
    index = {qid: i for i, qid in enumerate(qids)}
    cutoff = measure.cutoff
    ranked = [_top(run, qrels, measure, index, None if pool == "retrieved" else cutoff) for run in runs]

    chosen: dict[int, set[str]] = defaultdict(set)
    if isinstance(pool, str):
        for lists in ranked:
            for q, docs in lists.items():
                chosen[q].update(d for d, _ in docs)
    else:
        for qid, docid in pool:
            if qid in index:
                chosen[index[qid]].add(docid)
    pooled = tuple(tuple(sorted((d for d in chosen[q] if d not in judged_grade[qid]), key=str.encode))
                   for q, qid in enumerate(qids))

    alpha = np.zeros((len(runs), len(qids)))
    discount = [np.zeros((len(runs), len(docs))) for docs in pooled]
    slot = [{d: i for i, d in enumerate(docs)} for docs in pooled]
    judged_gain = [dict(zip(grades_of, family.grade_gain(measure, np.array(list(grades_of.values()), dtype=np.int64))))
                   for grades_of in (judged_grade[qid] for qid in qids)]
    for r, lists in enumerate(ranked):
        for q, docs in lists.items():
            inside = [(docid, rank) for docid, rank in docs if cutoff is None or rank < cutoff]
            weight = family.rank_weight(measure, np.array([rank for _, rank in inside], dtype=np.int64), len(docs))
            for (docid, _), w in zip(inside, weight.tolist()):
                if docid in judged_gain[q]:
                    gain = float(judged_gain[q][docid])
                    if family.shape == "first":
                        alpha[r, q] = max(alpha[r, q], w) if gain > 0 else alpha[r, q]
                    else:
                        alpha[r, q] += gain * w
                elif docid in slot[q]:
                    discount[q][r, slot[q][docid]] = w

    judged_gains = [np.maximum(np.array(list(judged_gain[q].values()), dtype=np.float64), 0) for q in range(len(qids))]
    normalised = family.shape in ("ratio", "count")
    tau = np.unique(np.concatenate([values, *judged_gains])) if normalised else np.zeros(0)
    tau = tau[tau > 0]
    counts = np.array([[int((g >= t).sum()) for t in tau] for g in judged_gains], dtype=np.int64)
    counts = counts.reshape(len(qids), len(tau))
    ranks, hits = _count_data(ranked, judged_gain, slot) if family.shape == "count" else ((), ())
    return JointPool(measure, tuple(run.name for run in runs), qids, grades, grade_gains, values, tau, counts,
                     alpha, pooled, tuple(discount), ranks, hits)


def _count_data(ranked: Sequence[dict[int, list[tuple[str, int]]]], judged_gain: Sequence[Mapping[str, float]],
                slot: Sequence[Mapping[str, int]]) -> tuple[tuple[np.ndarray, ...], tuple[tuple[np.ndarray, ...], ...]]:
    """Per query, each run's rank of each pooled document (inf: not ranked) and its judged relevant ranks, sorted."""
    ranks, judged_ranks = [], []
    for q, places in enumerate(slot):
        where = np.full((len(ranked), len(places)), np.inf)
        found: list[np.ndarray] = []
        for r, lists in enumerate(ranked):
            relevant = []
            for docid, rank in lists.get(q, ()):
                if docid in places:
                    where[r, places[docid]] = rank
                elif judged_gain[q].get(docid, 0) > 0:
                    relevant.append(rank)
            found.append(np.array(sorted(relevant), dtype=np.float64))
        ranks.append(where)
        judged_ranks.append(tuple(found))
    return tuple(ranks), tuple(judged_ranks)


def _top(run: Run, qrels: Qrels, measure: Measure, index: dict[str, int],
         depth: int | None) -> dict[int, list[tuple[str, int]]]:
    """Per judged query (by index): the run's (docid, 0-based rank) down to ``depth`` (all when None)."""
    view = build_view(run, qrels, measure.ties, depth, keep_docids=True)
    docids = [] if view.docid is None else view.docid.to_list()
    found: dict[int, list[tuple[str, int]]] = {}
    for v, qid in enumerate(view.qids):
        if qid not in index or view.lengths[v] == 0:
            continue
        start = int(view.offsets[v])
        found[index[qid]] = [(docids[start + i], i) for i in range(int(view.lengths[v]))]
    return found
