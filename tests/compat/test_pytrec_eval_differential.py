"""judged.pytrec_eval against the real pytrec_eval: same queries, same keys, same numbers, drawn by hypothesis.

Collections are drawn to hit the edges: few distinct scores (ties), scores equal only as 32-bit floats,
±inf, docids whose byte order is not their numeric order, negative grades, queries on one side only, empty
rankings and empty judgment dicts. Measures are drawn from every name both offer, with parameters, and the
nicknames. The real library answers NaN where its trec_eval divides 0 by 0; so must the shim. runid is
compared by key only: pytrec_eval leaves its slot unset (whatever memory holds), the shim answers 0.0.
The aggregates, the names and nicknames, a negative relevance_level and the two line readers are compared too.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judged import pytrec_eval as shim

real = pytest.importorskip("pytrec_eval")

# An empty ranking in the very first evaluate() of a process crashes pytrec_eval: warm it up once.
real.RelevanceEvaluator({"q": {"d": 1}}, {"map"}).evaluate({"q": {"d": 1.0}})

QIDS = ("q1", "q2", "q3", "q10")
DOCIDS = tuple(f"d{i}" for i in range(12)) + ("D", "a")
SCORES = st.one_of(st.sampled_from([0.0, 1.0, 1.0 + 1e-9, 2.0, -3.5, math.inf, -math.inf]),
                   st.floats(-10, 10, allow_nan=False), st.integers(-3, 3))
PARAMETRISED = ("P.1,4", "P_7", "ndcg_cut.3", "ndcg_cut_1,10", "map_cut.2,5", "recall.3", "relative_P.2",
                "success.2", "iprec_at_recall.0.25,0.5", "Rprec_mult.0.5,3", "set_F.0.5", "set_F.2",
                "11pt_avg.0.25,0.5", "11pt_avg.0.5,2", "iprec_at_recall.1.04,2",
                "utility.1,2,3,4", "map.5", "P.2.5", "num_ret.3")
NAMES = tuple(sorted(real.supported_measures)) + PARAMETRISED + ("official", "set", "all_trec")


@st.composite
def collections(draw):
    """``(run, qrels)``: any queries on either side, rankings and judgments possibly empty."""
    run, qrels = {}, {}
    for q in draw(st.permutations(QIDS)):
        if draw(st.booleans()):
            docs = draw(st.lists(st.sampled_from(DOCIDS), max_size=10, unique=True))
            run[q] = {d: draw(SCORES) for d in docs}
        if draw(st.booleans()):
            docs = draw(st.lists(st.sampled_from(DOCIDS), max_size=8, unique=True))
            # a query whose grades are all negative makes trec_eval read past its grade counts: left out
            grades = draw(st.lists(st.integers(-1, 3), min_size=len(docs), max_size=len(docs))
                          .filter(lambda g: not g or max(g) >= 0))
            qrels[q] = dict(zip(docs, grades))
    return run, qrels


def same(mine: float, theirs: float) -> bool:
    """Equal to 1e-9 relative, or both NaN."""
    if math.isnan(theirs):
        return math.isnan(mine)
    return math.isclose(mine, theirs, rel_tol=1e-9, abs_tol=1e-12)


def assert_same(mine: dict, theirs: dict) -> None:
    assert list(mine) == list(theirs)
    for qid, values in theirs.items():
        assert mine[qid].keys() == values.keys(), qid
        for name, value in values.items():
            if name != "runid":
                assert same(mine[qid][name], value), (qid, name, mine[qid][name], value)


@settings(max_examples=100, deadline=None)
@given(collections(), st.sets(st.sampled_from(NAMES), max_size=6), st.sampled_from([1, 2]), st.booleans())
def test_same_answer_as_pytrec_eval(collection, names, relevance_level, judged_only):
    run, qrels = collection
    theirs = real.RelevanceEvaluator(qrels, names, relevance_level, judged_only).evaluate(run)
    mine = shim.RelevanceEvaluator(qrels, names, relevance_level, judged_only).evaluate(run)
    assert_same(mine, theirs)


@settings(max_examples=30, deadline=None)
@given(collections())
def test_every_measure_at_once(collection):
    run, qrels = collection
    names = set(real.supported_measures)
    mine, theirs = shim.RelevanceEvaluator(qrels, names), real.RelevanceEvaluator(qrels, names)
    assert_same(mine.evaluate(run), theirs.evaluate(run))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=8), st.sampled_from(["num_rel", "map", "gm_map", "P_5"]))
def test_same_aggregate(values, measure):
    assert same(shim.compute_aggregated_measure(measure, values), real.compute_aggregated_measure(measure, values))


def test_same_names_and_nicknames():
    assert shim.supported_measures == real.supported_measures
    assert shim.supported_nicknames == real.supported_nicknames
    assert shim.__all__ == real.__all__


def test_a_negative_relevance_level_as_pytrec_eval():
    # pytrec_eval counts nothing relevant at a negative level (and crashes in bpref, left out here)
    qrels, run = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"a": 1}}, {"q1": {"a": 1.0, "c": 2.0}, "q2": {"b": 1.0}}
    names = set(real.supported_measures) - {"bpref", "gm_bpref"}
    with pytest.warns(shim.InputWarning, match="relevance_level -1"):
        mine = shim.RelevanceEvaluator(qrels, names, relevance_level=-1).evaluate(run)
    assert_same(mine, real.RelevanceEvaluator(qrels, names, relevance_level=-1).evaluate(run))


TOKENS = st.text("abcXYZ019-_.:", min_size=1, max_size=6)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(TOKENS, TOKENS, st.floats(-1e6, 1e6), st.integers(-2, 5)), max_size=12,
                unique_by=lambda row: (row[0], row[1])))
def test_same_files_read(rows):
    run_lines = [f"{q} Q0 {d} {i} {s!r} tag\n" for i, (q, d, s, _) in enumerate(rows)]
    qrel_lines = [f"{q}\t0 {d}  {g}\n" for q, d, _, g in rows]
    assert shim.parse_run(run_lines) == real.parse_run(run_lines)
    assert shim.parse_qrel(qrel_lines) == real.parse_qrel(qrel_lines)
