"""Krippendorff's alpha equals the `krippendorff` package's on generated data; unpairable labels are ignored."""

from __future__ import annotations

import math
import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from judged.agreement import METRICS, krippendorff_alpha
from judged.errors import InputError, UsageError


@st.composite
def reliability(draw):
    """2-4 assessors, 1-40 pairs, a domain of 2-5 grades; each label present with some probability."""
    low = draw(st.integers(0, 1))
    domain = list(range(low, low + draw(st.integers(2, 5))))
    raters = draw(st.integers(2, 4))
    units = draw(st.integers(1, 40))
    cell = st.one_of(st.none(), st.sampled_from(domain)) if draw(st.booleans()) else st.sampled_from(domain)
    ratings = [draw(st.lists(cell, min_size=units, max_size=units)) for _ in range(raters)]
    return domain, ratings


def _matrix(ratings):
    return np.array([[np.nan if v is None else v for v in row] for row in ratings], dtype=float)


def _pairable_values(ratings):
    columns = list(zip(*ratings))
    return {v for col in columns if sum(x is not None for x in col) >= 2 for v in col if v is not None}


@settings(max_examples=150, deadline=None)
@given(reliability(), st.sampled_from(METRICS))
def test_equals_the_krippendorff_package(data, metric):
    domain, ratings = data
    assume(len(_pairable_values(ratings)) >= 2)
    ours = krippendorff_alpha(ratings, grades=domain, metric=metric)
    theirs = krippendorff.alpha(reliability_data=_matrix(ratings), value_domain=domain,
                                level_of_measurement=metric)
    assert ours.reason is None
    assert ours.value == pytest.approx(theirs, abs=1e-10)


@settings(max_examples=50, deadline=None)
@given(reliability(), st.lists(st.integers(0, 1), min_size=1, max_size=10))
def test_pairs_with_a_single_label_change_nothing(data, extra):
    domain, ratings = data
    assume(len(_pairable_values(ratings)) >= 2)
    before = krippendorff_alpha(ratings, grades=domain)
    # append pairs each graded by only the first assessor
    padded = [row + ([domain[e] for e in extra] if i == 0 else [None] * len(extra)) for i, row in enumerate(ratings)]
    after = krippendorff_alpha(padded, grades=domain)
    assert after.value == pytest.approx(before.value, abs=1e-12)
    assert (after.units, after.values) == (before.units, before.values)


def test_wikipedia_example_nominal_and_interval():
    # the package's own documented example (Krippendorff 2011, 3 coders, 15 units, grades 1..5)
    data = [[None, None, None, None, None, 3, 4, 1, 2, 1, 1, 3, 3, None, 3],
            [1, None, 2, 1, 3, 3, 4, 3, None, None, None, None, None, None, None],
            [None, None, 2, 1, 3, 4, 4, None, 2, 1, 1, 3, 3, None, 4]]
    assert round(krippendorff_alpha(data, grades=[1, 2, 3, 4, 5], metric="nominal").value, 6) == 0.691358
    assert round(krippendorff_alpha(data, grades=[1, 2, 3, 4, 5], metric="interval").value, 6) == 0.810845


def test_two_assessors_ordinal_by_hand():
    # pairs (0,0) (1,2) (2,2): coincidences o00 = 2, o12 = o21 = 1, o22 = 2; n = (2, 1, 3), total 6.
    # ordinal distances: d01 = (2 + 1 - 1.5)^2 = 2.25, d12 = (1 + 3 - 2)^2 = 4, d02 = (2 + 1 + 3 - 2.5)^2 = 12.25
    # observed sum o*d = 2 * 4 = 8; expected sum n_c n_k d = 2 * (2*1*2.25 + 1*3*4 + 2*3*12.25) = 180
    # alpha = 1 - (6 - 1) * 8 / 180 = 7/9
    alpha = krippendorff_alpha([[0, 1, 2], [0, 2, 2]], grades=[0, 1, 2])
    assert alpha.value == pytest.approx(7 / 9)
    assert (alpha.units, alpha.values) == (3, 6)


@pytest.mark.parametrize("ratings, reason", [
    ([[1, None], [None, 2]], "no pair was graded by two or more assessors"),
    ([[2, 2, None], [2, 2, 1]], "every pairable label is the same grade (2): there is no variation to measure "
                                "agreement against, so alpha is 0/0"),
])
def test_undefined_alpha_is_nan_with_a_reason(ratings, reason):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for metric in METRICS:
            alpha = krippendorff_alpha(ratings, grades=[0, 1, 2, 3], metric=metric)
            assert math.isnan(alpha.value) and alpha.reason == reason


def test_perfect_agreement_is_one():
    assert krippendorff_alpha([[0, 3, 1], [0, 3, 1]], grades=range(4)).value == 1.0


def test_bad_input():
    with pytest.raises(InputError, match="grade 7 is not in the grade domain"):
        krippendorff_alpha([[0, 7], [0, 1]], grades=[0, 1])
    with pytest.raises(UsageError, match="one entry per pair"):
        krippendorff_alpha([[0, 1], [0]], grades=[0, 1])
    with pytest.raises(UsageError, match="metric must be one of"):
        krippendorff_alpha([[0], [0]], grades=[0, 1], metric="ratio")
