"""Every worked number of the field's reference documents, with the arithmetic inline."""

from __future__ import annotations

import math

import pytest

import judged


def _collection(returned: list[int], judged_extra: dict[str, int] | None = None):
    """A one-query run whose i-th document has grade returned[i], plus judged documents never returned."""
    run = {"q": {f"d{i}": float(len(returned) - i) for i in range(len(returned))}}
    qrels = {"q": {f"d{i}": g for i, g in enumerate(returned)}}
    qrels["q"].update(judged_extra or {})
    return run, qrels


def test_dcg_ndcg_at_10_exponential_gain():
    # Grades returned [1,3,0,2,0,0,2,0,0,1]; the judged set is exactly {3,2,2,1,1}.
    # DCG = 1/1 + 7/log2(3) + 3/log2(5) + 3/log2(8) + 1/log2(11) = 7.998
    # IDCG = 7 + 3/log2(3) + 3/2 + 1/log2(5) + 1/log2(6) = 11.210
    run, qrels = _collection([1, 3, 0, 2, 0, 0, 2, 0, 0, 1])
    r = judged.evaluate(run, qrels, ["DCG(gain=exp)@10", "nDCG(gain=exp)@10", "R@10"])
    assert r.value("DCG(gain=exp)@10") == pytest.approx(7.998, abs=5e-4)
    expected_dcg = 1 + 7 / math.log2(3) + 3 / math.log2(5) + 3 / math.log2(8) + 1 / math.log2(11)
    expected_idcg = 7 + 3 / math.log2(3) + 3 / 2 + 1 / math.log2(5) + 1 / math.log2(6)
    assert expected_idcg == pytest.approx(11.210, abs=5e-4)
    assert r.value("nDCG(gain=exp)@10") == pytest.approx(expected_dcg / expected_idcg, rel=1e-12)
    assert round(r.value("nDCG(gain=exp)@10"), 3) == 0.713
    assert r.value("R@10") == 1.0


def test_regrade_moves_ndcg_a_quarter_but_not_recall():
    # Rank 1 regraded 1 -> 3 and rank 2 regraded 3 -> 2: nDCG@10 0.713 -> 0.951, recall@10 stays 1.0.
    # DCG = 7 + 3/log2(3) + 3/log2(5) + 3/log2(8) + 1/log2(11) = 11.474 ("a shade under 11.5")
    # IDCG over {3,2,2,2,1} = 7 + 3/log2(3) + 3/2 + 3/log2(5) + 1/log2(6) = 12.072 ("a shade over 12")
    # The ratio is 0.95048: the source's 0.951 rounds 0.9505 a second time.
    run, qrels = _collection([3, 2, 0, 2, 0, 0, 2, 0, 0, 1])
    r = judged.evaluate(run, qrels, ["nDCG(gain=exp)@10", "R@10"])
    dcg = 7 + 3 / math.log2(3) + 3 / math.log2(5) + 3 / math.log2(8) + 1 / math.log2(11)
    idcg = 7 + 3 / math.log2(3) + 3 / 2 + 3 / math.log2(5) + 1 / math.log2(6)
    assert r.value("nDCG(gain=exp)@10") == pytest.approx(dcg / idcg, rel=1e-12)
    assert round(r.value("nDCG(gain=exp)@10"), 4) == 0.9505
    assert r.value("nDCG(gain=exp)@10") - 0.713 > 0.23  # a quarter of the scale from one regrade
    assert r.value("R@10") == 1.0


def test_returned_20312_exponential_at_5_and_3():
    # Returned [2,0,3,1,0]: DCG@5 = 3 + 7/2 + 1/log2(5) = 6.931; IDCG@5 = 7 + 3/log2(3) + 1/2 = 9.393.
    run, qrels = _collection([2, 0, 3, 1, 0])
    r = judged.evaluate(run, qrels, ["DCG(gain=exp)@5", "nDCG(gain=exp)@5", "nDCG(gain=exp)@3"])
    assert r.value("DCG(gain=exp)@5") == pytest.approx(6.931, abs=5e-4)
    assert round(r.value("nDCG(gain=exp)@5"), 3) == 0.738
    assert round(r.value("nDCG(gain=exp)@3"), 3) == 0.692


def test_returned_323012_linear():
    # Returned [3,2,3,0,1,2], linear: DCG = 3 + 2/log2(3) + 3/2 + 0 + 1/log2(6) + 2/log2(7) ~ 6.86;
    # IDCG over {3,3,2,2,1} ~ 7.14; nDCG@6 ~ 0.96.
    run, qrels = _collection([3, 2, 3, 0, 1, 2])
    r = judged.evaluate(run, qrels, ["DCG@6", "nDCG@6"])
    assert r.value("DCG@6") == pytest.approx(6.86, abs=5e-3)
    assert round(r.value("nDCG@6"), 2) == 0.96


@pytest.mark.parametrize("k, expected", [(1, 1.0), (2, 0.703918), (3, 0.938557)])
def test_returned_302_linear(k, expected):
    # Returned [3,0,2], three judged documents. nDCG@2 = 3 / (3 + 2/log2(3)) = 0.703918.
    run, qrels = _collection([3, 0, 2])
    assert judged.evaluate(run, qrels, [f"nDCG@{k}"]).value(f"nDCG@{k}") == pytest.approx(expected, abs=5e-7)


def test_ideal_from_returned_list_inflates_to_one():
    # The most common silent bug, reproducible only on request: a run that found one of
    # three relevant documents scores 1.0 when the ideal comes from the returned list.
    run = {"q": {"a": 1.0}}
    qrels = {"q": {"a": 3, "b": 3, "c": 2}}
    r = judged.evaluate(run, qrels, ["nDCG@10", "nDCG(ideal=returned)@10"])
    assert r.value("nDCG(ideal=returned)@10") == 1.0
    assert r.value("nDCG@10") == pytest.approx(3 / (3 + 3 / math.log2(3) + 2 / 2))


def test_fractional_gain_map_is_exact():
    # trec_eval's truncating comparator prints 1.0516 for this perfect ranking with ndcg.1=2.5:
    # qrels {a:1, b:2}; gains a=2.5, b=2; the perfect order is a, b.
    run = {"q": {"a": 2.0, "b": 1.0}}
    qrels = {"q": {"a": 1, "b": 2, "z": 0}}
    assert judged.evaluate(run, qrels, ["nDCG(gain={1:2.5})"]).value("nDCG(gain={1:2.5})") == 1.0
    # and a fractional gain below 1 still gets its place in the ideal list (trec_eval prints 0)
    assert judged.evaluate({"q": {"a": 1.0}}, {"q": {"a": 1, "z": 0}}, ["nDCG(gain={1:0.5})"]).value(
        "nDCG(gain={1:0.5})"
    ) == 1.0


def test_last_judged_query_missing_from_the_run():
    # Regression: the last query in qid order has an empty ranking; rank-based kernels must not index past the end.
    run = {"a": {"d1": 1.0, "d2": 0.5}}
    qrels = {"a": {"d2": 1}, "z": {"d9": 1}}
    r = judged.evaluate(run, qrels, ["AP", "Bpref", "RR", "Rprec"], missing="zero")
    assert r.value("AP", "a") == 0.5 and r.value("AP", "z") == 0.0
    assert r.value("RR") == 0.25


def test_returned_ideal_leaves_unjudged_documents_out():
    # Regression: with gain={0:1}, an unjudged returned document must not enter the returned ideal list.
    # Returned a (unjudged), b (judged 0, gain 1): DCG = 0 + 1/log2(3); ideal from {b}: 1.
    r = judged.evaluate({"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 0}}, ["nDCG(gain={0:1},ideal=returned)"])
    assert r.value("nDCG(gain={0:1},ideal=returned)") == pytest.approx(1 / math.log2(3))
