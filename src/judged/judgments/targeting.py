"""Targeted judging of an effort: which comparisons its labels settle, and its unjudged pairs by what they can change.

An effort is a pool and its assignments. Targeting it on a measure
runs :func:`judged.analysis.settle.settle` on what the store holds, with no
file needed:

* **The runs** are the pool's own record of them: every run that built or
  extended the pool left its top D in ``pool_members`` with each document's
  rank, so its ranking to depth D is known exactly (rank r becomes the score
  -r, which every tie rule orders alike). Hence the measure's cutoff k must be
  at most the smallest depth of the pool's runs, and its tie rule the one the
  pool ranked with (the pool's top D under another rule is another list).
* **The labels** are the effort's assessors' current labels, decided as
  freezing the effort decides them (:func:`judged.judgments.freeze.decide`):
  the adjudicated grade, else the grade they all gave. A pair whose grades
  disagree with no adjudication, or that has only cannot-judge labels, is
  *undecided*: its grade is still unknown, so it counts as unjudged.
* **The grades** an unjudged pair may take are the scale of the store's
  newest rubric (there must be one: before the first grade nothing else says
  how high a grade can go).

:class:`Target` holds the settlement (settled and open pairs, the stopping
rule) and the ranking of :func:`judged.analysis.selection.next_documents`
over every unjudged pair: those whose judging can move an open bound, best
first and grouped by query. :meth:`Target.order` puts an assessor's queue in
that order; the pairs that cannot change any conclusion go last, in their
assigned order. :func:`label_state` is what a caller keys a cached target on:
it changes with every judgment and adjudication event.

Whether an effort is targeted, and on which measure, is stored in
``targeted_efforts`` (:func:`set_target`, :func:`targets`): a log of
settings, the latest row of a pool in force, so when a queue's order started
to follow a measure, and who set it, stays on record.

>>> from judged import Run
>>> from judged.judgments import Store
>>> from judged.judgments.engine import reading
>>> from judged.rubric import Level, Rubric
>>> store = Store.open("sqlite://")
>>> _ = store.add_rubric(Rubric("docs", "1", (0, 1), (Level(0, "no", "no use"), Level(1, "yes", "of use"))))
>>> _ = store.build_pool([Run.from_dict({"q1": {"a": 3.0, "u": 2.0, "b": 1.0}, "q2": {"c": 2.0, "d": 1.0}}, name="A"),
...                       Run.from_dict({"q1": {"b": 3.0, "u": 2.0, "a": 1.0}, "q2": {"d": 2.0, "c": 1.0}}, name="B")],
...                      depth=3)
>>> _ = store.assign(["ana"], overlap_queries=0)
>>> with reading(store.engine) as connection:
...     before = target(connection, "default", "nDCG@3")
>>> before.can_stop, [(q, d) for q, d, _ in before.ranking]   # u, at rank 2 in both, matters least
(False, [('q1', 'a'), ('q1', 'b'), ('q1', 'u'), ('q2', 'c'), ('q2', 'd')])
>>> for qid, docid, grade in [("q1", "a", 1), ("q1", "b", 0), ("q2", "c", 1), ("q2", "d", 0)]:
...     _ = store.record(qid, docid, assessor="ana", grade=grade)
>>> with reading(store.engine) as connection:
...     after = target(connection, "default", "nDCG@3")
>>> after.can_stop, after.ranking, after.settlement.stopping.unjudged   # A ahead whatever u's grade is
(True, (), 1)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from judged.analysis.joint import check_measure
from judged.analysis.selection import next_documents
from judged.analysis.settle import Settlement, settle
from judged.errors import UsageError
from judged.io.inputs import Qrels, Run
from judged.judgments import schema as t
from judged.judgments.catalog import rubric_by_spec
from judged.judgments.freeze import decide
from judged.judgments.model import AssignedPair, now
from judged.judgments.pools import pool_runs
from judged.measures import parse
from judged.measures.spec import Measure

#: How a pair's label is taken: decided (a grade), or still unknown and so unjudged.
_DECIDED = ("adjudicated", "agreed", "single")
#: The measure that stops targeting an effort.
OFF = "off"


@dataclass(frozen=True, eq=False)
class Target:
    """An effort's settlement on one measure and its unjudged pairs ranked by impact (module docstring)."""

    pool: str
    settlement: Settlement
    ranking: tuple[tuple[str, str, float], ...]  #: (qid, docid, impact), impact > 0, in next_documents' order
    undecided: int  #: labelled pairs whose grade is not decided (disagreement, or cannot-judge only)
    state: tuple[int, int]  #: :func:`label_state` when it was computed

    @property
    def can_stop(self) -> bool:
        """Every comparison among the pool's runs on the measure is settled by the effort's labels."""
        return self.settlement.stopping.fires

    def order(self, pairs: Sequence[AssignedPair]) -> list[AssignedPair]:
        """``pairs`` (an assessor's queue) with those that can move an open bound first, in the ranking's order.

        The others, which no grade can make change a conclusion, follow in their given order.
        """
        rank = {(qid, docid): i for i, (qid, docid, _) in enumerate(self.ranking)}
        ahead = sorted((p for p in pairs if (p.qid, p.docid) in rank), key=lambda p: rank[(p.qid, p.docid)])
        return ahead + [p for p in pairs if (p.qid, p.docid) not in rank]


def target(connection: sa.Connection, pool: str, measure: Measure | str = "nDCG@10") -> Target:
    """Settle the effort on ``pool`` on ``measure`` from the store and rank its unjudged pairs (module docstring)."""
    measure = check_measure(parse(measure) if isinstance(measure, str) else measure)
    runs = pooled_runs(connection, pool, measure)
    rubric = rubric_by_spec(connection, None)
    if rubric is None:
        raise UsageError("targeting needs the grade scale an unjudged pair may take: the store has no rubric; "
                         "add one with `judged rubric import`.")
    grades = rubric.grades
    if min(grades) < 0:
        raise UsageError(f"targeting needs grades >= 0; rubric {rubric.name}@{rubric.version} has {list(grades)}.")
    state = label_state(connection)
    pooled = {(qid, docid) for run in runs for qid, docid in zip(run.frame["qid"], run.frame["docid"])}
    assessors = sorted(set(connection.execute(
        sa.select(t.assignments.c.assessor).where(t.assignments.c.pool == pool)).scalars()))
    rows, _ = decide(connection, "min", assessors, True, pooled, only=pooled)
    nested: dict[str, dict[str, int]] = defaultdict(dict)
    undecided = 0
    for row in rows:
        decided = row["state"] in _DECIDED
        undecided += not decided and row["state"] != "unjudged"
        nested[row["qid"]][row["docid"]] = row["grade"] if decided else -1
    settlement = settle(runs, Qrels.from_dict(dict(nested)), measure, pool=sorted(pooled), grades=grades)
    graded = [g for docs in nested.values() for g in docs.values() if g >= 0]
    ranking = next_documents(settlement, settlement.stopping.unjudged, graded)
    return Target(pool, settlement, tuple(ranking), undecided, state)


def pooled_runs(connection: sa.Connection, pool: str, measure: Measure) -> list[Run]:
    """Each run of ``pool`` as the pool recorded it: its top D per query, rank r as score -r.

    Refuses a measure whose cutoff is missing or deeper than a run's depth, or
    whose tie rule is not the one the pool ranked with.
    """
    recorded = pool_runs(connection, pool)
    if not recorded:
        raise UsageError(f"pool {pool!r} is empty or does not exist; build it with `judged pool RUN... --depth K`.")
    depth = min(row.depth for row in recorded)
    if measure.cutoff is None or measure.cutoff > depth:
        raise UsageError(f"targeting {pool!r} needs a cutoff of at most {depth}: the pool holds each run's top "
                         f"{depth} only. Got {measure}.")
    for row in recorded:
        if row.ties != measure.ties:
            raise UsageError(f"pool {pool!r} ranked run {row.run!r} with ties={row.ties}, so its top k under "
                             f"ties={measure.ties} is not known; target a measure with ties={row.ties}.")
    members = t.pool_members
    ranked: dict[int, dict[str, dict[str, float]]] = {row.id: defaultdict(dict) for row in recorded}
    for run_id, qid, docid, rank in connection.execute(
            sa.select(members.c.pool_run_id, members.c.qid, members.c.docid, members.c.rank)
            .where(members.c.pool_run_id.in_(list(ranked)))):
        ranked[run_id][qid][docid] = -float(rank)
    return [Run.from_dict(dict(ranked[row.id]), name=row.run) for row in recorded]


def set_target(connection: sa.Connection, pool: str, measure: str, by: str | None = None) -> None:
    """Target the effort on ``pool`` on ``measure`` (computed once, so a measure it cannot serve is refused), or
    stop targeting it (:data:`OFF`); ``by``, who did (``None``: not recorded), goes in the log with it."""
    if measure == OFF:
        if pool not in targets(connection):
            raise UsageError(f"the effort on pool {pool!r} is not targeted, so there is no targeting to stop.")
        stored = None
    else:
        parsed = check_measure(parse(measure))
        target(connection, pool, parsed)
        stored = str(parsed)
    connection.execute(sa.insert(t.targeted_efforts).values(pool=pool, measure=stored, created=now(), changed_by=by))


def targets(connection: sa.Connection) -> dict[str, str]:
    """Every targeted effort's pool and its measure: the latest setting of each pool, stopped ones left out."""
    rows = connection.execute(sa.select(t.targeted_efforts.c.pool, t.targeted_efforts.c.measure)
                              .order_by(t.targeted_efforts.c.id))
    latest = {pool: measure for pool, measure in rows}
    return {pool: measure for pool, measure in sorted(latest.items()) if measure is not None}


def label_state(connection: sa.Connection) -> tuple[int, int]:
    """The newest judgment and adjudication event ids: a target computed at one state holds until either grows."""
    judged = connection.execute(sa.select(sa.func.coalesce(sa.func.max(t.judgments.c.id), 0))).scalar_one()
    decided = connection.execute(sa.select(sa.func.coalesce(sa.func.max(t.adjudications.c.id), 0))).scalar_one()
    return int(judged), int(decided)
