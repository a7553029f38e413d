"""The store's tables, as SQLAlchemy Core metadata: what queries are written against.

The database itself is only ever changed by the migrations in
``judged/judgments/migrations/versions/``; a test checks that applying them
yields exactly these tables (``alembic.autogenerate.compare_metadata``).

Judgment and adjudication rows are events: inserted, never updated,
replaced or deleted (the migrations add triggers that refuse all three), and
hash-chained (``chain_hash``, see :mod:`judged.judgments.chain`). Frozen
judgment sets are immutable the same way, and a set takes no pair after its
``seal`` pair, the one freezing stores last.

>>> sorted(metadata.tables)[:4]
['adjudications', 'assessors', 'assignments', 'automatic_assessors']
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

#: Tables whose rows are never updated or deleted (enforced by triggers).
APPEND_ONLY = ("judgments", "adjudications", "judgment_sets", "judgment_set_pairs", "automatic_assessors",
               "automatic_labels")


def _created() -> sa.Column:
    return sa.Column("created", sa.DateTime(timezone=True), nullable=False)


queries = sa.Table(
    "queries",
    metadata,
    sa.Column("qid", sa.String, primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("description", sa.Text),
    sa.Column("narrative", sa.Text),
)

documents = sa.Table(
    "documents",
    metadata,
    sa.Column("docid", sa.String, primary_key=True),
    sa.Column("title", sa.Text),
    sa.Column("text", sa.Text),
    sa.Column("url", sa.Text),
    sa.Column("metadata", sa.JSON),
)

rubrics = sa.Table(
    "rubrics",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String, nullable=False),
    sa.Column("version", sa.String, nullable=False),
    sa.Column("scale_low", sa.Integer),
    sa.Column("scale_high", sa.Integer),
    _created(),
    sa.UniqueConstraint("name", "version", name="uq_rubrics_name_version"),
)

rubric_levels = sa.Table(
    "rubric_levels",
    metadata,
    sa.Column("rubric_id", sa.Integer, sa.ForeignKey("rubrics.id"), primary_key=True),
    sa.Column("grade", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("label", sa.Text, nullable=False),
    sa.Column("description", sa.Text, nullable=False),
)

assessors = sa.Table(
    "assessors",
    metadata,
    sa.Column("name", sa.String, primary_key=True),
    _created(),
)

pools = sa.Table(
    "pools",
    metadata,
    sa.Column("name", sa.String, primary_key=True),
    _created(),
)

pool_runs = sa.Table(
    "pool_runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("pool", sa.String, sa.ForeignKey("pools.name"), nullable=False),
    sa.Column("run", sa.String, nullable=False),
    sa.Column("run_sha256", sa.String),
    sa.Column("depth", sa.Integer, nullable=False),
    sa.Column("ties", sa.String, nullable=False),
    sa.Column("step", sa.String, nullable=False),
    _created(),
)

pool_members = sa.Table(
    "pool_members",
    metadata,
    sa.Column("pool_run_id", sa.Integer, sa.ForeignKey("pool_runs.id"), primary_key=True),
    sa.Column("qid", sa.String, primary_key=True),
    sa.Column("docid", sa.String, primary_key=True),
    sa.Column("rank", sa.Integer, nullable=False),
    sa.Index("ix_pool_members_pair", "qid", "docid"),
)

assignments = sa.Table(
    "assignments",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("pool", sa.String, sa.ForeignKey("pools.name"), nullable=False),
    sa.Column("qid", sa.String, nullable=False),
    sa.Column("docid", sa.String, nullable=False),
    sa.Column("assessor", sa.String, sa.ForeignKey("assessors.name"), nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("overlap", sa.Boolean, nullable=False),
    sa.Column("seed", sa.Integer, nullable=False),
    _created(),
    sa.UniqueConstraint("pool", "assessor", "qid", "docid", name="uq_assignments_pair"),
    sa.UniqueConstraint("assessor", "position", name="uq_assignments_position"),
)

judgments = sa.Table(
    "judgments",
    metadata,
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
    sa.Column("chain_hash", sa.String(64)),
    sa.CheckConstraint(
        "(kind = 'grade' AND grade IS NOT NULL AND reason IS NULL AND undoes IS NULL)"
        " OR (kind = 'cannot_judge' AND grade IS NULL AND reason IS NOT NULL AND undoes IS NULL)"
        " OR (kind = 'undo' AND grade IS NULL AND reason IS NULL AND undoes IS NOT NULL)",
        name="ck_judgments_kind",
    ),
    sa.Index("ix_judgments_pair", "qid", "docid", "assessor", "id"),
)

adjudications = sa.Table(
    "adjudications",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("event_id", sa.String(36), nullable=False, unique=True),
    sa.Column("qid", sa.String, nullable=False),
    sa.Column("docid", sa.String, nullable=False),
    sa.Column("adjudicator", sa.String, sa.ForeignKey("assessors.name"), nullable=False),
    sa.Column("grade", sa.Integer, nullable=False),
    sa.Column("note", sa.Text, nullable=False),
    sa.Column("rubric_id", sa.Integer, sa.ForeignKey("rubrics.id")),
    _created(),
    sa.Column("chain_hash", sa.String(64)),
    sa.Index("ix_adjudications_pair", "qid", "docid", "id"),
)

judgment_sets = sa.Table(
    "judgment_sets",
    metadata,
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
    sa.Column("seal_qid", sa.String),
    sa.Column("seal_docid", sa.String),
    sa.Column("head", sa.String),  # the log's anchor when frozen (migration 0008); NULL for older sets
    sa.Column("set_hash", sa.String(64)),  # sha256 of all the set holds (freeze.set_digest); NULL for older sets
    sa.UniqueConstraint("name", "version", name="uq_judgment_sets_name_version"),
)

judgment_set_pairs = sa.Table(
    "judgment_set_pairs",
    metadata,
    sa.Column("set_id", sa.Integer, sa.ForeignKey("judgment_sets.id"), primary_key=True),
    sa.Column("qid", sa.String, primary_key=True),
    sa.Column("docid", sa.String, primary_key=True),
    sa.Column("grade", sa.Integer),
    sa.Column("state", sa.String, nullable=False),
    sa.Column("pooled", sa.Boolean, nullable=False),
)

automatic_assessors = sa.Table(
    "automatic_assessors",
    metadata,
    sa.Column("name", sa.String, sa.ForeignKey("assessors.name"), primary_key=True),
    sa.Column("model", sa.String, nullable=False),
    sa.Column("prompt_sha256", sa.String(64), nullable=False),
    sa.Column("rubric_id", sa.Integer, sa.ForeignKey("rubrics.id")),
    sa.Column("parameters", sa.JSON, nullable=False),
    _created(),
)

targeted_efforts = sa.Table(
    "targeted_efforts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("pool", sa.String, sa.ForeignKey("pools.name"), nullable=False),
    sa.Column("measure", sa.String),  #: None: targeting stopped
    _created(),
    sa.Column("changed_by", sa.String),  #: who made the setting; None: not recorded (rows before 0007)
)

automatic_labels = sa.Table(
    "automatic_labels",
    metadata,
    sa.Column("event_id", sa.String(36), sa.ForeignKey("judgments.event_id"), primary_key=True),
    sa.Column("confidence", sa.Float),
    sa.Column("rationale", sa.Text),
)
