"""Reads the web app needs beyond :class:`~judged.judgments.Store`'s: one assigned pair as shown, a pool's work.

An assessor addresses their pairs by queue position; :meth:`Worklist.pair`
gathers what the grading page shows for one (the query, the document and the
assessor's own current label) in one snapshot, and nothing about other
assessors, runs, ranks or scores. The lead's views read a pool's assignments,
the times at which each assessor labelled, for progress and pace, and the log
of the effort's targeting settings with who made each.

>>> from judged.judgments import Store
>>> store = Store.open("sqlite://")
>>> Worklist(store).pools(), Worklist(store).pair("ann", 1)
([], None)
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import sqlalchemy as sa

from judged.judgments import schema as t
from judged.judgments.catalog import document, query
from judged.judgments.engine import reading
from judged.judgments.log import by_event_id, current
from judged.judgments.model import AssignedPair, Document, Judgment, Query, as_utc

_a = t.assignments
_PAIR = (_a.c.position, _a.c.qid, _a.c.docid, _a.c.overlap)


@dataclass(frozen=True)
class PairView:
    """One assigned pair as its assessor sees it: the query, the document and their own current label."""

    assignment: AssignedPair
    query: Query | None
    document: Document | None
    label: Judgment | None


@dataclass(frozen=True)
class PoolAssignment:
    """One row of a pool's assignment: which assessor has which pair, and whether it is in the overlap set."""

    assessor: str
    qid: str
    docid: str
    overlap: bool


@dataclass(frozen=True)
class TargetSetting:
    """One row of an effort's targeting log: the measure its queues follow from ``created`` on (``None``: stopped),
    and who set it (``changed_by``; ``None``: not recorded, as in every row written before revision 0007)."""

    measure: str | None
    created: dt.datetime
    changed_by: str | None


class Worklist:
    """Read-only queries over a store's assignments and judgment log; each method is one snapshot."""

    def __init__(self, store) -> None:
        self.engine = store.engine

    def pools(self) -> list[str]:
        """Every pool's name, sorted."""
        with reading(self.engine) as connection:
            return list(connection.execute(sa.select(t.pools.c.name).order_by(t.pools.c.name)).scalars())

    def pair(self, assessor: str, position: int) -> PairView | None:
        """The pair at ``position`` of ``assessor``'s queue with what the grading page shows, or ``None``."""
        with reading(self.engine) as connection:
            row = connection.execute(
                sa.select(*_PAIR).where(_a.c.assessor == assessor, _a.c.position == position)
            ).first()
            if row is None:
                return None
            assigned = AssignedPair(*row)
            return PairView(
                assigned,
                query(connection, assigned.qid),
                document(connection, assigned.docid),
                current(connection, assigned.qid, assigned.docid, assessor),
            )

    def assignment(self, assessor: str, qid: str, docid: str) -> AssignedPair | None:
        """``assessor``'s assignment of the pair, or ``None`` when it is not theirs to judge."""
        with reading(self.engine) as connection:
            row = connection.execute(
                sa.select(*_PAIR).where(_a.c.assessor == assessor, _a.c.qid == qid, _a.c.docid == docid)
            ).first()
        return AssignedPair(*row) if row else None

    def event(self, event_id: str) -> Judgment | None:
        """The judgment-log event stored under ``event_id``, or ``None`` (to tell a retry from a first write)."""
        with reading(self.engine) as connection:
            return by_event_id(connection, event_id)

    def assignments(self, pool: str) -> list[PoolAssignment]:
        """Every assignment of ``pool``, by assessor and queue position."""
        with reading(self.engine) as connection:
            rows = connection.execute(
                sa.select(_a.c.assessor, _a.c.qid, _a.c.docid, _a.c.overlap)
                .where(_a.c.pool == pool)
                .order_by(_a.c.assessor, _a.c.position)
            )
            return [PoolAssignment(*row) for row in rows]

    def label_times(self, assessors: Iterable[str]) -> dict[str, list[dt.datetime]]:
        """When each assessor recorded each grade or cannot-judge (undo events left out), in log order."""
        j = t.judgments
        with reading(self.engine) as connection:
            rows = connection.execute(
                sa.select(j.c.assessor, j.c.created)
                .where(j.c.assessor.in_(list(assessors)), j.c.kind != "undo")
                .order_by(j.c.assessor, j.c.id)
            )
            times: dict[str, list[dt.datetime]] = defaultdict(list)
            for assessor, created in rows:
                times[assessor].append(as_utc(created))
        return dict(times)

    def target_log(self, pool: str) -> list[TargetSetting]:
        """Every targeting setting of ``pool``'s effort, oldest first (the latest is in force)."""
        log = t.targeted_efforts
        with reading(self.engine) as connection:
            rows = connection.execute(sa.select(log.c.measure, log.c.created, log.c.changed_by)
                                      .where(log.c.pool == pool).order_by(log.c.id))
            return [TargetSetting(measure, as_utc(created), by) for measure, created, by in rows]
