"""Times never run backwards along the log: an event is not older than the one before it.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02

A writer with the app's own connection could append a correctly chained
judgment with a back-dated time. A trigger on ``judgments`` and
``adjudications`` now refuses an event whose ``created`` is earlier than the
last stored event's (by sequence number, so the check reads one row through
the primary key); judged's own appends raise a time taken before the append
lock to the last event's (:func:`judged.judgments.chain.append`). Events
stored before this revision are left as they are.
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_TABLES = ("judgments", "adjudications")


def _message(table: str) -> str:
    return f"{table}: an event cannot be older than the one before it (times follow the log)"


def upgrade() -> None:
    """Add, per chained table, the trigger that refuses a back-dated event."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    for table in _TABLES:
        last = f"(SELECT created FROM {table} ORDER BY id DESC LIMIT 1)"
        if sqlite:
            op.execute(
                f"CREATE TRIGGER {table}_time_forward BEFORE INSERT ON {table} "
                f"WHEN NEW.created < {last} BEGIN SELECT RAISE(ABORT, '{_message(table)}'); END"
            )
            continue
        op.execute(
            f"CREATE FUNCTION judged_{table}_time_forward() RETURNS trigger LANGUAGE plpgsql AS $$ "
            f"BEGIN IF NEW.created < {last} THEN RAISE EXCEPTION '{_message(table)}'; END IF; "
            "RETURN NEW; END $$"
        )
        op.execute(
            f"CREATE TRIGGER {table}_time_forward BEFORE INSERT ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION judged_{table}_time_forward()"
        )
