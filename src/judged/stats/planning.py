"""Planning a test collection from a pilot: how small a difference can n queries detect, and how many are needed.

From pilot per-query differences ``d = a - b`` (two systems scored on the same
pilot queries), with ``s = sd(d)`` (``ddof=1``), the power of a paired
two-sided t-test at level ``alpha`` on ``n`` queries for a true mean
difference ``delta`` is that of the noncentral t distribution (Sakai's
topic-set-size design, Sakai 2016; the same as statsmodels' ``TTestPower``):

    power(n, delta) = P(|T'| > t_{1 - alpha/2, n-1}),  T' ~ t'(df = n - 1, nc = delta sqrt(n) / s)

``minimum_detectable_difference`` solves ``power(n, delta) = power`` for
``delta``; ``queries_needed`` is the smallest ``n`` reaching ``power``, and
never less than ``minimum`` (a comparison passes the number of queries below
which its own randomization test cannot reach ``alpha`` at all,
:func:`randomization_floor`). The normal approximation this replaced was up to
a third optimistic on small pilots. Needs scipy.

>>> pilot = [0.05, -0.02, 0.10, 0.01, -0.04, 0.07, 0.03, 0.00]
>>> round(minimum_detectable_difference(pilot, queries=50), 4)
0.019
>>> queries_needed(pilot, 0.019)
50
>>> randomization_floor(0.05)  # 2 of the 2**n sign patterns reach the largest |mean|: 2 / 2**6 <= 0.05
6
"""

from __future__ import annotations

import math

import numpy as np

from judged.errors import UsageError
from judged.stats.paired import positive_int, scipy_stats


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


def _levels(alpha: float, power: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise UsageError(f"alpha must be a float in (0, 1). Got {alpha!r} instead.")
    if not 0.0 < power < 1.0:
        raise UsageError(f"power must be a float in (0, 1). Got {power!r} instead.")


def t_test_power(effect: float, queries: int, *, alpha: float = 0.05) -> float:
    """Power of the paired two-sided t-test on ``queries`` queries for a standardised effect ``delta / s``.

    >>> round(t_test_power(0.5, 34), 4)
    0.8078
    """
    n = positive_int("queries", queries)
    if n < 2:
        raise UsageError(f"a paired t-test needs at least 2 queries: got {n}")
    stats = scipy_stats()
    critical = float(stats.t.ppf(1.0 - alpha / 2.0, n - 1))
    nc = abs(effect) * math.sqrt(n)
    upper = float(stats.nct.sf(critical, n - 1, nc))
    if not math.isfinite(upper):  # scipy's survival function fails far in the tail; its complement holds
        upper = 1.0 - float(stats.nct.cdf(critical, n - 1, nc))
    lower = float(stats.nct.cdf(-critical, n - 1, nc))
    return min(1.0, upper + (lower if math.isfinite(lower) else 0.0))


def minimum_detectable_difference(
    differences, *, queries: int | None = None, alpha: float = 0.05, power: float = 0.8
) -> float:
    """Smallest true mean difference a paired two-sided t-test on ``queries`` queries detects with ``power``.

    ``queries`` defaults to the pilot's own number of queries (at least 2).
    """
    sd = _spread(differences)
    _levels(alpha, power)
    n = len(differences) if queries is None else positive_int("queries", queries)
    if n < 2:
        raise UsageError(f"a paired t-test needs at least 2 queries: got {n}")
    low, high = 0.0, 1.0
    while t_test_power(high, n, alpha=alpha) < power:
        high *= 2.0
    for _ in range(100):  # bisection on the standardised effect; power grows with it
        middle = 0.5 * (low + high)
        if t_test_power(middle, n, alpha=alpha) < power:
            low = middle
        else:
            high = middle
        if high - low <= 1e-12 * high:
            break
    return high * sd


def queries_needed(
    differences, difference: float, *, alpha: float = 0.05, power: float = 0.8, minimum: int = 2
) -> int:
    """The fewest queries (at least ``minimum``) for a paired two-sided t-test to detect ``difference``."""
    sd = _spread(differences)
    _levels(alpha, power)
    if not (math.isfinite(difference) and difference != 0.0):
        raise UsageError(
            f"difference must be a finite non-zero float. Got {difference!r} instead."
        )
    minimum = max(2, positive_int("minimum", minimum))
    effect = abs(difference) / sd
    # A relative tolerance keeps round trips (MDD(n) fed back) from rounding up to n + 1.
    target = power * (1.0 - 1e-9)
    high = minimum
    while t_test_power(effect, high, alpha=alpha) < target:
        high *= 2
    low = minimum - 1
    while high - low > 1:  # power grows with n: the smallest n in (low, high] that reaches it
        middle = (low + high) // 2
        if t_test_power(effect, middle, alpha=alpha) >= target:
            high = middle
        else:
            low = middle
    return high


def randomization_floor(alpha: float, *, systems: int = 2, tests: int = 1, permutations: int | None = None) -> int:
    """The fewest queries at which a randomization test can give a p-value at most ``alpha``.

    With ``n`` queries, the most extreme outcome (one system ahead on every
    query) is reached by the ``k!`` relabellings applied alike to every query
    out of ``(k!)^n`` (``k = systems``; for the paired sign-flip test, k = 2:
    2 of 2^n sign patterns), so the smallest p-value is ``(k!)^(1-n)``, and
    with ``permutations`` draws it is about ``(B (k!)^(1-n) + 1) / (B + 1)``.
    Holm over ``tests`` tests multiplies the smallest p-value by ``tests``
    (Benjamini-Hochberg does not: pass ``tests=1``). Raises when no number of
    queries is enough (``alpha`` below ``tests / (B + 1)``).

    >>> randomization_floor(0.05, permutations=10_000), randomization_floor(0.05, tests=2)
    (6, 7)
    """
    _levels(alpha, 0.5)
    relabellings = math.factorial(positive_int("systems", systems))
    tests = positive_int("tests", tests)
    draws = None if permutations is None else positive_int("permutations", permutations)
    if draws is not None and tests / (draws + 1) > alpha:
        raise UsageError(f"{draws} permutations cannot give a p-value of {alpha} or less over {tests} test(s).")
    n = 1
    while True:
        exact = float(relabellings) ** (1 - n)
        smallest = exact if draws is None else (draws * exact + 1) / (draws + 1)
        if tests * smallest <= alpha * (1.0 + 1e-12):
            return n
        n += 1
