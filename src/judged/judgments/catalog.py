"""The collection side of the store: queries, documents, rubrics and assessors.

Adding a query or document that is already stored with the same content does
nothing; adding one with different content is refused, so the text an
assessor judged cannot change under the judgment. A rubric version is
immutable in the same way: change the rubric, give it a new version.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import asdict

import sqlalchemy as sa

from judged.errors import UsageError
from judged.judgments import schema as t
from judged.judgments.engine import insert_new
from judged.judgments.model import Document, Query, check_id, now
from judged.rubric import Level, Rubric

_CHUNK = 500


def add_queries(connection: sa.Connection, queries: Sequence[Query]) -> int:
    """Store ``queries``; returns how many were new. Raises :class:`UsageError` on changed content."""
    for query in queries:
        check_id(query.qid, "a query id")
    return _add(connection, t.queries, "qid", [asdict(q) for q in queries], "query")


def add_documents(connection: sa.Connection, documents: Sequence[Document]) -> int:
    """Store ``documents``; returns how many were new. Raises :class:`UsageError` on changed content."""
    for document in documents:
        check_id(document.docid, "a document id")
    return _add(connection, t.documents, "docid", [asdict(d) for d in documents], "document")


def _add(connection: sa.Connection, table: sa.Table, key: str, rows: list[dict], what: str) -> int:
    stored: dict[str, dict] = {}
    ids = [row[key] for row in rows]
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        for found in connection.execute(sa.select(table).where(table.c[key].in_(chunk))).mappings():
            stored[found[key]] = dict(found)
    new = []
    seen: dict[str, dict] = {}
    for row in rows:
        earlier = stored.get(row[key]) or seen.get(row[key])
        if earlier is not None and earlier != row:
            changed = sorted(c for c in row if row[c] != earlier.get(c))
            raise UsageError(
                f"{what} {row[key]!r} is already stored with a different {', '.join(changed)}; "
                "stored texts never change under their judgments"
            )
        if earlier is None:
            new.append(row)
            seen[row[key]] = row
    return len(insert_new(connection, table, new, [key]))


def queries(connection: sa.Connection) -> list[Query]:
    """Every stored query, by qid."""
    rows = connection.execute(sa.select(t.queries).order_by(t.queries.c.qid)).mappings()
    return [Query(**row) for row in rows]


def query(connection: sa.Connection, qid: str) -> Query | None:
    """One stored query, or ``None``."""
    row = connection.execute(sa.select(t.queries).where(t.queries.c.qid == qid)).mappings().first()
    return Query(**row) if row else None


def document(connection: sa.Connection, docid: str) -> Document | None:
    """One stored document, or ``None``."""
    row = connection.execute(sa.select(t.documents).where(t.documents.c.docid == docid)).mappings().first()
    return Document(**row) if row else None


def add_rubric(connection: sa.Connection, rubric: Rubric) -> bool:
    """Store a rubric version; ``False`` if the identical version is already stored, an error if it differs."""
    spec = f"{rubric.name}@{rubric.version}"
    grades = [level.grade for level in rubric.levels]
    if not rubric.version or not grades or len(set(grades)) != len(grades):
        raise UsageError(f"rubric {spec} needs a version, at least one level and distinct grades. Got {grades}.")
    existing = connection.execute(
        sa.select(t.rubrics.c.id).where(t.rubrics.c.name == rubric.name, t.rubrics.c.version == rubric.version)
    ).scalar()
    if existing is not None:
        if _content(rubric_by_id(connection, existing)) != _content(rubric):
            raise UsageError(
                f"rubric {spec} is already stored with different levels; a rubric version never "
                "changes: give the new text a new version"
            )
        return False
    low, high = rubric.scale or (None, None)
    rubric_id = connection.execute(
        sa.insert(t.rubrics)
        .values(name=rubric.name, version=rubric.version, scale_low=low, scale_high=high, created=now())
        .returning(t.rubrics.c.id)
    ).scalar_one()
    connection.execute(
        sa.insert(t.rubric_levels),
        [{"rubric_id": rubric_id, "grade": lv.grade, "label": lv.label, "description": lv.description}
         for lv in rubric.levels],
    )
    return True


def _content(rubric: Rubric) -> tuple:
    return rubric.scale, tuple((lv.grade, lv.label, lv.description) for lv in rubric.levels)


def level_grades(rubric: Rubric) -> tuple[int, ...]:
    """The grades an assessor may give under ``rubric``: those of its levels, ascending."""
    return tuple(level.grade for level in rubric.levels)


def rubric_id(connection: sa.Connection, spec: str | None) -> int | None:
    """The id of rubric ``name@version`` (``name`` alone: its newest version; ``None``: the newest rubric)."""
    rubrics = t.rubrics
    statement = sa.select(rubrics.c.id).order_by(rubrics.c.id.desc()).limit(1)
    if spec is not None:
        name, _, version = spec.partition("@")
        statement = statement.where(rubrics.c.name == name)
        if version:
            statement = statement.where(rubrics.c.version == version)
    found = connection.execute(statement).scalar()
    if found is None and spec is not None:
        raise UsageError(f"no rubric {spec!r} in the store; add it with `judged import rubric FILE`.")
    return found


def rubric_by_id(connection: sa.Connection, rubric_id: int) -> Rubric:
    """The rubric with this id (its levels by grade, its declared scale if any)."""
    head = connection.execute(sa.select(t.rubrics).where(t.rubrics.c.id == rubric_id)).mappings().one()
    levels = connection.execute(
        sa.select(t.rubric_levels.c.grade, t.rubric_levels.c.label, t.rubric_levels.c.description)
        .where(t.rubric_levels.c.rubric_id == rubric_id)
        .order_by(t.rubric_levels.c.grade)
    )
    scale = None if head["scale_low"] is None else (head["scale_low"], head["scale_high"])
    return Rubric(head["name"], head["version"], scale, tuple(Level(*row) for row in levels))


def rubric_by_spec(connection: sa.Connection, spec: str | None) -> Rubric | None:
    """The rubric ``spec`` names (see :func:`rubric_id`), or ``None`` when ``spec`` is ``None`` and there is none."""
    ident = rubric_id(connection, spec)
    return None if ident is None else rubric_by_id(connection, ident)


def rubric_spec(connection: sa.Connection, rubric_id: int | None) -> str | None:
    """``name@version`` of a rubric id (``None`` for none)."""
    if rubric_id is None:
        return None
    row = connection.execute(sa.select(t.rubrics.c.name, t.rubrics.c.version).where(t.rubrics.c.id == rubric_id)).one()
    return f"{row.name}@{row.version}"


def ensure_assessors(connection: sa.Connection, names: Iterable[str]) -> None:
    """Register assessors (and adjudicators) on first use."""
    rows = [{"name": check_id(name, "an assessor name"), "created": now()} for name in dict.fromkeys(names)]
    insert_new(connection, t.assessors, rows, ["name"])


def assessors(connection: sa.Connection) -> list[str]:
    """Every registered assessor, by name."""
    return list(connection.execute(sa.select(t.assessors.c.name).order_by(t.assessors.c.name)).scalars())


def check_known(connection: sa.Connection, *, qid: str | None = None, docid: str | None = None,
                assessor: str | None = None) -> None:
    """Refuse a query, document or assessor the store does not know, with "Did you mean ...?".

    A query is known when it is stored or pooled, a document likewise; an assessor when
    they have written to the store or hold a web account. Where the store knows none of a
    kind (labels imported without their collection), any is accepted.
    """
    pooled = t.pool_members
    kinds = (
        (qid, "query", (sa.select(t.queries.c.qid), sa.select(pooled.c.qid).distinct())),
        (docid, "document", (sa.select(t.documents.c.docid), sa.select(pooled.c.docid).distinct())),
        (assessor, "assessor", (sa.select(t.assessors.c.name),
                                *((sa.select(t.metadata.tables["users"].c.name),)
                                  if "users" in t.metadata.tables else ()))),
    )
    for value, what, sources in kinds:
        if value is None:
            continue
        known: set[str] = set()
        for source in sources:
            known.update(connection.execute(source).scalars())
        if known and value not in known:
            close = difflib.get_close_matches(value, sorted(known), n=3)
            hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            raise UsageError(f"the store knows no {what} {value!r}.{hint}"
                             + (" (A first label by a new assessor: --new-assessor.)" if what == "assessor" else ""))
