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


# --- simulated paired differences (the coverage tests here and in test_bootstrap.py) ----


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


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 70), st.integers(1, 4), st.integers(1, 3000), st.integers(0, 2**32 - 1))
def test_shared_sign_flips_give_each_pair_the_bits_it_gets_alone(n, pairs, permutations, seed):
    """compare draws the signs once for every run against the baseline: each test is the one sign_flips gives."""
    from judged.stats.paired import seeded_rng, shared_sign_flips, sign_flip_bits, sign_flips

    rng = np.random.default_rng(seed)
    base = rng.random(n)
    runs = [rng.random(n) for _ in range(pairs)]
    shared = shared_sign_flips([x - base for x in runs], permutations=permutations, seed=seed % 97)
    for x, together in zip(runs, shared):
        alone = sign_flips(x, base, permutations=permutations, seed=seed % 97)
        assert together.flipped_sums.tobytes() == alone.flipped_sums.tobytes()
        assert together.flipped_counts.tobytes() == alone.flipped_counts.tobytes()
        assert together.p_value() == alone.p_value() and together.interval() == alone.interval()
        bits = np.concatenate(list(sign_flip_bits(seeded_rng(seed % 97), n, permutations)))
        assert np.allclose(together.flipped_sums, bits @ (x - base), rtol=0, atol=1e-12)
        assert together.flipped_counts.tolist() == bits.sum(axis=1).tolist()
