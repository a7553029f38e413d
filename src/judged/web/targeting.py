"""Targeted efforts in the web app: the assessor's queue in impact order, and what the lead sees of the settlement.

An effort marked targeted (``judged assign --target MEASURE``) has its
settlement recomputed from the store (:mod:`judged.judgments.targeting`)
whenever a judgment or adjudication event has arrived since the last one:
:class:`Targets` keeps one :class:`~judged.judgments.targeting.Target` per
effort, keyed by :func:`~judged.judgments.targeting.label_state`, so a queue
fetched twice with no grade in between costs two small reads, and a queue
fetched after a grade is ranked on that grade.
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

    def _current(self, pool: str, measure: str) -> Target:
        state = self.store.label_state()
        cached = self._cache.get((pool, measure))
        if cached is None or cached.state != state:
            cached = self._cache[(pool, measure)] = self.store.target(pool)
        return cached


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
