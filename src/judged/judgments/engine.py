"""Where the store lives and how transactions start: SQLite by default, PostgreSQL by URL.

A store is named by ``--db``, else the environment variable ``JUDGED_DB``,
else ``judged.db`` in the working directory. A plain path means an SQLite
file; ``postgresql://`` (or ``postgres://``) URLs use the psycopg 3 driver.

SQLite connections run in WAL mode (readers never block the writer) with
foreign keys on and a 30 s busy timeout. judged issues ``BEGIN`` itself, so a
write transaction is ``BEGIN IMMEDIATE``: it takes the single writer lock up
front and waits for it, instead of failing half way when a reader tries to
become a writer. PostgreSQL writes run at READ COMMITTED; reads that must see
one snapshot across several statements (freezing, exporting) use REPEATABLE READ.

>>> resolve_url("judged.db")
'sqlite:///judged.db'
>>> resolve_url("postgresql://postgres@127.0.0.1:55432/judged")
'postgresql+psycopg://postgres@127.0.0.1:55432/judged'
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy import event

from judged.errors import JudgedError, UsageError

DEFAULT_DB = "judged.db"
BUSY_TIMEOUT_MS = 30_000
#: WAL with ``synchronous = FULL`` syncs the WAL at every commit, so an acknowledged write survives a power
#: loss (``NORMAL`` survives a killed process only). The cost per grade is measured in docs/judgments.md.
SYNCHRONOUS = "FULL"


def resolve_url(db: str | None = None) -> str:
    """The SQLAlchemy URL for ``db`` (a URL or an SQLite path), ``$JUDGED_DB``, or ``judged.db``."""
    db = db or os.environ.get("JUDGED_DB") or DEFAULT_DB
    for prefix in ("postgresql://", "postgres://"):
        if db.startswith(prefix):
            return "postgresql+psycopg://" + db[len(prefix):]
    if "://" in db:
        return db
    return f"sqlite:///{db}"


def create_engine(url: str) -> sa.Engine:
    """An engine for ``url`` with judged's connection settings; see the module docstring."""
    try:
        backend = sa.engine.make_url(url).get_backend_name()
    except sa.exc.ArgumentError as err:
        raise UsageError(f"cannot use database URL {url!r}: {err}") from None
    if backend not in ("sqlite", "postgresql"):
        raise UsageError(f"the judgment store supports SQLite and PostgreSQL. Got {backend!r} instead.")
    try:
        engine = sa.create_engine(url)
    except (ImportError, sa.exc.NoSuchModuleError) as err:
        raise UsageError(f"cannot use database URL {url!r}: {err} (PostgreSQL needs psycopg 3)") from None
    if backend == "sqlite":
        immutable = engine.url.query.get("immutable") == "1"
        event.listen(engine, "connect", _sqlite_connect_immutable if immutable else _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
    return engine


def immutable_url(path: Path) -> str:
    """An SQLite URL that reads ``path`` in immutable mode: no locks, no WAL, nothing written (a read-only archive).

    >>> immutable_url(Path("/archive/judged 2025.db"))
    'sqlite:///file:/archive/judged%202025.db?immutable=1&uri=true'
    """
    return f"sqlite:///file:{quote(str(path.absolute()))}?immutable=1&uri=true"


def check_integrity(engine: sa.Engine) -> None:
    """Refuse to write to a damaged SQLite file: ``PRAGMA quick_check`` must answer ``ok``."""
    with engine.connect() as connection:
        found = [row[0] for row in connection.exec_driver_sql("PRAGMA quick_check").fetchall()]
    if found != ["ok"]:
        first = found[0].splitlines()[0] if found and found[0] else "no answer"
        raise JudgedError(f"{display_url(engine)}: the store's file is damaged ({first}); nothing was written. "
                          "Restore it from a backup; `sqlite3 FILE .recover` may save what is left.")


def _sqlite_connect(dbapi_connection, _record) -> None:
    dbapi_connection.isolation_level = None  # judged emits BEGIN itself (see _sqlite_begin)
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA recursive_triggers = ON")  # a REPLACE fires the delete triggers (0003 also refuses it)
    _switch_to_wal(cursor)
    cursor.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
    cursor.close()


def _sqlite_connect_immutable(dbapi_connection, _record) -> None:
    dbapi_connection.isolation_level = None
    dbapi_connection.execute("PRAGMA query_only = ON")


def _switch_to_wal(cursor) -> None:
    """``PRAGMA journal_mode = WAL``, retried while another process holds the lock it needs.

    SQLite answers "database is locked" to this pragma at once, without waiting out the busy
    timeout, when several processes open a new store at the same moment.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _sqlite_begin(connection: sa.Connection) -> None:
    write = connection.get_execution_options().get("judged_write", False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


@contextmanager
def writing(engine: sa.Engine, snapshot: bool = False) -> Iterator[sa.Connection]:
    """A write transaction: committed when the block ends, rolled back if it raises.

    ``snapshot``: on PostgreSQL, every statement sees the same snapshot (REPEATABLE READ), for a write
    that derives what it stores from several reads (freezing); SQLite's single writer gives that anyway.
    """
    with engine.connect() as connection:
        connection.execution_options(judged_write=True)
        if snapshot and engine.dialect.name == "postgresql":
            connection.execution_options(isolation_level="REPEATABLE READ")
        with connection.begin():
            yield connection


@contextmanager
def reading(engine: sa.Engine) -> Iterator[sa.Connection]:
    """A read-only transaction that sees one consistent snapshot for all its statements."""
    with engine.connect() as connection:
        if engine.dialect.name == "postgresql":
            connection.execution_options(isolation_level="REPEATABLE READ")
        connection.begin()
        try:
            yield connection
        finally:
            connection.rollback()


def display_url(engine: sa.Engine) -> str:
    """The engine's URL with any password hidden, for messages and provenance."""
    return engine.url.render_as_string(hide_password=True)


def insert_new(connection: sa.Connection, table: sa.Table, rows: list[dict], key: list[str]) -> list[tuple]:
    """Insert ``rows``, skipping those whose ``key`` is already stored; returns the keys actually inserted.

    One statement per batch (``INSERT ... ON CONFLICT DO NOTHING RETURNING``), so
    concurrent writers of the same key store it once and each learns whether it was theirs.
    """
    if not rows:
        return []
    statement: sa.Insert
    if connection.dialect.name == "sqlite":
        from sqlalchemy.dialects import sqlite

        statement = sqlite.insert(table).on_conflict_do_nothing(index_elements=key)
    else:
        from sqlalchemy.dialects import postgresql

        statement = postgresql.insert(table).on_conflict_do_nothing(index_elements=key)
    statement = statement.returning(*(table.c[k] for k in key))
    return [tuple(row) for row in connection.execute(statement, rows)]
