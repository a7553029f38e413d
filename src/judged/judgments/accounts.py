"""User accounts of the web app: argon2 password hashes, roles, login sessions and login attempts.

A password is stored only as an argon2id hash (argon2-cffi's default cost,
rehashed on the next login when the cost is raised). A session is a random
token handed to the browser; the store keeps only its sha256, so a copy of
the database opens no session. Login attempts are rows, not process memory,
so a limit on failed logins holds across every worker serving the store.

>>> from argon2 import PasswordHasher, profiles
>>> from judged.judgments import Store
>>> accounts = Accounts(Store.open("sqlite://"), hasher=PasswordHasher.from_parameters(profiles.CHEAPEST))
>>> accounts.add_user("ann", "assessor", "correct horse")
User(name='ann', role='assessor')
>>> accounts.authenticate("ann", "correct horse"), accounts.authenticate("ann", "wrong")
(User(name='ann', role='assessor'), None)
>>> token = accounts.open_session("ann")
>>> accounts.session_user(token)
User(name='ann', role='assessor')
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from judged.errors import UsageError
from judged.judgments.account_schema import ROLES, login_attempts, users, web_sessions
from judged.judgments.engine import reading, writing
from judged.judgments.model import as_utc, check_id, now

#: Shortest password ``add_user`` accepts.
MIN_PASSWORD = 8
#: How long a login session lasts unless the caller says otherwise.
SESSION_LIFETIME = dt.timedelta(hours=12)
#: Login attempts older than this are deleted (rate limiting looks back far less).
KEEP_ATTEMPTS = dt.timedelta(days=1)


@dataclass(frozen=True)
class User:
    """A web app user: the name (the assessor name their grades are recorded under) and the role."""

    name: str
    role: str

    @property
    def is_lead(self) -> bool:
        """Leads run efforts, see everyone's grades, adjudicate, freeze and export."""
        return self.role == "lead"


class Accounts:
    """Users, sessions and login attempts in a :class:`~judged.judgments.Store`; every method is one transaction."""

    def __init__(self, store, *, hasher: PasswordHasher | None = None) -> None:
        self.engine = store.engine
        self.hasher = hasher or PasswordHasher()
        self._dummy: str | None = None

    def add_user(self, name: str, role: str, password: str) -> User:
        """Create a user; refuses a taken name, an unknown role, or a password under ``MIN_PASSWORD`` characters."""
        check_id(name, "a user name")
        if role not in ROLES:
            raise UsageError(f"role must be one of {'|'.join(ROLES)}. Got {role!r} instead.")
        _check_password(password)
        with writing(self.engine) as connection:
            if connection.execute(sa.select(users.c.name).where(users.c.name == name)).first() is not None:
                raise UsageError(f"user {name!r} already exists.")
            connection.execute(
                sa.insert(users).values(name=name, role=role, password_hash=self.hasher.hash(password), created=now())
            )
        return User(name, role)

    def set_password(self, name: str, password: str) -> None:
        """Replace a user's password and end every session they have open."""
        _check_password(password)
        with writing(self.engine) as connection:
            done = connection.execute(
                sa.update(users).where(users.c.name == name).values(password_hash=self.hasher.hash(password))
            )
            if done.rowcount != 1:
                raise UsageError(f"no user {name!r}.")
            connection.execute(sa.delete(web_sessions).where(web_sessions.c.username == name))

    def users(self) -> list[User]:
        """Every user, by name."""
        with reading(self.engine) as connection:
            rows = connection.execute(sa.select(users.c.name, users.c.role).order_by(users.c.name))
            return [User(*row) for row in rows]

    def authenticate(self, name: str, password: str) -> User | None:
        """The user whose password this is, else ``None`` (an unknown name costs the same hashing time)."""
        with reading(self.engine) as connection:
            row = connection.execute(sa.select(users).where(users.c.name == name)).mappings().first()
        stored = row["password_hash"] if row else self._dummy_hash()
        try:
            self.hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return None
        if row is None:
            return None
        if self.hasher.check_needs_rehash(stored):
            with writing(self.engine) as connection:
                connection.execute(
                    sa.update(users).where(users.c.name == name).values(password_hash=self.hasher.hash(password))
                )
        return User(row["name"], row["role"])

    def _dummy_hash(self) -> str:
        """A hash to verify against for unknown names, so that they cost the same time as known ones."""
        if self._dummy is None:
            self._dummy = self.hasher.hash(secrets.token_hex(16))
        return self._dummy

    def open_session(self, name: str, lifetime: dt.timedelta = SESSION_LIFETIME) -> str:
        """A new session token for ``name`` (shown once; the store keeps its sha256); drops expired sessions."""
        token = secrets.token_urlsafe(32)
        moment = now()
        with writing(self.engine) as connection:
            connection.execute(sa.delete(web_sessions).where(web_sessions.c.expires <= moment))
            connection.execute(
                sa.insert(web_sessions).values(
                    token_sha256=_digest(token), username=name, created=moment, expires=moment + lifetime
                )
            )
        return token

    def session_user(self, token: str) -> User | None:
        """The user of a live session, else ``None`` (unknown or expired token)."""
        statement = (
            sa.select(users.c.name, users.c.role)
            .select_from(web_sessions.join(users, web_sessions.c.username == users.c.name))
            .where(web_sessions.c.token_sha256 == _digest(token), web_sessions.c.expires > now())
        )
        with reading(self.engine) as connection:
            row = connection.execute(statement).first()
        return User(*row) if row else None

    def close_session(self, token: str) -> None:
        """End a session (logging out); an unknown token is ignored."""
        with writing(self.engine) as connection:
            connection.execute(sa.delete(web_sessions).where(web_sessions.c.token_sha256 == _digest(token)))

    def begin_attempt(self, name: str, ip: str, since: dt.datetime, check: Callable[[Failures], None]) -> int:
        """Start a login attempt: its id, recorded as failed until :meth:`succeeded`.

        ``check`` is called with the failures so far (:class:`Failures`) and raises to refuse the
        attempt, which is then not recorded. Counting, checking and recording happen in one
        transaction that no other login can interleave with (SQLite's write lock; a table lock on
        PostgreSQL), so concurrent guesses cannot all pass the check before any of them is recorded.
        """
        moment = now()
        with writing(self.engine) as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(sa.text("LOCK TABLE login_attempts IN SHARE ROW EXCLUSIVE MODE"))
            check(_failures(connection, name, ip, since, moment))
            connection.execute(sa.delete(login_attempts).where(login_attempts.c.created < moment - KEEP_ATTEMPTS))
            return connection.execute(
                sa.insert(login_attempts).values(username=name, ip=ip, ok=False, created=moment)
                .returning(login_attempts.c.id)
            ).scalar_one()

    def succeeded(self, attempt: int) -> None:
        """Mark a login attempt begun with :meth:`begin_attempt` as successful."""
        with writing(self.engine) as connection:
            connection.execute(sa.update(login_attempts).where(login_attempts.c.id == attempt).values(ok=True))

    def failures(self, name: str, ip: str, since: dt.datetime) -> Failures:
        """Failed logins since ``since``: for ``name`` from ``ip`` (after their last success) and from ``ip``."""
        with reading(self.engine) as connection:
            return _failures(connection, name, ip, since, now())


@dataclass(frozen=True)
class Failures:
    """Failed logins in a window, as a login attempt at ``moment`` finds them.

    ``by_name_and_address``: for this name from this address, since the last success of that name from
    that address; ``by_address``: from this address for any name; ``last``: when the newest failure
    from this address began (``None``: there is none).
    """

    by_name_and_address: int
    by_address: int
    last: dt.datetime | None
    moment: dt.datetime


def _failures(connection: sa.Connection, name: str, ip: str, since: dt.datetime, moment: dt.datetime) -> Failures:
    a = login_attempts
    success = connection.execute(
        sa.select(sa.func.max(a.c.created)).where(a.c.username == name, a.c.ip == ip, a.c.ok.is_(True))
    ).scalar()
    start = max(since, as_utc(success)) if success is not None else since
    by_pair = connection.execute(
        sa.select(sa.func.count()).where(a.c.username == name, a.c.ip == ip, a.c.ok.is_(False), a.c.created > start)
    ).scalar_one()
    by_ip, last = connection.execute(
        sa.select(sa.func.count(), sa.func.max(a.c.created)).where(a.c.ip == ip, a.c.ok.is_(False),
                                                                    a.c.created > since)
    ).one()
    return Failures(by_pair, by_ip, as_utc(last) if last is not None else None, moment)


def _check_password(password: str) -> None:
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise UsageError(f"a password must have at least {MIN_PASSWORD} characters.")


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
