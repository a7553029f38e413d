"""Cohen's kappa equals scikit-learn's (with `labels`) and statsmodels' on generated data; edge cases by definition."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

from judged.agreement import WEIGHTS, cohen_kappa
from judged.errors import InputError, UsageError

SKLEARN = {"unweighted": None, "linear": "linear", "quadratic": "quadratic"}
STATSMODELS = {"unweighted": None, "linear": "linear", "quadratic": "quadratic"}


@st.composite
def graded_pairs(draw):
    """A domain of 2-6 consecutive grades (not always from 0) and 1-80 pairs graded by two assessors."""
    low = draw(st.integers(-1, 2))
    domain = list(range(low, low + draw(st.integers(2, 6))))
    n = draw(st.integers(1, 80))
    # a narrow sub-range of the domain often, so unused grades (the case scikit-learn shrinks) are common
    lo = draw(st.sampled_from(domain))
    hi = draw(st.sampled_from([g for g in domain if g >= lo]))
    grade = st.integers(lo, hi) if draw(st.booleans()) else st.sampled_from(domain)
    first = draw(st.lists(grade, min_size=n, max_size=n))
    second = draw(st.lists(grade, min_size=n, max_size=n))
    return domain, first, second


def _table(first, second, domain):
    """The K x K table, built independently of judged's code."""
    table = np.zeros((len(domain), len(domain)))
    for a, b in zip(first, second):
        table[domain.index(a), domain.index(b)] += 1
    return table


def _defined(first, second) -> bool:
    return len(set(first) | set(second)) > 1


@settings(max_examples=150, deadline=None)
@given(graded_pairs())
def test_equals_scikit_learn_with_labels_and_statsmodels(data):
    domain, first, second = data
    assume(_defined(first, second))
    table = _table(first, second, domain)
    for weights in WEIGHTS:
        ours = cohen_kappa(first, second, grades=domain, weights=weights, resamples=0)
        assert ours.reason is None
        sk = cohen_kappa_score(first, second, labels=domain, weights=SKLEARN[weights])
        sm = cohens_kappa(table, wt=STATSMODELS[weights], return_results=False)
        assert ours.value == pytest.approx(sk, abs=1e-12)
        assert ours.value == pytest.approx(sm, abs=1e-12)


def test_full_domain_keeps_an_unused_grade_between_its_neighbours():
    # nobody used grade 2: without labels scikit-learn treats 3 as the neighbour of 1
    first, second = [0, 1, 3, 3, 0, 1], [0, 1, 3, 1, 1, 0]
    ours = cohen_kappa(first, second, grades=[0, 1, 2, 3], weights="linear", resamples=0).value
    assert ours == pytest.approx(cohen_kappa_score(first, second, labels=[0, 1, 2, 3], weights="linear"))
    shrunk = cohen_kappa_score(first, second, weights="linear")
    # full domain, w = |i-j|/3: observed (2/3 + 1/3 + 1/3)/6 = 2/9; margins (1/3, 1/3, 0, 1/3) and
    # (1/3, 1/2, 0, 1/6) give expected 1/9 + 2/27 + 2/9 = 11/27; kappa = 1 - (2/9)/(11/27) = 5/11
    assert ours == pytest.approx(5 / 11)
    # 3 taken as the next grade after 1, w = |i-j|/2: observed 1/4, expected 5/12, kappa = 1 - 3/5
    assert shrunk == pytest.approx(0.4)


def test_hand_computed_linear_kappa():
    # domain 0..2, pairs (0,0) (1,2) (2,2) (2,1), w = |i-j|/2: observed disagreement (0 + .5 + 0 + .5)/4 = 0.25;
    # margins (.25, .25, .5) for both; expected sum w r c = 2 * (.5*.25*.25 + 1*.25*.5 + .5*.25*.5) = 0.4375;
    # kappa = 1 - 0.25 / 0.4375 = 3/7
    k = cohen_kappa([0, 1, 2, 2], [0, 2, 2, 1], grades=[0, 1, 2], weights="linear", resamples=0)
    assert k.value == pytest.approx(3 / 7)


@settings(max_examples=30, deadline=None)
@given(graded_pairs(), st.integers(0, 2**32 - 1))
def test_bootstrap_is_the_percentile_interval_of_resampled_pairs(data, seed):
    domain, first, second = data
    assume(_defined(first, second))
    resamples = 60
    k = cohen_kappa(first, second, grades=domain, weights="quadratic", resamples=resamples, seed=seed,
                    confidence=0.9)
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, len(first), size=(resamples, len(first)))
    values = []
    a, b = np.asarray(first), np.asarray(second)
    for row in drawn:
        if len(set(a[row]) | set(b[row])) > 1:
            values.append(cohen_kappa_score(a[row], b[row], labels=domain, weights="quadratic"))
    assert k.undefined_resamples == resamples - len(values)
    if values:
        low, high = np.quantile(values, [0.05, 0.95])
        assert (k.low, k.high) == pytest.approx((low, high), abs=1e-12)
    else:
        assert math.isnan(k.low) and math.isnan(k.high)


def test_bootstrap_is_seeded():
    first, second = [0, 1, 2, 3, 3, 2, 1, 0, 2, 2], [0, 1, 2, 2, 3, 1, 1, 0, 3, 2]
    same = [cohen_kappa(first, second, grades=range(4), seed=7) for _ in range(2)]
    other = cohen_kappa(first, second, grades=range(4), seed=8)
    assert same[0] == same[1]
    assert (other.low, other.high) != (same[0].low, same[0].high)
    assert same[0].low <= same[0].value <= same[0].high


@pytest.mark.parametrize("first, second, value, reason", [
    ([], [], math.nan, "no pair was graded by both assessors"),
    ([2, 2, 2], [2, 2, 2], math.nan,
     "both assessors gave every pair the same grade (2): chance agreement is complete, so kappa is 0/0"),
    ([0, 1, 3], [0, 1, 3], 1.0, None),
    ([0, 0, 0], [1, 1, 1], 0.0, None),
    ([0, 0, 1], [0, 0, 0], 0.0, None),
])
def test_edge_cases_follow_the_definition(first, second, value, reason):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for weights in WEIGHTS:
            k = cohen_kappa(first, second, grades=[0, 1, 2, 3], weights=weights)
            assert k.reason == reason
            assert (math.isnan(k.value) and math.isnan(value)) or k.value == pytest.approx(value)
            if reason is not None:
                assert math.isnan(k.low) and math.isnan(k.high)


def test_perfect_agreement_interval_is_one_or_undefined():
    k = cohen_kappa([0, 3], [0, 3], grades=[0, 1, 2, 3], resamples=200)
    assert k.value == 1.0 and k.low == 1.0 and k.high == 1.0
    assert 0 < k.undefined_resamples < 200     # resamples that drew one pair twice are all one grade


def test_bad_requests_and_bad_grades():
    with pytest.raises(InputError, match="grade 4 of the second assessor is not in the grade domain"):
        cohen_kappa([0, 1], [0, 4], grades=[0, 1, 2, 3])
    with pytest.raises(UsageError, match=re.escape("weights must be one of unweighted|linear|quadratic")):
        cohen_kappa([0], [0], grades=[0, 1], weights="cubic")
    with pytest.raises(UsageError, match="the same pairs"):
        cohen_kappa([0, 1], [0], grades=[0, 1])
    with pytest.raises(UsageError, match="confidence"):
        cohen_kappa([0], [1], grades=[0, 1], confidence=1.0)
