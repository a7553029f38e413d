"""Split pooled pairs among assessors, with an overlap set every assessor judges.

Each query goes whole to one assessor (one person per query keeps the
grades within a query consistent), except the overlap queries, which every
assessor judges so that agreement can be measured on them. The overlap set
is a random sample of ``overlap_queries`` of the pool's queries (30 by
default), or of a fraction of them, drawn with ``seed`` (recorded with every
assignment, as is whether each pair is in the overlap set), so the overlap is
neither the first queries by id nor anyone's choice. Other queries go, in qid
order, to the assessor with the fewest pairs so far.

An assessor may hold the same pair in several efforts (pools); their label of
it is one, so a pair they labelled in one effort counts as done in another.

An assessor sees pairs in a randomised order (queries shuffled, and the
documents of each query shuffled), seeded so that the same store, pool and
seed give the same order; nothing about runs, ranks or scores is kept with
an assignment. Assigning again later (after a pool extension) hands each new
pair of a known query to the assessors who already have that query.
"""

from __future__ import annotations

import math
import zlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sqlalchemy as sa

from judged.errors import UsageError
from judged.judgments import schema as t
from judged.judgments.catalog import ensure_assessors
from judged.judgments.log import current_events
from judged.judgments.model import AssignedPair, now
from judged.judgments.pools import pairs

DEFAULT_OVERLAP_QUERIES = 30


@dataclass(frozen=True)
class Share:
    """One assessor's part of an assignment run: pairs, of which in the overlap set, and queries."""

    pairs: int
    overlap_pairs: int
    queries: int


@dataclass(frozen=True)
class AssignmentReport:
    """What an assignment run handed out, per assessor, and which queries are in the overlap set."""

    pool: str
    seed: int
    shares: dict[str, Share]
    overlap_queries: tuple[str, ...]


#: The largest seed (the store keeps it as a 32-bit integer).
MAX_SEED = 2**31 - 1


def assign(
    connection: sa.Connection,
    pool: str,
    assessors: Sequence[str],
    *,
    overlap_queries: int | None = None,
    overlap_fraction: float | None = None,
    seed: int = 0,
) -> AssignmentReport:
    """Assign every unassigned pair of ``pool``; see the module docstring."""
    if len(set(assessors)) != len(assessors) or not assessors:
        raise UsageError(f"give one or more distinct assessors. Got {list(assessors)} instead.")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise UsageError(f"seed must be an int from 0 to {MAX_SEED}. Got {seed!r} instead.")
    pooled = pairs(connection, pool)
    if not pooled:
        raise UsageError(f"pool {pool!r} is empty or does not exist; build it with `judged pool RUN... --depth K`.")
    ensure_assessors(connection, assessors)
    queries = sorted({qid for qid, _ in pooled})
    overlap = overlap_sample(queries, _overlap_size(len(queries), overlap_queries, overlap_fraction), seed)
    if overlap and len(assessors) < 2:
        raise UsageError("an overlap set needs two or more assessors; give another --assessor or --overlap-queries 0.")

    existing = connection.execute(
        sa.select(t.assignments.c.qid, t.assignments.c.docid, t.assignments.c.assessor).where(
            t.assignments.c.pool == pool
        )
    ).all()
    owners: dict[str, list[str]] = defaultdict(list)
    load: dict[str, int] = {name: 0 for name in assessors}
    for qid, _, assessor in existing:
        if assessor not in owners[qid]:
            owners[qid].append(assessor)
        load[assessor] = load.get(assessor, 0) + 1
    taken = {(qid, docid) for qid, docid, _ in existing}
    todo: dict[str, list[str]] = defaultdict(list)
    for qid, docid in pooled:
        if (qid, docid) not in taken:
            todo[qid].append(docid)

    given: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for qid, docids in todo.items():
        if not owners[qid]:
            owners[qid] = list(assessors) if qid in overlap else [min(assessors, key=lambda a: load[a])]
        for assessor in owners[qid]:
            given[assessor][qid] = docids
            load[assessor] += len(docids)
    shares = {name: _store(connection, pool, name, given[name], owners, seed) for name in sorted(given)}
    return AssignmentReport(pool, seed, shares, tuple(q for q in queries if len(owners[q]) > 1))


def overlap_sample(queries: Sequence[str], size: int, seed: int) -> set[str]:
    """A seeded random sample of ``size`` of the (sorted) ``queries``: the same seed and queries, the same sample.

    >>> sorted(overlap_sample(["q1", "q2", "q3", "q4", "q5"], 2, seed=0)) == sorted(
    ...     overlap_sample(["q5", "q4", "q3", "q2", "q1"], 2, seed=0))
    True
    >>> overlap_sample(["q1", "q2"], 5, seed=0) == {"q1", "q2"}
    True
    """
    ordered = sorted(queries)
    rng = np.random.default_rng([seed, zlib.crc32(b"overlap")])
    return {ordered[i] for i in rng.choice(len(ordered), size=min(size, len(ordered)), replace=False)}


def _overlap_size(queries: int, count: int | None, fraction: float | None) -> int:
    if count is not None and fraction is not None:
        raise UsageError("give the overlap as a number of queries or as a fraction, not both.")
    if fraction is not None:
        if not 0 <= fraction <= 1:
            raise UsageError(f"overlap fraction must be in [0, 1]. Got {fraction!r} instead.")
        return math.ceil(fraction * queries)
    count = DEFAULT_OVERLAP_QUERIES if count is None else count
    if count < 0:
        raise UsageError(f"overlap queries must be an int >= 0. Got {count!r} instead.")
    return count


def _store(connection, pool, assessor, queries: dict[str, list[str]], owners, seed: int) -> Share:
    """Insert one assessor's new pairs in their seeded random order, after any earlier ones."""
    rng = np.random.default_rng([seed, zlib.crc32(assessor.encode())])
    start = connection.execute(
        sa.select(sa.func.coalesce(sa.func.max(t.assignments.c.position), 0)).where(
            t.assignments.c.assessor == assessor
        )
    ).scalar_one()
    order = sorted(queries)
    rows: list[dict[str, object]] = []
    for q in rng.permutation(len(order)):
        qid = order[q]
        docids = sorted(queries[qid])
        for d in rng.permutation(len(docids)):
            rows.append({"pool": pool, "qid": qid, "docid": docids[d], "assessor": assessor,
                         "position": start + len(rows) + 1, "overlap": len(owners[qid]) > 1, "seed": seed,
                         "created": now()})
    connection.execute(sa.insert(t.assignments), rows)
    overlap_pairs = sum(bool(row["overlap"]) for row in rows)
    return Share(len(rows), overlap_pairs, len(queries))


def queue(connection: sa.Connection, assessor: str, pending_only: bool = True,
          rejudge: str | None = None) -> list[AssignedPair]:
    """An assessor's assigned pairs in presentation order; by default only those without a current label.

    ``rejudge`` (a rubric ``NAME@VERSION``) puts back in the queue the pairs whose current grade was given
    under another version of that rubric, to be judged again under this one.
    """
    rows = connection.execute(
        sa.select(t.assignments.c.position, t.assignments.c.qid, t.assignments.c.docid, t.assignments.c.overlap)
        .where(t.assignments.c.assessor == assessor)
        .order_by(t.assignments.c.position)
    )
    name = rejudge.partition("@")[0] if rejudge else None
    done = {(e.qid, e.docid) for e in current_events(connection, [assessor])
            if not (name and e.kind == "grade" and e.rubric and e.rubric.partition("@")[0] == name
                    and e.rubric != rejudge)} if pending_only else set()
    shown = []
    for row in rows:  # a pair held in two efforts is shown once, at its first position
        if (row.qid, row.docid) not in done:
            shown.append(AssignedPair(*row))
            done.add((row.qid, row.docid))
    return shown
