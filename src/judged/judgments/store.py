"""The :class:`Store`: one object over the judgment store, for the command line, notebooks and the web app.

Every method is one transaction: it either happens completely or not at all.
Methods take and return plain values (:mod:`judged.judgments.model`
dataclasses, polars frames, :class:`~judged.Qrels`), never database objects.

To callers the store is one class. Its engine and transactions are in
:mod:`~judged.judgments.store_base`; two groups of its methods are kept in
their own modules and inherited: the automatic assessors'
(:mod:`~judged.judgments.store_automatic`) and the targeted efforts'
(:mod:`~judged.judgments.store_targeting`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import polars as pl
import sqlalchemy as sa

from judged.errors import UsageError
from judged.io.inputs import Qrels, Run
from judged.judgments import adjudicate as adjudication
from judged.judgments import assign as assignment
from judged.judgments import automatic, catalog, chain, log, migrate, pools
from judged.judgments import freeze as sets
from judged.judgments import schema as t
from judged.judgments.engine import check_integrity, create_engine, immutable_url, resolve_url
from judged.judgments.failures import explain
from judged.judgments.model import (
    Adjudication,
    AssignedPair,
    Disagreement,
    Document,
    Judgment,
    JudgmentSet,
    NewJudgment,
    Query,
    Recorded,
)
from judged.judgments.qrels_import import import_plan, read_labels
from judged.judgments.store_automatic import AutomaticMethods
from judged.judgments.store_targeting import TargetingMethods
from judged.judgments.verify import Verification, verify
from judged.rubric import Rubric


def _writable(path: Path) -> bool:
    """Whether SQLite can write ``path``: the file, and its folder (for the WAL and shared-memory files)."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


class Store(TargetingMethods, AutomaticMethods):
    """A judgment store at a database URL (SQLite by default, or PostgreSQL).

    >>> store = Store.open("sqlite://")        # in memory; Store.open() uses ./judged.db
    >>> store.record("q1", "d1", assessor="alice", grade=2).grade
    2
    >>> _ = store.record("q1", "d1", assessor="alice", grade=3, note="missed the table")
    >>> store.current_labels().rows()
    [('q1', 'd1', 'alice', 3)]
    >>> [e.grade for e in store.history("q1", "d1")]   # nothing is overwritten
    [2, 3]
    >>> store.close()
    """

    @classmethod
    def open(cls, db: str | None = None, *, upgrade: bool = True, must_exist: bool = False) -> Store:
        """Open (and by default migrate) the store at ``db``: a URL, an SQLite path, ``$JUDGED_DB`` or ``judged.db``.

        A missing SQLite file is created, unless ``must_exist`` (for commands that only read). A store
        about to be written is integrity-checked first (SQLite ``quick_check``): a damaged file is
        refused rather than written to. An SQLite file that cannot be written (an archived, read-only
        copy) is opened for reading in SQLite's immutable mode when ``must_exist``.
        """
        engine = create_engine(resolve_url(db))
        path = engine.url.database if engine.dialect.name == "sqlite" else None
        on_disk = bool(path) and path != ":memory:" and not engine.url.query.get("uri")
        if must_exist and on_disk and not Path(str(path)).is_file():
            engine.dispose()
            raise UsageError(f"no judgment store at {path}; name one with --db or $JUDGED_DB, or create it "
                             "with `judged db upgrade`.")
        read_only = must_exist and on_disk and not _writable(Path(str(path)))
        if read_only:
            engine.dispose()
            engine = create_engine(immutable_url(Path(str(path))))
        store = cls(engine)
        try:
            if read_only or not upgrade:
                status = migrate.status(store.engine)
                if read_only and status.pending:
                    raise UsageError(f"the read-only store {path} is at schema revision {status.current}; "
                                     f"upgrade a writable copy with `judged db upgrade` to read it.")
            else:
                if on_disk and not must_exist:
                    check_integrity(store.engine)
                migrate.upgrade(store.engine)
        except sa.exc.DBAPIError as err:
            store.close()
            raise explain(err, store.url) from None
        except BaseException:
            store.close()
            raise
        return store

    def schema_status(self) -> migrate.SchemaStatus:
        """The store's schema revision and any pending migrations."""
        return migrate.status(self.engine)

    def upgrade(self) -> tuple[str, ...]:
        """Apply pending migrations; returns the revisions applied."""
        return migrate.upgrade(self.engine)

    def verify(self, expect_head: str | None = None) -> Verification:
        """Check the hash chains of the log and adjudications, an anchor kept from :meth:`head` when given, and
        every frozen set (``judged db verify``).

        >>> store = Store.open("sqlite://")
        >>> _ = store.record("q1", "d1", assessor="ana", grade=2)
        >>> kept = store.head()
        >>> kept.startswith("judgments@1:"), store.verify(expect_head=kept).ok
        (True, True)
        """
        with self._read() as connection:
            return verify(connection, expect_head)

    def head(self) -> str:
        """The chains' head as one token to keep elsewhere (``judged db head``); see :func:`chain.anchor`."""
        with self._read() as connection:
            return chain.anchor(connection)

    def grant_app_role(self, role: str) -> None:
        """PostgreSQL: let ``role`` (the web app's) read and append, never rewrite (:func:`migrate.grant_app_role`)."""
        migrate.grant_app_role(self.engine, role)

    def counts(self) -> dict[str, int]:
        """Rows per table, for ``judged db status``."""
        with self._read() as connection:
            return {
                name: connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
                for name, table in sorted(t.metadata.tables.items())
            }

    # -- collection --------------------------------------------------------------------------

    def add_queries(self, queries: Sequence[Query]) -> int:
        """Store queries (identical ones again are skipped, changed ones refused); returns how many were new."""
        with self._write() as connection:
            return catalog.add_queries(connection, queries)

    def add_documents(self, documents: Sequence[Document]) -> int:
        """Store documents (identical ones again are skipped, changed ones refused); returns how many were new."""
        with self._write() as connection:
            return catalog.add_documents(connection, documents)

    def queries(self) -> list[Query]:
        """Every stored query, by qid."""
        with self._read() as connection:
            return catalog.queries(connection)

    def query(self, qid: str) -> Query | None:
        """One stored query, or ``None``."""
        with self._read() as connection:
            return catalog.query(connection, qid)

    def document(self, docid: str) -> Document | None:
        """One stored document, or ``None``."""
        with self._read() as connection:
            return catalog.document(connection, docid)

    def add_rubric(self, rubric: Rubric) -> bool:
        """Store a rubric version; ``False`` when that exact version was already stored."""
        with self._write() as connection:
            return catalog.add_rubric(connection, rubric)

    def rubric(self, spec: str | None = None) -> Rubric | None:
        """The rubric ``name@version`` (``name``: its newest version; ``None``: the newest rubric, or ``None``).

        Its ``grades`` are the fixed grade domain the agreement statistics use.

        >>> from judged.rubric import Level, Rubric
        >>> store = Store.open("sqlite://")
        >>> store.add_rubric(Rubric("docs", "1", (0, 2), (Level(2, "done", "can finish the task"),
        ...                                            Level(1, "part", "can start"), Level(0, "no", "cannot"))))
        True
        >>> store.rubric("docs").grades
        (0, 1, 2)
        """
        with self._read() as connection:
            return catalog.rubric_by_spec(connection, spec)

    def assessors(self) -> list[str]:
        """Every assessor and adjudicator that has written to the store."""
        with self._read() as connection:
            return catalog.assessors(connection)

    # -- the judgment log ---------------------------------------------------------------------

    def check_known(self, *, qid: str | None = None, docid: str | None = None, assessor: str | None = None) -> None:
        """Refuse a query, document or assessor the store does not know, with "Did you mean ...?".

        >>> store = Store.open("sqlite://")
        >>> store.add_queries([Query("q01", "rotate api keys")])
        1
        >>> store.check_known(qid="q1")
        Traceback (most recent call last):
        judged.errors.UsageError: the store knows no query 'q1'. Did you mean 'q01'?
        """
        with self._read() as connection:
            catalog.check_known(connection, qid=qid, docid=docid, assessor=assessor)

    def record(
        self, qid: str, docid: str, *, assessor: str, grade: int | None = None, cannot_judge: str | None = None,
        note: str | None = None, rubric: str | None = None, event_id: str | None = None,
    ) -> Judgment:
        """Append one grade (or cannot-judge with its reason) and return the stored event.

        ``rubric`` defaults to the newest rubric in the store, and the grade must
        be one of its levels. A retry with the same ``event_id`` (a UUID) returns
        the event stored the first time instead of storing it again.
        """
        ident = log.event_id(event_id)
        entry = NewJudgment(qid, docid, assessor, grade, cannot_judge, note, rubric, ident)
        with self._write() as connection:
            log.record(connection, [entry], catalog.rubric_id(connection, None))
            return log.stored(connection, ident)

    def record_many(self, entries: Iterable[NewJudgment], *, rubric: str | None = None) -> Recorded:
        """Append many judgments in one transaction (all or none).

        Entries without a rubric get ``rubric``, which defaults (as in :meth:`record`) to the newest rubric
        in the store: its levels are checked and the events fall under its version's rules.

        >>> from judged.rubric import Rubric
        >>> store = Store.open("sqlite://")
        >>> store.add_rubric(Rubric.from_dict({"name": "docs", "version": 1, "scale": [0, 1], "level": [
        ...     {"grade": 1, "label": "yes", "description": "It answers."},
        ...     {"grade": 0, "label": "no", "description": "It does not."}]}))
        True
        >>> store.record_many([NewJudgment("q1", "d1", "ana", grade=1)])
        Recorded(inserted=1, already_stored=0, withdrawn=0)
        >>> store.current()[0].rubric
        'docs@1'
        """
        with self._write() as connection:
            return log.record(connection, entries, catalog.rubric_id(connection, rubric))

    def undo(self, qid: str, docid: str, *, assessor: str, event_id: str | None = None) -> Judgment:
        """Withdraw the assessor's current label of the pair (itself an event); the previous label returns.

        >>> store = Store.open("sqlite://")
        >>> for grade in (1, 3):
        ...     _ = store.record("q1", "d1", assessor="ana", grade=grade)
        >>> store.undo("q1", "d1", assessor="ana").kind
        'undo'
        >>> store.current_labels()["grade"].to_list()
        [1]
        """
        with self._write() as connection:
            return log.undo(connection, qid, docid, assessor, event_id)

    def history(self, qid: str, docid: str) -> list[Judgment]:
        """Every event of a pair, in log order."""
        with self._read() as connection:
            return log.history(connection, qid, docid)

    def current(self, *, assessors: Iterable[str] | None = None) -> list[Judgment]:
        """The current label event of every (pair, assessor): grades and cannot-judge."""
        with self._read() as connection:
            return list(log.current_events(connection, assessors))

    def current_labels(self, *, assessors: Iterable[str] | None = None) -> pl.DataFrame:
        """Current grades as ``qid, docid, assessor, grade`` (one row per pair per assessor), for agreement."""
        with self._read() as connection:
            return log.current_labels(connection, assessors)

    def import_qrels(self, source: str | Path | Qrels, *, assessor: str, rubric: str | None = None,
                     mode: str | None = None) -> Recorded:
        """Make a qrels file's labels ``assessor``'s grades, in one transaction.

        An import records only what changes: importing a file that is already
        the assessor's labels stores nothing (``inserted=0``, every label counted
        in ``already_stored``). No rubric applies unless ``rubric`` names one. An
        assessor who already has labels needs ``mode``: ``"replace"`` (the file
        becomes exactly their labels, whatever was imported before: a new
        revision, where pairs it lacks are withdrawn by undo events) or ``"add"``
        (its labels join theirs; a pair in both takes the file's grade);
        otherwise nothing is stored, so two files never mix by accident.

        >>> store = Store.open("sqlite://")
        >>> store.import_qrels("examples/qrels.txt", assessor="nist")
        Recorded(inserted=239, already_stored=0, withdrawn=0)
        >>> store.import_qrels("examples/qrels.txt", assessor="nist")
        Recorded(inserted=0, already_stored=239, withdrawn=0)
        >>> store.import_qrels({"q01": {"api/overview": 1}}, assessor="nist", mode="replace")
        Recorded(inserted=1, already_stored=0, withdrawn=239)
        >>> store.current_labels().height
        1
        """
        if mode not in (None, "replace", "add"):
            raise UsageError(f"mode must be replace or add. Got {mode!r} instead.")
        resolved = self.rubric(rubric) if rubric else None
        qrels = read_labels(source, assessor, resolved)
        with self._write() as connection:
            chain.lock(connection, "judgments")  # what is current cannot change between reading it and writing
            current = {(e.qid, e.docid): e for e in log.current_events(connection, [assessor])}
            plan = import_plan(qrels, assessor, f"{resolved.name}@{resolved.version}" if resolved else None,
                               current, replace=mode == "replace", head=chain.head(connection, t.judgments)[1])
            if current and plan.entries and mode is None:
                raise UsageError(
                    f"{assessor} already has {len(current)} label(s) from an earlier import; say what this one "
                    "does: --replace (this file becomes their labels, as a new revision; pairs it lacks are "
                    "withdrawn) or --add (its labels join theirs; a pair in both takes this file's grade)."
                )
            recorded = log.record(connection, plan.entries, catalog.rubric_id(connection, rubric) if rubric else None)
            for qid, docid in plan.withdrawn:
                while log.current(connection, qid, docid, assessor) is not None:
                    log.undo(connection, qid, docid, assessor, None)
            return Recorded(recorded.inserted, recorded.already_stored + plan.unchanged, len(plan.withdrawn))

    # -- pools and assignments ----------------------------------------------------------------

    def build_pool(
        self, runs: Sequence[Run], *, depth: int, pool: str = "default", ties: str = "trec"
    ) -> pools.PoolReport:
        """Build a pool from the union of each run's top ``depth`` per query, ranked under ``ties``.

        >>> from judged import Run
        >>> store = Store.open("sqlite://")
        >>> runs = [Run.from_dict({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}, name="x"),
        ...         Run.from_dict({"q1": {"c": 3.0, "a": 2.0}}, name="y")]
        >>> report = store.build_pool(runs, depth=2)
        >>> report.sizes, [(r.run, r.pairs, r.unique) for r in report.runs]
        ({'q1': 3}, [('x', 2, 1), ('y', 2, 1)])
        >>> store.pool().rows()
        [('q1', 'a', ['x', 'y']), ('q1', 'b', ['x']), ('q1', 'c', ['y'])]
        >>> store.extend_pool(Run.from_dict({"q1": {"d": 1.0, "a": 0.5}}, name="z"), depth=2).added
        {'q1': 1}
        """
        with self._write() as connection:
            return pools.build(connection, pool, runs, depth, ties)

    def extend_pool(
        self, run: Run, *, depth: int, pool: str = "default", ties: str = "trec"
    ) -> pools.PoolExtension:
        """Add a new run's top ``depth`` to a pool; reports the pairs it adds that still need judging."""
        with self._write() as connection:
            judged = {(e.qid, e.docid) for e in log.current_events(connection)} | set(adjudication.latest(connection))
            return pools.extend(connection, pool, run, depth, judged, ties)

    def pool(self, pool: str = "default") -> pl.DataFrame:
        """Pooled pairs and the runs whose top k holds each: ``qid, docid, runs`` (a list, in run order)."""
        with self._read() as connection:
            found = pools.membership(connection, pool)
        return pl.DataFrame(
            {"qid": [q for q, _ in found], "docid": [d for _, d in found], "runs": list(found.values())},
            schema={"qid": pl.String, "docid": pl.String, "runs": pl.List(pl.String)},
        )

    def pool_report(self, pool: str = "default") -> pools.PoolReport:
        """A pool's size per query and each run's contribution."""
        with self._read() as connection:
            return pools.report(connection, pool)

    def assign(
        self, assessors: Sequence[str], *, pool: str = "default", overlap_queries: int | None = None,
        overlap_fraction: float | None = None, seed: int = 0, target: str | None = None, by: str | None = None,
    ) -> assignment.AssignmentReport:
        """Split a pool's unassigned pairs among assessors, with an overlap set (see :mod:`~judged.judgments.assign`).

        ``target``: in the same transaction, target the effort on this measure
        (one settle bounds exactly; ``"off"``: stop targeting it), as :meth:`set_target` does, ``by`` whom.

        >>> from judged import Run
        >>> store = Store.open("sqlite://")
        >>> run = Run.from_dict({q: {"a": 2.0, "b": 1.0} for q in ("q1", "q2", "q3")})
        >>> _ = store.build_pool([run], depth=2)
        >>> report = store.assign(["ana", "ben"], overlap_queries=1)
        >>> report.overlap_queries, {name: share.pairs for name, share in report.shares.items()}
        (('q3',), {'ana': 4, 'ben': 4})
        >>> sorted({pair.qid for pair in store.queue("ben")})
        ['q2', 'q3']
        """
        with self._write() as connection:
            report = assignment.assign(connection, pool, assessors, overlap_queries=overlap_queries,
                                       overlap_fraction=overlap_fraction, seed=seed)
            if target is not None:
                from judged.judgments import targeting

                targeting.set_target(connection, pool, target, by)
            return report

    def queue(self, assessor: str, *, pending_only: bool = True, rejudge_older: bool = False) -> list[AssignedPair]:
        """An assessor's pairs in presentation order (no run names, ranks or scores).

        ``rejudge_older``: pairs graded under an older version of the newest rubric are pending again.
        """
        with self._read() as connection:
            newest = catalog.rubric_by_spec(connection, None) if rejudge_older else None
            spec = f"{newest.name}@{newest.version}" if newest else None
            return assignment.queue(connection, assessor, pending_only, spec)

    # -- adjudication and frozen sets ---------------------------------------------------------

    def disagreements(self, *, min_diff: int = 2, pending_only: bool = True,
                      include_automatic: bool = False) -> list[Disagreement]:
        """Pairs whose assessors' grades differ by ``min_diff`` or more, labels and notes side by side: people's
        labels, and automatic assessors' with ``include_automatic`` (:meth:`counted_assessors` counts them).

        >>> store = Store.open("sqlite://")
        >>> _ = store.record("q1", "d1", assessor="ana", grade=3, note="exact steps")
        >>> _ = store.record("q1", "d1", assessor="ben", grade=1)
        >>> [(d.docid, d.difference, [label.grade for label in d.labels]) for d in store.disagreements()]
        [('d1', 2, [3, 1])]
        >>> _ = store.adjudicate("q1", "d1", 2, adjudicator="lead", note="steps, but for v1")
        >>> store.disagreements()
        []
        """
        with self._read() as connection:
            whose = automatic.counted(connection, include_automatic=include_automatic)
            return adjudication.disagreements(connection, min_diff, pending_only, whose.assessors)

    def adjudicate(
        self, qid: str, docid: str, grade: int, *, adjudicator: str, note: str, event_id: str | None = None,
    ) -> Adjudication:
        """Record the final grade of a pair, with a note; the latest adjudication counts."""
        with self._write() as connection:
            return adjudication.adjudicate(connection, qid, docid, grade, adjudicator=adjudicator, note=note,
                                           rubric=catalog.rubric_id(connection, None), event=event_id)

    def adjudicate_many(self, decisions: Iterable[tuple[str, str, int, str]], *, adjudicator: str) -> int:
        """Record many final grades ``(qid, docid, grade, note)`` in one transaction: all of them, or none."""
        with self._write() as connection:
            rubric = catalog.rubric_id(connection, None)
            count = 0
            for qid, docid, grade, note in decisions:
                adjudication.adjudicate(connection, qid, docid, grade, adjudicator=adjudicator, note=note,
                                        rubric=rubric)
                count += 1
            return count

    def freeze(
        self, name: str, *, resolve: str = "refuse", assessors: Sequence[str] | None = None,
        adjudications: bool = True, pool: str | None = None, effort: str | None = None,
        include_automatic: bool = False,
    ) -> sets.Frozen:
        """Freeze the current labels as the next version of the set ``name`` (see :mod:`~judged.judgments.freeze`).

        ``effort`` names a pool with assignments: only its pairs, its assessors' labels and their adjudications.
        Automatic assessors' labels are frozen only with ``include_automatic`` (the policy then names them).

        >>> store = Store.open("sqlite://")
        >>> _ = store.record("q1", "d1", assessor="nist", grade=1)
        >>> frozen = store.freeze("trec")
        >>> frozen.judgment_set.id
        'trec@1'
        >>> qrels_text, sidecar = store.export("trec")
        >>> qrels_text
        'q1 0 d1 1\\n'
        >>> import hashlib
        >>> frozen.judgment_set.content_hash == hashlib.sha256(qrels_text.encode()).hexdigest()
        True
        """
        with self._write(snapshot=True) as connection:  # the labels it freezes, read as of one moment
            return sets.freeze(connection, name, pool=pool, resolve=resolve,
                               assessors=list(assessors) if assessors else None, adjudications=adjudications,
                               effort=effort, include_automatic=include_automatic)

    def judgment_set(self, spec: str) -> JudgmentSet:
        """The frozen set ``NAME@VERSION`` (``NAME``: its newest version)."""
        with self._read() as connection:
            return sets.load(connection, spec)

    def judgment_sets(self) -> list[JudgmentSet]:
        """Every frozen set, by name and version."""
        with self._read() as connection:
            specs = connection.execute(
                sa.select(t.judgment_sets.c.name, t.judgment_sets.c.version).order_by(
                    t.judgment_sets.c.name, t.judgment_sets.c.version
                )
            ).all()
            return [sets.load(connection, f"{name}@{version}") for name, version in specs]

    def qrels(self, spec: str) -> Qrels:
        """A frozen set as :class:`~judged.Qrels`; its source records the store, ``NAME@VERSION`` and content hash.

        >>> store = Store.open("sqlite://")
        >>> _ = store.record("q1", "d1", assessor="nist", grade=2)
        >>> frozen = store.freeze("nist").judgment_set
        >>> qrels = store.qrels("nist@1")
        >>> qrels.source.path, qrels.source.sha256 == frozen.content_hash
        ('sqlite://#nist@1', True)
        """
        with self._read() as connection:
            return sets.qrels(connection, sets.load(connection, spec), self.url)

    def export(self, spec: str) -> tuple[str, str]:
        """A frozen set as canonical qrels text and its JSON sidecar (pool membership, unjudged pairs)."""
        with self._read() as connection:
            judgment_set = sets.load(connection, spec)
            rows = sets.pairs(connection, judgment_set)
        return sets.qrels_text(rows), sets.sidecar(judgment_set, rows)
