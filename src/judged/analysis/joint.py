"""Several runs over one pool of unjudged documents: the per-query data every joint bound is computed from.

A grade given to a pooled, unjudged document is one grade for every run: it
enters each run's DCG where that run ranks the document in its top k, and the
query's ideal list, which all runs share. :class:`JointPool` holds, per
query, the pooled unjudged documents, each run's discount for them and the
judged part of everything, and turns any linear objective (one run's DCG, the
difference of two) into :class:`~judged.analysis.settle_search.Problems`,
unconditionally or with one document fixed at one grade (what judging it
would reveal).

Which documents are pooled: ``top_k`` (every run's top k, the depth-k pool at
the measure's cutoff), ``retrieved`` (everything a run retrieved) or an
explicit set of (qid, docid) pairs, such as a store's pool. Pooled documents
that are judged keep their grade; unjudged documents outside the pool gain 0
and stay out of the ideal list (judged's usual rule: the judgments are taken
as complete outside the pool).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from judged.analysis.bounds import BOUND_TIES
from judged.analysis.settle_search import Problems
from judged.engine.ranking import build_view
from judged.errors import UsageError
from judged.io.inputs import Qrels, Run
from judged.measures.gains import discounts, gains
from judged.measures.spec import Measure

POOLS = ("top_k", "retrieved")


def check_measure(measure: Measure) -> Measure:
    """The measures joint bounds are defined for: nDCG, ideal=judged, ties trec|input, norel 0|1."""
    if measure.name != "nDCG":
        raise UsageError(f"settle is defined for nDCG only (the exact joint bounds are nDCG's). Got {measure}.")
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

    ``alpha[r, q]`` is run r's DCG from judged documents; ``discount[q][r, i]``
    the discount at which run r ranks ``pool[q][i]`` in its top k (0 when it
    does not); ``counts[q, t]`` the judged documents with gain >= ``tau[t]``.
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

    @property
    def unjudged(self) -> int:
        """Pooled documents without a judgment, over all queries."""
        return sum(len(docs) for docs in self.pool)

    def problems(self, weights: np.ndarray, empty: float) -> Problems:
        """The objective sum_r weights[r] * DCG_r / IDCG, one problem per query.

        ``weights`` (runs,) is a one-hot for one run's nDCG, +1/-1 for a
        difference; ``empty`` is what an assignment with an empty ideal scores.
        """
        n = np.array([len(docs) for docs in self.pool], dtype=np.int64)
        coef = np.zeros((len(n), int(n.max(initial=0))))
        for q, share in enumerate(self.discount):
            coef[q, : n[q]] = weights @ share
        return Problems(weights @ self.alpha, coef, n, self.counts, np.full(len(n), empty), self.tau, self.values,
                        self.cutoff)

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
        return -1 if self.measure.cutoff is None else int(self.measure.cutoff)


def joint_pool(runs: Sequence[Run], qrels: Qrels, measure: Measure, grades: tuple[int, ...],
               pool: str | Iterable[tuple[str, str]] = "top_k") -> JointPool:
    """Build the joint data of ``runs`` (read already) over ``pool``; ``measure`` as :func:`check_measure` allows."""
    if isinstance(pool, str) and pool not in POOLS:
        raise UsageError(f"pool must be one of {'|'.join(POOLS)} or a set of (qid, docid) pairs. Got {pool!r}.")
    grade_gains = gains(np.asarray(grades), measure.gain)
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
    for r, lists in enumerate(ranked):
        for q, docs in lists.items():
            qid = qids[q]
            for docid, rank in docs:
                if cutoff is not None and rank >= cutoff:
                    continue
                if docid in judged_grade[qid]:
                    alpha[r, q] += float(gains(np.array([judged_grade[qid][docid]]), measure.gain)[0]) * _disc(rank)
                elif docid in slot[q]:
                    discount[q][r, slot[q][docid]] = _disc(rank)

    judged_gains = [np.maximum(gains(np.array(list(judged_grade[qid].values()), dtype=np.int64), measure.gain), 0)
                    for qid in qids]
    tau = np.unique(np.concatenate([values, *judged_gains]))
    tau = tau[tau > 0]
    counts = np.array([[int((g >= t).sum()) for t in tau] for g in judged_gains], dtype=np.int64)
    return JointPool(measure, tuple(run.name for run in runs), qids, grades, grade_gains, values, tau,
                     counts.reshape(len(qids), len(tau)), alpha, pooled, tuple(discount))


def _disc(rank: int) -> float:
    return float(discounts(np.array([rank]))[0])


def _top(run: Run, qrels: Qrels, measure: Measure, index: dict[str, int], depth: int | None):
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
