"""Logging in and out: cookies, the login form's CSRF protection, redirects, and rate limiting across workers."""

from __future__ import annotations

import datetime as dt

import pytest
from fastapi.testclient import TestClient
from web_helpers import CHEAP, PASSWORDS, csrf_of, login

from judged.web import WebSettings, create_app


def _cookie(response, name: str) -> str:
    return next(h for h in response.headers.get_list("set-cookie") if h.startswith(name + "="))


def test_login_sets_an_httponly_samesite_session_cookie_and_lands_by_role(app):
    client = TestClient(app)
    response = login(client, "alice")
    assert response.status_code == 303 and response.headers["location"] == "/assess"
    cookie = _cookie(response, "judged_session").lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
    assert "secure" not in cookie
    assert "max-age=43200" in cookie  # 12 hours
    lead = TestClient(app)
    assert login(lead, "lena").headers["location"] == "/lead"
    assert lead.get("/", follow_redirects=False).headers["location"] == "/lead"


def test_secure_cookies_setting_marks_the_cookie_secure(store):
    app = create_app(store, WebSettings(secure_cookies=True), hasher=CHEAP)
    client = TestClient(app, base_url="https://testserver")
    assert "secure" in _cookie(login(client, "bob"), "judged_session").lower()


def test_login_follows_a_local_next_but_never_another_site(app):
    client = TestClient(app)
    assert login(client, "alice", next="/grade?qid=q01").headers["location"] == "/grade?qid=q01"
    other = TestClient(app)
    assert login(other, "alice", next="//evil.example/x").headers["location"] == "/assess"


def test_wrong_password_is_401_with_the_error_shape_or_the_form_again(app):
    client = TestClient(app)
    response = login(client, "alice", "not-her-password")
    assert response.status_code == 401
    assert response.json() == {"error": {"code": "bad_login", "message": "wrong name or password"}}
    assert "judged_session" not in client.cookies
    page = client.get("/login")
    response = client.post("/login", data={"name": "alice", "password": "nope", "csrf_token": csrf_of(page.text)},
                           headers={"Accept": "text/html"})
    assert response.status_code == 401 and "Wrong name or password." in response.text
    unknown = login(TestClient(app), "mallory", "whatever-password")
    assert unknown.status_code == 401


def test_login_form_needs_its_csrf_token(app):
    client = TestClient(app)
    client.get("/login")
    missing = client.post("/login", data={"name": "alice", "password": PASSWORDS["alice"]}, follow_redirects=False)
    assert missing.status_code == 403 and missing.json()["error"]["code"] == "csrf_failed"
    wrong = client.post("/login", data={"name": "alice", "password": PASSWORDS["alice"], "csrf_token": "x" * 43},
                        follow_redirects=False)
    assert wrong.status_code == 403
    # a token from someone else's login page is worth nothing without their login cookie
    token = csrf_of(TestClient(app).get("/login").text)
    stolen = client.post("/login", data={"name": "alice", "password": PASSWORDS["alice"], "csrf_token": token},
                         follow_redirects=False)
    assert stolen.status_code == 403


def test_login_missing_fields_is_422_in_the_error_shape(app):
    client = TestClient(app)
    token = csrf_of(client.get("/login").text)
    response = client.post("/login", data={"csrf_token": token})
    assert response.status_code == 422
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == "invalid" and "name" in body["error"]["message"]


def test_logout_ends_the_session_server_side(app, alice):
    cookie = alice.client.cookies["judged_session"]
    response = alice.post_form("/logout", {})
    assert response.status_code == 303 and response.headers["location"] == "/login"
    replay = TestClient(app)
    replay.cookies.set("judged_session", cookie)
    assert replay.get("/api/queue").status_code == 401


def test_logout_needs_csrf(alice):
    assert alice.client.post("/logout", follow_redirects=False).status_code == 403
    assert alice.client.get("/api/queue").status_code == 200


def test_pages_redirect_to_login_and_the_api_answers_401(anonymous):
    page = anonymous.get("/grade?qid=q01", headers={"Accept": "text/html"}, follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/login?next=%2Fgrade%3Fqid%3Dq01"
    api = anonymous.get("/api/queue")
    assert api.status_code == 401
    assert api.json() == {"error": {"code": "unauthenticated",
                                    "message": "log in first: there is no session, or it has expired"}}
    forged = TestClient(anonymous.app)
    forged.cookies.set("judged_session", "not-a-session")
    assert forged.get("/api/queue").status_code == 401


def test_an_expired_session_is_refused(store):
    app = create_app(store, WebSettings(session_lifetime=dt.timedelta(seconds=-1)), hasher=CHEAP)
    client = TestClient(app)
    assert login(client, "alice").status_code == 303
    assert client.get("/api/queue").status_code == 401


_ATTACKER, _LEAD = ("203.0.113.5", 40000), ("198.51.100.7", 40001)


def _limited(store, **limits) -> object:
    return create_app(store, WebSettings(**{"login_free_failures_per_address": 100, **limits}), hasher=CHEAP)


def test_failures_from_one_client_never_keep_the_right_password_out_from_another(store):
    app = _limited(store, login_free_failures=3)
    attacker = TestClient(app, client=_ATTACKER)
    for _ in range(3):
        assert login(attacker, "lena", "wrong-password").status_code == 401
    for _ in range(5):  # refused before the password is checked, and nothing more is recorded
        refused = login(attacker, "lena")
        assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
    assert refused.json() == {"error": {"code": "rate_limited",
                                        "message": "too many failed logins from here; wait 1 seconds and try again"}}
    assert login(TestClient(app, client=_LEAD), "lena").status_code == 303  # the lead, from elsewhere
    assert login(attacker, "bob").status_code == 303  # another name from the attacker's address is not held back


class _Clock:
    """``now`` for the login limiter and the accounts, moved on by hand."""

    def __init__(self) -> None:
        self.moment = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.moment

    def advance(self, seconds: float) -> None:
        self.moment += dt.timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch) -> _Clock:
    clock = _Clock()
    monkeypatch.setattr("judged.judgments.accounts.now", clock)
    monkeypatch.setattr("judged.web.ratelimit.now", clock)
    return clock


def test_the_wait_doubles_with_every_failure_and_a_success_ends_it(store, clock):
    client = TestClient(_limited(store, login_free_failures=2), client=_ATTACKER)
    assert [login(client, "alice", "wrong-password").status_code for _ in range(2)] == [401, 401]
    for wait in (1, 2, 4, 8):
        refused = login(client, "alice")
        assert refused.status_code == 429 and refused.headers["retry-after"] == str(wait)
        clock.advance(wait - 0.5)
        assert login(client, "alice").headers["retry-after"] == "1"  # 0.5 s left, rounded up
        clock.advance(0.5)
        assert login(client, "alice", "wrong-password").status_code == 401  # waited: the password is checked
    assert login(client, "alice").headers["retry-after"] == "16"
    clock.advance(16)
    assert login(client, "alice").status_code == 303
    assert login(client, "alice", "wrong-password").status_code == 401  # the count starts again
    assert login(client, "alice", "wrong-password").status_code == 401


def test_the_wait_is_at_most_the_longest_and_failures_older_than_the_memory_are_forgotten(store, clock):
    client = TestClient(_limited(store, login_free_failures=1), client=_ATTACKER)
    for wait in (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900):  # 1024 s would be over the 15 minutes
        clock.advance(wait)
        assert login(client, "alice", "wrong-password").status_code == 401
    assert login(client, "alice").headers["retry-after"] == "900"
    clock.advance(900)
    assert login(client, "alice", "wrong-password").status_code == 401
    assert login(client, "alice").headers["retry-after"] == "900"  # remembered: still the longest wait
    clock.advance(24 * 3600)  # a day without a guess: every failure is forgotten
    assert login(client, "alice", "wrong-password").status_code == 401
    assert login(client, "alice").headers["retry-after"] == "1"  # the count starts again


def test_a_success_resets_only_its_own_clients_count(store):
    app = _limited(store, login_free_failures=3)
    attacker, lead = TestClient(app, client=_ATTACKER), TestClient(app, client=_LEAD)
    for _ in range(2):
        login(lead, "lena", "wrong-password")
    assert login(lead, "lena").status_code == 303
    for _ in range(3):
        assert login(attacker, "lena", "wrong-password").status_code == 401
    for _ in range(2):
        assert login(TestClient(app, client=_LEAD), "lena", "wrong-password").status_code == 401
    assert login(TestClient(app, client=_LEAD), "lena").status_code == 303
    assert login(attacker, "lena").status_code == 429  # the lead's success gave the attacker nothing


def test_failures_from_one_address_for_many_names_back_off_that_address(store):
    app = create_app(store, WebSettings(login_free_failures=100, login_free_failures_per_address=4), hasher=CHEAP)
    client = TestClient(app, client=_ATTACKER)
    for name in ("alice", "bob", "carol", "dave"):
        assert login(client, name, "wrong-password").status_code == 401
    assert login(client, "lena").status_code == 429
    assert login(TestClient(app, client=_LEAD), "lena").status_code == 303


def test_limits_hold_across_workers_sharing_the_store(store):
    """Two app instances (as two uvicorn workers would be) over one store count the same attempts."""
    settings = WebSettings(login_free_failures=2, login_free_failures_per_address=100)
    first, second = (create_app(store, settings, hasher=CHEAP) for _ in range(2))
    assert login(TestClient(first), "bob", "wrong-password").status_code == 401
    assert login(TestClient(second), "bob", "wrong-password").status_code == 401
    assert login(TestClient(first), "bob").status_code == 429
    assert login(TestClient(second), "bob").status_code == 429
