"""Targeted efforts in the web app: the assessor's queue in impact order, and what the lead sees of the settlement.

An effort marked targeted (``judged assign --target MEASURE``) has its
settlement recomputed from the store (:mod:`judged.judgments.targeting`)
whenever a judgment or adjudication event has arrived since the last one:
:class:`Targets` keeps one :class:`~judged.judgments.targeting.Target` per
effort, keyed by :func:`~judged.judgments.targeting.label_state`, so a queue
fetched twice with no grade in between costs two small reads, and a queue
fetched after a grade is ranked on that grade.

The grading page asks the server which pair to show after each grade
(:func:`next_position`): the pairs the targeting ranks ahead come first, and
an assessor stays on the query they are on while the re-ranked order still
holds pairs of it that can change a comparison, so one query's documents are
read together ("batched per query"), even when a grade moves another query's
best pair ahead of the rest of this one. When the page opens or is reloaded
it names no pair, and the queue API follows the assessor's last label
instead, so a reload goes on with the query's batch where it was.
"""

from __future__ import annotations

from collections.abc import Sequence

from judged.judgments.model import AssignedPair
from judged.judgments.targeting import Target
from judged.render.settle import sign_label


class Targets:
    """The targets of a store's targeted efforts, each recomputed only when the labels have changed."""

    def __init__(self, store) -> None:
        self.store = store
        self._cache: dict[tuple[str, str], Target] = {}

    def get(self, pool: str) -> Target | None:
        """The effort's current target, or ``None`` when it is not targeted."""
        measure = self.store.targets().get(pool)
        return None if measure is None else self._current(pool, measure)

    def order(self, pairs: Sequence[AssignedPair]) -> list[AssignedPair]:
        """An assessor's queue with the pairs of targeted efforts first, by impact; then the rest as assigned.

        With several targeted efforts, the first by pool name comes first.
        """
        ordered = list(pairs)
        targeted = self.store.targets()
        for pool in sorted(targeted, reverse=True):
            ordered = self._current(pool, targeted[pool]).order(ordered)
        return ordered

    def ahead(self) -> set[tuple[str, str]]:
        """The (qid, docid) pairs some targeted effort ranks ahead: those whose grade can still move an open bound."""
        return {(qid, docid) for pool, measure in self.store.targets().items()
                for qid, docid, _ in self._current(pool, measure).ranking}

    def _current(self, pool: str, measure: str) -> Target:
        state = self.store.label_state()
        cached = self._cache.get((pool, measure))
        if cached is None or cached.state != state:
            cached = self._cache[(pool, measure)] = self.store.target(pool)
        return cached


def next_position(pairs: Sequence[dict], after: int | None) -> int | None:
    """The queue position the grading page shows next, after the pair at ``after`` (``None``: nothing labelled yet).

    ``pairs`` is the queue as ``/api/queue`` sends it, in presentation order:
    ``position``, ``qid``, ``label`` (``None``: not labelled) and ``ahead``
    (a targeted effort ranks it ahead: its grade can still change a
    comparison). The first unlabelled pair that is, in turn:

    1. ahead, of the query of ``after``: that query's batch lasts;
    2. ahead: the next batch, the order's first;
    3. after ``after`` in the order, then from the start: the assigned order.

    ``None`` when every pair is labelled.

    >>> queue = [{"position": 5, "qid": "q2", "label": None, "ahead": True},
    ...          {"position": 1, "qid": "q1", "label": None, "ahead": True},
    ...          {"position": 4, "qid": "q2", "label": {"grade": 0}, "ahead": False},
    ...          {"position": 2, "qid": "q1", "label": {"grade": 1}, "ahead": False},
    ...          {"position": 3, "qid": "q1", "label": None, "ahead": False}]
    >>> next_position(queue, None), next_position(queue, 4), next_position(queue, 2)  # after 2: q1's batch lasts
    (5, 5, 1)
    >>> untargeted = [{**p, "ahead": False} for p in queue]
    >>> next_position(untargeted, 2), next_position(untargeted, 3), next_position(untargeted[2:4], 2)
    (3, 5, None)
    """
    open_ = [i for i, p in enumerate(pairs) if p["label"] is None]
    at = next((i for i, p in enumerate(pairs) if p["position"] == after), None)
    qid = None if at is None else pairs[at]["qid"]
    ahead = [i for i in open_ if pairs[i]["ahead"]]
    later = [i for i in open_ if at is not None and i > at]
    same = [i for i in ahead if pairs[i]["qid"] == qid]
    found = next(iter(same or ahead or later or open_), None)
    return None if found is None else pairs[found]["position"]


def summary(target: Target, shown: int = 20) -> dict:
    """The settlement as the lead's page and the effort API show it: pairs, the stopping rule, what to judge next."""
    s = target.settlement
    return {
        "measure": str(s.measure),
        "can_stop": target.can_stop,
        "statement": s.stopping.statement,
        "pairs_settled": s.stopping.pairs_settled,
        "pairs": [{"first": p.a, "second": p.b, "difference": p.difference, "min": p.minimum, "max": p.maximum,
                   "settled": p.settled, "sign": sign_label(p)} for p in s.pairs],
        "unjudged": s.stopping.unjudged,
        "could_matter": s.stopping.could_matter,
        "undecided": target.undecided,
        "queries": len(s.qids),
        "next": [{"qid": q, "docid": d, "impact": impact} for q, d, impact in target.ranking[:shown]],
    }
