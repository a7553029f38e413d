"""`agreement()` and `gate()` on plain label frames: the examples' numbers, breakdowns, validation, the gate."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from judged.agreement import agreement, code_labels, gate, labels_from_qrels
from judged.agreement.labels import check_domain
from judged.errors import InputError, UsageError
from judged.io import read_qrels
from judged.rubric import load_rubric


def _labels(rows):
    return pl.DataFrame(rows, schema=["qid", "docid", "assessor", "grade"], orient="row")


@pytest.fixture(scope="module")
def examples_agreement():
    from pathlib import Path
    root = Path(__file__).resolve().parents[2] / "examples"
    labels = labels_from_qrels({"a1": root / "qrels.txt", "a2": root / "qrels.assessor2.txt"})
    return agreement(labels, grades=load_rubric(root / "rubric.toml"), resamples=500)


def test_examples_reproduce_the_documented_agreement(examples_agreement):
    # examples/README.md: 91 pairs judged by both, 68 identical, linear kappa 0.73, and this confusion matrix
    result = examples_agreement
    pair = result.pair()
    assert (result.units, result.overlap, pair.pairs, pair.agreed) == (246, 91, 91, 68)
    assert round(pair.kappa("linear").value, 2) == 0.73
    assert pair.confusion.tolist() == [[51, 2, 0, 0], [7, 5, 5, 0], [3, 1, 3, 4], [0, 0, 1, 9]]
    assert pair.kappa("linear").low < pair.kappa("linear").value < pair.kappa("linear").high


def test_examples_equal_the_peer_tools(examples_agreement, examples):
    a1 = read_qrels(examples / "qrels.txt").frame
    a2 = read_qrels(examples / "qrels.assessor2.txt").frame
    both = a1.join(a2, on=["qid", "docid"], suffix="_2")
    for weights, sk in (("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")):
        expected = cohen_kappa_score(both["grade"], both["grade_2"], labels=[0, 1, 2, 3], weights=sk)
        assert examples_agreement.kappa(weights).value == pytest.approx(expected, abs=1e-12)
    full = a1.join(a2, on=["qid", "docid"], how="full", coalesce=True, suffix="_2")
    matrix = np.array([full["grade"].to_numpy(), full["grade_2"].to_numpy()], dtype=float)
    for metric in ("ordinal", "nominal", "interval"):
        expected = krippendorff.alpha(reliability_data=matrix, value_domain=[0, 1, 2, 3], level_of_measurement=metric)
        assert examples_agreement.alpha[metric].value == pytest.approx(expected, abs=1e-12)


def test_per_query_and_per_grade_by_hand():
    rows = [("q1", "a", "x", 3), ("q1", "a", "y", 3), ("q1", "b", "x", 0), ("q1", "b", "y", 2),
            ("q2", "c", "x", 1), ("q2", "c", "y", 1), ("q2", "d", "x", 1), ("q2", "d", "y", 0),
            ("q2", "e", "x", 2)]                                  # e: one label, not in the overlap
    result = agreement(_labels(rows), grades=[0, 1, 2, 3], resamples=0)
    pair = result.pair()
    assert (result.units, result.overlap, pair.pairs, pair.agreed, pair.raw) == (5, 4, 4, 2, 0.5)
    q1, q2 = pair.per_query
    assert (q1.qid, q1.pairs, q1.agreed, q1.raw, q1.mean_distance) == ("q1", 2, 1, 0.5, 1.0)   # |0-2| = 2 over 2
    assert (q2.qid, q2.pairs, q2.agreed, q2.raw, q2.mean_distance) == ("q2", 2, 1, 0.5, 0.5)
    # q1 linear kappa: pairs (3,3), (0,2): observed (0 + 2/3)/2 = 1/3; expected: margins x (0:.5, 3:.5),
    # y (2:.5, 3:.5): .25 * (2/3 + 1 + 1/3 + 0) = 0.5; kappa = 1 - (1/3)/0.5 = 1/3
    assert q1.kappa_linear == pytest.approx(1 / 3)
    grades = {g.grade: g for g in pair.per_grade}
    # grade 1: x twice, y once, together once: specific agreement 2*1/(2+1)
    assert (grades[1].first, grades[1].second, grades[1].agreed) == (2, 1, 1)
    assert grades[1].specific == pytest.approx(2 / 3)
    assert grades[3].specific == 1.0 and grades[2].specific == 0.0
    assert (grades[0].first, grades[0].second, grades[0].specific) == (1, 1, 0.0)


def test_unused_grade_has_no_specific_agreement_and_stays_in_the_matrix():
    rows = [("q", "a", "x", 0), ("q", "a", "y", 0), ("q", "b", "x", 3), ("q", "b", "y", 3)]
    pair = agreement(_labels(rows), grades=range(5), resamples=0).pair()
    assert pair.confusion.shape == (5, 5)
    assert [math.isnan(g.specific) for g in pair.per_grade] == [False, True, True, False, True]
    assert pair.kappa("linear").value == 1.0


def test_all_pairs_one_grade():
    rows = [("q", d, who, 1) for d in "abc" for who in "xy"]
    result = agreement(_labels(rows), grades=[0, 1, 2], resamples=50)
    pair = result.pair()
    assert pair.raw == 1.0
    for k in pair.kappas:
        assert math.isnan(k.value) and "same grade (1)" in k.reason and math.isnan(k.low)
    assert math.isnan(result.alpha["ordinal"].value) and "same grade (1)" in result.alpha["ordinal"].reason
    g = gate(result, min_pairs=1)
    assert not g.passed and "kappa is undefined" in g.verdict


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2), st.integers(0, 3)), min_size=2, max_size=60,
                unique_by=lambda t: (t[0], t[1])))
def test_three_assessors_alpha_and_every_pair_equal_the_peers(cells):
    # cells: (pair number, assessor, grade)
    rows = [("q1", f"d{u}", f"r{r}", g) for u, r, g in cells]
    assume(len({r for _, r, _ in cells}) >= 2)
    result = agreement(_labels(rows), grades=[0, 1, 2, 3], resamples=0)
    raters = list(result.assessors)
    units = sorted({f"d{u}" for u, _, _ in cells})
    matrix = np.full((len(raters), len(units)), np.nan)
    for u, r, g in cells:
        matrix[raters.index(f"r{r}"), units.index(f"d{u}")] = g
    pairable = [matrix[:, j] for j in range(len(units)) if (~np.isnan(matrix[:, j])).sum() >= 2]
    values = {v for col in pairable for v in col[~np.isnan(col)]}
    if len(values) >= 2:
        expected = krippendorff.alpha(reliability_data=matrix, value_domain=[0, 1, 2, 3],
                                      level_of_measurement="ordinal")
        assert result.alpha["ordinal"].value == pytest.approx(expected, abs=1e-10)
    assert len(result.pairs) == len(raters) * (len(raters) - 1) // 2
    for p in result.pairs:
        i, j = raters.index(p.first), raters.index(p.second)
        both = ~np.isnan(matrix[i]) & ~np.isnan(matrix[j])
        assert p.pairs == int(both.sum()) and p.confusion.sum() == p.pairs
        a, b = matrix[i][both].astype(int), matrix[j][both].astype(int)
        if len(set(a) | set(b)) >= 2:
            assert p.kappa("linear").value == pytest.approx(
                cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights="linear"), abs=1e-12)


def test_labels_are_validated():
    good = [("q", "a", "x", 1), ("q", "a", "y", 2)]
    with pytest.raises(InputError, match="grade 7 is not in the grade domain: 'q a y 7'"):
        code_labels(_labels([("q", "a", "x", 1), ("q", "a", "y", 7)]), [0, 1, 2, 3])
    with pytest.raises(InputError, match="the same assessor graded this pair twice: 'q a x 2'"):
        code_labels(_labels(good + [("q", "a", "x", 2)]), [0, 1, 2, 3])
    with pytest.raises(InputError, match="lack the column"):
        code_labels(pl.DataFrame({"qid": ["q"], "docid": ["a"], "grade": [1]}), [0, 1])
    for bad in (1.5, float("nan"), float("inf")):
        with pytest.raises(InputError, match="grade is not an integer"):
            code_labels(pl.DataFrame({"qid": ["q"], "docid": ["a"], "assessor": ["x"], "grade": [bad]}), [0, 1, 2])
    with pytest.raises(InputError, match="grades are not numbers"):
        code_labels(pl.DataFrame({"qid": ["q"], "docid": ["a"], "assessor": ["x"], "grade": ["2"]}), [0, 1, 2])
    with pytest.raises(InputError, match="empty field"):
        code_labels(pl.DataFrame({"qid": ["q", None], "docid": ["a", "b"], "assessor": ["x", "y"],
                                  "grade": [1, 1]}), [0, 1, 2])
    with pytest.raises(UsageError, match="at least two assessors"):
        agreement(_labels([("q", "a", "x", 1)]), grades=[0, 1])
    with pytest.raises(UsageError, match="distinct integers"):
        agreement(_labels(good), grades=[0, 1, 1])
    with pytest.raises(UsageError, match="at least two grades"):
        agreement(_labels(good), grades=[1])


def test_pandas_labels_and_float_grades_are_accepted():
    frame = pl.DataFrame({"qid": ["q", "q"], "docid": ["a", "a"], "assessor": ["x", "y"], "grade": [1.0, 2.0]})
    assert agreement(frame.to_pandas(), grades=[0, 1, 2], resamples=0).pair().confusion[1, 2] == 1


def test_qrels_grade_outside_the_rubric_is_located(tmp_path):
    path = tmp_path / "b.qrels"
    path.write_text("q1 0 a 1\n# a comment\nq1 0 b 5\n")
    with pytest.raises(InputError) as err:
        check_domain(read_qrels(path), [0, 1, 2, 3])
    assert (err.value.path, err.value.line, err.value.text) == (str(path), 3, "q1 0 b 5")
    path.write_text("q1 0 a 1\nq1 0 b -1\n")
    labels = labels_from_qrels({"x": path}, grades=[0, 1, 2, 3])
    assert labels.rows() == [("q1", "a", "x", 1)]      # -1: pooled, not judged


def _pair_result(n_agree: int, n_off: int, resamples: int = 200):
    rows = []
    for i in range(n_agree):  # spread over ten queries: the interval resamples queries
        g = i % 4
        rows += [(f"q{i % 10}", f"d{i}", "x", g), (f"q{i % 10}", f"d{i}", "y", g)]
    for i in range(n_off):
        rows += [(f"q{i % 10}", f"e{i}", "x", 0), (f"q{i % 10}", f"e{i}", "y", 3)]
    return agreement(_labels(rows), grades=range(4), resamples=resamples)


def test_gate_passes_with_enough_pairs_and_agreement():
    g = gate(_pair_result(300, 10))
    assert g.passed and g.checks[0].settled
    assert g.verdict.startswith("PASS: x and y agree well beyond chance: linear kappa 0.9")
    assert g.verdict.endswith("310 pairs graded by both (at least 300). The rubric is working: judge the rest.")


def test_gate_fails_on_too_few_pairs_and_on_low_kappa():
    few = gate(_pair_result(50, 2))
    assert not few.passed and few.checks[0].kappa_ok and not few.checks[0].enough_pairs
    assert "only 52 pairs were graded by both, and the gate asks for 300" in few.verdict
    low = gate(_pair_result(200, 150), min_kappa=0.6)
    assert not low.passed and low.checks[0].enough_pairs and not low.checks[0].kappa_ok
    assert "agree too little" in low.verdict and "Rewrite the rubric" in low.verdict
    # the same data clears a threshold just below its kappa; 0-vs-3 disagreements weigh most when linear
    assert gate(_pair_result(200, 150), min_kappa=low.checks[0].kappa.value - 0.01).passed
    assert low.checks[0].kappa.value < gate(_pair_result(200, 150), weights="unweighted").checks[0].kappa.value


def test_agreement_on_one_query_is_never_settled():
    rows = [("q", f"d{i}", who, i % 4) for i in range(300) for who in ("x", "y")]
    result = agreement(_labels(rows), grades=range(4), resamples=200)
    g = gate(result, min_pairs=10, min_kappa=0.5)
    assert result.kappa("linear").value == 1.0 and math.isnan(result.kappa("linear").low)
    assert g.passed and not g.checks[0].settled


def test_gate_warns_when_the_interval_reaches_below_the_threshold():
    result = _pair_result(24, 8, resamples=500)
    k = result.kappa("linear").value
    g = gate(result, min_pairs=10, min_kappa=k - 0.01)
    assert g.passed and not g.checks[0].settled
    assert "the interval reaches below" in g.verdict


def test_gate_with_no_overlap_and_bad_options():
    result = agreement(_labels([("q", "a", "x", 1), ("q", "b", "y", 2)]), grades=[0, 1, 2], resamples=0)
    g = gate(result)
    assert not g.passed and g.checks == () and "no pair was graded by two assessors" in g.verdict
    with pytest.raises(UsageError):
        gate(result, weights="cubic")
    with pytest.raises(UsageError):
        gate(result, min_pairs=0)
    with pytest.raises(UsageError):
        gate(result, min_kappa=2)
