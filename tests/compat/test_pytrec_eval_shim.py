"""judged.pytrec_eval against pytrec_eval itself: same queries, same measure names, same numbers.

Hypothesis draws collections built to hit the edges: few distinct scores (ties), scores that differ only
beyond 32-bit precision (pytrec_eval ties them, and so must the shim), docids whose byte order is not their
numeric order, negative grades, queries on one side only, run queries with no documents, and judgment dicts
that are empty (pytrec_eval drops those queries).
"""

from __future__ import annotations

import math
import re

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from judged import UsageError
from judged import pytrec_eval as shim

QIDS = ("q1", "q2", "q3", "q10")
DOCIDS = tuple(f"d{i}" for i in range(15)) + ("D", "a")
# 1.0 and 1.0 + 1e-9 are equal as 32-bit floats: pytrec_eval ties them.
SCORES = st.one_of(st.sampled_from([0.0, 1.0, 1.0 + 1e-9, 2.0, -3.5]), st.floats(-10, 10, allow_nan=False))
MEASURES = ("map", "P", "recall.3,7", "ndcg", "ndcg_cut.1,3,10", "recip_rank", "bpref", "Rprec", "success",
            "set_P", "set_recall", "map_cut.2,5", "num_ret", "num_rel", "num_rel_ret", "iprec_at_recall", "11pt_avg",
            "infAP", "gm_map", "gm_bpref", "Rprec_mult", "utility", "binG", "G", "ndcg_rel", "Rndcg", "relative_P",
            "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret", "num_q")


@st.composite
def collections(draw):
    """``(run, qrels)`` with one query on both sides that retrieves something, so there is a number."""
    order = draw(st.permutations(QIDS))
    shared = order[0]
    run_side = draw(st.sets(st.sampled_from(QIDS))) | {shared}
    qrels_side = draw(st.sets(st.sampled_from(QIDS))) | {shared}
    run, qrels = {}, {}
    for q in order:
        if q in run_side:
            docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=int(q == shared), max_size=12, unique=True))
            run[q] = {d: draw(SCORES) for d in docs}
        if q in qrels_side:
            docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=int(q == shared), max_size=10, unique=True))
            # trec_eval mishandles a query whose grades are all negative (tests/test_peer_pytrec_eval.py)
            grades = draw(st.lists(st.integers(-1, 3), min_size=len(docs), max_size=len(docs))
                          .filter(lambda g: not g or max(g) >= 0))
            qrels[q] = dict(zip(docs, grades))
    return run, qrels


def assert_same(mine: dict, theirs: dict) -> None:
    assert mine.keys() == theirs.keys()
    for qid in theirs:
        assert mine[qid].keys() == theirs[qid].keys(), qid
        for name, value in theirs[qid].items():
            if math.isnan(value):  # -J left nothing judged: trec_eval's iprec divides 0 by 0; judged says 0
                assert name.startswith(("iprec_at_recall", "11pt_avg")) and mine[qid][name] == 0.0, (qid, name)
                continue
            assert math.isclose(mine[qid][name], value, rel_tol=1e-12, abs_tol=1e-12), (qid, name)


@settings(max_examples=150, deadline=None)
@given(collections(), st.sampled_from([1, 2]), st.booleans())
def test_same_numbers_as_pytrec_eval(collection, relevance_level, judged_only):
    run, qrels = collection
    if not any(run.get(q) and qrels.get(q) for q in run):
        return  # nothing retrieved for a judged query: the shim answers {} (see the next test)
    measures = set(MEASURES) - ({"num_ret"} if judged_only else set())
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level, judged_only).evaluate(run)
    mine = shim.RelevanceEvaluator(qrels, measures, relevance_level, judged_only).evaluate(run)
    assert_same(mine, theirs)


def test_one_evaluator_many_runs():
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}
    evaluator = shim.RelevanceEvaluator(qrels, {"map", "P_2"})
    peer = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_2"})
    for run in ({"q1": {"a": 1.0, "b": 2.0}}, {"q1": {"c": 3.0}, "q2": {"x": 1.0, "y": 2.0}}):
        assert_same(evaluator.evaluate(run), peer.evaluate(run))
    assert evaluator.evaluate({"q1": {"c": 3.0}}) == {"q1": {"map": 0.5, "P_2": 0.5}}  # AP: (1/1)/2 relevant


def test_scores_tie_as_32_bit_floats():
    # a and b tie in 32 bits, so trec_eval's docid-descending rule puts b first: RR is 1/2, not 1
    qrels, run = {"q1": {"a": 1}}, {"q1": {"a": 1.0 + 1e-9, "b": 1.0}}
    assert shim.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run) == {"q1": {"recip_rank": 0.5}}
    assert pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run) == {"q1": {"recip_rank": 0.5}}


def test_nothing_shared_is_an_empty_answer():
    evaluator = shim.RelevanceEvaluator({"q1": {"a": 1}}, {"map"})
    assert evaluator.evaluate({"q9": {"a": 1.0}}) == {} == pytrec_eval.RelevanceEvaluator(
        {"q1": {"a": 1}}, {"map"}).evaluate({"q9": {"a": 1.0}})


def test_unknown_measure_names_what_there_is():
    with pytest.raises(UsageError, match=re.escape("unknown trec_eval measure 'ndcg_bogus'; judged computes ")):
        shim.RelevanceEvaluator({"q1": {"a": 1}}, {"ndcg_bogus"})
    assert "ndcg_cut" in shim.supported_measures and "infAP" in shim.supported_measures


def test_num_ret_under_judged_only_counts_the_judged_documents_retrieved():
    qrels, run = {"q1": {"a": 1, "b": 0}}, {"q1": {"a": 2.0, "u": 1.5, "b": 1.0}}  # u is unjudged
    ours = shim.RelevanceEvaluator(qrels, {"num_ret"}, judged_docs_only_flag=True).evaluate(run)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"num_ret"}, judged_docs_only_flag=True).evaluate(run)
    assert ours == theirs == {"q1": {"num_ret": 2.0}}


def test_parse_run_and_qrel_read_as_judged_reads(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1 tag\n# a comment\nq2 Q0 d1 1 -1e3 tag\n")
    with path.open() as handle:
        assert shim.parse_run(handle) == {"q1": {"d1": 2.5, "d2": 1.0}, "q2": {"d1": -1000.0}}
    assert shim.parse_qrel(["q1 0 d1 2", "q1 0 d2 0\n"]) == {"q1": {"d1": 2, "d2": 0}}
    with pytest.raises(judged_input_error(), match=re.escape("<qrels lines>:2:")):
        shim.parse_qrel(["q1 0 d1 2", "q1 0 d2"])


def judged_input_error():
    from judged import InputError

    return InputError
