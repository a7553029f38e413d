"""Store fixtures: a fresh SQLite file, or a fresh schema on the real PostgreSQL server, per test.

PostgreSQL tests need ``JUDGED_TEST_POSTGRES_URL``; without it they are
skipped locally, and fail under CI (``CI`` set), where the server must run.
"""

from __future__ import annotations

import os
import uuid

import pytest
import sqlalchemy as sa

from judged.judgments import Store

POSTGRES_ENV = "JUDGED_TEST_POSTGRES_URL"


def postgres_base_url() -> str:
    """The test server's URL; skips (or, under CI, fails) when it is not configured."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"{POSTGRES_ENV} is not set under CI: the PostgreSQL store tests must run there")
        pytest.skip(f"{POSTGRES_ENV} is not set")
    return url


@pytest.fixture
def postgres_url():
    """A URL whose search_path is a new, empty schema, dropped after the test."""
    base = postgres_base_url()
    schema = f"judged_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = sa.engine.make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    yield url.render_as_string(hide_password=False)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh store's URL on each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "judged.db")
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def store(db_url):
    with Store.open(db_url) as opened:
        yield opened


@pytest.fixture
def sqlite_store(tmp_path):
    with Store.open(str(tmp_path / "judged.db")) as opened:
        yield opened
