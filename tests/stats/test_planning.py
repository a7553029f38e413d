"""Minimum detectable difference and queries needed from pilot differences: the paired t-test's noncentral t power."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from statsmodels.stats.power import TTestPower

import judged
from judged.stats import randomization_test
from judged.stats.planning import (
    minimum_detectable_difference,
    queries_needed,
    randomization_floor,
    t_test_power,
)

PILOT = np.random.default_rng(0).normal(0.01, 0.08, size=40)


@pytest.mark.parametrize("n", [2, 3, 5, 7, 40, 123, 1000])
@pytest.mark.parametrize("effect", [0.05, 0.3, 1.0, 2.5])
def test_power_equals_statsmodels(n, effect):
    theirs = TTestPower().power(effect, n, 0.05)
    if math.isnan(theirs):  # scipy's noncentral t fails far in the tail, where the power is 1 to many digits
        assert t_test_power(effect, n) == pytest.approx(1.0, abs=1e-12)
    else:
        assert t_test_power(effect, n) == pytest.approx(theirs, abs=1e-10)


@pytest.mark.parametrize("n", [2, 5, 15, 40, 50, 123, 1000])
@pytest.mark.parametrize("alpha,power", [(0.05, 0.8), (0.01, 0.9), (0.1, 0.5)])
def test_minimum_detectable_equals_statsmodels(n, alpha, power):
    sd = PILOT.std(ddof=1)
    ours = minimum_detectable_difference(PILOT, queries=n, alpha=alpha, power=power)
    assert t_test_power(ours / sd, n, alpha=alpha) == pytest.approx(power, abs=1e-9)
    peer = TTestPower().power(ours / sd, n, alpha)  # NaN where scipy's noncentral t fails (n = 2, effect 35)
    assert (math.isnan(peer) and n == 2) or peer == pytest.approx(power, abs=1e-9)
    theirs = TTestPower().solve_power(nobs=n, alpha=alpha, power=power)  # solved to about 1e-5
    if TTestPower().power(theirs, n, alpha) == pytest.approx(power, abs=1e-6):  # its solver stops at an effect of
        assert ours == pytest.approx(theirs * sd, rel=1e-4)  # 10 (n = 2, alpha 0.01 needs 74)


@pytest.mark.parametrize("delta", [0.005, 0.02, 0.05, 0.2])
@pytest.mark.parametrize("alpha,power", [(0.05, 0.8), (0.01, 0.9)])
def test_queries_needed_is_statsmodels_rounded_up(delta, alpha, power):
    sd = PILOT.std(ddof=1)
    theirs = TTestPower().solve_power(effect_size=delta / sd, alpha=alpha, power=power)
    n = queries_needed(PILOT, delta, alpha=alpha, power=power)
    assert n == max(2, math.ceil(theirs - 1e-6))
    assert t_test_power(delta / sd, n, alpha=alpha) >= power
    if n > 2:
        assert t_test_power(delta / sd, n - 1, alpha=alpha) < power


@pytest.mark.parametrize("n", [2, 7, 40, 50, 123, 1000, 9999])
@pytest.mark.parametrize("alpha,power", [(0.05, 0.8), (0.01, 0.9), (0.1, 0.5)])
def test_round_trip(n, alpha, power):
    mdd = minimum_detectable_difference(PILOT, queries=n, alpha=alpha, power=power)
    assert queries_needed(PILOT, mdd, alpha=alpha, power=power) == n


def test_the_issue_repro_noncentral_t_against_the_normal_approximation():
    # A pilot with the README example's spread: 15 queries, sd(d) such that the normal approximation says
    # 0.0744 is detectable. The t-test needs more: about 0.080, and 36 queries (not 34) for 0.05.
    z = scipy.stats.norm.ppf(0.975) + scipy.stats.norm.ppf(0.8)
    sd = 0.0744 * math.sqrt(15) / z
    pilot = np.array([-1.0, 1.0] * 7 + [0.0]) * sd / np.std([-1.0, 1.0] * 7 + [0.0], ddof=1)
    assert pilot.std(ddof=1) == pytest.approx(sd)
    assert round(minimum_detectable_difference(pilot), 3) == 0.080
    assert queries_needed(pilot, 0.05) == 36
    assert math.ceil((z * sd / 0.05) ** 2) == 34  # what the normal approximation said


def test_power_is_achieved_by_simulation():
    # At n = queries_needed, the paired t-test on normal data with the pilot's spread rejects about 80% of the time,
    # and at a small n, where the normal approximation was optimistic, too.
    rng = np.random.default_rng(2)
    for sd, delta in ((0.08, 0.03), (0.1, 0.12)):
        n = queries_needed(rng.normal(0, sd, size=5000), delta)
        d = rng.normal(delta, sd, size=(4000, n))
        t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
        rejected = np.mean(np.abs(t) > scipy.stats.t.ppf(0.975, n - 1))
        assert 0.78 < rejected < 0.86, (n, rejected)


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_randomization_floor_is_where_the_sign_flip_test_can_reach_alpha(n):
    # The most extreme case: one system ahead on every query. p = (count + 1) / (B + 1), count ~ B * 2 / 2**n.
    p = randomization_test([0.6] * n, [0.1] * n, permutations=20_000).p_value
    assert (p <= 0.05) == (n >= randomization_floor(0.05))
    assert p == pytest.approx(2 / 2**n, abs=0.01)


def test_randomization_floor_by_hand():
    assert randomization_floor(0.05) == 6  # 2 / 2**5 = 0.0625 > 0.05 >= 2 / 2**6 = 0.03125
    assert randomization_floor(0.01) == 8  # 2 / 2**7 = 0.0156, 2 / 2**8 = 0.0078
    assert randomization_floor(0.05, tests=3) == 7  # Holm over 3: 3 * 2 / 2**6 = 0.094, 3 * 2 / 2**7 = 0.047
    assert randomization_floor(0.05, systems=3) == 3  # 6 relabellings: 6**-1 = 0.167, 6**-2 = 0.028
    assert randomization_floor(0.05, permutations=99) == 6  # (99 / 32 + 1) / 100 = 0.041
    with pytest.raises(judged.UsageError, match="cannot give a p-value"):
        randomization_floor(0.001, permutations=99)


def test_queries_needed_never_below_the_floor():
    big = np.array([0.5, 0.6, 0.4, 0.55, 0.45])  # sd 0.079: an effect of 6.3 sd
    assert queries_needed(big, 0.5) == 3  # the t-test alone: t_{0.975, 1} = 12.7 is too far for 2 queries
    assert queries_needed(big, 0.5, minimum=6) == 6


def test_bad_input():
    with pytest.raises(judged.UsageError, match="at least 2"):
        minimum_detectable_difference([0.1])
    with pytest.raises(judged.UsageError, match="sd = 0"):
        queries_needed([0.1, 0.1], 0.05)
    with pytest.raises(judged.UsageError, match="power"):
        minimum_detectable_difference(PILOT, power=1.0)
    with pytest.raises(judged.UsageError, match="alpha"):
        minimum_detectable_difference(PILOT, alpha=0)
    with pytest.raises(judged.UsageError, match="queries must be an int"):
        minimum_detectable_difference(PILOT, queries=0)
    with pytest.raises(judged.UsageError, match="at least 2 queries"):
        minimum_detectable_difference(PILOT, queries=1)
    with pytest.raises(judged.UsageError, match="non-zero"):
        queries_needed(PILOT, 0.0)
    with pytest.raises(judged.UsageError, match="position 2"):
        queries_needed([0.1, 0.2, np.nan], 0.1)
