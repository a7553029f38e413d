"""Minimum detectable difference and queries needed, from pilot differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

import judged
from judged.stats.planning import minimum_detectable_difference, queries_needed

PILOT = np.random.default_rng(0).normal(0.01, 0.08, size=40)


@pytest.mark.parametrize("n", [1, 2, 7, 40, 50, 123, 1000, 9999])
@pytest.mark.parametrize("alpha,power", [(0.05, 0.8), (0.01, 0.9), (0.1, 0.5)])
def test_round_trip(n, alpha, power):
    mdd = minimum_detectable_difference(PILOT, queries=n, alpha=alpha, power=power)
    assert queries_needed(PILOT, mdd, alpha=alpha, power=power) == n


def test_formula_by_hand():
    sd = PILOT.std(ddof=1)
    z = scipy.stats.norm.ppf(0.975) + scipy.stats.norm.ppf(0.8)  # 1.95996 + 0.84162
    assert minimum_detectable_difference(PILOT) == pytest.approx(z * sd / math.sqrt(40))
    assert minimum_detectable_difference(PILOT, queries=160) == pytest.approx(
        z * sd / math.sqrt(160)
    )
    assert queries_needed(PILOT, 0.01) == math.ceil((z * sd / 0.01) ** 2)
    assert queries_needed(PILOT, -0.01) == queries_needed(PILOT, 0.01)


def test_power_is_achieved_by_simulation():
    # At n = queries_needed, a paired z-test on data with the pilot's spread rejects about 80% of the time.
    sd, delta = 0.08, 0.03
    pilot = np.random.default_rng(1).normal(0, sd, size=5000)
    n = queries_needed(pilot, delta)
    rng = np.random.default_rng(2)
    d = rng.normal(delta, sd, size=(2000, n))
    z = d.mean(axis=1) / (sd / np.sqrt(n))
    assert 0.77 < np.mean(np.abs(z) > 1.959964) < 0.83


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
    with pytest.raises(judged.UsageError, match="non-zero"):
        queries_needed(PILOT, 0.0)
    with pytest.raises(judged.UsageError, match="position 2"):
        queries_needed([0.1, 0.2, np.nan], 0.1)
