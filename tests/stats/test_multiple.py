"""Holm, Benjamini-Hochberg and the randomised Tukey HSD against slow references."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats

import judged
from judged.stats.multiple import (
    benjamini_hochberg,
    holm,
    tukey_hsd_randomized,
    within_query_permutations,
)


def _holm_reference(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def _bh_reference(p):
    m = len(p)
    out = []
    for i in range(m):
        # Smallest m p_(j) / j over all j whose p_(j) >= p_i.
        best = 1.0
        for j in range(m):
            if p[j] >= p[i]:
                rank = sum(1 for x in p if x <= p[j])
                best = min(best, m * p[j] / rank)
        out.append(best)
    return out


@pytest.mark.parametrize("seed", range(5))
def test_holm_and_bh_match_slow_references(seed):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 0.2, size=12)
    p[3] = p[7]  # a tie
    assert holm(p) == pytest.approx(_holm_reference(list(p)), abs=1e-15)
    assert benjamini_hochberg(p) == pytest.approx(_bh_reference(list(p)), abs=1e-15)
    assert benjamini_hochberg(p) == pytest.approx(
        scipy.stats.false_discovery_control(p, method="bh"), abs=1e-15
    )


def test_corrections_are_never_below_raw_and_never_above_one():
    p = np.array([0.0, 0.5, 1.0, 0.02])
    for adjusted in (holm(p), benjamini_hochberg(p)):
        assert np.all(adjusted >= p) and np.all(adjusted <= 1.0)
    assert holm([]).size == 0


def test_bad_pvalues_are_usage_errors():
    with pytest.raises(judged.UsageError, match="position 1"):
        holm([0.1, 1.5])
    with pytest.raises(judged.UsageError, match=r"\[0, 1\]"):
        benjamini_hochberg([np.nan])


def _tukey_reference(x, permutations, seed):
    n, k = x.shape
    ranges = []
    for block in within_query_permutations(seed, n, k, permutations):
        for order in block:
            permuted = np.array(
                [[x[q, order[q, s]] for s in range(k)] for q in range(n)]
            )
            means = permuted.mean(axis=0)
            ranges.append(means.max() - means.min())
    means = x.mean(axis=0)
    p = np.ones((k, k))
    for i, j in itertools.permutations(range(k), 2):
        observed = abs(means[i] - means[j])
        p[i, j] = (sum(r >= observed - 1e-12 for r in ranges) + 1) / (permutations + 1)
    return p


def test_tukey_matches_slow_reference():
    rng = np.random.default_rng(1)
    base = rng.beta(2, 3, size=(15, 1))
    x = np.clip(
        base + np.array([0.0, 0.02, 0.1, 0.12]) + rng.normal(0, 0.08, size=(15, 4)),
        0,
        1,
    )
    r = tukey_hsd_randomized(x, permutations=400, seed=3)
    assert np.array_equal(r.p_values, _tukey_reference(x, 400, 3))
    assert r.differences[2, 0] == pytest.approx(x[:, 2].mean() - x[:, 0].mean())
    assert [(i, j) for i, j, _, _ in r.pairs()] == [
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 2),
        (1, 3),
        (2, 3),
    ]


def test_tukey_permutes_within_queries_not_across():
    # Huge per-query difficulty differences, small consistent system gap: a paired test sees it,
    # a test that pooled scores across queries would not.
    rng = np.random.default_rng(2)
    difficulty = rng.uniform(0, 0.9, size=(60, 1))
    x = difficulty + np.array([0.0, 0.0, 0.03]) + rng.normal(0, 0.005, size=(60, 3))
    r = tukey_hsd_randomized(x, permutations=2000)
    assert r.p_values[0, 2] == 1 / 2001
    assert r.p_values[0, 1] > 0.05


def test_tukey_is_seeded_and_symmetric_and_more_conservative_than_one_pair():
    rng = np.random.default_rng(4)
    x = rng.uniform(size=(30, 5))
    r = tukey_hsd_randomized(x, permutations=1000, seed=9)
    assert (
        tukey_hsd_randomized(x, permutations=1000, seed=9).p_values.tolist()
        == r.p_values.tolist()
    )
    assert np.array_equal(r.p_values, r.p_values.T)
    single = judged.stats.randomization_test(
        x[:, 0], x[:, 1], permutations=1000
    ).p_value
    assert r.p_values[0, 1] >= single - 0.05


def test_tukey_identical_systems_and_bad_input():
    x = np.tile(np.linspace(0, 1, 10)[:, None], (1, 3))
    assert np.all(tukey_hsd_randomized(x, permutations=50).p_values == 1.0)
    with pytest.raises(judged.UsageError, match="at least 2 systems"):
        tukey_hsd_randomized(np.ones((5, 1)))
    bad = np.ones((5, 3))
    bad[2, 1] = np.nan
    with pytest.raises(judged.UsageError, match="query row 2, system 1"):
        tukey_hsd_randomized(bad)


def test_tukey_in_c_equals_the_numpy_shuffles(monkeypatch):
    """The C kernel draws exactly the shuffles of within_query_orders: same ranges, bit for bit."""
    from judged.stats import multiple

    if multiple._native is None:
        pytest.skip("the C extension is not built")
    x = np.random.default_rng(5).random((37, 7))
    seeds = multiple.permutation_seeds(11, 700)
    in_c = multiple._ranges(x, seeds)
    monkeypatch.setattr(multiple, "_native", None)
    assert np.array_equal(in_c, multiple._ranges(x, seeds))
    assert np.array_equal(tukey_hsd_randomized(x, permutations=300, seed=2).p_values, _tukey_reference(x, 300, 2))


def test_within_query_orders_are_uniform_and_independent():
    """Over 3 systems, every one of the 6 orders is about equally likely per query, and two queries' orders are
    independent (36 joint cells about equally likely): chi-square far from rejecting."""
    from judged.stats.multiple import permutation_seeds, within_query_orders

    seeds = permutation_seeds(1, 30_000)
    orders = [o @ np.array([9, 3, 1]) for o in within_query_orders(seeds, 2, 3)]  # each order as one number
    first, second = (np.unique(o, return_inverse=True)[1] for o in orders)
    for cells, expected in ((np.bincount(first, minlength=6), 5000),
                            (np.bincount(first * 6 + second, minlength=36), 30_000 / 36)):
        assert len(cells) in (6, 36)
        chi2 = float(((cells - expected) ** 2 / expected).sum())
        assert scipy.stats.chi2.sf(chi2, len(cells) - 1) > 1e-4
