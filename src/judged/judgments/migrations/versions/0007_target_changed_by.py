"""Who changed an effort's target: the targeting log records the name that made each setting.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

``targeted_efforts.changed_by`` is the name of whoever made the setting: the
lead's user name when set from the web app, the ``--by`` name of ``judged
assign --target``, ``NULL`` when not given. Rows written before this revision
keep ``NULL`` (shown as "unknown"): the log is only ever inserted into, so
nothing is back-filled. A plain name, not a key of ``users`` or
``assessors``: a lead working from the command line need not have an account.
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the nullable column; existing rows read ``NULL``."""
    op.add_column("targeted_efforts", sa.Column("changed_by", sa.String))
