"""HTML pages: one Jinja2 environment with autoescaping on for every template, and the context all pages share.

Autoescaping is what keeps untrusted text (documents, queries, notes) inert:
``<script>`` in a document reaches the browser as ``&lt;script&gt;``. No
template marks anything ``|safe`` and none carries inline script or event
handler attributes (a test reads them all), which is what lets the
Content-Security-Policy forbid inline script outright.

>>> environment().from_string("{{ text }}").render(text="<img src=x onerror=alert(1)>")
'&lt;img src=x onerror=alert(1)&gt;'
"""

from __future__ import annotations

import math
from pathlib import Path

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse

from judged.web.security import csrf_token

TEMPLATES = Path(__file__).parent / "templates"


def environment() -> jinja2.Environment:
    """The template environment: files under ``templates/``, autoescaped, undefined names an error."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True,
    )
    env.filters["num"] = number
    return env


def number(value: float | None, digits: int = 3) -> str:
    """A figure for a page: ``digits`` decimals, or "n/a" for a missing or undefined (NaN) value.

    >>> number(0.63636), number(float("nan")), number(None, 1)
    ('0.636', 'n/a', 'n/a')
    """
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:.{digits}f}"


def render(request: Request, name: str, context: dict | None = None, status: int = 200,
           csrf_secret: str | None = None) -> HTMLResponse:
    """Render template ``name`` with the signed-in user and their CSRF token (or the one for ``csrf_secret``)."""
    secret = csrf_secret or getattr(request.state, "session", None)
    page = request.app.state.templates.get_template(name).render(
        user=getattr(request.state, "user", None), csrf_token=csrf_token(secret) if secret else "",
        **(context or {}),
    )
    return HTMLResponse(page, status_code=status)
