"""Compat (Clarke, Vtyurina & Smucker 2021) and Accuracy: hand-computed cases, a brute-force oracle, properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import judged
from judged.measures import parse


def _value(run: dict, qrels: dict, name: str, qid: str = "q") -> float:
    return judged.evaluate(run, qrels, [name]).value(name, qid)


# ---- Compat: worked examples ----

def test_compat_with_graded_ideal_and_an_unretrieved_relevant_document():
    # ranking [b, x, a] (x unjudged), judgments a:2, b:1, c:1 (c not retrieved); ideal [a, b, c]; D = 3, p = 0.5
    # overlaps: d=1 {b}&{a} 0; d=2 {b,x}&{a,b} 1; d=3 {b,x,a}&{a,b,c} 2
    # RBO sum = 0 + 0.5 * 1/2 + 0.25 * 2/3 = 1/4 + 1/6 = 5/12; the ideal's own: 1 + 0.5 + 0.25 = 7/4
    # Compat = (5/12) / (7/4) = 5/21; Compat_raw = (5/12) / (1 + 0.5 + 0.25) = 5/21 as well (|I| = D)
    run, qrels = {"q": {"b": 3.0, "x": 2.0, "a": 1.0}}, {"q": {"a": 2, "b": 1, "c": 1}}
    assert _value(run, qrels, "Compat(p=0.5)") == pytest.approx(5 / 21, rel=1e-12)
    assert _value(run, qrels, "Compat_raw(p=0.5)") == pytest.approx(5 / 21, rel=1e-12)


def test_compat_raw_stays_below_1_for_the_ideal_ranking_when_the_ranking_is_longer():
    # ranking [a, n, m], ideal [a]: D = 3, overlap 1 at every depth
    # RBO sum = 1 + 0.5 * 1/2 + 0.25 * 1/3 = 4/3; weights 1 + 0.5 + 0.25 = 7/4: Compat_raw = 16/21
    # the ideal's own sum is the same 4/3, so Compat = 1
    run, qrels = {"q": {"a": 3.0, "n": 2.0, "m": 1.0}}, {"q": {"a": 1, "n": 0}}
    assert _value(run, qrels, "Compat_raw(p=0.5)") == pytest.approx(16 / 21, rel=1e-12)
    assert _value(run, qrels, "Compat(p=0.5)") == pytest.approx(1.0, rel=1e-12)


def test_compat_breaks_grade_ties_in_the_ideal_by_the_runs_order():
    # a and b both grade 1; the run ranks b first, so the ideal is [b, a] and the run is ideal: 1
    run, qrels = {"q": {"b": 2.0, "a": 1.0}}, {"q": {"a": 1, "b": 1}}
    assert _value(run, qrels, "Compat(p=0.9)") == pytest.approx(1.0, rel=1e-12)
    # but a grade-2 document ranked second is out of place: ranking [b, a], ideal [a, b] (a:2)
    # p = 0.5: sum 0 + 0.5 * 2/2 = 0.5; ideal's 1 + 0.5 = 1.5: Compat = 1/3
    assert _value(run, {"q": {"a": 2, "b": 1}}, "Compat(p=0.5)") == pytest.approx(1 / 3, rel=1e-12)


def test_compat_ties_in_the_run_follow_the_tie_rule():
    # a (grade 2) and b (grade 1) tie at 1.0: trec ranks docid descending (b, a): 1/3 as above; docid (a, b): 1
    run, qrels = {"q": {"a": 1.0, "b": 1.0}}, {"q": {"a": 2, "b": 1}}
    assert _value(run, qrels, "Compat(p=0.5)") == pytest.approx(1 / 3, rel=1e-12)
    assert _value(run, qrels, "Compat(p=0.5,ties=docid)") == pytest.approx(1.0, rel=1e-12)
    assert _value(run, qrels, "Compat(p=0.5,ties=worst)") == pytest.approx(1 / 3, rel=1e-12)
    with pytest.raises(judged.MeasureError, match="ties=average"):
        parse("Compat(ties=average)")


def test_compat_without_relevant_judgments_takes_norel_and_takes_no_cutoff():
    run, qrels = {"q": {"a": 1.0}, "r": {"a": 1.0}}, {"q": {"a": 0}, "r": {"a": 1}}
    assert _value(run, qrels, "Compat") == 0.0
    assert _value(run, qrels, "Compat(norel=1)") == 1.0
    assert math.isnan(_value(run, qrels, "Compat(norel=skip)"))
    assert judged.evaluate(run, qrels, ["Compat(norel=skip)"]).value("Compat(norel=skip)") == 1.0
    with pytest.raises(judged.MeasureError, match="takes no cutoff"):
        parse("Compat@10")


def test_compat_p_defaults_to_the_convention_and_prints():
    assert str(parse("Compat")) == "Compat(rel=1,unjudged=zero,ties=trec,norel=0,p=0.8)"
    assert parse("compat(p=0.95)") == parse("Compat(p=0.95)")


# ---- Accuracy: worked examples ----

def test_accuracy_on_ir_measures_own_example():
    # query 1 of ir_measures' tests/test_accuracy.py: ranking C1_1 (unjudged), A1_1 (2), C1_2 (0), B1_1 (1),
    # C1_3 (unjudged). rel=1: A1_1 has 1 non-relevant above, B1_1 2; R = 2, N = 3: 1 - 3/6 = 0.5
    # rel=2: A1_1 only, 1 above; R = 1, N = 4: 1 - 1/4 = 0.75
    run = {"1": {"C1_1": 0.8, "A1_1": 0.7, "C1_2": 0.6, "B1_1": 0.5, "C1_3": 0.4}}
    qrels = {"1": {"A1_1": 2, "A1_2": 2, "B1_1": 1, "C1_2": 0}}
    assert _value(run, qrels, "Accuracy", "1") == 0.5
    assert _value(run, qrels, "Accuracy(rel=2)", "1") == 0.75
    # unjudged dropped first: A1_1, C1_2, B1_1; rel=1: 0 and 1 above, R = 2, N = 1: 1 - 1/2 = 0.5
    assert _value(run, qrels, "Accuracy(unjudged=drop)", "1") == 0.5
    # @2: C1_1, A1_1: 1 above, R = N = 1: 0
    assert _value(run, qrels, "Accuracy@2", "1") == 0.0


def test_accuracy_edges_all_relevant_and_none_relevant():
    run = {"q": {"a": 2.0, "b": 1.0, "n": 0.5}, "r": {"n": 1.0}}
    qrels = {"q": {"a": 1, "b": 1}, "r": {"a": 1}}
    assert _value(run, qrels, "Accuracy@2") == 1.0  # no non-relevant document in the top 2: no pair out of order
    assert _value(run, qrels, "Accuracy") == 1.0  # both above n
    assert _value(run, qrels, "Accuracy", "r") == 0.0  # no relevant retrieved: norel, 0 by default
    result = judged.evaluate(run, qrels, ["Accuracy(norel=skip)"])
    assert math.isnan(result.value("Accuracy(norel=skip)", "r")) and result.value("Accuracy(norel=skip)") == 1.0


# ---- a brute-force oracle and properties ----

def _rbo(ranking: list[str], ideal: list[str], p: float, depth: int) -> tuple[float, float]:
    total = weights = 0.0
    for d in range(1, depth + 1):
        total += p ** (d - 1) * len(set(ranking[:d]) & set(ideal[:d])) / d
        weights += p ** (d - 1)
    return total, weights


def _oracle(run: dict[str, float], grades: dict[str, int], p: float, normalize: bool) -> float:
    ranking = sorted(run, key=lambda d: (-run[d], [-ord(c) for c in d]))  # ties=trec: docid descending
    at = {d: i for i, d in enumerate(ranking)}
    relevant = [d for d, g in grades.items() if g >= 1]
    ideal = sorted(relevant, key=lambda d: (-grades[d], at.get(d, len(ranking))))
    depth = max(len(ranking), len(ideal))
    if not ideal:
        return 0.0
    total, weights = _rbo(ranking, ideal, p, depth)
    return total / _rbo(ideal, ideal, p, depth)[0] if normalize else total / weights


DOCS = st.sampled_from([f"d{i}" for i in range(10)])


@st.composite
def one_query(draw):
    run = draw(st.dictionaries(DOCS, st.sampled_from([0.0, 1.0, 2.0, 3.0, -1.0]), min_size=1, max_size=8))
    grades = draw(st.dictionaries(DOCS, st.integers(-1, 3), min_size=1, max_size=8))
    return run, grades


@settings(max_examples=80, deadline=None)
@given(one_query(), st.sampled_from([0.5, 0.8, 0.95, 1.0]))
def test_compat_equals_the_brute_force_definition(query, p):
    run, grades = query
    result = judged.evaluate({"q": run}, {"q": grades}, [f"Compat(p={p})", f"Compat_raw(p={p})"])
    assert result.value(f"Compat(p={p})", "q") == pytest.approx(_oracle(run, grades, p, True), abs=1e-12)
    assert result.value(f"Compat_raw(p={p})", "q") == pytest.approx(_oracle(run, grades, p, False), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(one_query(), st.sampled_from(["trec", "input", "worst", "best", "docid"]), st.floats(-5, 5))
def test_bounds_and_score_shift_invariance(query, ties, shift):
    run, grades = query
    names = [f"Compat(ties={ties})", f"Compat_raw(ties={ties})", f"Accuracy(ties={ties},norel=skip)",
             f"Accuracy(ties={ties},norel=skip)@3"]
    result = judged.evaluate({"q": run}, {"q": grades}, names)
    shifted = judged.evaluate({"q": {d: s + round(shift) for d, s in run.items()}}, {"q": grades}, names)
    for name in names:
        value = result.value(name, "q")
        assert math.isnan(value) or -1e-12 <= value <= 1 + 1e-12
        assert value == shifted.value(name, "q") or (math.isnan(value) and math.isnan(shifted.value(name, "q")))
    assert result.value(names[1], "q") <= result.value(names[0], "q") + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=8), st.integers(0, 4), st.sampled_from([0.5, 0.95]))
def test_a_ranking_that_starts_with_the_ideal_one_scores_1(grades, extra, p):
    # relevant documents by grade descending, then the non-relevant and unjudged ones: Compat 1, Accuracy 1
    ordered = sorted(grades, reverse=True)
    docs = [f"d{i}" for i in range(len(ordered) + extra)]
    run = {"q": {d: float(len(docs) - i) for i, d in enumerate(docs)}}
    qrels = {"q": {docs[i]: g for i, g in enumerate(ordered)}}
    result = judged.evaluate(run, qrels, [f"Compat(p={p})", "Accuracy(norel=skip)"])
    if any(g >= 1 for g in grades):
        assert result.value(f"Compat(p={p})", "q") == pytest.approx(1.0, abs=1e-12)
        assert result.value("Accuracy(norel=skip)", "q") == 1.0
