"""Which documents to judge next: four strategies over the same runs and pool.

Each strategy proposes pooled (qid, docid) pairs not judged yet, given the
judgments so far (``{(qid, docid): grade}``), and is meant to be called again
once the proposed documents are judged:

* :class:`DepthOrder` is today's depth-k pooling made incremental: every
  run's rank-1 documents of every query, then rank 2, and so on, so that the
  first ``|depth-k pool|`` proposals are exactly the depth-k pool.
* :class:`MoveToFront` (Cormack, Palmer & Clarke, SIGIR 1998): per query, the
  runs wait in a queue; the run at the front gives its next unjudged document,
  and keeps the front while its documents are relevant; a non-relevant one
  sends it to the back.
* :class:`MaxMeanBandit` (Losada, Parapar & Barreiro, SIGIR 2016, the
  max-mean "MM" policy): per query every run is an arm whose value is
  (1 + relevant) / (2 + judged) over the documents of its ranking judged so
  far; the best arm gives its next unjudged document.
* :class:`BoundDriven`, in the spirit of Carterette, Allan & Sitaraman's
  minimal test collections (SIGIR 2006) but on judged's exact joint bounds:
  every pooled document scores its expected shrink of the open comparisons'
  bounds (:mod:`judged.analysis.impact`), and the query whose best documents
  score most gets a batch of them, so an assessor reads one query's documents
  together. A document that cannot move any open bound scores 0 and is never
  proposed; when every comparison is settled it proposes nothing.

The first three propose one document per query per call (round robin over the
queries), so that each query's next choice sees the grade of the previous one.

>>> import judged
>>> runs = [judged.read_run({"q": {"a": 2.0, "b": 1.0}}, name="x"),
...         judged.read_run({"q": {"b": 2.0, "c": 1.0}}, name="y")]
>>> DepthOrder(runs).propose({}, 2)
[('q', 'a'), ('q', 'b')]
>>> DepthOrder(runs).propose({("q", "a"): 0, ("q", "b"): 1}, 10)
[('q', 'c')]
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from judged.analysis.impact import MOVE, grade_effects, grade_probabilities
from judged.analysis.settle import Settlement, settle
from judged.errors import UsageError
from judged.io import read_run
from judged.io.inputs import Qrels, Run
from judged.measures.spec import Measure

Judged = Mapping[tuple[str, str], int]


def _rankings(runs: Sequence[Run], pool: Iterable[tuple[str, str]] | None) -> dict[str, list[list[str]]]:
    """Per query, each run's documents in rank order (score descending, then docid descending), within ``pool``."""
    allowed = None if pool is None else set(pool)
    found: dict[str, list[list[str]]] = {}
    for r, run in enumerate(runs):
        frame = run.frame.sort(["qid", "score", "docid"], descending=[False, True, True])
        for qid, docid in zip(frame["qid"].to_list(), frame["docid"].to_list()):
            if allowed is not None and (qid, docid) not in allowed:
                continue
            lists = found.setdefault(qid, [[] for _ in runs])
            lists[r].append(docid)
    return dict(sorted(found.items(), key=lambda item: item[0].encode()))


class DepthOrder:
    """Incremental depth-k pooling (module docstring)."""

    name = "depth-k"

    def __init__(self, runs: Sequence, pool: Iterable[tuple[str, str]] | None = None) -> None:
        best: dict[tuple[str, str], int] = {}
        for qid, lists in _rankings([read_run(run) for run in runs], pool).items():
            for ranking in lists:
                for rank, docid in enumerate(ranking):
                    best[(qid, docid)] = min(rank, best.get((qid, docid), rank))
        self.best_rank = best
        self.order = sorted(best, key=lambda pair: (best[pair], pair[0].encode(), pair[1].encode()))

    def propose(self, judged: Judged, n: int) -> list[tuple[str, str]]:
        """The next ``n`` pooled documents by their best rank in any run."""
        return [pair for pair in self.order if pair not in judged][:n]

    def depth_pool(self, depth: int) -> int:
        """Size of the depth-``depth`` pool: the judgments depth-k pooling uses."""
        return sum(1 for rank in self.best_rank.values() if rank < depth)


class _PerQuery(ABC):
    """Round robin over queries, one proposal per query per call; subclasses choose within a query."""

    def __init__(self, runs: Sequence, pool: Iterable[tuple[str, str]] | None = None) -> None:
        self.rankings = _rankings([read_run(run) for run in runs], pool)

    def propose(self, judged: Judged, n: int) -> list[tuple[str, str]]:
        """At most one unjudged document per query, at most ``n`` in all."""
        found: list[tuple[str, str]] = []
        for qid, lists in self.rankings.items():
            if len(found) >= n:
                break
            docid = self.choose(qid, lists, judged)
            if docid is not None:
                found.append((qid, docid))
        return found

    @abstractmethod
    def choose(self, qid: str, lists: list[list[str]], judged: Judged) -> str | None:
        """The next document of query ``qid`` to judge, given each run's ranking of it, or None when none is left."""


def _next_unjudged(qid: str, ranking: list[str], judged: Judged) -> str | None:
    return next((d for d in ranking if (qid, d) not in judged), None)


class MoveToFront(_PerQuery):
    """Cormack, Palmer & Clarke's move-to-front pooling (module docstring); relevant means grade >= ``rel``."""

    name = "move-to-front"

    def __init__(self, runs: Sequence, pool: Iterable[tuple[str, str]] | None = None, rel: int = 1) -> None:
        super().__init__(runs, pool)
        self.rel = rel
        self.queues = {qid: deque(range(len(lists))) for qid, lists in self.rankings.items()}
        self.last: dict[str, tuple[int, str]] = {}

    def choose(self, qid: str, lists: list[list[str]], judged: Judged) -> str | None:
        queue = self.queues[qid]
        if qid in self.last:  # the grade of the previous proposal decides whether its run keeps the front
            run, previous = self.last.pop(qid)
            if judged.get((qid, previous), 0) < self.rel and queue and queue[0] == run:
                queue.rotate(-1)
        for _ in range(len(queue)):
            docid = _next_unjudged(qid, lists[queue[0]], judged)
            if docid is not None:
                self.last[qid] = (queue[0], docid)
                return docid
            queue.popleft()  # this run has nothing left to give
        return None


class MaxMeanBandit(_PerQuery):
    """Losada, Parapar & Barreiro's max-mean bandit (module docstring); relevant means grade >= ``rel``."""

    name = "bandit (max-mean)"

    def __init__(self, runs: Sequence, pool: Iterable[tuple[str, str]] | None = None, rel: int = 1) -> None:
        super().__init__(runs, pool)
        self.rel = rel

    def choose(self, qid: str, lists: list[list[str]], judged: Judged) -> str | None:
        best, best_value = None, -1.0
        for ranking in lists:
            docid = _next_unjudged(qid, ranking, judged)
            if docid is None:
                continue
            grades = [judged[(qid, d)] for d in ranking if (qid, d) in judged]
            value = (1 + sum(g >= self.rel for g in grades)) / (2 + len(grades))
            if value > best_value:
                best, best_value = docid, value
        return best


def next_documents(settlement: Settlement, n: int, judged_grades: Sequence[int] = ()) -> list[tuple[str, str, float]]:
    """The ``n`` pooled documents whose judging shrinks the open bounds most, grouped by query.

    Returns (qid, docid, impact), every impact > 0: the queries in the order
    of their best document, each query's documents together, best first.
    ``judged_grades`` are the grades judged so far (for the grades' chances).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise UsageError(f"n must be an int >= 0. Got {n!r} instead.")
    pairs = settlement.open_pairs()
    data = settlement.data
    if not pairs or not n:
        return []
    probabilities = grade_probabilities(data, judged_grades)
    scored = []
    for q, qid in enumerate(data.qids):
        if data.pool[q]:
            moves = grade_effects(data, pairs, q) if settlement.effects is None else settlement.effects[q]
            scores = moves @ probabilities
            scored += [(qid, docid, float(s)) for docid, s in zip(data.pool[q], scores) if s > MOVE]
    chosen = sorted(scored, key=lambda item: (-item[2], item[0].encode(), item[1].encode()))[:n]
    first: dict[str, int] = {}
    for position, (qid, _, _) in enumerate(chosen):
        first.setdefault(qid, position)
    return sorted(chosen, key=lambda item: first[item[0]])


class BoundDriven:
    """The bound-driven greedy (module docstring): ``batch`` documents of the best query per call.

    ``pool`` is every (qid, docid) that may be judged; a pair not in the
    judgments so far counts as pooled and unjudged. ``grades`` is the scale
    (needed: before the first judgment no grade has been seen).
    """

    name = "bound-driven"

    def __init__(self, runs: Sequence, measure: Measure | str, pool: Iterable[tuple[str, str]],
                 grades: Iterable[int], batch: int = 5) -> None:
        self.runs = [read_run(run) for run in runs]
        self.measure = measure
        self.pool = sorted(set(pool))
        self.grades = tuple(grades)
        self.batch = batch
        self._effects: dict[tuple, np.ndarray] = {}

    def settlement(self, judged: Judged) -> Settlement:
        """:func:`~judged.analysis.settle.settle` on the judgments so far (no t-test sampling)."""
        nested: dict[str, dict[str, int]] = {}
        for qid, docid in self.pool:
            nested.setdefault(qid, {})[docid] = judged.get((qid, docid), -1)
        return settle(self.runs, Qrels.from_dict(nested), self.measure, pool=self.pool, grades=self.grades,
                      samples=0, count_matter=False)

    def chances(self, s: Settlement, judged: Judged) -> list[np.ndarray]:
        """Per query of ``s``, (documents x grades): each unjudged document's chance of each grade.

        Here every document gets the grades' frequency among the judgments so
        far, each count plus one; a strategy that knows more about a document
        (the simulation's oracle knows its grade) overrides this.
        """
        probabilities = grade_probabilities(s.data, list(judged.values()))
        return [np.broadcast_to(probabilities, (len(docs), len(probabilities))) for docs in s.data.pool]

    def propose(self, judged: Judged, n: int | None = None) -> list[tuple[str, str]]:
        """Up to ``batch`` documents (or ``n``) of the query whose best documents can shrink the open bounds most."""
        s = self.settlement(judged)
        pairs = s.open_pairs()
        if not pairs:
            return []
        size = self.batch if n is None else n
        chances = self.chances(s, judged)
        signature = tuple((p.a, p.b) for p in pairs)
        best: tuple[float, list[tuple[str, str]]] | None = None
        for q, qid in enumerate(s.data.qids):
            docs = s.data.pool[q]
            if not docs:
                continue
            key = (qid, docs, signature)
            if key not in self._effects:
                self._effects[key] = grade_effects(s.data, pairs, q)
            scores = (self._effects[key] * chances[q]).sum(axis=1)
            top = np.argsort(-scores, kind="stable")[:size]
            top = top[scores[top] > MOVE]
            total = float(scores[top].sum())
            if len(top) and (best is None or total > best[0]):
                best = (total, [(qid, docs[i]) for i in top])
        return [] if best is None else best[1]
