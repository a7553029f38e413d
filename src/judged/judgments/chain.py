"""The hash chain over the judgment log and the adjudications: each event carries a hash of itself and the one before.

An event's ``chain_hash`` is the sha256 of the previous event's ``chain_hash``
(empty for the first) followed by the event's canonical content: the columns
:data:`CONTENT` names for its table, the sequence number included, as one JSON
array (times as UTC ISO 8601 with microseconds). Changing,
removing, reordering or inserting an event therefore changes the hash of every
later one, and :func:`verify` recomputes the chain from the first event and
names the first that does not match.

Appending takes the writer lock of the log first (SQLite's ``BEGIN IMMEDIATE``
already holds it; on PostgreSQL a transaction-level advisory lock per table),
so the previous hash read is the last one committed, and sequence numbers are
assigned here, one after the last, in the order the hashes were chained.

The chain proves that the history is the one the store's own writes made; a
writer with direct access to the file or the tables could recompute it whole,
and deleting the last events or restoring an older copy leaves a shorter chain
that still verifies. An :func:`anchor` (``judged db head``: each chain's
position and hash) kept elsewhere, with a report or in a repository, makes
both detectable: ``judged db verify --expect-head ANCHOR`` checks that the
chain still holds that event at that position (:func:`check_anchor`).

>>> first = event_hash(None, {"id": 1, "grade": 2}, ("id", "grade"))
>>> first == event_hash(None, {"grade": 2, "id": 1}, ("id", "grade"))
True
>>> first == event_hash(None, {"id": 1, "grade": 3}, ("id", "grade"))
False
>>> len(event_hash(first, {"id": 2, "grade": 1}, ("id", "grade")))
64
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import sqlalchemy as sa

from judged.errors import UsageError
from judged.judgments import schema as t
from judged.judgments.model import as_utc

#: The chained tables, in the order ``judged db verify`` checks them, and the columns each event's hash covers.
#: Fixed here (not "every column"), so a later column never changes the hashes already stored.
CONTENT = {
    "judgments": ("id", "event_id", "qid", "docid", "assessor", "kind", "grade", "reason", "note", "rubric_id",
                  "undoes", "created"),
    "adjudications": ("id", "event_id", "qid", "docid", "adjudicator", "grade", "note", "rubric_id", "created"),
}
_LOCK_KEYS = {"judgments": 0x6A75646765640002, "adjudications": 0x6A75646765640003,
              "judgment_sets": 0x6A75646765640004}
_BATCH = 2000


def _canonical(value: object) -> object:
    if isinstance(value, dt.datetime):
        return as_utc(value).isoformat(timespec="microseconds")
    return value


def event_hash(previous: str | None, row: Mapping[str, object], columns: tuple[str, ...]) -> str:
    """The chain hash of ``row`` (its ``columns``) after the event whose hash is ``previous``."""
    content = [[name, _canonical(row[name])] for name in sorted(columns)]
    text = json.dumps(content, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{previous or ''}\n{text}".encode()).hexdigest()


def lock(connection: sa.Connection, table: str) -> None:
    """Hold the append lock of ``table`` (a chained table, or ``judgment_sets`` for freezing) until the
    transaction ends. SQLite: the writer lock is held already."""
    if connection.dialect.name == "postgresql":
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEYS[table]})


def head(connection: sa.Connection, table: sa.Table) -> tuple[int, str | None]:
    """The last event of ``table``: its sequence number and chain hash (``(0, None)`` when it is empty)."""
    last = connection.execute(
        sa.select(table.c.id, table.c.chain_hash).order_by(table.c.id.desc()).limit(1)
    ).first()
    return (last.id, last.chain_hash) if last else (0, None)


def _anchor_sql() -> str:
    last = "(SELECT {column} FROM {table} ORDER BY id DESC LIMIT 1)"
    parts = [f"'{',' if i else ''}{name}@' || COALESCE({last.format(column='id', table=name)}, 0) || ':' || "
             f"COALESCE({last.format(column='chain_hash', table=name)}, '')" for i, name in enumerate(CONTENT)]
    return "(" + " || ".join(parts) + ")"


#: The log's anchor as one SQL expression (SQLite and PostgreSQL alike): what :func:`anchor` reads, and what the
#: triggers of migration 0010 compare a new frozen set's head with, so the two cannot disagree.
ANCHOR_SQL = _anchor_sql()


def anchor(connection: sa.Connection) -> str:
    """Each chain's head as one token to keep: ``judgments@SEQ:HASH,adjudications@SEQ:HASH`` (no hash: empty)."""
    return str(connection.execute(sa.text(f"SELECT {ANCHOR_SQL}")).scalar_one())


def _parts(kept: str) -> list[tuple[str, int, str]]:
    """An :func:`anchor` read back: (chain, position, hash) for each chain; a UsageError for anything else."""
    found = []
    for part in kept.split(","):
        name, _, rest = part.partition("@")
        seq, _, digest = rest.partition(":")
        if name not in CONTENT or not seq.isdigit() or (int(seq) > 0) != bool(digest):
            raise UsageError(f"an anchor is what `judged db head` prints, such as judgments@12:3fa9...,"
                             f"adjudications@0: . Got {part!r} instead.")
        found.append((name, int(seq), digest))
    return found


def positions(kept: str) -> dict[str, int]:
    """Each chain's position in an :func:`anchor`: how far the log had come.

    >>> positions("judgments@12:ab,adjudications@0:")
    {'judgments': 12, 'adjudications': 0}
    """
    return {name: seq for name, seq, _ in _parts(kept)}


def check_anchor(connection: sa.Connection, kept: str) -> list[str]:
    """What breaks ``kept`` (an :func:`anchor` printed earlier): a chain whose event at the anchored position
    is gone (the log was cut short, or an older copy restored) or is another event (a history rewritten)."""
    problems = []
    for name, seq, digest in _parts(kept):
        table = t.metadata.tables[name]
        if seq == 0:
            continue
        stored = connection.execute(sa.select(table.c.chain_hash).where(table.c.id == seq)).scalar()
        if stored is None:
            last = head(connection, table)[0]
            problems.append(f"{name}: the anchor holds event {seq}, but the chain ends at {last}: events were "
                            "deleted, or an older copy of the store was restored")
        elif stored != digest:
            problems.append(f"{name}: event {seq} is not the one anchored (hash {stored[:12]}..., anchored "
                            f"{digest[:12]}...): the history was rewritten")
    return problems


def database_time(connection: sa.Connection) -> dt.datetime:
    """The database's clock now, in UTC: PostgreSQL's ``clock_timestamp()``, SQLite's ``'now'`` (milliseconds)."""
    if connection.dialect.name == "postgresql":
        return as_utc(connection.execute(sa.text("SELECT clock_timestamp()")).scalar_one())
    text = connection.execute(sa.text("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')")).scalar_one()
    return as_utc(dt.datetime.fromisoformat(text))


def append(connection: sa.Connection, table: sa.Table, rows: list[dict]) -> None:
    """Insert ``rows`` after the last event of ``table``, each with its sequence number and chain hash.

    The caller has checked that none of them is stored already; the triggers refuse a key that is. Each row's
    ``created`` is the database's clock read under the lock (in ``rows`` too), never earlier than the last
    event's, so times come from one clock and follow the log whatever the writers' clocks say.
    """
    if not rows:
        return
    lock(connection, table.name)
    seq, previous = head(connection, table)
    last = connection.execute(sa.select(table.c.created).where(table.c.id == seq)).scalar() if seq else None
    moment = database_time(connection)
    if last is not None:
        moment = max(moment, as_utc(last))  # a server clock set back: still never before the last (migration 0009)
    chained = []
    for row in rows:
        row["created"] = moment
        seq += 1
        full = {column.name: row.get(column.name) for column in table.columns if column.name != "chain_hash"}
        full["id"] = seq
        previous = event_hash(previous, full, CONTENT[table.name])
        chained.append({**full, "chain_hash": previous})
    connection.execute(sa.insert(table), chained)


@dataclass(frozen=True)
class ChainReport:
    """One table's chain: how many events were checked, the head hash, and the first event that breaks it."""

    table: str
    events: int
    head: str | None
    broken_at: int | None = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        """Whether every event's hash matches its content and the one before."""
        return self.problem is None


def verify(connection: sa.Connection, table_name: str) -> ChainReport:
    """Recompute ``table_name``'s chain from its first event; report the first event that does not match."""
    table = t.metadata.tables[table_name]
    previous: str | None = None
    count = 0
    for row in _rows(connection, table):
        expected = event_hash(previous, row, CONTENT[table_name])
        if row["chain_hash"] != expected:
            problem = ("carries no chain hash" if row["chain_hash"] is None else
                       "does not match its content and the event before it: the history was changed here")
            return ChainReport(table_name, count, previous, row["id"], f"{table_name} event #{row['id']} {problem}")
        previous = expected
        count += 1
    return ChainReport(table_name, count, previous)


def _rows(connection: sa.Connection, table: sa.Table) -> Iterator[dict]:
    after = 0
    while True:
        batch = connection.execute(
            sa.select(table).where(table.c.id > after).order_by(table.c.id).limit(_BATCH)
        ).mappings().all()
        if not batch:
            return
        for row in batch:
            yield dict(row)
        after = batch[-1]["id"]
