"""What the app accepts before any route runs: request bodies up to a limit, and HEAD answered as GET.

:class:`BodyLimit` sits outside routing and authentication, so no route, no
dependency and no body parser ever holds more than ``max_bytes`` of a
request: a declared ``Content-Length`` over the limit is answered 413 before
a byte of the body is read, and a body without one (chunked) is counted as it
streams in and refused the moment it passes the limit. Without it, FastAPI
reads and parses a JSON body before it resolves the session dependency, so an
anonymous client could make the server hold hundreds of megabytes for a 401.

:class:`HeadAsGet` answers ``HEAD`` as the ``GET`` of the same path without
its body (FastAPI routes declared with ``get`` answer 405 to ``HEAD``).

>>> BodyLimit(app=None, max_bytes=1024).max_bytes
1024
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse

from judged.web.errors import ApiError


def too_large(max_bytes: int) -> str:
    """The sentence a refused body gets.

    >>> too_large(1048576)
    'the request body is larger than the 1048576 bytes this server accepts'
    """
    return f"the request body is larger than the {max_bytes} bytes this server accepts"


class BodyLimit:
    """ASGI middleware refusing (413, the one error shape) any HTTP request body over ``max_bytes``."""

    def __init__(self, app, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared == "invalid":
            error = ApiError(400, "bad_request", "the Content-Length header is not a number of bytes")
        elif isinstance(declared, int) and declared > self.max_bytes:
            error = ApiError(413, "too_large", too_large(self.max_bytes))
        else:
            await self.app(scope, self._counting(receive), send)
            return
        await JSONResponse(error.body(), status_code=error.status, headers={"Connection": "close"})(
            scope, receive, send
        )

    def _counting(self, receive):
        """``receive`` that raises a 413 once the body read so far passes the limit (the app answers it)."""
        received = 0

        async def counted():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise HTTPException(413, too_large(self.max_bytes))
            return message

        return counted


def _content_length(scope) -> int | str | None:
    """The declared body length, ``None`` when there is none, ``"invalid"`` when it is not a number."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isascii() and text.isdigit() else "invalid"
    return None


class HeadAsGet:
    """ASGI middleware running ``HEAD`` requests as ``GET`` and sending the headers without the body."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
