"""Joint bounds of the families beyond nDCG (P, R, DCG, RBP, SDCG, INSQ, RR, Success, Rprec) against brute force.

The oracle is test_settle_bounds' own: it lists the pooled, unjudged
documents itself, gives them every assignment of grades and scores each with
:func:`judged.evaluate`, so the solvers of each shape (linear, ratio, first
relevant) are checked against the measures' kernels, not against themselves.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from test_settle_bounds import _settle, assert_bounds_equal_brute_force, can_change, collections, oracle

import judged
from judged.analysis.joint_families import FAMILIES
from judged.analysis.selection import next_documents
from judged.analysis.settle import conclusions, settle
from judged.errors import UsageError

# every family, with the conventions that change its arithmetic
_PARAMS = {
    "P": lambda d: f"rel={d(st.sampled_from([1, 2]))}",
    "R": lambda d: f"rel={d(st.sampled_from([1, 2]))},norel={d(st.sampled_from([0, 1]))}",
    "DCG": lambda d: f"gain={d(st.sampled_from(['linear', 'exp']))}",
    "RBP": lambda d: f"p={d(st.sampled_from([0.5, 0.8]))},max_rel=2,gain={d(st.sampled_from(['linear', 'exp']))}",
    "SDCG": lambda d: f"max_rel={d(st.sampled_from([2, 3]))},gain={d(st.sampled_from(['linear', 'exp']))}",
    "INSQ": lambda d: f"T={d(st.sampled_from([1, 2.5]))},max_rel=2,gain={d(st.sampled_from(['linear', 'exp']))}",
    "RR": lambda d: f"rel={d(st.sampled_from([1, 2]))}",
    "Success": lambda d: f"rel={d(st.sampled_from([1, 2]))}",
    "Rprec": lambda d: f"rel={d(st.sampled_from([1, 2]))},norel={d(st.sampled_from([0, 1]))}",
}


@st.composite
def family_cases(draw):
    runs, qrels = draw(collections())
    name = draw(st.sampled_from(sorted(_PARAMS)))
    cutoff = None if name == "Rprec" else draw(st.sampled_from([1, 2, 3, None]))  # R-prec's cutoff is R
    measure = f"{name}({_PARAMS[name](draw)})" + ("" if cutoff is None else f"@{cutoff}")
    return runs, qrels, measure, cutoff, draw(st.sampled_from(["top_k", "retrieved"]))


def test_every_family_but_ndcg_is_drawn():
    assert set(_PARAMS) == set(FAMILIES) - {"nDCG"}


@settings(max_examples=150, deadline=None)
@given(family_cases())
def test_pair_and_run_bounds_equal_brute_force(case):
    runs, qrels, measure, cutoff, pool = case
    s = _settle(runs, qrels, measure, pool)
    truth = oracle(runs, qrels, measure, cutoff, pool)
    assert_bounds_equal_brute_force(s, truth, measure)


@settings(max_examples=100, deadline=None)
@given(family_cases())
def test_a_settled_pair_never_flips_and_a_proved_test_never_changes(case):
    runs, qrels, measure, cutoff, pool = case
    qrels = {**qrels, "q3": dict(qrels[min(qrels)])}  # at least two queries, so the t-test has a conclusion
    runs = [{**run, "q3": run[min(qrels)]} if min(qrels) in run else run for run in runs]
    s = _settle(runs, qrels, measure, pool, samples=50)
    truth = oracle(runs, qrels, measure, cutoff, pool)
    t_crit = scipy.stats.t.ppf(1 - 0.05 / 2, len(s.qids) - 1)
    for pair in s.pairs:
        a, b = int(pair.a[1:]), int(pair.b[1:])
        every = np.array(list(itertools.product(*[truth[q][2][a] - truth[q][2][b] for q in s.qids])))
        if pair.settled:
            assert (np.sign(np.round(every.mean(axis=1), 12)) == pair.sign).all(), (measure, pair)
        found = conclusions(every, t_crit)
        if pair.test.state == "cannot change":
            assert (found == pair.test.conclusion).all()
        elif pair.test.state == "can change":
            assert (found != pair.test.conclusion).any()


@settings(max_examples=100, deadline=None)
@given(family_cases())
def test_the_greedy_proposes_exactly_the_documents_that_can_change_an_open_bound(case):
    runs, qrels, measure, cutoff, pool = case
    s = _settle(runs, qrels, measure, pool)
    truth = oracle(runs, qrels, measure, cutoff, pool)
    proposed = next_documents(s, 100)
    assert all(can_change(truth, s, qid, docid) for qid, docid, _ in proposed)
    able = sum(can_change(truth, s, qid, docid) for qid in s.qids for docid in truth[qid][0])
    assert s.stopping.could_matter == able == len(proposed)


def _worked(measure):
    runs = [judged.read_run({"q": {"a": 3.0, "u": 2.0, "b": 1.0}}, name="A"),
            judged.read_run({"q": {"b": 3.0, "u": 2.0, "a": 1.0}}, name="B")]
    return settle(runs, {"q": {"a": 2, "b": 0}}, measure, grades=range(3)).pairs[0]


@pytest.mark.parametrize("measure, low, high", [
    # A = [a, u, b], B = [b, u, a]; a judged 2, b judged 0, u unjudged at grade g in 0..2 (relevant: g >= 1)
    ("P@3", 0.0, 0.0),                    # both (1 + [u relevant]) / 3: tied under every grade
    ("P@1", 1.0, 1.0),                    # a at rank 1 against b at rank 1
    ("DCG@3", 1.0, 1.0),                  # (2 + g/log2 3 + 0) - (0 + g/log2 3 + 2/2)
    ("R@2", 0.5, 1.0),                    # R = 1 + [u relevant]: A (1 + y)/(1 + y) = 1, B y/(1 + y) in {0, 1/2}
    ("RR@3", 1 - 1 / 2, 1 - 1 / 3),       # A 1/1; B 1/2 when u is relevant, else 1/3 (a at rank 3)
    ("Success@2", 0.0, 1.0),              # A 1; B 1 exactly when u is relevant
    ("RBP(p=0.5,max_rel=2)", 0.375, 0.375),  # 0.5 (2/2 + 0.5 (g/2)) - 0.5 (0 + 0.5 (g/2) + 0.25 (2/2))
    # W = [1, 1/log2 3, 1/2] / (3/2 + 1/log2 3): (2/2 + W_2 g/2) - (W_2 g/2 + W_3 2/2) = (1 - 1/2) / (3/2 + 1/log2 3)
    ("SDCG(max_rel=2)@3", 0.5 / (1.5 + 1 / np.log2(3)), 0.5 / (1.5 + 1 / np.log2(3))),
    # C_i = ((i + 1)/(i + 2))^2: reach [1, 4/9, 4/9 * 9/16], W = [36, 16, 9] / 61; W_1 2/2 - W_3 2/2 = 27/61
    ("INSQ(T=1,max_rel=2)@3", 27 / 61, 27 / 61),
    ("Rprec", 0.5, 1.0),                  # R = 1: [a] 1/1 - [b] 0/1; R = 2 (u relevant): [a, u] 2/2 - [b, u] 1/2
])
def test_worked_example_per_family(measure, low, high):
    pair = _worked(measure)
    assert (pair.minimum, pair.maximum) == (pytest.approx(low), pytest.approx(high))
    assert pair.settled == (low > 0 or low == high == 0)


def test_a_cwl_pair_takes_each_documents_own_extreme():
    """INSQ(T=1,max_rel=2)@2 of A = [u, a] against B = [b, u]: a judged 2, b judged 0, u unjudged at g in 0..2.

    C_1 = (2/3)^2 = 4/9, so W = [1, 4/9] / (13/9) = [9/13, 4/13]. A = 9/13 (g/2) + 4/13 (2/2), B = 4/13 (g/2):
    A - B = 4/13 + 5/13 (g/2), from 4/13 (g = 0) to 9/13 (g = 2), and A alone from 4/13 to 1.
    """
    runs = [judged.read_run({"q": {"u": 2.0, "a": 1.0}}, name="A"),
            judged.read_run({"q": {"b": 2.0, "u": 1.0}}, name="B")]
    s = settle(runs, {"q": {"a": 2, "b": 0}}, "INSQ(T=1,max_rel=2)@2", grades=range(3))
    assert (s.pairs[0].minimum, s.pairs[0].maximum) == (pytest.approx(4 / 13), pytest.approx(9 / 13))
    assert (s.runs[0].minimum, s.runs[0].maximum) == (pytest.approx(4 / 13), pytest.approx(1.0))
    assert s.pairs[0].settled


def test_first_relevant_bounds_need_only_single_documents():
    """RR@3 of A = [u, v, a] against B = [v, w, a]: u, v, w unjudged (grades 0..1), a judged 1.

    Largest A - B: u alone relevant, 1 - 1/3 = 2/3 (u and v relevant: 1 - 1 = 0; u and w: 1 - 1/2).
    Smallest: v alone, 1/2 - 1 = -1/2 (w alone: 1/3 - 1/2; v and w: 1/2 - 1 again). Every relevant set gives
    what its document of highest rank in A gives alone, or less: the solver tries only the empty set and
    single documents.
    """
    runs = [judged.read_run({"q": {"u": 3.0, "v": 2.0, "a": 1.0}}, name="A"),
            judged.read_run({"q": {"v": 3.0, "w": 2.0, "a": 1.0}}, name="B")]
    pair = settle(runs, {"q": {"a": 1}}, "RR@3", grades=range(2)).pairs[0]
    assert (pair.minimum, pair.maximum) == (pytest.approx(1 / 2 - 1), pytest.approx(1 - 1 / 3))
    assert not pair.settled


def test_examples_settle_on_p_at_10_and_rr(examples):
    """examples/ leaves 17 pooled pairs unjudged; on P@10 and RR they cannot change who is ahead either."""
    runs = [examples / "runs" / f"{n}.run" for n in ("bm25", "dense", "naive")]
    pool = [tuple(line.split("\t")[:2]) for line in (examples / "pool.tsv").read_text().splitlines()]
    for measure in ("P@10", "RR"):
        s = settle(runs, examples / "qrels.txt", measure, pool=pool)
        assert s.stopping.unjudged == 17
        now = judged.evaluate(runs[0], examples / "qrels.txt", [measure]).aggregate[judged.parse(measure)]
        assert s.runs[0].minimum <= now <= s.runs[0].maximum
        assert s.order_settled and s.stopping.fires


@pytest.mark.parametrize("measure", ["P@10", "DCG(gain=exp)@10", "Success@3", "SDCG(max_rel=3)@10", "INSQ(max_rel=3)"])
def test_linear_and_first_maxima_on_examples_are_every_pooled_document_at_the_top_grade(examples, measure):
    """Each of these grows with every gain, so a run's least mean is unjudged as 0 and its greatest the pool at 3."""
    runs = [examples / "runs" / f"{n}.run" for n in ("bm25", "naive")]
    qrels = judged.read_qrels(examples / "qrels.txt")
    s = settle(runs, qrels, measure)
    top: dict[str, dict[str, int]] = {}
    for qid, docid, grade in qrels.frame.select("qid", "docid", "grade").iter_rows():
        if grade >= 0:
            top.setdefault(qid, {})[docid] = grade
    for q, qid in enumerate(s.qids):
        top[qid].update({docid: 3 for docid in s.data.pool[q]})
    for r, run in enumerate(runs):
        low = judged.evaluate(run, qrels, [measure]).aggregate[judged.parse(measure)]
        high = judged.evaluate(run, top, [measure]).aggregate[judged.parse(measure)]
        assert (s.runs[r].minimum, s.runs[r].maximum) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))


@pytest.mark.parametrize("measure, message", [
    ("AP", "quadratic"), ("ERR@10", "gains ranked above it"),
    ("Judged@10", "which documents are judged"), ("RBP(p=0.8)", "fixed max_rel"), ("SDCG@10", "fixed max_rel"),
    ("INSQ(max_rel=2)", "within the scale 0..2"), ("INST(T=1,max_rel=3)@10", "gains ranked above it"),
    ("RBP(p=0.8,max_rel=2)", "within the scale 0..2"), ("infAP", "sample"), ("NumRet", "no exact joint bound"),
])
def test_refuses_each_family_it_cannot_bound_with_the_reason(examples, measure, message):
    runs = [examples / "runs" / "bm25.run", examples / "runs" / "dense.run"]
    with pytest.raises(UsageError, match=message) as refused:
        settle(runs, examples / "qrels.txt", measure)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("measure", ["nDCG@10", "R@10", "DCG@10", "P@10", "RBP(p=0.8,max_rel=3)", "RR@10",
                                     "Success@10", "Rprec", "SDCG(max_rel=3)@10", "INSQ(T=2,max_rel=3)"])
@pytest.mark.parametrize("grade", [0, 3])
def test_a_one_grade_domain_leaves_one_assignment(examples, measure, grade):
    """Grades (0,): the range is the score with the pool unjudged; (3,): with every pooled document at 3."""
    runs = [examples / "runs" / f"{n}.run" for n in ("bm25", "dense")]
    qrels = judged.read_qrels(examples / "qrels.txt")
    s = settle(runs, qrels, measure, grades=(grade,))
    graded: dict[str, dict[str, int]] = {}
    for qid, docid, judged_grade in qrels.frame.select("qid", "docid", "grade").iter_rows():
        if judged_grade >= 0:
            graded.setdefault(qid, {})[docid] = judged_grade
    for q, qid in enumerate(s.qids):
        graded[qid].update({docid: grade for docid in s.data.pool[q]} if grade else {})
    scores = [judged.evaluate(run, graded, [measure]).aggregate[judged.parse(measure)] for run in runs]
    for bound, score in zip(s.runs, scores):
        assert (bound.minimum, bound.maximum) == (pytest.approx(score, abs=1e-12), pytest.approx(score, abs=1e-12))
    assert s.pairs[0].minimum == pytest.approx(scores[0] - scores[1], abs=1e-12) == s.pairs[0].maximum
    assert s.stopping.could_matter == 0  # no judgment can move a range that is a point
