"""The judgment store: collection, rubrics, assessors, pools, assignments, the judgment log, frozen sets.

Revision ID: 0001
Revises:
Create Date: 2025-01-01

Migrations are forward-only: a downgrade would have to delete judgments,
which the store never does.
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

APPEND_ONLY = ("judgments", "adjudications", "judgment_sets", "judgment_set_pairs")


def _created() -> sa.Column:
    return sa.Column("created", sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    """Create every table, index and append-only trigger."""
    op.create_table(
        "queries",
        sa.Column("qid", sa.String, primary_key=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("description", sa.Text),
        sa.Column("narrative", sa.Text),
    )
    op.create_table(
        "documents",
        sa.Column("docid", sa.String, primary_key=True),
        sa.Column("title", sa.Text),
        sa.Column("text", sa.Text),
        sa.Column("url", sa.Text),
        sa.Column("metadata", sa.JSON),
    )
    op.create_table(
        "rubrics",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("version", sa.String, nullable=False),
        sa.Column("scale_low", sa.Integer),
        sa.Column("scale_high", sa.Integer),
        _created(),
        sa.UniqueConstraint("name", "version", name="uq_rubrics_name_version"),
    )
    op.create_table(
        "rubric_levels",
        sa.Column("rubric_id", sa.Integer, sa.ForeignKey("rubrics.id"), primary_key=True),
        sa.Column("grade", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("label", sa.Text, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
    )
    op.create_table("assessors", sa.Column("name", sa.String, primary_key=True), _created())
    op.create_table("pools", sa.Column("name", sa.String, primary_key=True), _created())
    op.create_table(
        "pool_runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("pool", sa.String, sa.ForeignKey("pools.name"), nullable=False),
        sa.Column("run", sa.String, nullable=False),
        sa.Column("run_sha256", sa.String),
        sa.Column("depth", sa.Integer, nullable=False),
        sa.Column("ties", sa.String, nullable=False),
        sa.Column("step", sa.String, nullable=False),
        _created(),
    )
    op.create_table(
        "pool_members",
        sa.Column("pool_run_id", sa.Integer, sa.ForeignKey("pool_runs.id"), primary_key=True),
        sa.Column("qid", sa.String, primary_key=True),
        sa.Column("docid", sa.String, primary_key=True),
        sa.Column("rank", sa.Integer, nullable=False),
    )
    op.create_index("ix_pool_members_pair", "pool_members", ["qid", "docid"])
    op.create_table(
        "assignments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("pool", sa.String, sa.ForeignKey("pools.name"), nullable=False),
        sa.Column("qid", sa.String, nullable=False),
        sa.Column("docid", sa.String, nullable=False),
        sa.Column("assessor", sa.String, sa.ForeignKey("assessors.name"), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("overlap", sa.Boolean, nullable=False),
        sa.Column("seed", sa.Integer, nullable=False),
        _created(),
        sa.UniqueConstraint("assessor", "qid", "docid", name="uq_assignments_pair"),
        sa.UniqueConstraint("assessor", "position", name="uq_assignments_position"),
    )
    op.create_table(
        "judgments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("event_id", sa.String(36), nullable=False, unique=True),
        sa.Column("qid", sa.String, nullable=False),
        sa.Column("docid", sa.String, nullable=False),
        sa.Column("assessor", sa.String, sa.ForeignKey("assessors.name"), nullable=False),
        sa.Column("kind", sa.String, nullable=False),
        sa.Column("grade", sa.Integer),
        sa.Column("reason", sa.Text),
        sa.Column("note", sa.Text),
        sa.Column("rubric_id", sa.Integer, sa.ForeignKey("rubrics.id")),
        sa.Column("undoes", sa.String(36), sa.ForeignKey("judgments.event_id"), unique=True),
        _created(),
        sa.CheckConstraint(
            "(kind = 'grade' AND grade IS NOT NULL AND reason IS NULL AND undoes IS NULL)"
            " OR (kind = 'cannot_judge' AND grade IS NULL AND reason IS NOT NULL AND undoes IS NULL)"
            " OR (kind = 'undo' AND grade IS NULL AND reason IS NULL AND undoes IS NOT NULL)",
            name="ck_judgments_kind",
        ),
    )
    op.create_index("ix_judgments_pair", "judgments", ["qid", "docid", "assessor", "id"])
    op.create_table(
        "adjudications",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("event_id", sa.String(36), nullable=False, unique=True),
        sa.Column("qid", sa.String, nullable=False),
        sa.Column("docid", sa.String, nullable=False),
        sa.Column("adjudicator", sa.String, sa.ForeignKey("assessors.name"), nullable=False),
        sa.Column("grade", sa.Integer, nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("rubric_id", sa.Integer, sa.ForeignKey("rubrics.id")),
        _created(),
    )
    op.create_index("ix_adjudications_pair", "adjudications", ["qid", "docid", "id"])
    op.create_table(
        "judgment_sets",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("pool", sa.String),
        sa.Column("pool_hash", sa.String(64)),
        sa.Column("pool_runs", sa.JSON, nullable=False),
        sa.Column("policy", sa.JSON, nullable=False),
        sa.Column("rubric_id", sa.Integer, sa.ForeignKey("rubrics.id")),
        _created(),
        sa.UniqueConstraint("name", "version", name="uq_judgment_sets_name_version"),
    )
    op.create_table(
        "judgment_set_pairs",
        sa.Column("set_id", sa.Integer, sa.ForeignKey("judgment_sets.id"), primary_key=True),
        sa.Column("qid", sa.String, primary_key=True),
        sa.Column("docid", sa.String, primary_key=True),
        sa.Column("grade", sa.Integer),
        sa.Column("state", sa.String, nullable=False),
        sa.Column("pooled", sa.Boolean, nullable=False),
    )
    for table in APPEND_ONLY:
        _forbid_update_and_delete(table)


def _forbid_update_and_delete(table: str) -> None:
    """Triggers that make ``table`` append-only: any UPDATE or DELETE (or TRUNCATE) aborts."""
    if op.get_bind().dialect.name == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {action} is not allowed'); END"
            )
        return
    op.execute(
        "CREATE OR REPLACE FUNCTION judged_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "BEGIN RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP; END $$"
    )
    op.execute(
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION judged_append_only()"
    )
    op.execute(
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION judged_append_only()"
    )
