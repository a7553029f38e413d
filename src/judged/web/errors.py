"""One error shape: ``{"error": {"code": ..., "message": ...}}`` for the API, the same code and words as a page.

Every failure the app answers goes through :func:`install`: judged's own
errors (a bad grade: 422; a concurrent conflict: 409), request validation
(422), unknown routes (404) and methods (405), and :class:`ApiError` raised by
the routes. A browser navigating to a page (``Accept: text/html``, outside
``/api/``) gets an HTML page with the same status; a page that needs a login
redirects to it instead of answering 401.

>>> ApiError(403, "forbidden", "leads only").body()
{'error': {'code': 'forbidden', 'message': 'leads only'}}
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from judged.errors import InputError, JudgedError, UsageError

_CODES = {400: "bad_request", 401: "unauthenticated", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
          409: "conflict", 413: "too_large", 422: "invalid", 429: "rate_limited"}


class ApiError(Exception):
    """An answer other than success: HTTP status, a stable machine-readable code and a sentence for people."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}

    def body(self) -> dict:
        """The JSON body every error shares."""
        return {"error": {"code": self.code, "message": self.message}}


def wants_page(request: Request) -> bool:
    """Whether to answer with HTML: a browser asking for a page, not a script calling the API."""
    return not request.url.path.startswith("/api/") and "text/html" in request.headers.get("accept", "")


def install(app: FastAPI, render_error) -> None:
    """Route every error through the one shape; ``render_error(request, error)`` draws the HTML version."""

    def answer(request: Request, error: ApiError) -> Response:
        if wants_page(request):
            if error.status == 401 and request.method == "GET":
                target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
                return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
            return render_error(request, error)
        return JSONResponse(error.body(), status_code=error.status, headers=error.headers)

    @app.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError) -> Response:
        return answer(request, error)

    @app.exception_handler(UsageError)
    async def usage_error(request: Request, error: UsageError) -> Response:
        return answer(request, ApiError(422, "invalid", str(error)))

    @app.exception_handler(InputError)
    async def input_error(request: Request, error: InputError) -> Response:
        return answer(request, ApiError(422, "invalid", str(error)))

    @app.exception_handler(JudgedError)
    async def judged_error(request: Request, error: JudgedError) -> Response:
        return answer(request, ApiError(409, "conflict", str(error)))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        return answer(request, ApiError(422, "invalid", _describe(error)))

    @app.exception_handler(Exception)
    async def server_error(request: Request, error: Exception) -> Response:
        return answer(request, ApiError(500, "internal", "the server could not complete this request; try it again"))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        code = _CODES.get(error.status_code, "error")
        message = error.detail if isinstance(error.detail, str) else code.replace("_", " ")
        return answer(request, ApiError(error.status_code, code, message, dict(error.headers or {})))


def _describe(error: RequestValidationError) -> str:
    """The validation problems as one sentence: where each is and what was expected."""
    parts = []
    for problem in error.errors():
        where = ".".join(str(p) for p in problem.get("loc", ()) if p != "body") or "request"
        parts.append(f"{where}: {problem.get('msg', 'invalid')}")
    return "; ".join(parts)
