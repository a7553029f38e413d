"""Store failures as one clear line each: a full disk, a held lock, a read-only or damaged store, a refused change.

SQLAlchemy wraps the driver's error; the driver's text (and, on PostgreSQL, the
statement) is no message for a user. :func:`explain` turns the errors a store
can meet into a :class:`~judged.errors.JudgedError` that says what happened
and what to do, and that nothing was stored.

>>> import sqlite3, sqlalchemy as sa
>>> err = sa.exc.OperationalError("INSERT ...", {}, sqlite3.OperationalError("database or disk is full"))
>>> print(explain(err, "sqlite:///judged.db"))
sqlite:///judged.db: the disk holding the store is full; nothing was stored. Free some space and run it again.
"""

from __future__ import annotations

import sqlalchemy as sa

from judged.errors import JudgedError
from judged.judgments.engine import BUSY_TIMEOUT_MS

#: (what the driver says, what it means), first match wins.
_KNOWN = (
    ("disk is full", "the disk holding the store is full; nothing was stored. Free some space and run it again."),
    ("no space left on device", "the disk holding the store is full; nothing was stored. Free some space and run "
                                "it again."),
    ("database is locked", f"another process has held the store's write lock for {BUSY_TIMEOUT_MS // 1000} s; "
                           "nothing was stored. Run it again when that process is done."),
    ("readonly database", "the store is read-only here (file or folder permissions, or a read-only mount); nothing "
                          "was stored. A read-only copy can still be read: --db 'file:PATH?immutable=1'."),
    ("read-only transaction", "the store is read-only for this connection; nothing was stored."),
    ("malformed", "the store's file is damaged (SQLite: database disk image is malformed); nothing was stored. "
                  "Restore it from a backup; `sqlite3 FILE .recover` may save what is left."),
    ("file is not a database", "the file is not an SQLite database (or is damaged); nothing was stored."),
    ("unable to open database file", "cannot open the store's file (a missing folder, or no permission)."),
    ("append-only", "the store refused to change its history: judgments, adjudications and frozen sets are "
                    "append-only; nothing was stored."),
    ("takes no more pairs", "the store refused to add pairs to a frozen judgment set; nothing was stored."),
    ("permission denied", "this database role may not make that change (see `judged db grant`); nothing was "
                          "stored."),
)


def explain(err: sa.exc.DBAPIError, where: str) -> JudgedError:
    """One line for a database error met while using the store at ``where`` (its URL, password hidden)."""
    text = str(err.orig).lower()
    for needle, meaning in _KNOWN:
        if needle in text:
            return JudgedError(f"{where}: {meaning}")
    if isinstance(err, sa.exc.IntegrityError):
        return JudgedError(f"{where}: a concurrent change conflicted with this one, which was not stored; "
                           "run it again.")
    first = str(err.orig).strip().splitlines()[0] if str(err.orig).strip() else type(err.orig).__name__
    return JudgedError(f"{where}: the database failed ({first}); nothing was stored.")
