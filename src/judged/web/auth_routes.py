"""Logging in and out: the login form (CSRF-protected by a login cookie), rate limiting, and session cookies."""

from __future__ import annotations

import re
import secrets

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse, Response

from judged.judgments.accounts import User
from judged.web.errors import ApiError, wants_page
from judged.web.pages import render
from judged.web.security import LOGIN_COOKIE, SESSION_COOKIE, check_csrf, csrf_token, current_user, user_with_csrf

router = APIRouter()
_LOGIN_COOKIE_SECONDS = 3600
_NONCE = re.compile(r"[A-Za-z0-9_-]{32}")


def home(user: User) -> str:
    """Where a user lands after logging in."""
    return "/lead" if user.is_lead else "/assess"


def local_target(target: str | None) -> str | None:
    """``target`` if it is a path on this site (never another site: no open redirect), else ``None``.

    >>> local_target("/grade?qid=q01"), local_target("//evil.example/"), local_target("https://evil.example/")
    ('/grade?qid=q01', None, None)
    """
    if target and target.startswith("/") and not target.startswith(("//", "/\\")):
        return target
    return None


def _login_form(request: Request, next_path: str | None, error: str | None, status: int) -> Response:
    # one login cookie per browser, reused while it lives, so that two login tabs carry the same token
    sent = request.cookies.get(LOGIN_COOKIE, "")
    nonce = sent if _NONCE.fullmatch(sent) else secrets.token_urlsafe(24)
    response = render(request, "login.html", {"next": next_path or "", "error": error}, status, csrf_secret=nonce)
    response.set_cookie(LOGIN_COOKIE, nonce, max_age=_LOGIN_COOKIE_SECONDS, httponly=True, samesite="strict",
                        secure=request.app.state.settings.secure_cookies, path="/login")
    return response


@router.get("/login")
def login_page(request: Request, next: str | None = None) -> Response:
    """The login form."""
    return _login_form(request, local_target(next), None, 200)


async def login_csrf(request: Request) -> None:
    """The login form's CSRF check, against the login cookie its page set (before the fields are validated)."""
    await check_csrf(request, request.cookies.get(LOGIN_COOKIE))


@router.post("/login", dependencies=[Depends(login_csrf)])
def login(request: Request, name: str = Form(max_length=200), password: str = Form(max_length=1000),
          next: str = Form("")) -> Response:
    """Check the password (unless the name or address is locked out) and open a session."""
    state = request.app.state
    ip = request.client.host if request.client else "unknown"
    attempt = state.limiter.begin(name, ip)
    user = state.accounts.authenticate(name, password)
    if user is not None:
        state.limiter.succeeded(attempt)
    if user is None:
        if wants_page(request):
            return _login_form(request, local_target(next), "Wrong name or password.", 401)
        raise ApiError(401, "bad_login", "wrong name or password")
    token = state.accounts.open_session(user.name, state.settings.session_lifetime)
    response = RedirectResponse(local_target(next) or home(user), status_code=303)
    response.set_cookie(SESSION_COOKIE, token, max_age=int(state.settings.session_lifetime.total_seconds()),
                        httponly=True, samesite="lax", secure=state.settings.secure_cookies, path="/")
    return response


@router.post("/logout", dependencies=[Depends(user_with_csrf)])
def logout(request: Request) -> Response:
    """End the session and forget its cookie."""
    request.app.state.accounts.close_session(request.state.session)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/api/session")
def session_api(request: Request, user: User = Depends(current_user)) -> dict:
    """Who this browser is logged in as now, and that session's CSRF token (for a page drawn under an earlier one).

    Only a page of this site can read it (no cross-origin reads are allowed), which is what a CSRF
    token needs; the grading page asks when its own token is refused after a login in another tab.
    """
    return {"user": user.name, "role": user.role, "csrf_token": csrf_token(request.state.session)}


@router.get("/")
def start(user: User = Depends(current_user)) -> Response:
    """The signed-in user's start page: the dashboard for a lead, the queue for an assessor."""
    return RedirectResponse(home(user), status_code=303)
