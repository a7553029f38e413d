"""The kernels on two threads give the values they give one after another, and fail the same way."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import judged
import judged.engine.kernels as kernels
from judged.errors import MeasureError
from judged.measures import registry
from judged.measures.trec_names import TABLE, from_trec_eval

# every measure trec_eval's all_trec prints (gain-based and hit-based halves both), plus other conventions
ALL_TREC = list(dict.fromkeys(m for entry in TABLE if entry not in ("runid", "num_q", "relstring")
                              for _, m in from_trec_eval(entry, rel=1, judged_only=False)))
OTHERS = [judged.measures.parse(name) for name in ("nDCG(ties=worst)@5", "ERR@10", "RBP(p=0.5)", "AP(ties=best)",
                                                   "P(ties=average)@3", "SDCG(max_rel=3)@5")]


def collections():
    qids = st.sampled_from(["q1", "q2", "q3", "qé"])
    docids = st.sampled_from([f"d{i}" for i in range(15)])
    run = st.dictionaries(qids, st.dictionaries(docids, st.integers(-4, 4).map(lambda i: i / 2), max_size=12),
                          min_size=1)
    qrels = st.dictionaries(qids, st.dictionaries(docids, st.integers(-1, 3), max_size=12), min_size=1)
    return st.tuples(run, qrels)


@pytest.fixture
def threaded(monkeypatch):
    """Two threads from the first row on."""
    monkeypatch.setattr(kernels, "PARALLEL_ROWS", 0)
    monkeypatch.setattr(kernels.pl, "thread_pool_size", lambda: 2)


@settings(max_examples=80, deadline=None)
@given(collection=collections())
def test_two_threads_give_the_sequential_values(collection):
    run, qrels = collection
    run = {q: docs for q, docs in run.items() if docs} or {"q1": {"d0": 1.0}}
    try:
        sequential = judged.evaluate(run, qrels, ALL_TREC + OTHERS, missing="zero")
    except judged.errors.NoJudgedQueriesError:
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernels, "PARALLEL_ROWS", 0)
        patch.setattr(kernels.pl, "thread_pool_size", lambda: 2)
        parallel = judged.evaluate(run, qrels, ALL_TREC + OTHERS, missing="zero")
    for m in sequential.measures:
        assert np.array_equal(sequential.values[m], parallel.values[m], equal_nan=True), m


def test_the_first_failing_measure_in_order_is_the_error(threaded, monkeypatch):
    """A gain-based measure (RBP with max_rel=1 refuses grade 3) and a hit-based one (AP, made to fail here) run
    on different threads; the error raised is the first failing measure's in the order given, either way."""
    def failing(view, measure):
        raise MeasureError("AP failed on purpose")

    monkeypatch.setitem(registry._FAMILIES, "AP", dataclasses.replace(registry._FAMILIES["AP"], kernel=failing))
    run, qrels = {"q": {"a": 2.0, "b": 1.0}}, {"q": {"a": 3, "b": 1}}
    for order, expected in ((["P@1", "AP", "RBP(max_rel=1)"], "AP failed"), (["RBP(max_rel=1)", "AP"], "RBP needs")):
        with pytest.raises(MeasureError, match=expected):
            judged.evaluate(run, qrels, order)
