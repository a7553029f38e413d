"""Automatic assessors (LLM judges): who they are, and what each of their labels carries.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

* ``automatic_assessors``: an assessor that is a model: the model, the sha256 of
  its prompt, the rubric version it was given, its parameters (JSON). A name in
  this table is automatic; every other assessor is a person.
* ``automatic_labels``: per judgment event of such an assessor, its confidence
  and rationale (a cannot-judge is a cannot_judge event, as for people).

Both are append-only, like the log they annotate.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the two tables and their append-only triggers."""
    op.create_table(
        "automatic_assessors",
        sa.Column("name", sa.String, sa.ForeignKey("assessors.name"), primary_key=True),
        sa.Column("model", sa.String, nullable=False),
        sa.Column("prompt_sha256", sa.String(64), nullable=False),
        sa.Column("rubric_id", sa.Integer, sa.ForeignKey("rubrics.id")),
        sa.Column("parameters", sa.JSON, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "automatic_labels",
        sa.Column("event_id", sa.String(36), sa.ForeignKey("judgments.event_id"), primary_key=True),
        sa.Column("confidence", sa.Float),
        sa.Column("rationale", sa.Text),
    )
    sqlite = op.get_bind().dialect.name == "sqlite"
    for table, key in (("automatic_assessors", "name"), ("automatic_labels", "event_id")):
        if sqlite:
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {action} is not allowed'); END"
                )
            op.execute(
                f"CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table} "
                f"WHEN EXISTS (SELECT 1 FROM {table} WHERE {key} = NEW.{key}) "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: a stored row cannot be replaced'); END"
            )
        else:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION judged_append_only()"
            )
