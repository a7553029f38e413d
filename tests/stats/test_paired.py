"""Paired two-system statistics: known answers, scipy cross-checks and slow references."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

import judged
from judged.stats import (
    bootstrap_ci,
    effect_size,
    randomization_test,
    t_test,
    wilcoxon,
    wins_ties_losses,
)
from judged.stats.bootstrap import bootstrap_indices, bootstrap_means
from judged.stats.paired import sign_flip_bits, sign_flips


def _pair(n=30, shift=0.05, seed=7):
    rng = np.random.default_rng(seed)
    base = rng.beta(2, 3, size=n)
    a = np.clip(base + shift + rng.normal(0, 0.1, size=n), 0, 1)
    b = np.clip(base + rng.normal(0, 0.1, size=n), 0, 1)
    return a, b


# --- validation -------------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [randomization_test, t_test, wilcoxon, bootstrap_ci, effect_size, wins_ties_losses],
)
def test_length_mismatch_is_a_usage_error(fn):
    with pytest.raises(judged.UsageError, match="same length"):
        fn([0.1, 0.2, 0.3], [0.1, 0.2])


@pytest.mark.parametrize(
    "fn",
    [randomization_test, t_test, wilcoxon, bootstrap_ci, effect_size, wins_ties_losses],
)
def test_nan_is_a_usage_error_naming_the_position(fn):
    with pytest.raises(judged.UsageError, match=r"NaN.*position 1"):
        fn([0.1, 0.2, 0.3], [0.1, np.nan, 0.3])


def test_bad_options_are_usage_errors():
    a, b = _pair()
    with pytest.raises(judged.UsageError, match="permutations must be an int >= 1"):
        randomization_test(a, b, permutations=0)
    with pytest.raises(judged.UsageError, match="method must be one of"):
        bootstrap_ci(a, b, method="basic")
    with pytest.raises(judged.UsageError, match="confidence"):
        bootstrap_ci(a, b, confidence=95)
    with pytest.raises(judged.UsageError, match="tolerance"):
        wins_ties_losses(a, b, tolerance=-0.1)
    with pytest.raises(judged.UsageError, match="1-D"):
        t_test([[0.1, 0.2]], [[0.1, 0.2]])


def test_inputs_are_not_mutated():
    a, b = _pair()
    a0, b0 = a.copy(), b.copy()
    randomization_test(a, b, permutations=100)
    bootstrap_ci(a, b, resamples=100, method="bca")
    assert np.array_equal(a, a0) and np.array_equal(b, b0)


# --- randomization test -----------------------------------------------------


def test_identical_systems_give_p_one():
    a, _ = _pair()
    r = randomization_test(a, a.copy(), permutations=2000)
    assert r.p_value == 1.0
    assert r.count == 2000
    assert r.mean_difference == 0.0


def test_dominating_system_gives_smallest_possible_p():
    rng = np.random.default_rng(3)
    b = rng.uniform(0, 0.8, size=500)
    a = b + rng.uniform(0.01, 0.1, size=500)
    r = randomization_test(a, b, permutations=5000)
    assert r.p_value == 1 / 5001
    assert r.count == 0


def test_float_ties_are_counted():
    # Every flip of two equal differences gives |mean| equal to the observed one or 0.
    a = np.array([0.3, 0.7, 0.1 + 0.2])
    b = np.array([0.2, 0.6, 0.2])
    r = randomization_test(a, b, permutations=4000, seed=5)
    # Exact p: sign patterns (+++) and (---) reach the observed value: 2/8.
    assert abs(r.p_value - 0.25) < 0.03


def test_same_seed_same_answer_and_seed_matters():
    a, b = _pair(shift=0.03)
    first = randomization_test(a, b, permutations=3000, seed=11)
    assert randomization_test(a, b, permutations=3000, seed=11) == first
    assert randomization_test(a, b, permutations=3000, seed=12).count != first.count


def test_matches_slow_reference_with_the_same_signs():
    a, b = _pair(n=23, shift=0.02)
    d = a - b
    observed = abs(d.mean())
    rng = np.random.Generator(np.random.PCG64(4))
    count = 0
    for block in sign_flip_bits(rng, d.size, 1500):
        for bits in block:
            signs = np.where(bits == 1, -1.0, 1.0)
            if abs(np.mean(signs * d)) >= observed - 1e-12:
                count += 1
    r = randomization_test(a, b, permutations=1500, seed=4)
    assert r.count == count
    assert r.p_value == (count + 1) / 1501


def test_close_to_scipy_permutation_test_within_monte_carlo_error():
    a, b = _pair(n=30, shift=0.04, seed=22)
    B = 20_000
    ours = randomization_test(a, b, permutations=B, seed=0).p_value
    theirs = scipy.stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=B,
        alternative="two-sided",
        rng=np.random.default_rng(1),
    ).pvalue
    assert 0.005 < theirs < 0.5  # a p-value worth comparing
    se = np.sqrt(theirs * (1 - theirs) / B)
    assert abs(ours - theirs) < 5 * np.sqrt(2) * se + 1e-4


def test_chunking_keeps_memory_bounded_but_answers_consistent(monkeypatch):
    from judged.stats import paired

    a, b = _pair(n=40, shift=0.0, seed=2)
    full = randomization_test(a, b, permutations=3000, seed=9)
    monkeypatch.setattr(paired, "CHUNK_ELEMENTS", 40 * 7)
    chunked = randomization_test(a, b, permutations=3000, seed=9)
    # Different blocks draw different signs; the estimate agrees within Monte Carlo error.
    assert abs(full.p_value - chunked.p_value) < 0.06


# --- t-test, Wilcoxon, effect size, wins --------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_t_test_equals_scipy(seed):
    a, b = _pair(n=25, shift=0.03, seed=seed)
    ours = t_test(a, b)
    theirs = scipy.stats.ttest_rel(a, b)
    assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-10)
    assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9)
    assert ours.df == 24


def test_t_test_degenerate_cases():
    assert t_test([0.2, 0.4], [0.2, 0.4]).p_value == 1.0
    r = t_test([0.3, 0.5], [0.2, 0.4])
    assert r.statistic == np.inf and r.p_value == 0.0


@pytest.mark.parametrize("n", [10, 40, 120])
def test_wilcoxon_equals_scipy(n):
    a, b = _pair(n=n, shift=0.02, seed=n)
    b[:3] = a[:3]  # zero differences are dropped
    ours = wilcoxon(a, b)
    theirs = scipy.stats.wilcoxon(a, b, zero_method="wilcox", correction=False)
    assert ours.statistic == theirs.statistic
    assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-12)
    assert ours.n_nonzero == n - 3


def test_wilcoxon_identical_systems():
    assert wilcoxon([0.1, 0.5], [0.1, 0.5]).p_value == 1.0


def test_effect_size_is_paired_d_z():
    a, b = _pair(n=50)
    d = a - b
    r = effect_size(a, b)
    assert r.d_z == pytest.approx(d.mean() / d.std(ddof=1))
    # Paired d_z times sqrt(n) is the paired t statistic.
    assert r.d_z * np.sqrt(50) == pytest.approx(scipy.stats.ttest_rel(a, b).statistic)


def test_wins_ties_losses_with_tolerance():
    a = [0.50, 0.52, 0.40, 0.90, 0.10]
    b = [0.50, 0.50, 0.45, 0.60, 0.30]
    assert wins_ties_losses(a, b) == judged.stats.WinsTiesLosses(2, 1, 2, 0.0)
    r = wins_ties_losses(a, b, tolerance=0.05)
    assert (r.wins, r.ties, r.losses) == (1, 3, 1)


# --- bootstrap ----------------------------------------------------------------


def test_identical_systems_ci_contains_zero():
    a, _ = _pair()
    for method in ("percentile", "bca"):
        ci = bootstrap_ci(a, a.copy(), resamples=1000, method=method)
        assert ci.difference.low <= 0.0 <= ci.difference.high
        assert ci.a == ci.b


def test_bootstrap_same_seed_same_answer():
    a, b = _pair()
    assert bootstrap_ci(a, b, resamples=500, seed=3, method="bca") == bootstrap_ci(
        a, b, resamples=500, seed=3, method="bca"
    )


def _reference_ci(values, boot, confidence, method):
    """Slow textbook percentile / BCa interval from given bootstrap means."""
    estimate = np.mean(values)
    tail = (1 - confidence) / 2
    levels = [tail, 1 - tail]
    if method == "bca":
        n = len(values)
        z0 = scipy.stats.norm.ppf(np.mean(boot < estimate) + 0.5 * np.mean(boot == estimate))  # mid-rank
        jack = np.array([np.mean(np.delete(values, i)) for i in range(n)])
        dev = jack.mean() - jack
        accel = np.sum(dev**3) / (6 * np.sum(dev**2) ** 1.5)
        z = scipy.stats.norm.ppf(levels)
        levels = scipy.stats.norm.cdf(z0 + (z0 + z) / (1 - accel * (z0 + z)))
    return np.percentile(boot, np.array(levels) * 100)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_matches_slow_reference_with_same_indices(method):
    a, b = _pair(n=35, shift=0.03, seed=5)
    B = 3000
    ci = bootstrap_ci(a, b, resamples=B, method=method, seed=8, confidence=0.9)
    idx = np.concatenate(
        list(bootstrap_indices(np.random.Generator(np.random.PCG64(8)), 35, B))
    )
    for values, got in ((a, ci.a), (b, ci.b), (a - b, ci.difference)):
        boot = np.array([values[row].mean() for row in idx])
        low, high = _reference_ci(values, boot, 0.9, method)
        assert got.low == pytest.approx(low, abs=1e-12)
        assert got.high == pytest.approx(high, abs=1e-12)
        assert got.estimate == pytest.approx(values.mean())


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_close_to_scipy(method):
    a, b = _pair(n=40, shift=0.03, seed=6)
    B = 20_000
    ci = bootstrap_ci(a, b, resamples=B, method=method)
    scipy_method = "BCa" if method == "bca" else "percentile"
    for stat, got in (
        (lambda x, y, axis: np.mean(x, axis=axis), ci.a),
        (lambda x, y, axis: np.mean(x - y, axis=axis), ci.difference),
    ):
        res = scipy.stats.bootstrap(
            (a, b),
            stat,
            paired=True,
            vectorized=True,
            n_resamples=B,
            method=scipy_method,
            rng=np.random.default_rng(2),
        )
        width = res.confidence_interval.high - res.confidence_interval.low
        assert abs(got.low - res.confidence_interval.low) < 0.03 * width
        assert abs(got.high - res.confidence_interval.high) < 0.03 * width


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_coverage_is_about_95_percent(method):
    rng = np.random.default_rng(2024)
    n, reps = 40, 300
    true_diff = 2 / 7 - 3 / 8  # Beta(2, 5) minus Beta(3, 5)
    covered_diff = covered_a = 0
    for rep in range(reps):
        a = rng.beta(2, 5, size=n)
        b = rng.beta(3, 5, size=n)
        ci = bootstrap_ci(a, b, resamples=2000, method=method, seed=rep)
        covered_diff += ci.difference.low <= true_diff <= ci.difference.high
        covered_a += ci.a.low <= 2 / 7 <= ci.a.high
    assert 0.90 <= covered_diff / reps <= 0.985
    assert 0.90 <= covered_a / reps <= 0.985


# --- ties: the mid-rank share of BCa --------------------------------------------


TIED = np.array([0.0] * 7 + [0.5, 0.5, -0.5])


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_bca_on_tied_data_equals_scipy_both_ways(sign):
    """The issue's repro: d = [0]*7 + [.5, .5, -.5]. Counting resampled means equal to the estimate (0.05) as above it
    gave [-0.15, 0.15] one way and [-0.05, 0.25] negated; scipy, and the mid-rank share, give [-0.10, 0.20]."""
    d = sign * TIED
    ours = bootstrap_ci(d, np.zeros(10), method="bca", resamples=20_000).difference
    theirs = scipy.stats.bootstrap((d,), np.mean, method="BCa", n_resamples=20_000,
                                   rng=np.random.default_rng(0)).confidence_interval
    assert (ours.low, ours.high) == pytest.approx((theirs.low, theirs.high), abs=1e-12)
    assert (ours.low, ours.high) == pytest.approx((-0.10, 0.20) if sign > 0 else (-0.20, 0.10), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.0, 0.25, 0.5, 1.0]), min_size=3, max_size=25),
       st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=25, max_size=25))
def test_bca_mirrors_under_negation(a, b):
    """Negating the differences negates the resampled means, so the interval must mirror exactly (up to rounding)."""
    x, y = np.array(a), np.array(b[: len(a)])
    there = bootstrap_ci(x, y, method="bca", resamples=999, seed=3).difference
    back = bootstrap_ci(y, x, method="bca", resamples=999, seed=3).difference
    assert back.low == pytest.approx(-there.high, abs=1e-9) and back.high == pytest.approx(-there.low, abs=1e-9)

REPS, N = 300, 25


def simulated_differences(data: str):
    """``(rep, differences, true mean)`` for 300 samples of 25 paired differences: three tied values ("tied") or a
    difference of two betas ("continuous")."""
    rng = np.random.default_rng(7)
    values, probs = np.array([-0.5, 0.0, 0.5]), np.array([0.1, 0.7, 0.2])
    for rep in range(REPS):
        if data == "tied":
            yield rep, rng.choice(values, size=N, p=probs), float(values @ probs)
        else:
            yield rep, rng.beta(2, 5, size=N) - rng.beta(3, 5, size=N), 2 / 7 - 3 / 8


@pytest.mark.parametrize("data", ["tied", "continuous"])
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_coverage_on_tied_and_continuous_data(method, data):
    """95% intervals cover the true mean about 95% of the time, on scores with many ties as on continuous ones."""
    covered = 0
    for rep, d, truth in simulated_differences(data):
        ci = bootstrap_ci(d, np.zeros(N), method=method, resamples=2000, seed=rep).difference
        covered += ci.low <= truth <= ci.high
    assert 0.90 <= covered / REPS <= 0.985


def test_bootstrap_means_is_bootstrap_ci_on_every_row():
    a, b = _pair(n=33, seed=4)
    ci = bootstrap_ci(a, b, resamples=700, seed=5, method="bca")
    assert bootstrap_means(np.stack([a, b, a - b]), resamples=700, seed=5, method="bca") == (ci.a, ci.b,
                                                                                          ci.difference)


# --- the sign flips behind the test, and its interval ---------------------------


@pytest.mark.parametrize("n", [1, 7, 8, 9, 23, 64])
def test_sign_flips_sum_and_count_the_flipped_queries(n):
    """The per-byte table of partial sums gives what the unpacked 0/1 signs give, bit for bit in the counts."""
    d = np.random.default_rng(n).normal(size=n)
    flips = sign_flips(d, np.zeros(n), permutations=300, seed=2)
    bits = np.concatenate(list(sign_flip_bits(np.random.Generator(np.random.PCG64(2)), n, 300)))
    assert np.allclose(flips.flipped_sums, bits @ d, atol=1e-12)
    assert np.array_equal(flips.flipped_counts, bits.sum(axis=1))


def test_interval_is_the_shifts_the_test_does_not_reject():
    a, b = _pair(n=40, shift=0.04, seed=3)
    flips = sign_flips(a, b, permutations=4000, seed=1)
    ci = flips.interval(0.95)
    d = a - b
    assert ci.estimate == pytest.approx(d.mean())
    # Inside the ends the shifted test does not reject; just outside it does.
    step = 1e-6
    assert flips.p_value(ci.low + step) > 0.05 and flips.p_value(ci.low - step) <= 0.05
    assert flips.p_value(ci.high - step) > 0.05 and flips.p_value(ci.high + step) <= 0.05
    # The shifted test is the plain test on shifted data, with the same signs.
    shift = 0.01
    assert flips.p_value(shift) == randomization_test(a - shift, b, permutations=4000, seed=1).p_value
    assert flips.p_value() == randomization_test(a, b, permutations=4000, seed=1).p_value
    # Close to the t interval on data like these.
    t = scipy.stats.ttest_rel(a, b).confidence_interval(0.95)
    assert ci.low == pytest.approx(t.low, abs=0.2 * (t.high - t.low))
    assert ci.high == pytest.approx(t.high, abs=0.2 * (t.high - t.low))


def test_interval_with_too_few_queries_is_unbounded():
    flips = sign_flips([0.9] * 4, [0.1] * 4, permutations=999)  # smallest p: 2 / 2**4 = 0.125
    ci = flips.interval(0.95)
    assert ci.low == -np.inf and ci.high == np.inf


@pytest.mark.parametrize("data", ["tied", "continuous"])
def test_the_tests_interval_covers_about_95_percent(data):
    """The interval compare prints for a difference covers the true mean difference about 95% of the time."""
    covered = 0
    for rep, d, truth in simulated_differences(data):
        ci = sign_flips(d, np.zeros(N), permutations=999, seed=rep).interval(0.95)
        covered += ci.low <= truth <= ci.high
    assert 0.90 <= covered / REPS <= 0.985
