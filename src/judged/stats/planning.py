"""Planning a test collection from a pilot: how small a difference can n queries detect, and how many are needed.

From pilot per-query differences ``d = a - b`` (two systems scored on the same
pilot queries), with ``s = sd(d)`` (``ddof=1``) and the normal approximation to
a paired two-sided test at level ``alpha`` with the given ``power``:

    MDD(n) = (z_{1 - alpha/2} + z_{power}) * s / sqrt(n)
    n(delta) = ceil(((z_{1 - alpha/2} + z_{power}) * s / delta) ** 2)

The normal approximation ignores the t distribution's heavier tails, so for
small n (below about 30) it is optimistic by a few queries.

>>> pilot = [0.05, -0.02, 0.10, 0.01, -0.04, 0.07, 0.03, 0.00]
>>> round(minimum_detectable_difference(pilot, queries=50), 4)
0.0186
>>> queries_needed(pilot, 0.0186)
50
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from judged.errors import UsageError
from judged.stats.paired import _positive_int


def _spread(differences) -> float:
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 1:
        raise UsageError(
            f"pilot differences must be a 1-D array. Got shape {d.shape} instead."
        )
    if d.size < 2:
        raise UsageError(f"pilot differences need at least 2 queries: got {d.size}")
    bad = np.flatnonzero(~np.isfinite(d))
    if bad.size:
        raise UsageError(
            f"pilot differences hold NaN or infinite values (first at position {bad[0]})"
        )
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        raise UsageError(
            "pilot differences do not vary (sd = 0): any difference would be detected"
        )
    return sd


def _z(alpha: float, power: float) -> float:
    if not 0.0 < alpha < 1.0:
        raise UsageError(f"alpha must be a float in (0, 1). Got {alpha!r} instead.")
    if not 0.0 < power < 1.0:
        raise UsageError(f"power must be a float in (0, 1). Got {power!r} instead.")
    normal = NormalDist()
    return normal.inv_cdf(1.0 - alpha / 2.0) + normal.inv_cdf(power)


def minimum_detectable_difference(
    differences, *, queries: int | None = None, alpha: float = 0.05, power: float = 0.8
) -> float:
    """Smallest true mean difference a paired two-sided test on ``queries`` queries detects with ``power``.

    ``queries`` defaults to the pilot's own number of queries.
    """
    sd = _spread(differences)
    n = len(differences) if queries is None else _positive_int("queries", queries)
    return _z(alpha, power) * sd / math.sqrt(n)


def queries_needed(
    differences, difference: float, *, alpha: float = 0.05, power: float = 0.8
) -> int:
    """Number of queries for a paired two-sided test to detect a true mean ``difference`` with ``power``."""
    sd = _spread(differences)
    if not (math.isfinite(difference) and difference != 0.0):
        raise UsageError(
            f"difference must be a finite non-zero float. Got {difference!r} instead."
        )
    exact = (_z(alpha, power) * sd / abs(difference)) ** 2
    # A relative tolerance keeps round trips (MDD(n) fed back) from rounding up to n + 1.
    return max(1, math.ceil(exact * (1.0 - 1e-9)))
