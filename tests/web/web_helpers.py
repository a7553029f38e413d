"""Shared pieces of the web tests: the example effort's store, users and passwords, and logging in as a browser.

The store holds the example collection (queries, documents, rubric), a
depth-2 pool of bm25 and dense plus a planted document whose title and text
carry script and event-handler HTML, three users, and an assignment of the
pool to alice and bob with two overlap queries. Passwords are hashed with
argon2's cheapest parameters to keep logins fast; production uses
argon2-cffi's defaults.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from argon2 import PasswordHasher, profiles
from fastapi.testclient import TestClient

from judged.io import read_run
from judged.io.inputs import Run
from judged.judgments import Document, Store
from judged.judgments.accounts import Accounts
from judged.judgments.files import read_documents, read_queries
from judged.rubric import load_rubric

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BENCH = Path(__file__).resolve().parents[2] / "bench" / "web_load.py"
CHEAP = PasswordHasher.from_parameters(profiles.CHEAPEST)
PASSWORDS = {"alice": "alice-password", "bob": "bob-password", "lena": "lena-password"}
EVIL_TITLE = '<img src=x onerror="window.__pwned=1">Quarterly notes'
EVIL_TEXT = '<script>window.__pwned=2</script><b onmouseover="window.__pwned=3">hover</b> & more'
EVIL_DOCID = "evil/xss"
_CSRF = re.compile(r'name="csrf-token" content="([^"]*)"')
_FORM_CSRF = re.compile(r'name="csrf_token" value="([^"]*)"')


def build_store(db: str, *, depth: int = 2, overlap_queries: int = 2) -> None:
    """The example collection with a pool, three users and an assignment, in the store at ``db`` (path or URL)."""
    with Store.open(db) as store:
        store.add_queries(read_queries(EXAMPLES / "queries.jsonl"))
        store.add_documents(read_documents(EXAMPLES / "documents.jsonl"))
        store.add_documents([Document(EVIL_DOCID, EVIL_TITLE, EVIL_TEXT)])
        store.add_rubric(load_rubric(EXAMPLES / "rubric.toml"))
        runs = [read_run(EXAMPLES / "runs" / f"{name}.run", name=name) for name in ("bm25", "dense")]
        runs.append(Run.from_dict({"q01": {EVIL_DOCID: 99.0}}, "planted"))
        store.build_pool(runs, depth=depth)
        accounts = Accounts(store, hasher=CHEAP)
        accounts.add_user("alice", "assessor", PASSWORDS["alice"])
        accounts.add_user("bob", "assessor", PASSWORDS["bob"])
        accounts.add_user("lena", "lead", PASSWORDS["lena"])
        store.assign(["alice", "bob"], overlap_queries=overlap_queries, seed=29)  # seed 29 samples q01 and q02


def target_effort(store: Store) -> Store:
    """A second effort: bm25 and dense pooled at depth 3 as pool ``targeted``, all alice's, targeted on nDCG@3."""
    runs = [read_run(EXAMPLES / "runs" / f"{name}.run", name=name) for name in ("bm25", "dense")]
    store.build_pool(runs, depth=3, pool="targeted")
    store.assign(["alice"], pool="targeted", overlap_queries=0, target="nDCG@3")
    return store


def true_grades() -> dict[tuple[str, str], int]:
    """The example collection's grades by (qid, docid) (``examples/qrels.txt``)."""
    grades = {}
    for line in (EXAMPLES / "qrels.txt").read_text().splitlines():
        qid, _, docid, grade = line.split()
        grades[(qid, docid)] = int(grade)
    return grades


def csrf_of(html: str) -> str:
    """The CSRF token a page carries (meta tag or hidden form field)."""
    found = _CSRF.search(html) or _FORM_CSRF.search(html)
    assert found, "the page carries no CSRF token"
    return found.group(1)


def login(client: TestClient, name: str, password: str | None = None, **extra):
    """Log in through the form, as a browser does; returns the response to the POST."""
    page = client.get("/login")
    data = {"name": name, "password": password or PASSWORDS[name], "csrf_token": csrf_of(page.text), **extra}
    return client.post("/login", data=data, follow_redirects=False)


class Session:
    """A logged-in client and the CSRF token of its session."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.csrf = csrf_of(client.get("/assess").text)

    def post_json(self, url: str, body: dict, **kwargs):
        """POST ``body`` as JSON with the session's CSRF header, as the grading page does."""
        headers = {"X-CSRF-Token": self.csrf, **kwargs.pop("headers", {})}
        return self.client.post(url, json=body, headers=headers, **kwargs)

    def post_form(self, url: str, data: dict, **kwargs):
        """POST a form with the session's CSRF field, as a lead page does (redirects not followed)."""
        return self.client.post(url, data={"csrf_token": self.csrf, **data}, follow_redirects=False, **kwargs)


def load_bench():
    """``bench/web_load.py`` as a module: its store builder, ``serve`` (``judged serve`` in a subprocess) and load."""
    spec = importlib.util.spec_from_file_location("web_load", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
