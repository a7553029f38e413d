"""Contract tests over every route: login and role required, CSRF on every state change, one error shape,
security headers on every response, and templates and script that never turn data into markup."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from judged.web.app import ROUTERS
from judged.web.headers import CONTENT_SECURITY_POLICY

WEB = Path(__file__).resolve().parents[2] / "src" / "judged" / "web"
PUBLIC = {("GET", "/login"), ("POST", "/login")}
#: Every route of the app; a new route must be added here, and so to these contract tests.
ROUTES = {
    ("GET", "/login"), ("POST", "/login"), ("POST", "/logout"), ("GET", "/api/session"), ("GET", "/"),
    ("GET", "/assess"), ("GET", "/grade"), ("GET", "/api/queue"), ("GET", "/api/pairs/{position}"),
    ("POST", "/api/judgments"), ("POST", "/api/undo"),
    ("GET", "/lead"), ("POST", "/lead/efforts"), ("GET", "/lead/efforts/{pool:path}"),
    ("GET", "/api/efforts/{pool:path}"), ("GET", "/lead/adjudicate"), ("POST", "/lead/adjudications"),
    ("POST", "/lead/freeze"), ("POST", "/lead/targets"), ("GET", "/lead/sets/{spec:path}"),
    ("GET", "/lead/sets/{spec:path}/qrels"), ("GET", "/lead/sets/{spec:path}/sidecar"),
}
_PARAMS = {"{position}": "1", "{pool:path}": "default", "{spec:path}": "x@1"}


def _routes() -> set[tuple[str, str]]:
    return {(method, route.path) for router in ROUTERS for route in router.routes for method in route.methods}


def _url(path: str) -> str:
    for name, value in _PARAMS.items():
        path = path.replace(name, value)
    return path


def test_the_route_table_is_complete():
    assert _routes() == ROUTES


def test_every_route_but_login_needs_a_session(app):
    client = TestClient(app)
    for method, path in sorted(ROUTES - PUBLIC):
        response = client.request(method, _url(path))
        assert response.status_code == 401, (method, path)
        assert response.json()["error"]["code"] == "unauthenticated"


def test_every_state_change_needs_the_csrf_token(lena):
    for method, path in sorted(r for r in ROUTES if r[0] == "POST"):
        for headers in ({}, {"X-CSRF-Token": "forged"}):
            response = lena.client.request(method, _url(path), headers=headers, data={"field": "value"})
            assert response.status_code == 403, (path, headers)
            assert response.json()["error"]["code"] == "csrf_failed"


def test_every_response_carries_the_security_headers(alice, anonymous):
    responses = [anonymous.get("/login"), anonymous.get("/api/queue"), anonymous.get("/nowhere"),
                 alice.client.get("/grade"), alice.client.get("/api/queue"), alice.client.get("/lead"),
                 anonymous.get("/static/grade.js")]
    for response in responses:
        assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "no-referrer"
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY and "unsafe" not in CONTENT_SECURITY_POLICY
    assert responses[3].headers["cache-control"] == "no-store"
    assert "no-store" not in responses[-1].headers.get("cache-control", "")
    assert responses[-1].headers["content-type"].startswith(("text/javascript", "application/javascript"))


def test_unknown_routes_and_methods_use_the_error_shape(alice):
    missing = alice.client.get("/api/nowhere")
    assert missing.status_code == 404 and missing.json() == {"error": {"code": "not_found", "message": "Not Found"}}
    wrong = alice.client.delete("/api/judgments")
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"


def test_a_server_failure_uses_the_error_shape(app, monkeypatch):
    from web_helpers import login

    client = TestClient(app, raise_server_exceptions=False)
    login(client, "alice")

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(app.state.store, "queue", broken)
    response = client.get("/api/queue")
    assert response.status_code == 500
    assert response.json() == {"error": {"code": "internal",
                                         "message": "the server could not complete this request; try it again"}}
    assert "disk on fire" not in response.text


def test_error_pages_escape_what_the_request_carried(lena):
    page = lena.client.get("/lead/efforts/<img src=x onerror=alert(1)>", headers={"Accept": "text/html"})
    assert page.status_code == 404
    assert "there is no pool &#39;&lt;img src=x onerror=alert(1)&gt;&#39;" in page.text and "<img" not in page.text


def test_templates_carry_no_inline_script_handlers_or_styles():
    for template in sorted((WEB / "templates").glob("*.html")):
        text = template.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert re.search(r'\bsrc="/static/[\w.-]+\.js"', tag), (template.name, tag)
        assert not re.search(r"\son[a-z]+\s*=", text), template.name
        assert not re.search(r"\sstyle\s*=", text), template.name
        assert "|safe" not in text.replace(" ", "") and "Markup(" not in text, template.name
        assert "javascript:" not in text, template.name


def test_the_grading_script_never_writes_html():
    script = (WEB / "static" / "grade.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in script, sink
    assert script.count(".textContent = ") >= 10


@pytest.mark.parametrize("name", ["grade.js", "app.css", "favicon.svg"])
def test_static_files_are_served(anonymous, name):
    response = anonymous.get(f"/static/{name}")
    assert response.status_code == 200 and response.content == (WEB / "static" / name).read_bytes()
