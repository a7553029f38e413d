"""URisk and TRisk with hand-computed numbers."""

from __future__ import annotations

import math

import pytest

import judged
from judged.stats.risk import Risk, risk_adjusted_deltas, risk_against_baseline, trisk, urisk

SYSTEM = [0.50, 0.30, 0.80, 0.20]
BASELINE = [0.40, 0.50, 0.60, 0.20]
# Deltas: +0.1, -0.2, +0.2, 0.0


def test_urisk_by_hand():
    # alpha = 1: (0.1 + 2 * -0.2 + 0.2 + 0) / 4 = -0.1 / 4 = -0.025
    assert urisk(SYSTEM, BASELINE, alpha=1.0) == pytest.approx(-0.025)
    # alpha = 0 is the mean difference: 0.1 / 4
    assert urisk(SYSTEM, BASELINE, alpha=0.0) == pytest.approx(0.025)
    # alpha = 5: (0.1 - 1.2 + 0.2) / 4 = -0.225
    assert urisk(SYSTEM, BASELINE, alpha=5.0) == pytest.approx(-0.225)


def test_trisk_by_hand():
    # r = [0.1, -0.4, 0.2, 0.0], mean -0.025
    # squared deviations: 0.015625, 0.140625, 0.050625, 0.000625 -> sum 0.2075
    # sd = sqrt(0.2075 / 3); SE = sd / 2
    se = math.sqrt(0.2075 / 3) / 2
    assert trisk(SYSTEM, BASELINE, alpha=1.0) == pytest.approx(-0.025 / se)
    r = risk_against_baseline(SYSTEM, BASELINE, alpha=1.0)
    assert (r.wins, r.losses, r.n, r.alpha) == (2, 1, 4, 1.0)
    assert risk_adjusted_deltas(SYSTEM, BASELINE, alpha=1.0) == pytest.approx(
        [0.1, -0.4, 0.2, 0.0]
    )


def test_trisk_at_alpha_zero_is_the_paired_t_statistic():
    assert trisk(SYSTEM, BASELINE, alpha=0.0) == pytest.approx(
        judged.stats.t_test(SYSTEM, BASELINE).statistic
    )


def test_degenerate_and_bad_input():
    assert risk_against_baseline([0.2, 0.3], [0.2, 0.3]) == Risk(0.0, 0.0, 1.0, 0, 0, 2)
    assert trisk([0.75, 0.5], [0.5, 0.25]) == math.inf
    with pytest.raises(judged.UsageError, match="alpha"):
        urisk(SYSTEM, BASELINE, alpha=-1)
    with pytest.raises(judged.UsageError, match="same length"):
        urisk(SYSTEM, BASELINE[:2])
    with pytest.raises(judged.UsageError, match="at least 2"):
        risk_against_baseline([0.1], [0.2])
