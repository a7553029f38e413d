"""Login rate limiting, counted in the store so that every worker process sees the same attempts.

A name is locked after ``max_failures_per_user`` failed logins since its last
success within the window; an address after ``max_failures_per_ip`` failures
for any names. A locked login is refused with 429 before the password is
checked, so guessing costs the attacker the window, not the server an argon2
hash per guess.
"""

from __future__ import annotations

import math

from judged.judgments.accounts import Accounts
from judged.judgments.model import now
from judged.web.errors import ApiError
from judged.web.settings import WebSettings


class LoginLimiter:
    """Checks and records login attempts against the limits in :class:`~judged.web.settings.WebSettings`."""

    def __init__(self, accounts: Accounts, settings: WebSettings) -> None:
        self.accounts = accounts
        self.settings = settings

    def begin(self, name: str, ip: str) -> int:
        """Record an attempt for ``name`` from ``ip`` (failed until :meth:`succeeded`); 429 when either is locked."""
        attempt = self.accounts.begin_attempt(
            name, ip, now() - self.settings.login_window,
            self.settings.max_failures_per_user, self.settings.max_failures_per_ip,
        )
        if attempt is None:
            seconds = int(self.settings.login_window.total_seconds())
            raise ApiError(
                429, "rate_limited",
                f"too many failed logins; wait {math.ceil(seconds / 60)} minutes and try again",
                {"Retry-After": str(seconds)},
            )
        return attempt

    def succeeded(self, attempt: int) -> None:
        """The attempt's password was right: it no longer counts as a failure."""
        self.accounts.succeeded(attempt)
