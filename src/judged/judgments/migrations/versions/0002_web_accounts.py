"""The web app's accounts: users with argon2 password hashes and a role, login sessions, login attempts.

Revision ID: 0002
Revises: 0001
Create Date: 2025-01-02

Sessions are stored by the sha256 of their token, never the token itself.
Login attempts are kept so that rate limiting holds across every worker
process serving the same store.
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _created() -> sa.Column:
    return sa.Column("created", sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    """Create the users, web_sessions and login_attempts tables."""
    op.create_table(
        "users",
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("role", sa.String, nullable=False),
        sa.Column("password_hash", sa.Text, nullable=False),
        _created(),
        sa.CheckConstraint("role IN ('assessor', 'lead')", name="ck_users_role"),
    )
    op.create_table(
        "web_sessions",
        sa.Column("token_sha256", sa.String(64), primary_key=True),
        sa.Column("username", sa.String, sa.ForeignKey("users.name"), nullable=False),
        _created(),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_web_sessions_expires", "web_sessions", ["expires"])
    op.create_table(
        "login_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String, nullable=False),
        sa.Column("ip", sa.String, nullable=False),
        sa.Column("ok", sa.Boolean, nullable=False),
        _created(),
    )
    op.create_index("ix_login_attempts_user", "login_attempts", ["username", "created"])
    op.create_index("ix_login_attempts_ip", "login_attempts", ["ip", "created"])
    op.create_index("ix_login_attempts_created", "login_attempts", ["created"])
