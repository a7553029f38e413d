"""Joint bounds of ``judged settle`` against brute force over every grade assignment.

The oracle is independent of the solver: it lists the pooled, unjudged
documents itself (ranking by the trec rule written out here), gives them every
assignment of grades, and scores each with :func:`judged.evaluate`, one copy
of the query per assignment with the assigned grades written into the
judgments. Queries are independent, so every joint assignment of the whole
collection is a combination of per-query assignments.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import judged
from judged.analysis.bounds import unjudged_bounds
from judged.analysis.settle import conclusions, settle
from judged.errors import UsageError
from judged.judgments.pools import top_k

DOCS = tuple(f"d{i}" for i in range(5))
GRADES = (0, 1, 2)
TOL = 1e-9


def _ranked(scores: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending, then docid descending."""
    return sorted(scores, key=lambda d: (-scores[d], tuple(-b for b in d.encode())))


def _pool(runs, qrels, qid, cutoff, pool):
    judged_docs = {d for d, g in qrels.get(qid, {}).items() if g >= 0}
    found = set()
    for run in runs:
        ranking = _ranked(run.get(qid, {}))
        found.update(ranking if pool == "retrieved" or cutoff is None else ranking[:cutoff])
    return sorted(found - judged_docs)


def oracle(runs, qrels, measure, cutoff, pool):
    """Per query: the pooled unjudged docs, and each run's nDCG under every assignment (runs x assignments)."""
    out = {}
    for qid in sorted(qrels):
        docs = _pool(runs, qrels, qid, cutoff, pool)
        assignments = list(itertools.product(GRADES, repeat=len(docs)))
        copies = {f"{qid}#{i:06d}": {**{d: g for d, g in qrels[qid].items() if g >= 0}, **dict(zip(docs, a))}
                  for i, a in enumerate(assignments)}
        values = []
        for run in runs:
            copied = {f"{qid}#{i:06d}": run[qid] for i in range(len(assignments))} if qid in run else {}
            result = judged.evaluate(copied, copies, [measure], missing="zero")
            assert list(result.qids) == sorted(copies)  # copies named so that qid order is assignment order
            values.append(result.values[judged.parse(measure)])
        out[qid] = (docs, assignments, np.array(values))
    return out


def can_change(truth, s, qid, docid) -> bool:
    """Whether some grade of ``docid`` moves an end of some open pair's range on ``qid`` (brute force)."""
    docs, assignments, values = truth[qid]
    where = docs.index(docid)
    for pair in (p for p in s.pairs if not p.settled):
        diff = values[int(pair.a[1:])] - values[int(pair.b[1:])]
        for grade in GRADES:
            mask = np.array([assignment[where] == grade for assignment in assignments])
            if diff[mask].min() > diff.min() + 1e-12 or diff[mask].max() < diff.max() - 1e-12:
                return True
    return False


@st.composite
def collections(draw):
    """Two or three runs over one or two queries of DOCS, and judgments with pooled (-1) and absent documents."""
    n_runs = draw(st.integers(2, 3))
    qids = ("q1", "q2")[: draw(st.integers(1, 2))]
    runs, qrels = [], {}
    for _ in range(n_runs):
        run = {}
        for qid in qids:
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=4, unique=True))
            run[qid] = {d: float(draw(st.integers(0, 3))) for d in docs}
        runs.append(run)
    for qid in qids:
        states = {d: draw(st.sampled_from(["unjudged", "pooled", 0, 1, 2])) for d in DOCS}
        qrels[qid] = {d: (-1 if s == "pooled" else s) for d, s in states.items() if s != "unjudged"}
        if not any(g >= 0 for g in qrels[qid].values()):
            qrels[qid]["d9"] = draw(st.sampled_from([0, 1, 2]))  # every query stays in the judgments
    return runs, qrels


@st.composite
def cases(draw):
    runs, qrels = draw(collections())
    cutoff = draw(st.sampled_from([1, 2, 3, None]))
    gain = draw(st.sampled_from(["linear", "exp"]))
    norel = draw(st.sampled_from([0, 1]))
    measure = f"nDCG(gain={gain},norel={norel})" + ("" if cutoff is None else f"@{cutoff}")
    return runs, qrels, measure, cutoff, draw(st.sampled_from(["top_k", "retrieved"]))


def _settle(runs, qrels, measure, pool, **kwargs):
    loaded = [judged.read_run(run, name=f"r{i}") for i, run in enumerate(runs)]
    return settle(loaded, qrels, measure, pool=pool, grades=GRADES, missing="zero", **kwargs)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_pair_and_run_bounds_equal_brute_force(case):
    runs, qrels, measure, cutoff, pool = case
    s = _settle(runs, qrels, measure, pool)
    truth = oracle(runs, qrels, measure, cutoff, pool)
    assert s.qids == tuple(sorted(qrels))
    assert_bounds_equal_brute_force(s, truth, measure)
    for pair in s.pairs:
        assert pair.minimum == pytest.approx(np.mean([pair.low]), abs=TOL)


def assert_bounds_equal_brute_force(s, truth, measure) -> None:
    """Each pair's per-query range and each run's mean range are the extremes over every assignment."""
    assert [len(docs) for docs in s.data.pool] == [len(truth[q][0]) for q in s.qids]
    for pair in s.pairs:
        a, b = int(pair.a[1:]), int(pair.b[1:])
        for i, qid in enumerate(s.qids):
            diff = truth[qid][2][a] - truth[qid][2][b]
            assert pair.low[i] == pytest.approx(diff.min(), abs=TOL), (measure, qid)
            assert pair.high[i] == pytest.approx(diff.max(), abs=TOL), (measure, qid)
    for r, bound in enumerate(s.runs):
        assert bound.minimum == pytest.approx(np.mean([truth[q][2][r].min() for q in s.qids]), abs=TOL)
        assert bound.maximum == pytest.approx(np.mean([truth[q][2][r].max() for q in s.qids]), abs=TOL)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_a_settled_pair_never_flips_under_any_assignment(case):
    runs, qrels, measure, cutoff, pool = case
    s = _settle(runs, qrels, measure, pool)
    truth = oracle(runs, qrels, measure, cutoff, pool)
    for pair in s.pairs:
        if not pair.settled:
            continue
        a, b = int(pair.a[1:]), int(pair.b[1:])
        per_query = [truth[q][2][a] - truth[q][2][b] for q in s.qids]
        for combination in itertools.product(*per_query):  # every joint assignment of the collection
            mean = float(np.mean(combination))
            assert np.sign(round(mean, 12)) == pair.sign, (pair, combination)


@settings(max_examples=40, deadline=None)
@given(cases())
def test_a_test_conclusion_proved_unchangeable_holds_for_every_assignment(case):
    runs, qrels, measure, cutoff, pool = case
    qrels = {**qrels, "q3": dict(qrels[min(qrels)])}  # at least two queries
    runs = [{**run, "q3": run[min(qrels)]} if min(qrels) in run else run for run in runs]
    s = _settle(runs, qrels, measure, pool, samples=50)
    truth = oracle(runs, qrels, measure, cutoff, pool)
    t_crit = __import__("scipy.stats").stats.t.ppf(1 - 0.05 / 2, len(s.qids) - 1)
    for pair in s.pairs:
        a, b = int(pair.a[1:]), int(pair.b[1:])
        per_query = [truth[q][2][a] - truth[q][2][b] for q in s.qids]
        found = conclusions(np.array(list(itertools.product(*per_query))), t_crit)
        if pair.test.state == "cannot change":
            assert (found == pair.test.conclusion).all()
        elif pair.test.state == "can change":
            assert (found != pair.test.conclusion).any()


def test_conclusions_equal_scipy_paired_t_test():
    from scipy import stats

    rng = np.random.default_rng(3)
    differences = rng.normal(0.05, 0.1, size=(200, 8))
    t_crit = stats.t.ppf(1 - 0.05 / 2, 7)
    p = stats.ttest_rel(differences, np.zeros_like(differences), axis=1).pvalue
    t = stats.ttest_rel(differences, np.zeros_like(differences), axis=1).statistic
    expected = np.where(p <= 0.05, np.sign(t), 0)
    assert (conclusions(differences, t_crit) == expected).all()


@pytest.mark.parametrize("scope", ["top_k", "retrieved"])
def test_one_runs_pool_gives_that_runs_unjudged_bounds(examples, scope):
    """With the pool one run's own unjudged documents, its joint range is judged bounds' range for that run."""
    bm25, dense = examples / "runs" / "bm25.run", examples / "runs" / "dense.run"
    qrels = judged.read_qrels(examples / "qrels.txt")
    measure = "nDCG(gain=exp)@10"
    alone = unjudged_bounds(bm25, qrels, measure, scope=scope)
    run = judged.read_run(bm25)
    ranked = top_k(run, 10) if scope == "top_k" else run.frame
    s = settle([bm25, dense], qrels, measure, pool=list(zip(ranked["qid"], ranked["docid"])))
    assert s.runs[0].minimum == pytest.approx(alone.mean_minimum, abs=1e-12)
    assert s.runs[0].maximum == pytest.approx(alone.mean_maximum, abs=1e-12)
    assert s.runs[0].mean == pytest.approx(alone.mean_zero, abs=1e-15)


def test_examples_pool_settles_every_pair(examples):
    """examples/ leaves 17 pooled pairs unjudged; whatever their grades, dense > bm25 > naive on nDCG@10."""
    runs = [examples / "runs" / f"{n}.run" for n in ("bm25", "dense", "naive")]
    pool = [tuple(line.split("\t")[:2]) for line in (examples / "pool.tsv").read_text().splitlines()]
    s = settle(runs, examples / "qrels.txt", "nDCG@10", pool=pool)
    assert s.stopping.unjudged == 17
    assert s.order == ("dense", "bm25", "naive") and s.order_settled
    assert s.stopping.fires and s.stopping.could_matter == 0
    assert "3 of 3 pairs settled" in s.stopping.statement


def test_worked_example_joint_bound_is_tighter_than_separate_bounds():
    """A = [a, u, b], B = [b, u, a]: a judged 2, b judged 0, u unjudged, grades 0..2, linear gain, nDCG@3.

    u sits at rank 2 in both, so DCG_A - DCG_B = 2 - 2/log2(4) = 1 whatever u's grade, and the ideal is
    2 + g/log2(3) with u at grade g: the difference is 1 / (2 + g/1.585), from 0.5 (g = 0) down to 1/3.2619.
    Separately, A ranges in [0.613, 1] and B in [0.25, 0.38]: min(A) - max(B) is positive too, but the
    joint range is the exact one.
    """
    runs = [judged.read_run({"q": {"a": 3.0, "u": 2.0, "b": 1.0}}, name="A"),
            judged.read_run({"q": {"b": 3.0, "u": 2.0, "a": 1.0}}, name="B")]
    s = settle(runs, {"q": {"a": 2, "b": 0}}, "nDCG@3", grades=range(3))
    pair = s.pairs[0]
    assert pair.maximum == pytest.approx(1 / 2)
    assert pair.minimum == pytest.approx(1 / (2 + 2 / np.log2(3)))
    assert pair.sign == 1 and s.stopping.fires and pair.test is None  # one query: no t-test


@pytest.mark.parametrize("measure, message", [
    ("AP", "not for AP: .*quadratic"), ("nDCG(norel=skip)@10", "norel=0 or norel=1"),
    ("nDCG(ties=average)@10", "tie rule"), ("nDCG(ideal=returned)@10", "ideal=judged"),
])
def test_refuses_what_it_cannot_bound(examples, measure, message):
    runs = [examples / "runs" / "bm25.run", examples / "runs" / "dense.run"]
    with pytest.raises(UsageError, match=message):
        settle(runs, examples / "qrels.txt", measure)


def test_refuses_bad_arguments(examples):
    runs = [examples / "runs" / "bm25.run", examples / "runs" / "dense.run"]
    with pytest.raises(UsageError, match="at least two"):
        settle(runs[:1], examples / "qrels.txt")
    with pytest.raises(UsageError, match="alpha"):
        settle(runs, examples / "qrels.txt", alpha=1.5)
    with pytest.raises(UsageError, match="pool must be"):
        settle(runs, examples / "qrels.txt", pool="depth")
