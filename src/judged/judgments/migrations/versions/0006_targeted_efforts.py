"""Targeted efforts: a pool whose assessors' queues follow what judging each pair can still settle.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01

``targeted_efforts`` is the log of targeting settings: each row targets the
effort on ``pool`` on an nDCG ``measure``, or (``measure`` NULL) stops
targeting it; the latest row of a pool is in force
(:mod:`judged.judgments.targeting`). Rows are only ever inserted, so when an
effort's queue order started to follow a measure stays on record. It is a
setting, not evidence, so it has no append-only trigger.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table."""
    op.create_table(
        "targeted_efforts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("pool", sa.String, sa.ForeignKey("pools.name"), nullable=False),
        sa.Column("measure", sa.String),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
