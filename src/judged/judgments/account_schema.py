"""The web app's tables: user accounts, login sessions, and login attempts (for rate limiting).

They sit on the store's :data:`~judged.judgments.schema.metadata` so the
schema check compares them with what migration ``0002`` creates. None of them
holds judgments: deleting a user, a session or an old attempt loses no grade.

>>> sorted(name for name in metadata.tables if name in ("users", "web_sessions", "login_attempts"))
['login_attempts', 'users', 'web_sessions']
"""

from __future__ import annotations

import sqlalchemy as sa

from judged.judgments.schema import metadata

#: The roles a user can hold: assessors grade their own queue; leads also run efforts, adjudicate and export.
ROLES = ("assessor", "lead")

users = sa.Table(
    "users",
    metadata,
    sa.Column("name", sa.String, primary_key=True),
    sa.Column("role", sa.String, nullable=False),
    sa.Column("password_hash", sa.Text, nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("role IN ('assessor', 'lead')", name="ck_users_role"),
)

web_sessions = sa.Table(
    "web_sessions",
    metadata,
    sa.Column("token_sha256", sa.String(64), primary_key=True),
    sa.Column("username", sa.String, sa.ForeignKey("users.name"), nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_web_sessions_expires", "expires"),
)

login_attempts = sa.Table(
    "login_attempts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("username", sa.String, nullable=False),
    sa.Column("ip", sa.String, nullable=False),
    sa.Column("ok", sa.Boolean, nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_login_attempts_user", "username", "created"),
    sa.Index("ix_login_attempts_ip", "ip", "created"),
    sa.Index("ix_login_attempts_created", "created"),
)
