"""Build the FastAPI application over a judgment store: routes, templates, static files, errors, headers.

``create_app`` takes an open :class:`~judged.judgments.Store`; ``app_from_env``
is the factory ``judged serve`` hands to uvicorn, so that each worker process
opens the store named by ``JUDGED_DB`` itself.

>>> from judged.judgments import Store
>>> app = create_app(Store.open("sqlite://"))
>>> sorted(r.path for router in ROUTERS for r in router.routes if r.path.startswith("/api/"))
['/api/efforts/{pool:path}', '/api/judgments', '/api/pairs/{position}', '/api/queue', '/api/session', '/api/undo']
"""

from __future__ import annotations

import os
from pathlib import Path

from argon2 import PasswordHasher
from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from judged.judgments import Store
from judged.judgments.accounts import Accounts
from judged.judgments.worklist import Worklist
from judged.web import assess_routes, auth_routes, lead_routes
from judged.web.errors import ApiError, install
from judged.web.headers import SecurityHeaders
from judged.web.intake import BodyLimit, HeadAsGet
from judged.web.pages import environment, render
from judged.web.ratelimit import LoginLimiter
from judged.web.settings import WebSettings
from judged.web.targeting import Targets

STATIC = Path(__file__).parent / "static"
#: Every route of the app, by side: logging in and out, the assessor's, the lead's.
ROUTERS = (auth_routes.router, assess_routes.router, lead_routes.router)


def create_app(store: Store, settings: WebSettings | None = None, *, hasher: PasswordHasher | None = None) -> FastAPI:
    """The web app over ``store``; ``hasher`` overrides argon2's cost (tests use a cheap one)."""
    settings = settings or WebSettings()
    app = FastAPI(title="judged", docs_url=None, redoc_url=None, openapi_url=None)
    accounts = Accounts(store, hasher=hasher)
    app.state.store = store
    app.state.settings = settings
    app.state.accounts = accounts
    app.state.worklist = Worklist(store)
    app.state.targets = Targets(store)
    app.state.limiter = LoginLimiter(accounts, settings)
    app.state.templates = environment()
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for router in ROUTERS:
        app.include_router(router)
    install(app, _error_page)
    # outermost last: headers on every answer, then the client's address, then HEAD, then the body limit
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(HeadAsGet)
    if settings.trusted_proxies:
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(settings.trusted_proxies))
    app.add_middleware(SecurityHeaders)
    return app


def _error_page(request: Request, error: ApiError):
    response = render(request, "error.html", {"error": error}, error.status)
    response.headers.update(error.headers)
    return response


def app_from_env() -> FastAPI:
    """The app over the store named by ``JUDGED_DB``, settings from :meth:`WebSettings.from_env` (uvicorn factory)."""
    return create_app(Store.open(os.environ.get("JUDGED_DB")), WebSettings.from_env(os.environ))
