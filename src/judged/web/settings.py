"""The web app's settings, declared as data: cookies, sessions, request sizes, proxies, login limits and the gate.

``judged serve`` hands them to each worker process through the environment
(:meth:`WebSettings.to_env` and :meth:`WebSettings.from_env`), so every
worker runs with the options the operator gave.

>>> WebSettings().max_body_bytes, WebSettings(secure_cookies=True).secure_cookies
(1048576, True)
>>> WebSettings.from_env(WebSettings(trusted_proxies=("10.0.0.1",)).to_env()).trusted_proxies
('10.0.0.1',)
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from judged.errors import UsageError
from judged.judgments.accounts import KEEP_ATTEMPTS

#: The largest request body the app reads by default: far above any form or grade (a note is 5,000 characters).
MAX_BODY_BYTES = 1 << 20


@dataclass(frozen=True)
class WebSettings:
    """How the app runs; the defaults suit one team on a trusted network behind HTTPS or on loopback.

    ``secure_cookies`` marks the session cookie ``Secure`` (set it whenever the
    app is served over HTTPS). A request body over ``max_body_bytes`` is
    refused (413) before it is read. ``trusted_proxies`` are the addresses
    (or networks, or ``*``) whose ``X-Forwarded-For`` and
    ``X-Forwarded-Proto`` are believed; from anyone else those headers are
    ignored, and the connecting address is the client's.

    Failed logins are counted per name and client address together (since
    that name's last success from that address), and per address for any
    name, over the last ``login_memory``. The first ``login_free_failures``
    (per name and address) and ``login_free_failures_per_address`` (per
    address) are free; after that each attempt must wait ``login_backoff``
    after the client's last failure, doubled with every further failure, up
    to ``login_max_wait`` (429 with ``Retry-After`` until then). Nothing is
    ever locked: a client that waits can try again, and another client is
    not held back at all.

    The agreement gate on the lead's dashboard uses ``min_pairs`` and
    ``min_kappa`` (linear kappa) and ``resamples`` bootstrap resamples for
    the kappa intervals.
    """

    secure_cookies: bool = False
    session_lifetime: dt.timedelta = dt.timedelta(hours=12)
    max_body_bytes: int = MAX_BODY_BYTES
    trusted_proxies: tuple[str, ...] = ()
    login_memory: dt.timedelta = dt.timedelta(days=1)
    login_max_wait: dt.timedelta = dt.timedelta(minutes=15)
    login_free_failures: int = 5
    login_free_failures_per_address: int = 20
    login_backoff: dt.timedelta = dt.timedelta(seconds=1)
    min_pairs: int = 300
    min_kappa: float = 0.6
    resamples: int = 1000

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "login_free_failures", "login_free_failures_per_address", "min_pairs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UsageError(f"{name} must be an int >= 1. Got {value!r} instead.")
        if not isinstance(self.trusted_proxies, tuple) or not all(
            isinstance(p, str) and p.strip() for p in self.trusted_proxies
        ):
            raise UsageError(f"trusted_proxies must be a tuple of addresses. Got {self.trusted_proxies!r} instead.")
        if not dt.timedelta(0) < self.login_backoff <= self.login_max_wait <= self.login_memory <= KEEP_ATTEMPTS:
            raise UsageError(
                "the login limits need 0 < login_backoff <= login_max_wait <= login_memory <= "
                f"{KEEP_ATTEMPTS} (how long attempts are kept). Got {self.login_backoff}, {self.login_max_wait}, "
                f"{self.login_memory} instead."
            )
        if not -1 <= self.min_kappa <= 1:
            raise UsageError(f"min_kappa must be between -1 and 1. Got {self.min_kappa!r} instead.")
        if self.resamples < 0:
            raise UsageError(f"resamples must be an int >= 0. Got {self.resamples!r} instead.")

    def to_env(self) -> dict[str, str]:
        """The options ``judged serve`` takes, as the environment variables :meth:`from_env` reads."""
        return {
            "JUDGED_SECURE_COOKIES": "1" if self.secure_cookies else "0",
            "JUDGED_MAX_BODY_BYTES": str(self.max_body_bytes),
            "JUDGED_TRUSTED_PROXIES": ",".join(self.trusted_proxies),
        }

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> WebSettings:
        """The settings a worker process runs with: defaults, and what :meth:`to_env` put in ``environ``."""
        body = environ.get("JUDGED_MAX_BODY_BYTES", "")
        if body and not body.isdigit():
            raise UsageError(f"JUDGED_MAX_BODY_BYTES must be a number of bytes. Got {body!r} instead.")
        proxies = tuple(p.strip() for p in environ.get("JUDGED_TRUSTED_PROXIES", "").split(",") if p.strip())
        return cls(secure_cookies=environ.get("JUDGED_SECURE_COOKIES") == "1",
                   max_body_bytes=int(body) if body else MAX_BODY_BYTES, trusted_proxies=proxies)
