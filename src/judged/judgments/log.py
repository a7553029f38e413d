"""The judgment log: append-only events, and the current labels derived from them.

An event is a grade, a cannot-judge (with the reason), or an undo that names
the event it withdraws. Nothing is updated or deleted: a re-grade is a new
event, and so is an undo. The current label of a (pair, assessor) is the
latest grade or cannot-judge event that no undo names; "latest" is the log's
sequence number, assigned by the database, never a client clock. Undoing the
current label therefore brings back the one before it.

Every event has an id (a UUID). A client that supplies it can retry a write
safely: an event whose id is already stored is not stored again, and a retry
whose content differs from what is stored is refused. Writers take the log's
append lock first (:func:`judged.judgments.chain.lock`), so each new event is
chained to the last one committed.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from itertools import islice

import polars as pl
import sqlalchemy as sa

from judged.errors import UsageError
from judged.judgments import chain
from judged.judgments import schema as t
from judged.judgments.catalog import ensure_assessors, level_grades, rubric_by_id, rubric_id
from judged.judgments.model import Judgment, NewJudgment, Recorded, as_utc, check_id, now

LABELS_SCHEMA = {"qid": pl.String, "docid": pl.String, "assessor": pl.String, "grade": pl.Int64}
_CHUNK = 500
_CONTENT = ("qid", "docid", "assessor", "kind", "grade", "reason", "note", "rubric_id", "undoes")
_j = t.judgments


def event_id(value: str | None) -> str:
    """A client event id in canonical form (a new random one for ``None``); raises on a non-UUID."""
    if value is None:
        return str(uuid.uuid4())
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise UsageError(f"an event id must be a UUID. Got {value!r} instead.") from None


def record(connection: sa.Connection, entries: Iterable[NewJudgment], default_rubric: int | None, *,
           automatic: str | None = None) -> Recorded:
    """Append ``entries`` (consumed in chunks, all in the caller's transaction); see the module docstring.

    An entry without a rubric is recorded under ``default_rubric`` (an id, or ``None`` for no rubric).
    Grades must belong to the rubric's levels when there is one. An automatic assessor's name is reserved:
    only its own import (``automatic``, that assessor's name) records under it.
    """
    rubrics: dict[str | None, tuple[int | None, tuple[int, ...] | None]] = {}
    inserted = already = 0
    iterator = iter(entries)
    chain.lock(connection, "judgments")  # held to the end: what is stored now cannot change under these writes
    while chunk := list(islice(iterator, _CHUNK)):
        rows = [_row(entry, _rubric(connection, entry.rubric, default_rubric, rubrics)) for entry in chunk]
        _refuse_reserved(connection, {row["assessor"] for row in rows} - {automatic})
        ensure_assessors(connection, (row["assessor"] for row in rows))
        ids = [row["event_id"] for row in rows]
        seen = set(connection.execute(sa.select(_j.c.event_id).where(_j.c.event_id.in_(ids))).scalars())
        new: list[dict] = []
        retried: list[dict] = []
        for row in rows:  # stored before, or repeated within this chunk: a retry, checked against what is stored
            (retried if row["event_id"] in seen else new).append(row)
            seen.add(row["event_id"])
        chain.append(connection, _j, new)
        _check_retries(connection, retried)
        inserted += len(new)
        already += len(retried)
    return Recorded(inserted, already)


def _refuse_reserved(connection: sa.Connection, names: set[str]) -> None:
    """A person's write under an automatic assessor's name would pass it off as the machine's, or the reverse."""
    taken = sorted(connection.execute(sa.select(t.automatic_assessors.c.name).where(
        t.automatic_assessors.c.name.in_(sorted(names)))).scalars()) if names else []
    if taken:
        raise UsageError(f"{taken[0]!r} is an automatic assessor: its labels come only from `judged import "
                         "automatic`; record a person's grades under the person's own name.")


def _rubric(connection, spec, default, cache) -> tuple[int | None, tuple[int, ...] | None]:
    if spec not in cache:
        ident = default if spec is None else rubric_id(connection, spec)
        cache[spec] = (ident, level_grades(rubric_by_id(connection, ident)) if ident is not None else None)
    return cache[spec]


def _row(entry: NewJudgment, rubric: tuple[int | None, tuple[int, ...] | None]) -> dict:
    check_id(entry.qid, "a query id")
    check_id(entry.docid, "a document id")
    rubric_ident, grades = rubric
    if entry.cannot_judge is not None:
        if entry.grade is not None:
            raise UsageError("a judgment is a grade or cannot-judge, not both.")
        if not isinstance(entry.cannot_judge, str) or not entry.cannot_judge.strip():
            raise UsageError(f"cannot-judge needs a reason. Got {entry.cannot_judge!r} instead.")
    elif isinstance(entry.grade, bool) or not isinstance(entry.grade, int):
        raise UsageError(f"a grade must be an integer. Got {entry.grade!r} instead.")
    elif grades is not None and entry.grade not in grades:
        raise UsageError(
            f"grade {entry.grade} is not a level of the rubric in force; expected one of {', '.join(map(str, grades))}."
        )
    return {
        "event_id": event_id(entry.event_id),
        "qid": entry.qid,
        "docid": entry.docid,
        "assessor": entry.assessor,
        "kind": entry.kind,
        "grade": entry.grade if entry.cannot_judge is None else None,
        "reason": entry.cannot_judge,
        "note": entry.note,
        "rubric_id": rubric_ident,
        "undoes": None,
        "created": now(),
    }


def _check_retries(connection: sa.Connection, rows: list[dict]) -> None:
    """Refuse a retry whose content differs from the event stored under its id."""
    if not rows:
        return
    ids = [row["event_id"] for row in rows]
    stored = {
        row.event_id: row
        for row in connection.execute(sa.select(_j).where(_j.c.event_id.in_(ids))).mappings()
    }
    for row in rows:
        earlier = stored[row["event_id"]]
        if any(earlier[c] != row[c] for c in _CONTENT):
            raise UsageError(
                f"event id {row['event_id']} is already stored for a different event "
                f"({earlier['kind']} of {earlier['qid']} {earlier['docid']} by {earlier['assessor']}); "
                "a retried write must repeat the same event"
            )


def undo(connection: sa.Connection, qid: str, docid: str, assessor: str, event: str | None) -> Judgment:
    """Withdraw the assessor's current label of the pair (a retry with the same ``event`` id undoes once)."""
    ident = event_id(event)
    chain.lock(connection, "judgments")
    earlier = by_event_id(connection, ident)
    if earlier is not None:
        return _same_undo(earlier, qid, docid, assessor)
    target = current(connection, qid, docid, assessor)
    if target is None:
        raise UsageError(f"{assessor} has no label of {qid} {docid} to undo.")
    row = {
        "event_id": ident, "qid": qid, "docid": docid, "assessor": assessor, "kind": "undo",
        "undoes": target.event_id, "rubric_id": None, "created": now(),
    }
    chain.append(connection, _j, [row])
    return stored(connection, ident)


def _same_undo(earlier: Judgment, qid: str, docid: str, assessor: str) -> Judgment:
    """The stored event, when it is this undo retried; otherwise the id was used for something else."""
    if (earlier.kind, earlier.qid, earlier.docid, earlier.assessor) != ("undo", qid, docid, assessor):
        raise UsageError(f"event id {earlier.event_id} is already stored for a different event.")
    return earlier


def _current_ids(through: int | None = None) -> sa.Select:
    """Sequence numbers of the current label events: per (pair, assessor), the latest not undone (as the log
    stood after event ``through``, when given)."""
    undone = sa.select(_j.c.undoes).where(_j.c.undoes.is_not(None))
    latest = sa.select(sa.func.max(_j.c.id)).where(_j.c.kind != "undo")
    if through is not None:
        undone, latest = undone.where(_j.c.id <= through), latest.where(_j.c.id <= through)
    return latest.where(_j.c.event_id.not_in(undone)).group_by(_j.c.qid, _j.c.docid, _j.c.assessor)


def _events() -> sa.Select:
    return sa.select(_j, (t.rubrics.c.name + "@" + t.rubrics.c.version).label("rubric")).select_from(
        _j.outerjoin(t.rubrics, _j.c.rubric_id == t.rubrics.c.id)
    )


def current(connection: sa.Connection, qid: str, docid: str, assessor: str) -> Judgment | None:
    """The assessor's current label event of the pair, or ``None``."""
    statement = _events().where(
        _j.c.id.in_(_current_ids().where(_j.c.qid == qid, _j.c.docid == docid, _j.c.assessor == assessor))
    )
    row = connection.execute(statement).mappings().first()
    return _judgment(row) if row else None


def current_events(connection: sa.Connection, assessors: Iterable[str] | None = None,
                   through: int | None = None) -> Iterator[Judgment]:
    """Every current label event (grades and cannot-judge), by qid, docid and assessor; ``through``: as the log
    stood after that event (a frozen set's head)."""
    statement = _events().where(_j.c.id.in_(_current_ids(through)))
    if assessors is not None:
        statement = statement.where(_j.c.assessor.in_(list(assessors)))
    rows = connection.execute(statement).mappings()
    return iter(sorted((_judgment(row) for row in rows), key=lambda e: (e.qid, e.docid, e.assessor)))


def current_labels(connection: sa.Connection, assessors: Iterable[str] | None = None) -> pl.DataFrame:
    """Current grades as a frame ``qid, docid, assessor, grade``: one row per pair per assessor.

    Cannot-judge labels are left out (they are not grades); rows are sorted by
    qid, docid and assessor (byte order). This is the frame the agreement
    statistics take.
    """
    events = [e for e in current_events(connection, assessors) if e.kind == "grade"]
    return pl.DataFrame(
        {
            "qid": [e.qid for e in events],
            "docid": [e.docid for e in events],
            "assessor": [e.assessor for e in events],
            "grade": [e.grade for e in events],
        },
        schema=LABELS_SCHEMA,
    )


def history(connection: sa.Connection, qid: str, docid: str) -> list[Judgment]:
    """Every event of the pair, in log order."""
    statement = _events().where(_j.c.qid == qid, _j.c.docid == docid).order_by(_j.c.id)
    return [_judgment(row) for row in connection.execute(statement).mappings()]


def by_event_id(connection: sa.Connection, ident: str) -> Judgment | None:
    """The event stored under ``ident``, or ``None``."""
    row = connection.execute(_events().where(_j.c.event_id == ident)).mappings().first()
    return _judgment(row) if row else None


def stored(connection: sa.Connection, ident: str) -> Judgment:
    """The event just stored (or found stored) under ``ident``, in this transaction."""
    event = by_event_id(connection, ident)
    if event is None:
        raise LookupError(f"event {ident} was stored in this transaction but cannot be read back")
    return event


def _judgment(row) -> Judgment:
    return Judgment(
        seq=row["id"], event_id=row["event_id"], qid=row["qid"], docid=row["docid"], assessor=row["assessor"],
        kind=row["kind"], grade=row["grade"], reason=row["reason"], note=row["note"], rubric=row["rubric"],
        undoes=row["undoes"], created=as_utc(row["created"]),
    )
