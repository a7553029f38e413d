"""Adjudication: find the pairs whose assessors disagree, and record a final grade with a note.

Adjudications are events too: setting a pair again appends a new event and
the latest one counts. A frozen judgment set takes an adjudicated grade over
every assessor's label of that pair.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Sequence

import sqlalchemy as sa

from judged.errors import UsageError
from judged.judgments import chain
from judged.judgments import schema as t
from judged.judgments.catalog import ensure_assessors, level_grades, rubric_by_id
from judged.judgments.log import current_events, event_id
from judged.judgments.model import Adjudication, AssessorLabel, Disagreement, as_utc, check_id, now

_a = t.adjudications


def adjudicate(
    connection: sa.Connection, qid: str, docid: str, grade: int, *, adjudicator: str, note: str,
    rubric: int | None, event: str | None = None,
) -> Adjudication:
    """Record the final grade of a pair; a retry with the same ``event`` id is stored once."""
    check_id(qid, "a query id")
    check_id(docid, "a document id")
    if isinstance(grade, bool) or not isinstance(grade, int):
        raise UsageError(f"a grade must be an integer. Got {grade!r} instead.")
    if rubric is not None and grade not in (grades := level_grades(rubric_by_id(connection, rubric))):
        raise UsageError(f"grade {grade} is not a level of the rubric in force; expected one of {grades}.")
    if not isinstance(note, str) or not note.strip():
        raise UsageError("an adjudication needs a note saying why this grade.")
    _check_pair(connection, qid, docid)
    ensure_assessors(connection, [adjudicator])
    row = {"event_id": event_id(event), "qid": qid, "docid": docid, "adjudicator": adjudicator, "grade": grade,
           "note": note, "rubric_id": rubric, "created": now()}
    chain.lock(connection, "adjudications")
    stored = connection.execute(sa.select(_a).where(_a.c.event_id == row["event_id"])).mappings().first()
    if stored is None:
        chain.append(connection, _a, [row])
    elif any(stored[c] != row[c] for c in ("qid", "docid", "adjudicator", "grade", "note", "rubric_id")):
        raise UsageError(f"event id {row['event_id']} is already stored for a different adjudication.")
    return _adjudication(connection.execute(_select().where(_a.c.event_id == row["event_id"])).mappings().one())


def _check_pair(connection: sa.Connection, qid: str, docid: str) -> None:
    """Refuse to adjudicate a pair that is in no pool and that nobody labelled: there is nothing to settle."""
    for table in (t.pool_members, t.judgments):
        if connection.execute(sa.select(table.c.qid).where(table.c.qid == qid, table.c.docid == docid)
                              .limit(1)).first() is not None:
            return
    known = sorted(set(connection.execute(sa.select(t.pool_members.c.docid).where(t.pool_members.c.qid == qid))
                       .scalars()) | set(connection.execute(sa.select(t.judgments.c.docid)
                                                            .where(t.judgments.c.qid == qid)).scalars()))
    close = difflib.get_close_matches(docid, known, n=3)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    raise UsageError(f"{qid} {docid} is in no pool and nobody has labelled it: there is nothing to adjudicate.{hint}")


def latest(connection: sa.Connection, through: int | None = None) -> dict[tuple[str, str], Adjudication]:
    """The adjudication in force for every adjudicated pair (the latest event of the pair; ``through``: the
    latest up to that event)."""
    newest = sa.select(sa.func.max(_a.c.id)).group_by(_a.c.qid, _a.c.docid)
    if through is not None:
        newest = newest.where(_a.c.id <= through)
    rows = connection.execute(_select().where(_a.c.id.in_(newest))).mappings()
    return {(row["qid"], row["docid"]): _adjudication(row) for row in rows}


def disagreements(connection: sa.Connection, min_diff: int = 2, pending_only: bool = True,
                  assessors: Sequence[str] | None = None) -> list[Disagreement]:
    """Pairs whose assessors' current grades differ by ``min_diff`` or more, by qid and docid.

    Cannot-judge labels are shown beside the grades but take no part in the
    difference. ``pending_only`` leaves out pairs already adjudicated;
    ``assessors`` reads only their labels (the store passes
    :func:`judged.judgments.automatic.counted`'s).
    """
    if isinstance(min_diff, bool) or not isinstance(min_diff, int) or min_diff < 1:
        raise UsageError(f"min_diff must be an int >= 1. Got {min_diff!r} instead.")
    labels: dict[tuple[str, str], list[AssessorLabel]] = defaultdict(list)
    for e in current_events(connection, assessors):
        labels[(e.qid, e.docid)].append(AssessorLabel(e.assessor, e.grade, e.reason, e.note))
    decided = latest(connection)
    found = []
    for pair, pair_labels in labels.items():
        grades = [label.grade for label in pair_labels if label.grade is not None]
        if len(grades) < 2 or max(grades) - min(grades) < min_diff or (pending_only and pair in decided):
            continue
        found.append(Disagreement(*pair, max(grades) - min(grades), tuple(pair_labels), decided.get(pair)))
    return found


def _select() -> sa.Select:
    return sa.select(_a, (t.rubrics.c.name + "@" + t.rubrics.c.version).label("rubric")).select_from(
        _a.outerjoin(t.rubrics, _a.c.rubric_id == t.rubrics.c.id)
    )


def _adjudication(row) -> Adjudication:
    return Adjudication(row["id"], row["event_id"], row["qid"], row["docid"], row["adjudicator"], row["grade"],
                        row["note"], row["rubric"], as_utc(row["created"]))
