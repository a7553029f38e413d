"""Security headers on every response: a strict Content-Security-Policy and its companions.

The policy allows scripts, styles, images and connections from this origin
only; no inline script, no inline style attribute, no plugins, no framing,
no ``<base>`` rewriting, and forms may only post here. A document's HTML
therefore cannot run even if it ever reached the page unescaped.
"""

from __future__ import annotations

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
)


class SecurityHeaders:
    """ASGI middleware adding :data:`HEADERS` to every HTTP response (static files keep their own caching).

    >>> SecurityHeaders(app=None).names[:2]
    [b'content-security-policy', b'x-content-type-options']
    """

    def __init__(self, app) -> None:
        self.app = app
        self.names = [name for name, _ in HEADERS]

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = scope["path"].startswith("/static/")

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in HEADERS if n not in present and not (static and n == b"cache-control")]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
