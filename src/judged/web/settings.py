"""The web app's settings, declared as data: cookies, sessions, login limits and the agreement gate.

>>> WebSettings().max_failures_per_user, WebSettings(secure_cookies=True).secure_cookies
(5, True)
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from judged.errors import UsageError


@dataclass(frozen=True)
class WebSettings:
    """How the app runs; the defaults suit one team on a trusted network behind HTTPS or on loopback.

    ``secure_cookies`` marks the session cookie ``Secure`` (set it whenever the
    app is served over HTTPS). Logins are refused (429) once a name has
    ``max_failures_per_user`` failed attempts since its last success, or an
    address ``max_failures_per_ip``, within ``login_window``. The agreement
    gate on the lead's dashboard uses ``min_pairs`` and ``min_kappa`` (linear
    kappa) and ``resamples`` bootstrap resamples for the kappa intervals.
    """

    secure_cookies: bool = False
    session_lifetime: dt.timedelta = dt.timedelta(hours=12)
    login_window: dt.timedelta = dt.timedelta(minutes=15)
    max_failures_per_user: int = 5
    max_failures_per_ip: int = 20
    min_pairs: int = 300
    min_kappa: float = 0.6
    resamples: int = 1000

    def __post_init__(self) -> None:
        for name in ("max_failures_per_user", "max_failures_per_ip", "min_pairs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UsageError(f"{name} must be an int >= 1. Got {value!r} instead.")
        if not -1 <= self.min_kappa <= 1:
            raise UsageError(f"min_kappa must be between -1 and 1. Got {self.min_kappa!r} instead.")
        if self.resamples < 0:
            raise UsageError(f"resamples must be an int >= 0. Got {self.resamples!r} instead.")
