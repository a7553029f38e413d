"""The web app under hostile input: bodies over the limit refused before they are read, HEAD on pages,
huge and odd ids, names with ``/``, proxies trusted only when named, two login tabs, a token renewed after
a login elsewhere, and a hypothesis fuzz over every route that no input turns into a 5xx."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_security import ROUTES
from web_helpers import CHEAP, PASSWORDS, Session, csrf_of, login

from judged.io import read_run
from judged.judgments.account_schema import login_attempts
from judged.web import WebSettings, create_app
from judged.web.headers import CONTENT_SECURITY_POLICY
from judged.web.intake import too_large

LIMIT = 4096


@pytest.fixture
def small(store):
    """The app with a 4 KiB body limit."""
    return create_app(store, WebSettings(max_body_bytes=LIMIT, min_pairs=5, resamples=0), hasher=CHEAP)


def _too_large(response) -> None:
    assert response.status_code == 413
    assert response.json() == {"error": {"code": "too_large", "message": too_large(LIMIT)}}
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


@pytest.mark.parametrize("path", ["/api/judgments", "/login", "/lead/freeze", "/api/queue", "/nowhere"])
def test_a_declared_body_over_the_limit_is_refused_before_the_session_or_route(small, path):
    body = b"x" * (LIMIT + 1)
    _too_large(TestClient(small).post(path, content=body, headers={"Content-Type": "application/json"}))


def test_a_streamed_body_without_a_length_is_counted_and_refused(small, store):
    def chunks():
        for _ in range(4):
            yield b"a" * 2048

    anonymous = TestClient(small)
    _too_large(anonymous.post("/api/judgments", content=chunks(), headers={"Content-Type": "application/json"}))
    alice = _logged_in(small, "alice")
    _too_large(alice.client.post("/api/judgments", content=chunks(),
                                 headers={"Content-Type": "application/json", "X-CSRF-Token": alice.csrf}))
    lena = _logged_in(small, "lena")
    _too_large(lena.client.post("/lead/efforts", content=chunks(), headers={
        "Content-Type": "application/x-www-form-urlencoded", "X-CSRF-Token": lena.csrf}))
    assert store.current(assessors=["alice"]) == []


def _logged_in(app, name: str) -> Session:
    client = TestClient(app, raise_server_exceptions=False)
    assert login(client, name).status_code == 303
    return Session(client)


def test_a_body_within_the_limit_reaches_the_route(small):
    session = _logged_in(small, "alice")
    pair = session.client.get("/api/queue").json()["pairs"][0]
    body = {"event_id": "6f1c2a52-8a7e-4d2b-9a55-0c2f1f8f9b10", "qid": pair["qid"], "docid": pair["docid"],
            "grade": 2, "note": "n" * 3000}
    assert len(json.dumps(body)) < LIMIT
    assert session.post_json("/api/judgments", body).status_code == 201
    assert TestClient(small).post("/api/judgments", json=body).status_code == 401


def test_a_content_length_that_is_not_a_number_is_400(small):
    response = TestClient(small).post("/login", content=b"x", headers={"Content-Length": "lots"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_request"


def test_the_default_limit_is_one_mebibyte(app):
    anonymous = TestClient(app)
    assert anonymous.post("/api/judgments", content=b" " * (1 << 20)).status_code == 401
    assert anonymous.post("/api/judgments", content=b" " * ((1 << 20) + 1)).status_code == 413


@pytest.mark.parametrize("path", ["/login", "/assess", "/grade", "/grade?qid=q01", "/lead", "/lead/efforts/default",
                                  "/api/queue", "/static/grade.js"])
def test_head_answers_as_get_without_a_body(lena, alice, path):
    client = lena.client if path.startswith("/lead") else alice.client
    got, head = client.get(path), client.head(path)
    assert head.status_code == got.status_code == 200, path
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_head_without_a_session_redirects_or_answers_401_like_get(anonymous):
    page = anonymous.head("/assess", headers={"Accept": "text/html"}, follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/login?next=%2Fassess"
    assert anonymous.head("/api/queue").status_code == 401
    assert anonymous.head("/api/judgments").status_code == 405


@pytest.mark.parametrize("position, status", [
    ("99999999999999999999999", 422), (str(2**31), 422), (str(2**31 - 1), 404), ("0", 422), ("-1", 422),
    ("1e3", 422), ("%00", 422),
])
def test_pair_positions_out_of_range_are_refused_not_500(alice, position, status):
    response = alice.client.get(f"/api/pairs/{position}")
    assert response.status_code == status and set(response.json()) == {"error"}


def test_forwarded_for_is_ignored_unless_its_proxy_is_named(store):
    def address_recorded(app, client) -> str:
        browser = TestClient(app, client=(client, 5000))
        data = {"name": "alice", "password": "wrong-password", "csrf_token": csrf_of(browser.get("/login").text)}
        assert browser.post("/login", data=data, headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 401
        with store.engine.connect() as connection:
            rows = connection.execute(login_attempts.select().order_by(login_attempts.c.id.desc())).mappings()
            return rows.first()["ip"]

    plain = create_app(store, WebSettings(), hasher=CHEAP)
    assert address_recorded(plain, "127.0.0.1") == "127.0.0.1"  # not even loopback is believed by default
    proxied = create_app(store, WebSettings(trusted_proxies=("10.0.0.0/8",)), hasher=CHEAP)
    assert address_recorded(proxied, "10.1.2.3") == "203.0.113.9"
    assert address_recorded(proxied, "192.0.2.1") == "192.0.2.1"  # a client that is not the proxy


def test_two_login_tabs_both_log_in(app):
    browser = TestClient(app)
    first, second = browser.get("/login"), browser.get("/login")
    assert csrf_of(first.text) == csrf_of(second.text)
    for page in (first, second):
        data = {"name": "alice", "password": PASSWORDS["alice"], "csrf_token": csrf_of(page.text)}
        assert browser.post("/login", data=data, follow_redirects=False).status_code == 303
    assert browser.get("/api/queue").status_code == 200


def test_a_forged_login_cookie_is_replaced(app):
    browser = TestClient(app)
    browser.cookies.set("judged_login", "short", path="/login")
    page = browser.get("/login")
    assert "short" not in page.headers["set-cookie"]
    data = {"name": "alice", "password": PASSWORDS["alice"], "csrf_token": csrf_of(page.text)}
    assert browser.post("/login", data=data, follow_redirects=False).status_code == 303


def test_a_page_drawn_before_a_new_login_gets_the_new_token_from_the_session_api(app):
    browser = TestClient(app)
    login(browser, "alice")
    old = Session(browser)
    login(browser, "alice")  # another tab logs in again: a new session replaces the cookie
    pair = browser.get("/api/queue").json()["pairs"][0]
    body = {"event_id": "0b9c7d7e-2b1a-4f36-8f0e-53c0d2a1e001", "qid": pair["qid"], "docid": pair["docid"],
            "grade": 1}
    assert old.post_json("/api/judgments", body).json()["error"]["code"] == "csrf_failed"
    session = browser.get("/api/session").json()
    assert session["user"] == "alice" and session["role"] == "assessor" and session["csrf_token"] != old.csrf
    renewed = browser.post("/api/judgments", json=body, headers={"X-CSRF-Token": session["csrf_token"]})
    assert renewed.status_code == 201
    assert TestClient(app).get("/api/session").status_code == 401


def test_pool_and_set_names_with_a_slash_have_working_pages(store, lena):
    store.build_pool([read_run(_bm25(), name="bm25")], depth=1, pool="team/a")
    started = lena.post_form("/lead/efforts", {"pool": "team/a", "assessors": "lena", "overlap_queries": "0"})
    assert started.status_code == 303 and started.headers["location"] == "/lead/efforts/team/a"
    assert lena.client.get("/lead/efforts/team/a").status_code == 200
    assert lena.client.get("/api/efforts/team/a").json()["pool"] == "team/a"
    pair = store.queue("alice", pending_only=False)[0]
    store.record(pair.qid, pair.docid, assessor="alice", grade=1)
    frozen = lena.post_form("/lead/freeze", {"name": "team/x", "pool": "default", "resolve": "max"})
    assert frozen.status_code == 303 and frozen.headers["location"] == "/lead/sets/team/x@1"
    assert lena.client.get("/lead/sets/team/x@1").status_code == 200
    assert lena.client.get("/lead/sets/team/x@1/qrels").text.startswith(pair.qid)
    assert lena.client.get("/lead/sets/team/x@1/sidecar").json()


def _bm25():
    from web_helpers import EXAMPLES

    return EXAMPLES / "runs" / "bm25.run"


@pytest.mark.parametrize("seed", ["-1", "-99999999999999999999", "99999999999999999999999", "1.5", "x"])
def test_bad_seeds_are_422(store, lena, seed):
    store.build_pool([read_run(_bm25(), name="bm25")], depth=1, pool="fresh")
    response = lena.post_form("/lead/efforts", {"pool": "fresh", "assessors": ["alice", "bob"], "seed": seed,
                                                "overlap_queries": "1"})
    assert response.status_code == 422 and "seed" in response.json()["error"]["message"]


@pytest.mark.parametrize("spec", ["x@99999999999999999999999", "x@-1", "x@", "x@²", "@1", "%00", "x@1@2"])
def test_odd_set_specs_are_404(lena, spec):
    response = lena.client.get(f"/lead/sets/{quote(spec)}")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


# --- fuzz: every route, hostile path, query and body values, as each kind of user; never a 5xx -------------

HOSTILE_NUMBERS = ["0", "-1", "1", "2147483648", "99999999999999999999999", "1e309", "nan", "inf", "-0", "0x10",
                   "1_000", " 7 ", "", "²"]
HOSTILE_NAMES = ["default", "team/a", "a/../b", "x@1", "x@99999999999999999999999", "x@²", "%2F", "..", "/", "q01",
                 "evil/xss", "<script>", "a b", "\x00", "é", "x" * 600, "@", "?", "#"]
_NUMBERS, _NAMES = st.sampled_from(HOSTILE_NUMBERS), st.sampled_from(HOSTILE_NAMES)
_VALUE = st.one_of(_NUMBERS, _NAMES, st.text(max_size=40))
_FIELDS = ("pool", "assessors", "seed", "overlap_queries", "overlap_fraction", "name", "resolve", "qid", "docid",
           "grade", "note", "event_id", "min_diff", "cannot_judge", "password", "next")
_SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
            | st.text(max_size=20))
_JSON = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=8)
_GRADE_BODY = st.fixed_dictionaries({
    "event_id": st.one_of(st.uuids().map(str), _VALUE), "qid": st.one_of(st.just("q01"), _VALUE),
    "docid": _VALUE,
}, optional={"grade": st.one_of(st.integers(), _JSON), "cannot_judge": _JSON, "note": _JSON})


_PARAMETERS = {"{position}": st.one_of(_NUMBERS, _VALUE), "{pool:path}": st.one_of(_NAMES, _VALUE),
               "{spec:path}": st.one_of(_NAMES, _NAMES.map(lambda name: name + "@1"), _VALUE)}
_FUZZED = sorted(ROUTES - {("POST", "/logout")})  # logging out would end the session the other examples use


@st.composite
def _requests(draw, method: str, path: str):
    for name, values in _PARAMETERS.items():
        if name in path:
            value = draw(values)
            raw = value.isprintable() and draw(st.booleans())  # as typed (a "/" splits the path), or escaped
            path = path.replace(name, value if raw else quote(value, safe=""))
    query = draw(st.dictionaries(st.sampled_from(["qid", "min_diff", "next", "x"]), _VALUE, max_size=2))
    kind = draw(st.sampled_from(["form", "json", "grade", "none"])) if method == "POST" else "none"
    body = {"form": st.dictionaries(st.sampled_from(_FIELDS), _VALUE, max_size=6), "json": _JSON,
            "grade": _GRADE_BODY, "none": st.none()}[kind]
    return path, query, kind, draw(body), draw(st.sampled_from([_user_of(path)] * 3 + [None]))


@pytest.fixture
def clients(app) -> dict:
    """A client per kind of user: anonymous, an assessor, a lead (made once: hypothesis reruns the test body)."""
    return {None: Anonymous(app), "alice": _logged_in(app, "alice"), "lena": _logged_in(app, "lena")}


class Anonymous:
    """A client without a session, shaped like :class:`Session`."""

    csrf = ""

    def __init__(self, app) -> None:
        self.client = TestClient(app, raise_server_exceptions=False)


def _user_of(route: str) -> str:
    return "lena" if route.startswith(("/lead", "/api/efforts")) else "alice"


@pytest.mark.parametrize("route", sorted(path for method, path in ROUTES if method == "GET" and "{" in path))
def test_no_hostile_path_value_makes_a_server_error(clients, route):
    """Every hostile value in every path parameter, as typed and escaped, by the user the route is for."""
    client = clients[_user_of(route)].client
    for value in HOSTILE_NUMBERS + HOSTILE_NAMES:
        for sent in {quote(value, safe=""), value} if value.isprintable() else {quote(value, safe="")}:
            url = re.sub(r"\{[^}]+\}", sent.replace("\\", "\\\\"), route)
            response = client.get(url, follow_redirects=False)
            assert response.status_code < 500, (url, response.text)


@pytest.mark.parametrize("method, route", _FUZZED)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_input_makes_a_server_error(clients, method, route, data):
    path, query, kind, body, user = data.draw(_requests(method, route))
    client = clients[user]
    headers = {"X-CSRF-Token": client.csrf} if user else {}
    extra = {"form": {"data": body}, "json": {"json": body}, "grade": {"json": body}}.get(kind, {})
    response = client.client.request(method, path, params=query, headers=headers, follow_redirects=False, **extra)
    assert response.status_code < 500, response.text
    if response.status_code >= 400 and response.headers.get("content-type", "").startswith("application/json"):
        assert set(response.json()) == {"error"}

