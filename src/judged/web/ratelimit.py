"""Login rate limiting that backs off instead of locking, counted in the store so that every worker sees it.

Failures are counted per name and client address together, and per address
for any name (:class:`~judged.judgments.accounts.Failures`). A few are free;
after that each attempt must wait (:func:`wait`), twice as long with every
further failure, after the client's last failure: 429 with ``Retry-After``
until then, before the password is checked, so guessing costs the attacker
time and the server no argon2 hash. No name is ever locked: failures from one
client never hold back another, so an anonymous client cannot keep the lead
out (docs/web.md, "Login rate limiting", says what this gives up).

>>> import datetime as dt
>>> from judged.judgments.accounts import Failures
>>> at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
>>> [wait(Failures(n, n, at, at), WebSettings()).total_seconds() for n in (4, 5, 6, 7, 30)]
[0.0, 1.0, 2.0, 4.0, 900.0]
"""

from __future__ import annotations

import datetime as dt
import math

from judged.judgments.accounts import Accounts, Failures
from judged.judgments.model import now
from judged.web.errors import ApiError
from judged.web.settings import WebSettings

_ZERO = dt.timedelta(0)


def wait(failures: Failures, settings: WebSettings) -> dt.timedelta:
    """How much longer the client must wait before this attempt (zero: it may try now).

    With ``over`` failures past the free ones (per name and address, or per address, whichever is
    further over), the wait is ``login_backoff * 2**over`` after the last failure, at most
    ``login_max_wait``.
    """
    over = max(failures.by_name_and_address - settings.login_free_failures,
               failures.by_address - settings.login_free_failures_per_address)
    if over < 0 or failures.last is None:
        return _ZERO
    longest = settings.login_max_wait.total_seconds()
    delay = dt.timedelta(seconds=min(settings.login_backoff.total_seconds() * 2.0 ** min(over, 64), longest))
    return max(failures.last + delay - failures.moment, _ZERO)


class LoginLimiter:
    """Checks and records login attempts against the limits in :class:`~judged.web.settings.WebSettings`."""

    def __init__(self, accounts: Accounts, settings: WebSettings) -> None:
        self.accounts = accounts
        self.settings = settings

    def begin(self, name: str, ip: str) -> int:
        """Record an attempt for ``name`` from ``ip`` (failed until :meth:`succeeded`); 429 while it must wait."""
        return self.accounts.begin_attempt(name, ip, now() - self.settings.login_memory, self._check)

    def _check(self, failures: Failures) -> None:
        remaining = wait(failures, self.settings)
        if remaining > _ZERO:
            seconds = max(1, math.ceil(remaining.total_seconds()))
            raise ApiError(429, "rate_limited",
                           f"too many failed logins from here; wait {seconds} seconds and try again",
                           {"Retry-After": str(seconds)})

    def succeeded(self, attempt: int) -> None:
        """The attempt's password was right: it no longer counts as a failure."""
        self.accounts.succeeded(attempt)
