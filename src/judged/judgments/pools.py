"""Depth-k pools: the union of every run's top k per query, and extending a pool with a new run.

The top k is taken from judged's own ranking (:func:`judged.engine.ranking.build_view`),
by default with the ``trec`` tie rule (score descending, then docid
descending), so the documents pooled are exactly those evaluation will see in
the top k; ``ties="input"`` pools the file's order instead (for measures
evaluated with ``ties=input``). Every pooled pair records which runs, at which
rank, depth and tie rule, put it there.

Extending a pool with a new run adds its top-k pairs that are neither pooled
nor judged yet: those are what must be judged so that the new run is not
penalised against the runs that built the pool.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
import sqlalchemy as sa

from judged import params
from judged.engine.ranking import build_view
from judged.errors import UsageError
from judged.io.inputs import QRELS_SCHEMA, Qrels, Run
from judged.judgments import schema as t
from judged.judgments.engine import insert_new
from judged.judgments.model import now
from judged.measures.conventions import RUN_ORDER_TIES


@dataclass(frozen=True)
class RunContribution:
    """One run's share of a pool: pairs in its top k, and pairs no other run of the pool has."""

    run: str
    depth: int
    ties: str
    step: str
    pairs: int
    unique: int


@dataclass(frozen=True)
class PoolReport:
    """A pool after it was built: size per query and each run's contribution."""

    pool: str
    sizes: dict[str, int]
    runs: tuple[RunContribution, ...]

    @property
    def total(self) -> int:
        """Pairs in the pool, over all queries."""
        return sum(self.sizes.values())


@dataclass(frozen=True)
class PoolExtension:
    """What extending a pool with one run added: pairs to judge (new and unjudged), per query."""

    pool: str
    run: str
    depth: int
    added: dict[str, int]
    already_pooled: int
    already_judged: int

    @property
    def total_added(self) -> int:
        """Pairs the extension added that still need judging, over all queries."""
        return sum(self.added.values())


TIES = RUN_ORDER_TIES


def top_k(run: Run, depth: int, ties: str = "trec") -> pl.DataFrame:
    """Each query's first ``depth`` documents under the tie rule ``ties``: ``qid, docid, rank`` (1-based).

    >>> run = Run.from_dict({"q1": {"a": 1.0, "b": 1.0, "c": 0.5}})
    >>> top_k(run, 1)["docid"].to_list(), top_k(run, 1, "input")["docid"].to_list()
    (['b'], ['a'])
    """
    if ties not in TIES:
        raise UsageError(f"ties must be one of {'|'.join(TIES)}. Got {ties!r} instead.")
    empty = Qrels(pl.DataFrame(schema=QRELS_SCHEMA))
    view = build_view(run, empty, ties, depth, keep_docids=True)
    counts = np.diff(view.offsets)
    starts = np.repeat(view.offsets[:-1], counts)
    return pl.DataFrame(
        {
            "qid": np.repeat(np.array(view.qids, dtype=object), counts).tolist(),
            "docid": view.docid,
            "rank": (np.arange(int(counts.sum())) - starts + 1).astype(np.int64),
        }
    )


def build(connection: sa.Connection, pool: str, runs: Sequence[Run], depth: int, ties: str = "trec") -> PoolReport:
    """Create ``pool`` from the top ``depth`` of every run (a pool is built once, then extended)."""
    _check_depth(depth)
    names = [run.name for run in runs]
    repeated = sorted(name for name, n in Counter(names).items() if n > 1)
    if repeated:
        raise UsageError(f"two runs are named {repeated[0]!r}; pool membership records runs by name.")
    if not insert_new(connection, t.pools, [{"name": pool, "created": now()}], ["name"]):
        raise UsageError(f"pool {pool!r} already exists; add a run to it with `judged pool extend`.")
    for run in runs:
        _add_run(connection, pool, run, depth, ties, "build")
    return report(connection, pool)


def extend(
    connection: sa.Connection, pool: str, run: Run, depth: int, judged: set[tuple[str, str]], ties: str = "trec"
) -> PoolExtension:
    """Add ``run``'s top ``depth`` to ``pool``; ``judged`` are the pairs that already have a label."""
    _check_depth(depth)
    if connection.execute(sa.select(t.pools.c.name).where(t.pools.c.name == pool)).first() is None:
        raise UsageError(f"no pool {pool!r}; build it first with `judged pool RUN... --depth K`.")
    if run.name in {row.run for row in pool_runs(connection, pool)}:
        raise UsageError(f"run {run.name!r} is already in pool {pool!r}.")
    before = set(pairs(connection, pool))
    top = _add_run(connection, pool, run, depth, ties, "extend")
    added: dict[str, int] = defaultdict(int)
    pooled = judged_count = 0
    for qid, docid in zip(top["qid"], top["docid"]):
        if (qid, docid) in before:
            pooled += 1
        elif (qid, docid) in judged:
            judged_count += 1
        else:
            added[qid] += 1
    return PoolExtension(pool, run.name, depth, dict(sorted(added.items())), pooled, judged_count)


def _check_depth(depth: int) -> None:
    params.count("depth", depth)


def _add_run(connection: sa.Connection, pool: str, run: Run, depth: int, ties: str, step: str) -> pl.DataFrame:
    top = top_k(run, depth, ties)
    run_id = connection.execute(
        sa.insert(t.pool_runs)
        .values(pool=pool, run=run.name, run_sha256=run.source.sha256 if run.source else None, depth=depth,
                ties=ties, step=step, created=now())
        .returning(t.pool_runs.c.id)
    ).scalar_one()
    if top.height:
        connection.execute(sa.insert(t.pool_members), top.with_columns(pool_run_id=pl.lit(run_id)).to_dicts())
    return top


def pool_runs(connection: sa.Connection, pool: str) -> list:
    """The runs of a pool, in the order they were added (``run, run_sha256, depth, ties, step, created``)."""
    runs = t.pool_runs
    return list(
        connection.execute(
            sa.select(runs.c.id, runs.c.run, runs.c.run_sha256, runs.c.depth, runs.c.ties, runs.c.step, runs.c.created)
            .where(runs.c.pool == pool)
            .order_by(runs.c.id)
        )
    )


def membership(connection: sa.Connection, pool: str) -> dict[tuple[str, str], list[str]]:
    """Every pooled pair and the runs whose top k holds it (in the order the runs were added)."""
    members, runs = t.pool_members, t.pool_runs
    rows = connection.execute(
        sa.select(members.c.qid, members.c.docid, runs.c.run)
        .select_from(members.join(runs, members.c.pool_run_id == runs.c.id))
        .where(runs.c.pool == pool)
        .order_by(runs.c.id)
    )
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for qid, docid, run in rows:
        found[(qid, docid)].append(run)
    return dict(sorted(found.items()))


def pairs(connection: sa.Connection, pool: str) -> list[tuple[str, str]]:
    """Every pooled pair, sorted by qid and docid."""
    return list(membership(connection, pool))


def report(connection: sa.Connection, pool: str) -> PoolReport:
    """Size per query and each run's contribution, from what the store holds."""
    found = membership(connection, pool)
    sizes: dict[str, int] = defaultdict(int)
    per_run: dict[str, int] = defaultdict(int)
    unique: dict[str, int] = defaultdict(int)
    for (qid, _), runs in found.items():
        sizes[qid] += 1
        for run in runs:
            per_run[run] += 1
        if len(runs) == 1:
            unique[runs[0]] += 1
    contributions = tuple(
        RunContribution(row.run, row.depth, row.ties, row.step, per_run[row.run], unique[row.run])
        for row in pool_runs(connection, pool)
    )
    return PoolReport(pool, dict(sorted(sizes.items())), contributions)
