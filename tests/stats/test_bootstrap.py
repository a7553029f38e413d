"""The paired bootstrap (judged.stats.bootstrap): slow references, scipy cross-checks, ties and coverage."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from test_paired import REPS, N, _pair, simulated_differences

from judged.stats import bootstrap_ci
from judged.stats.bootstrap import bootstrap_indices, bootstrap_means


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


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 40), st.one_of(st.integers(1, 300), st.sampled_from([1000, 4099])), st.integers(1, 400),
       st.integers(0, 2**32 - 1))
def test_the_c_resampled_means_are_numpys_bits(series, n, resamples, seed):
    """The C kernel sums as numpy's take then mean(axis=1) do (pairwise, step for step): the same bits, for any
    number of series (past the 32 summed together), queries (past each pairwise block size) and draws, signed
    zeros and magnitudes apart included."""
    from judged.io.native import _native
    from judged.stats import bootstrap

    if _native is None:
        pytest.skip("the C extension is not built")
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(series, n)) * 10.0 ** rng.integers(-300, 300, size=(series, n))
    values[rng.random((series, n)) < 0.2] = -0.0
    values[rng.random((series, n)) < 0.1] = 0.0
    draws = list(bootstrap_indices(np.random.Generator(np.random.PCG64(3)), n, resamples))
    native = np.empty((series, resamples))
    done = 0
    for idx in draws:
        block = _native.resampled_means(np.ascontiguousarray(values.T), series, n, idx, 2)
        native[:, done : done + idx.shape[0]] = np.frombuffer(block, dtype=np.float64).reshape(series, -1)
        done += idx.shape[0]
    plain = np.empty((series, resamples))
    bootstrap._gathered_means(values, iter(draws), plain)
    assert native.tobytes() == plain.tobytes()


def test_the_c_resampled_means_refuse_draws_that_are_not_queries():
    from judged.io.native import _native

    if _native is None:
        pytest.skip("the C extension is not built")
    with pytest.raises(ValueError, match="a draw is not a query's index"):
        _native.resampled_means(np.zeros((3, 2)), 2, 3, np.array([[0, 1, 3]], dtype=np.int64), 1)
    with pytest.raises(ValueError, match="do not agree"):
        _native.resampled_means(np.zeros((3, 2)), 2, 4, np.array([[0, 1, 2]], dtype=np.int64), 1)
