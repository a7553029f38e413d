"""The store side of the web app: accounts, sessions, login attempts, the worklist reads and migration 0002."""

from __future__ import annotations

import datetime as dt
import os
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from web_helpers import CHEAP, EVIL_DOCID, build_store, csrf_of, login

from judged.errors import UsageError
from judged.judgments import Store
from judged.judgments.account_schema import login_attempts, users, web_sessions
from judged.judgments.accounts import Accounts, Failures, User
from judged.judgments.model import now
from judged.judgments.schema import metadata
from judged.judgments.worklist import Worklist
from judged.web import create_app


@pytest.fixture
def accounts(store) -> Accounts:
    return Accounts(store, hasher=CHEAP)


@pytest.mark.parametrize("name, role, password, message", [
    ("carol", "admin", "long-enough", "role must be one of assessor|lead"),
    ("carol", "lead", "short", "at least 8 characters"),
    ("alice", "lead", "long-enough", "user 'alice' already exists"),
    ("two words", "lead", "long-enough", "a user name must be a non-empty string without whitespace"),
])
def test_add_user_refusals(accounts, name, role, password, message):
    with pytest.raises(UsageError, match=message):
        accounts.add_user(name, role, password)


def test_passwords_are_stored_as_argon2id_hashes_only(accounts, store):
    accounts.add_user("carol", "lead", "carol-password")
    with store.engine.connect() as connection:
        stored = connection.execute(sa.select(users.c.password_hash).where(users.c.name == "carol")).scalar_one()
    assert stored.startswith("$argon2id$") and "carol-password" not in stored
    assert accounts.authenticate("carol", "carol-password") == User("carol", "lead")
    assert accounts.authenticate("carol", "Carol-password") is None
    assert accounts.authenticate("nobody", "carol-password") is None


def test_a_raised_cost_rehashes_on_the_next_login(accounts, store):
    stronger = Accounts(store, hasher=PasswordHasher(time_cost=2, memory_cost=1024, parallelism=1))
    assert stronger.authenticate("alice", "alice-password") == User("alice", "assessor")
    with store.engine.connect() as connection:
        stored = connection.execute(sa.select(users.c.password_hash).where(users.c.name == "alice")).scalar_one()
    assert "m=1024,t=2,p=1" in stored
    assert stronger.authenticate("alice", "alice-password") is not None


def test_sessions_are_stored_by_digest_and_end(accounts, store):
    token = accounts.open_session("bob")
    with store.engine.connect() as connection:
        rows = connection.execute(sa.select(web_sessions)).mappings().all()
    assert len(rows) == 1 and rows[0]["token_sha256"] != token and len(rows[0]["token_sha256"]) == 64
    assert accounts.session_user(token) == User("bob", "assessor")
    assert accounts.session_user(token + "x") is None
    accounts.close_session(token)
    assert accounts.session_user(token) is None
    expired = accounts.open_session("bob", dt.timedelta(seconds=-1))
    assert accounts.session_user(expired) is None


def test_set_password_ends_every_session(accounts):
    token = accounts.open_session("bob")
    accounts.set_password("bob", "a-new-password")
    assert accounts.session_user(token) is None
    assert accounts.authenticate("bob", "a-new-password") is not None
    assert accounts.authenticate("bob", "bob-password") is None
    with pytest.raises(UsageError, match="no user 'nobody'"):
        accounts.set_password("nobody", "whatever-password")


def _allow(failures: Failures) -> None:
    """A check that lets every attempt through."""


def _attempt(accounts, name, ip, ok):
    attempt = accounts.begin_attempt(name, ip, now() - dt.timedelta(minutes=15), _allow)
    if ok:
        accounts.succeeded(attempt)


def _counts(accounts, name, ip, since) -> tuple[int, int]:
    failures = accounts.failures(name, ip, since)
    return failures.by_name_and_address, failures.by_address


def test_failures_count_per_name_and_address_since_their_last_success_and_per_address(accounts):
    window = now() - dt.timedelta(minutes=15)
    _attempt(accounts, "alice", "10.0.0.1", False)
    _attempt(accounts, "alice", "10.0.0.1", False)
    _attempt(accounts, "alice", "10.0.0.2", False)
    _attempt(accounts, "bob", "10.0.0.1", False)
    assert _counts(accounts, "alice", "10.0.0.1", window) == (2, 3)
    _attempt(accounts, "alice", "10.0.0.3", True)  # a success elsewhere resets nothing here
    assert _counts(accounts, "alice", "10.0.0.1", window) == (2, 3)
    _attempt(accounts, "alice", "10.0.0.1", True)
    assert _counts(accounts, "alice", "10.0.0.1", window) == (0, 3)
    assert _counts(accounts, "alice", "10.0.0.2", window) == (1, 1)
    assert _counts(accounts, "alice", "10.0.0.1", now() + dt.timedelta(seconds=1)) == (0, 0)
    last = accounts.failures("bob", "10.0.0.1", window).last
    assert last is not None and window < last <= now()


def test_a_refused_attempt_is_not_recorded(accounts):
    def refuse(failures: Failures) -> None:
        raise UsageError("no")

    with pytest.raises(UsageError):
        accounts.begin_attempt("alice", "10.0.0.1", now() - dt.timedelta(minutes=15), refuse)
    assert _counts(accounts, "alice", "10.0.0.1", now() - dt.timedelta(minutes=15)) == (0, 0)


def test_concurrent_guesses_cannot_pass_the_limit_together(accounts):
    _check_concurrent_guesses(accounts)


def _check_concurrent_guesses(accounts):
    """Twelve guesses for one name at the same moment: exactly the limit (5) get to check a password."""
    window = now() - dt.timedelta(minutes=15)
    start = threading.Barrier(12)

    def five(failures: Failures) -> None:
        if failures.by_name_and_address >= 5:
            raise UsageError("wait")

    def guess(_):
        start.wait()
        try:
            return accounts.begin_attempt("dora", "10.0.0.9", window, five)
        except UsageError:
            return None

    with ThreadPoolExecutor(12) as pool:
        attempts = list(pool.map(guess, range(12)))
    assert sum(a is not None for a in attempts) == 5
    assert _counts(accounts, "dora", "10.0.0.9", window) == (5, 5)


def test_old_attempts_are_forgotten(accounts, store):
    with store.engine.begin() as connection:
        connection.execute(sa.insert(login_attempts).values(username="x", ip="1.2.3.4", ok=False,
                                                            created=now() - dt.timedelta(days=2)))
    _attempt(accounts, "y", "1.2.3.4", False)
    with store.engine.connect() as connection:
        assert connection.execute(sa.select(login_attempts.c.username)).scalars().all() == ["y"]


def test_worklist_reads(store):
    worklist = Worklist(store)
    assert worklist.pools() == ["default"]
    first = store.queue("alice", pending_only=False)[0]
    view = worklist.pair("alice", first.position)
    assert (view.assignment, view.query.qid, view.document.docid, view.label) == \
        (first, first.qid, first.docid, None)
    assert worklist.pair("alice", 10_000) is None
    assert worklist.assignment("alice", first.qid, first.docid) == first
    assert worklist.assignment("alice", "q01", "nowhere") is None
    event = store.record(first.qid, first.docid, assessor="alice", grade=2, event_id=str(uuid.uuid4()))
    assert worklist.event(event.event_id) == event and worklist.event(str(uuid.uuid4())) is None
    assert worklist.pair("alice", first.position).label == event
    store.undo(first.qid, first.docid, assessor="alice")
    store.record(first.qid, first.docid, assessor="alice", cannot_judge="unreadable")
    assert [len(v) for v in worklist.label_times(["alice", "bob"]).values()] == [2]  # the undo is not a label
    rows = worklist.assignments("default")
    assert len(rows) == 48 and sum(r.overlap for r in rows) == 12
    assert {(r.assessor, r.docid) for r in rows if r.docid == EVIL_DOCID} == {("alice", EVIL_DOCID),
                                                                                ("bob", EVIL_DOCID)}


def _no_drift(engine: sa.Engine) -> list:
    with engine.connect() as connection:
        return compare_metadata(MigrationContext.configure(connection), metadata)


def test_migration_0002_creates_exactly_the_account_tables_on_sqlite(store):
    assert store.schema_status().current >= "0002"
    assert {"users", "web_sessions", "login_attempts"} <= set(sa.inspect(store.engine).get_table_names())
    assert _no_drift(store.engine) == []


def test_migration_0002_on_postgresql():
    url = os.environ.get("JUDGED_TEST_POSTGRES_URL")
    if not url:
        if os.environ.get("CI"):
            pytest.fail("JUDGED_TEST_POSTGRES_URL is not set")
        pytest.skip("JUDGED_TEST_POSTGRES_URL is not set")
    server = sa.make_url(url)
    name = f"judged_web_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    database = server.set(database=name).render_as_string(hide_password=False)
    try:
        build_store(database)
        with Store.open(database) as store:
            assert _no_drift(store.engine) == []
            accounts = Accounts(store, hasher=CHEAP)
            _attempt(accounts, "carol", "::1", False)
            assert _counts(accounts, "carol", "::1", now() - dt.timedelta(minutes=1)) == (1, 1)
            _check_concurrent_guesses(accounts)
            alice = TestClient(create_app(store, hasher=CHEAP))
            assert login(alice, "alice").status_code == 303
            csrf = csrf_of(alice.get("/assess").text)
            pair = alice.get("/api/queue").json()["pairs"][0]
            body = {"event_id": str(uuid.uuid4()), "qid": pair["qid"], "docid": pair["docid"], "grade": 2}
            statuses = [alice.post("/api/judgments", json=body, headers={"X-CSRF-Token": csrf}).status_code
                        for _ in range(2)]
            assert statuses == [201, 200]
            assert [e.grade for e in store.history(pair["qid"], pair["docid"])] == [2]
            undo = {"event_id": str(uuid.uuid4()), "qid": pair["qid"], "docid": pair["docid"]}
            assert alice.post("/api/undo", json=undo, headers={"X-CSRF-Token": csrf}).json()["label"] is None
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE "{name}" WITH (FORCE)')
        admin.dispose()
