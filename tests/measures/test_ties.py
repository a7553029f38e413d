"""Tie rules: trec, input, average, worst and best, by hand and as properties."""

from __future__ import annotations

import math

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

import judged

RUN = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5}}  # a, b, c tie; a is unjudged
QRELS = {"q": {"b": 3, "c": 1, "d": 2}}
IDCG2 = 3 + 2 / math.log2(3)


def ndcg2(ties: str) -> float:
    m = f"nDCG(ties={ties})@2"
    return judged.evaluate(RUN, QRELS, [m]).value(m)


def test_each_rule_by_hand():
    assert math.isclose(ndcg2("trec"), (1 + 3 / math.log2(3)) / IDCG2)  # c, b, a: docid descending
    assert math.isclose(ndcg2("input"), (0 + 3 / math.log2(3)) / IDCG2)  # a, b, c: file order
    assert math.isclose(ndcg2("worst"), (0 + 1 / math.log2(3)) / IDCG2)  # a (unjudged = 0), c (1), b (3)
    assert math.isclose(ndcg2("best"), (3 + 1 / math.log2(3)) / IDCG2)  # b, c, a
    # average: ranks 1-3 share their two discounts within the cutoff: (1 + 1/log2 3) / 3 each
    assert math.isclose(ndcg2("average"), (0 + 3 + 1) * (1 + 1 / math.log2(3)) / 3 / IDCG2)


collections = st.lists(
    st.tuples(st.sampled_from("abcdefgh"), st.integers(0, 3), st.sampled_from([None, 0, 1, 2, 3])),
    min_size=1,
    max_size=8,
    unique_by=lambda t: t[0],
)


@settings(max_examples=200, deadline=None)
@given(collections, st.sampled_from([1, 2, 3, 5, None]), st.sampled_from(["linear", "exp"]))
def test_worst_and_best_bound_every_order(docs, k, gain):
    """For a gain that grows with the grade, no tie order scores below worst or above best."""
    run = {"q": {d: float(s) for d, s, _ in docs}}
    qrels = {"q": {d: g for d, _, g in docs if g is not None} or {"zz": 1}}
    cut = "" if k is None else f"@{k}"
    names = {t: f"nDCG(gain={gain},ties={t}){cut}" for t in ("trec", "input", "average", "worst", "best")}
    r = judged.evaluate(run, qrels, list(names.values()))
    low, high = r.value(names["worst"]), r.value(names["best"])
    for t in ("trec", "input", "average"):
        assert low - 1e-12 <= r.value(names[t]) <= high + 1e-12


@settings(max_examples=100, deadline=None)
@given(collections, st.sampled_from(["worst", "best", "trec"]), st.randoms(use_true_random=False))
def test_ranking_in_place_equals_full_sort(docs, ties, rnd):
    """A run written in rank order (ranked in place) and the same rows shuffled (full sort) agree."""
    rows = [("q", d, float(s)) for d, s, _ in docs] + [("r", d, float(s)) for d, s, _ in docs]
    qrels = {"q": {d: g for d, _, g in docs if g is not None} or {"zz": 1}, "r": {"zz": 2}}
    ordered = sorted(rows, key=lambda row: (row[0], -row[2]))
    shuffled = rows[:]
    rnd.shuffle(shuffled)
    measures = [f"nDCG(ties={ties})@3", f"AP(ties={ties})", f"RR(ties={ties})"]

    def frame(rs):
        return pl.DataFrame(rs, schema=["qid", "docid", "score"], orient="row")

    a = judged.evaluate(frame(ordered), qrels, measures)
    b = judged.evaluate(frame(shuffled), qrels, measures)
    assert a.aggregate == b.aggregate


def test_a_gain_map_that_favours_grade_0_over_unjudged_has_true_bounds():
    """Issue 12: with gain={0:1,1:2} a judged grade-0 document gains more than an unjudged one (always 0), so the
    worst order puts the unjudged one first; ordering the tied group by grade put the judged one first (1.0)."""
    run, qrels = {"q": {"u": 1.0, "z": 1.0}}, {"q": {"z": 0, "r": 1}}
    r = judged.evaluate(run, qrels, ["DCG(gain={0:1,1:2},ties=worst)@1", "DCG(gain={0:1,1:2},ties=best)@1"])
    assert r.value("DCG(gain={0:1,1:2},ties=worst)@1") == 0.0  # u first
    assert r.value("DCG(gain={0:1,1:2},ties=best)@1") == 1.0  # z first


@settings(max_examples=100, deadline=None)
@given(collections, st.sampled_from([1, 2, 3, None]),
       st.dictionaries(st.integers(0, 3), st.floats(-3, 5, allow_nan=False), min_size=1))
def test_worst_and_best_bound_every_order_for_any_gain_map(docs, k, mapping):
    """A map need not grow with the grade nor give grade 0 nothing: worst and best still bound trec and input."""
    run = {"q": {d: float(s) for d, s, _ in docs}}
    qrels = {"q": {d: g for d, _, g in docs if g is not None} or {"zz": 1}}
    gain = "{" + ",".join(f"{g}:{v!r}" for g, v in sorted(mapping.items())) + "}"
    cut = "" if k is None else f"@{k}"
    names = {t: f"DCG(gain={gain},ties={t}){cut}" for t in ("trec", "input", "worst", "best")}
    r = judged.evaluate(run, qrels, list(names.values()))
    low, high = r.value(names["worst"]), r.value(names["best"])
    for t in ("trec", "input"):
        assert low - 1e-9 <= r.value(names[t]) <= high + 1e-9
