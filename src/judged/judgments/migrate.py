"""Bring a store's schema to the current revision, with Alembic, inside one locked transaction.

Opening a store checks its revision with one cheap query; only a store that
is behind loads Alembic. The upgrade runs in a single write transaction that
first takes the writer lock (SQLite ``BEGIN IMMEDIATE``, a PostgreSQL advisory
lock), re-reads the revision and then applies every pending migration, so two
processes opening a new store at once apply each migration exactly once, and
a migration that fails leaves the store as it was (both databases roll back DDL).

Revision ids are the four-digit prefixes of the files in
``migrations/versions/`` (``0001_initial.py`` is revision ``0001``), so the
head is known without importing Alembic; a test checks it against Alembic's.

>>> revisions()[0], head() == revisions()[-1]
('0001', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from judged.errors import UsageError
from judged.judgments.engine import writing
from judged.judgments.model import check_id

MIGRATIONS = Path(__file__).parent / "migrations"
_LOCK_KEY = 0x6A75646765640001  # PostgreSQL advisory lock: "judged" + 1, held while migrating
#: The only tables whose rows the web app updates or deletes: accounts, sessions, login attempts.
APP_UPDATES = ("users", "web_sessions", "login_attempts")


@dataclass(frozen=True)
class SchemaStatus:
    """A store's schema revision against the newest this judged knows (``head``)."""

    current: str | None
    head: str
    pending: tuple[str, ...]

    @property
    def up_to_date(self) -> bool:
        """Whether no migration is pending."""
        return not self.pending


def revisions() -> list[str]:
    """Every revision id, oldest first, from the migration file names."""
    return sorted(p.name[:4] for p in (MIGRATIONS / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))


def head() -> str:
    """The newest revision id."""
    return revisions()[-1]


def current_revision(connection: sa.Connection) -> str | None:
    """The store's revision (``None`` for an empty database)."""
    if not sa.inspect(connection).has_table("alembic_version"):
        return None
    return connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()


def status(engine: sa.Engine) -> SchemaStatus:
    """Where the store's schema stands; raises :class:`UsageError` for a store newer than this judged."""
    with engine.connect() as connection:
        current = current_revision(connection)
    return _status(current)


def _status(current: str | None) -> SchemaStatus:
    known = revisions()
    if current is not None and current not in known:
        raise UsageError(
            f"the store is at schema revision {current!r}, which this version of judged does not know "
            f"(newest known: {known[-1]!r}); upgrade judged to use it."
        )
    start = 0 if current is None else known.index(current) + 1
    return SchemaStatus(current, known[-1], tuple(known[start:]))


def upgrade(engine: sa.Engine) -> tuple[str, ...]:
    """Apply every pending migration in one transaction; returns the revisions applied."""
    if status(engine).up_to_date:
        return ()
    from alembic import command
    from alembic.config import Config

    with writing(engine) as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
        pending = _status(current_revision(connection)).pending
        if pending:
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS))
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    return pending


def grant_app_role(engine: sa.Engine, role: str) -> None:
    """Grant PostgreSQL ``role`` what the web app and the commands need, and nothing that could rewrite history.

    Run as the role that owns the tables (it created and migrated them). ``role`` gets SELECT and
    INSERT on every table, UPDATE and DELETE only on :data:`APP_UPDATES`, and the sequences; not
    owning the tables, it can neither disable nor drop the append-only triggers, nor migrate.
    """
    if engine.dialect.name != "postgresql":
        raise UsageError("roles are PostgreSQL's: an SQLite store is protected by its file's permissions.")
    check_id(role, "a role name")
    quote = engine.dialect.identifier_preparer.quote
    with writing(engine) as connection:
        schema = quote(connection.exec_driver_sql("SELECT current_schema()").scalar_one())
        who = quote(role)
        for statement in (
            f"GRANT USAGE ON SCHEMA {schema} TO {who}",
            f"GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA {schema} TO {who}",
            f"GRANT UPDATE, DELETE ON {', '.join(f'{schema}.{quote(t)}' for t in APP_UPDATES)} TO {who}",
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {who}",
        ):
            connection.exec_driver_sql(statement)
