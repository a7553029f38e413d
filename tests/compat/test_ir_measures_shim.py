"""judged.ir_measures against ir_measures itself: same aggregates, same per-query metrics, same input shapes."""

from __future__ import annotations

import math
import re

import ir_measures
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import (
    AP,
    RR,
    Bpref,
    IPrec,
    Judged,
    NumRel,
    NumRet,
    P,
    R,
    Rprec,
    SetAP,
    SetF,
    SetP,
    SetR,
    Success,
    infAP,
    nDCG,
)

from judged import UsageError
from judged import ir_measures as shim

QIDS = ("q1", "q2", "q3", "q10")
DOCIDS = tuple(f"d{i}" for i in range(15)) + ("D", "a")
SCORES = st.one_of(st.sampled_from([0.0, 1.0, 1.0 + 1e-9, 2.0]), st.floats(-10, 10, allow_nan=False))
# RR without a cutoff: ir_measures' RR@k comes from a provider that breaks ties the other way (see the preset).
# judged_only and gains= measures go to ir_measures in calls of their own: mixed with the others in one call,
# ir_measures runs pytrec_eval once per setting, and which run's NumRet and nDCG it reports for the others
# depends on set order (the hash seed).
PLAIN = (nDCG@10, nDCG, AP, AP@5, P@3, P(rel=2)@5, SetP, R@10, SetR, RR, Success@5, Bpref, Rprec,
         NumRet, NumRet(rel=1), IPrec@0.2, IPrec@0.7, infAP, SetAP, SetF, SetF(beta=0.5))
JUDGED_ONLY = (nDCG(judged_only=True)@5, P(judged_only=True)@5, AP(judged_only=True))
GAINS = (nDCG(gains={0: 0, 1: 1, 2: 5})@5, nDCG(gains={0: 0, 1: 1, 2: 5, 3: 6}))


@st.composite
def collections(draw):
    """``(run, qrels)`` with a query on both sides, no all-negative judgments (a trec_eval defect)."""
    order = draw(st.permutations(QIDS))
    run_side = draw(st.sets(st.sampled_from(QIDS))) | {order[0]}
    qrels_side = draw(st.sets(st.sampled_from(QIDS))) | {order[0]}
    run, qrels = {}, {}
    for q in order:
        if q in run_side:
            docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=1, max_size=12, unique=True))
            run[q] = {d: draw(SCORES) for d in docs}
        if q in qrels_side:
            docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=1, max_size=10, unique=True))
            grades = draw(st.lists(st.integers(0, 3), min_size=len(docs), max_size=len(docs)))
            qrels[q] = dict(zip(docs, grades))
    return run, qrels


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=100, deadline=None)
@given(collections(), st.sampled_from([PLAIN, JUDGED_ONLY, GAINS]))
def test_same_aggregates_and_metrics_as_ir_measures(collection, measures):
    run, qrels = collection
    theirs = ir_measures.calc_aggregate(measures, qrels, run)
    mine = shim.calc_aggregate(measures, qrels, run)
    assert mine.keys() == theirs.keys()
    assert {str(m): mine[m] for m in measures if not close(mine[m], theirs[m])} == {}, (run, qrels, theirs)
    their_rows = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    my_rows = {(m.query_id, str(m.measure)): m.value for m in shim.iter_calc(measures, qrels, run)}
    assert my_rows.keys() == their_rows.keys()
    assert all(close(my_rows[k], their_rows[k]) for k in their_rows)


QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}
RUN = {"q1": {"a": 1.0, "b": 2.0, "c": 0.5}, "q9": {"a": 1.0}}


def test_mixed_judged_only_is_deterministic_here():
    # ir_measures' own answer to this call changes with the hash seed; judged's is each measure's own number
    run, qrels = {"q1": {"d0": 0.0, "d1": 0.0, "d2": 0.0}}, {"q1": {"d0": 1, "d1": 2}}
    mixed = shim.calc_aggregate([NumRet, nDCG(judged_only=True)@5, nDCG@5], qrels, run)
    assert mixed == {NumRet: 3.0, nDCG(judged_only=True)@5: 1.0,
                     nDCG@5: ir_measures.calc_aggregate([nDCG@5], qrels, run)[nDCG@5]}


def test_names_and_objects_give_the_same_numbers():
    by_name = shim.calc_aggregate(["nDCG@10", "P(rel=2)@5", "SetP"], QRELS, RUN)
    by_object = shim.calc_aggregate([nDCG@10, P(rel=2)@5, SetP], QRELS, RUN)
    assert list(by_name.values()) == list(by_object.values())
    assert list(by_name) == ["nDCG@10", "P(rel=2)@5", "SetP"]


def test_frames_namedtuples_and_pyterrier_columns():
    expected = ir_measures.calc_aggregate([AP, nDCG@10], QRELS, RUN)
    qrels_rows = [ir_measures.Qrel(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    run_rows = [ir_measures.ScoredDoc(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    qrels_frame = pd.DataFrame([r._asdict() for r in qrels_rows])
    run_frame = pd.DataFrame([r._asdict() for r in run_rows])
    # PyTerrier: docid is its index's integer, docno the document's name; label and score
    terrier_run = pd.DataFrame({"qid": run_frame.query_id, "docid": range(len(run_frame)),
                                "docno": run_frame.doc_id, "score": run_frame.score, "rank": 0})
    terrier_qrels = pd.DataFrame({"qid": qrels_frame.query_id, "docno": qrels_frame.doc_id,
                                  "label": qrels_frame.relevance})
    for qrels, run in ((qrels_rows, run_rows), (qrels_frame, run_frame), (pl.from_pandas(qrels_frame), RUN),
                       (terrier_qrels, terrier_run)):
        mine = shim.calc_aggregate([AP, nDCG@10], qrels, run)
        assert all(close(mine[m], expected[m]) for m in expected)


def test_one_evaluator_many_runs():
    evaluator = shim.evaluator([AP, P@2], QRELS)
    peer = ir_measures.evaluator([AP, P@2], QRELS)
    for run in (RUN, {"q2": {"x": 1.0}}):
        assert evaluator.calc_aggregate(run) == pytest.approx(peer.calc_aggregate(run), abs=1e-15)


@pytest.mark.parametrize(("measure", "reason"), [
    (NumRel, "ir_measures reports NumRel 0 for a query missing from the run"),
    (Judged@10, "ir_measures' Judged@k counts negative grades as judged"),
    ("nDCG(dcg='exp-log2')@10", "gdeval.pl"),
    ("nDCG(foo=1)", "ir_measures parameter foo=1 in 'nDCG(foo=1)' has no judged convention"),
    ("SetP@5", "ir_measures' SetP takes no cutoff"),
])
def test_what_ir_measures_computes_otherwise_is_refused_with_the_reason(measure, reason):
    with pytest.raises(UsageError, match=re.escape(reason)):
        shim.calc_aggregate([measure], QRELS, RUN)
