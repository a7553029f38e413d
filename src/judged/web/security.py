"""Who is asking, and may they: the session cookie, CSRF tokens, and the role checks each route declares.

A session is a random token in an HttpOnly, SameSite=Lax cookie (``Secure``
when the settings say so); scripts never see it. The CSRF token is an HMAC of
that token, so it is tied to the session and the server stores nothing more:
pages carry it in a ``<meta>`` tag and every form, and every state-changing
request must send it back (``X-CSRF-Token`` header or ``csrf_token`` field).
Before login, the same scheme runs on a short-lived login cookie, so the login
form is protected too. A request whose ``Origin`` names another host is
refused as well.

>>> csrf_token("secret") == csrf_token("secret") != csrf_token("other")
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from urllib.parse import urlsplit

from fastapi import Depends, Request

from judged.judgments.accounts import User
from judged.web.errors import ApiError

SESSION_COOKIE = "judged_session"
LOGIN_COOKIE = "judged_login"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


def csrf_token(secret: str) -> str:
    """The CSRF token that goes with a session (or login) secret."""
    digest = hmac.new(secret.encode(), b"judged-csrf-v1", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def current_user(request: Request) -> User:
    """The logged-in user (401 without a live session); the route may then use ``request.state.session``."""
    token = request.cookies.get(SESSION_COOKIE)
    user = request.app.state.accounts.session_user(token) if token else None
    if user is None:
        raise ApiError(401, "unauthenticated", "log in first: there is no session, or it has expired")
    request.state.session = token
    request.state.user = user
    return user


def lead_user(user: User = Depends(current_user)) -> User:
    """The logged-in user if they are a lead (403 for an assessor)."""
    if not user.is_lead:
        raise ApiError(403, "forbidden", "only a lead can do this")
    return user


async def check_csrf(request: Request, secret: str | None) -> None:
    """Refuse (403) a state-changing request without the right CSRF token, or sent from another origin."""
    origin = request.headers.get("origin")
    if origin and origin != "null" and urlsplit(origin).netloc != request.headers.get("host"):
        raise ApiError(403, "csrf_failed", f"the request comes from another site ({origin}); it was refused")
    sent = request.headers.get(CSRF_HEADER)
    if sent is None and request.headers.get("content-type", "").startswith(_FORMS):
        field = (await request.form()).get(CSRF_FIELD)
        sent = field if isinstance(field, str) else None
    if not secret or not sent or not hmac.compare_digest(sent, csrf_token(secret)):
        raise ApiError(403, "csrf_failed", "the CSRF token is missing or wrong; reload the page and try again")


async def user_with_csrf(request: Request, user: User = Depends(current_user)) -> User:
    """The logged-in user, for a request that changes state (CSRF checked)."""
    await check_csrf(request, request.state.session)
    return user


async def lead_with_csrf(request: Request, user: User = Depends(lead_user)) -> User:
    """A lead, for a request that changes state (CSRF checked)."""
    await check_csrf(request, request.state.session)
    return user
