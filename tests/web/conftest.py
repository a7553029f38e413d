"""Fixtures of the web tests: a copy of the example effort's store per test, the app, and logged-in clients.

The store is built once per session (see :mod:`web_helpers`) and copied for
every test, so each test starts from the same state in milliseconds.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from web_helpers import CHEAP, Session, build_store, login, target_effort

from judged.judgments import Store
from judged.web import WebSettings, create_app


@pytest.fixture(scope="session")
def template_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("web") / "template.db"
    build_store(str(path))
    return path


@pytest.fixture
def db(template_db, tmp_path) -> Path:
    path = tmp_path / "judged.db"
    shutil.copy(template_db, path)
    return path


@pytest.fixture
def store(db):
    with Store.open(f"sqlite:///{db}") as opened:
        yield opened


@pytest.fixture
def targeted(store):
    """The store with a second effort, pool ``targeted``, targeted on nDCG@3 (:func:`web_helpers.target_effort`)."""
    return target_effort(store)


@pytest.fixture
def settings() -> WebSettings:
    return WebSettings(min_pairs=5, resamples=0)


@pytest.fixture
def app(store, settings):
    return create_app(store, settings, hasher=CHEAP)


def _session(app, name: str) -> Session:
    client = TestClient(app)
    assert login(client, name).status_code == 303
    return Session(client)


@pytest.fixture
def alice(app) -> Session:
    return _session(app, "alice")


@pytest.fixture
def bob(app) -> Session:
    return _session(app, "bob")


@pytest.fixture
def lena(app) -> Session:
    return _session(app, "lena")


@pytest.fixture
def anonymous(app) -> TestClient:
    return TestClient(app)
