"""judged.ir_measures against ir_measures itself: every measure both offer, same metrics, same aggregates."""

from __future__ import annotations

import math
import warnings

import ir_measures
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judged import UsageError
from judged import ir_measures as shim

QIDS = ("1", "2", "3", "10")  # numbers, as gdeval.pl requires, that sort differently as text
DOCIDS = tuple(f"d{i}" for i in range(12)) + ("D", "a", "9", "10")
SCORES = st.one_of(st.sampled_from([0.0, 1.0, 1.0 + 1e-9, 2.0, math.inf, -math.inf]),
                   st.floats(-10, 10, allow_nan=False))
TREC = ("nDCG@10", "nDCG", "AP", "AP@5", "P@3", "P(rel=2)@5", "SetP", "R@10", "SetR", "RR", "Success@5", "Bpref",
        "Rprec", "NumRet", "NumRet(rel=1)", "IPrec@0.2", "IPrec@0.7", "infAP", "SetAP", "SetF", "SetF(beta=0.5)",
        "NumQ", "NumRel", "SetRelP", "SetP(rel=2,relative=True)")
OTHERS = ("RR@3", "RR(rel=2)@10", "Judged@3", "Judged", "ERR@5", "ERR@10", "nDCG(dcg='exp-log2')@5",
          "SDCG(max_rel=3)@5", "INST(max_rel=3)", "INSQ(T=2.0,max_rel=3)", "BPM(T=1.0,max_rel=3)@5",
          "NERR8(max_rel=3)@5", "NERR9(max_rel=3)@5", "NERR10(max_rel=3)", "NERR11(max_rel=3)", "RBP(rel=1)",
          "RBP(p=0.5,rel=2)")
# judged_only and gains= go to ir_measures in calls of their own: mixed with the others in one call, which of
# pytrec_eval's invocations reports NumRet and nDCG for the others depends on set order (the hash seed).
JUDGED_ONLY = ("nDCG(judged_only=True)@5", "P(judged_only=True)@5", "AP(judged_only=True)")
GAINS = ("nDCG(gains={0:0,1:1,2:5})@5", "nDCG(gains={0:0,1:1,2:5,3:6})")


@st.composite
def collections(draw):
    """``(run, qrels)``: ties, infinite scores, negative grades, empty rankings, queries on one side only."""
    order = draw(st.permutations(QIDS))
    run_side = draw(st.sets(st.sampled_from(QIDS))) | {order[0]}
    qrels_side = draw(st.sets(st.sampled_from(QIDS))) | {order[0]}
    run, qrels = {}, {}
    for q in order:
        if q in run_side:
            docs = draw(st.lists(st.sampled_from(DOCIDS), max_size=12, unique=True))
            run[q] = {d: draw(SCORES) for d in docs}
        if q in qrels_side:
            docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=1, max_size=10, unique=True))
            grades = draw(st.lists(st.integers(-1, 3), min_size=len(docs), max_size=len(docs)))
            grades[0] = max(grades[0], 0)  # all-negative judgments trip a trec_eval defect
            qrels[q] = dict(zip(docs, grades))
    return run, qrels


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12) or (math.isnan(a) and math.isnan(b))


def compare(names, qrels, run):
    """Equal aggregates and per-query metrics; pytrec_eval crashes on an empty ranking, so ir_measures gets
    the run without them (an empty ranking is a query the run did not answer)."""
    their_run = {q: docs for q, docs in run.items() if docs} if isinstance(run, dict) else run
    theirs_measures = [ir_measures.parse_measure(n) for n in names]
    mine_measures = [shim.parse_measure(n) for n in names]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cwl_eval logs max_rel notes; numpy warns on cwl's empty means
        theirs = {str(m): v for m, v in ir_measures.calc_aggregate(theirs_measures, qrels, their_run).items()}
        their_rows = {(x.query_id, str(x.measure)): x.value
                      for x in ir_measures.iter_calc(theirs_measures, qrels, their_run)}
    mine = {str(m): v for m, v in shim.calc_aggregate(mine_measures, qrels, run).items()}
    my_rows = {(x.query_id, str(x.measure)): x.value for x in shim.iter_calc(mine_measures, qrels, run)}
    assert mine.keys() == theirs.keys()
    assert {k: (mine[k], theirs[k]) for k in theirs if not close(mine[k], float(theirs[k]))} == {}
    assert my_rows.keys() == their_rows.keys()
    assert {k: (my_rows[k], their_rows[k]) for k in their_rows if not close(my_rows[k], float(their_rows[k]))} == {}


@settings(max_examples=60, deadline=None)
@given(collections(), st.sampled_from([TREC, OTHERS, JUDGED_ONLY, GAINS]))
def test_same_metrics_and_aggregates_as_ir_measures(collection, names):
    run, qrels = collection
    compare(names, qrels, run)


@settings(max_examples=15, deadline=None)
@given(collections())
def test_same_numbers_from_frames_and_namedtuples(collection):
    run, qrels = collection
    run_rows = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    qrels_rows = [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    compare(("AP", "RR@5", "Judged@5", "INST(max_rel=3)"), qrels_rows, run_rows)
    compare(("AP", "RR@5", "nDCG@5"), pd.DataFrame(qrels_rows), pd.DataFrame(run_rows, columns=["query_id",
                                                                                               "doc_id", "score"]))


QRELS = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"x": 1}}
RUN = {"1": {"a": 1.0, "b": 2.0, "c": 0.5}, "9": {"a": 1.0}}


def test_measure_algebra_and_text():
    assert str(shim.P(rel=2)@5) == "P(rel=2)@5" and shim.P(cutoff=5) == shim.P@5
    assert shim.AP(rel=1) == shim.AP == shim.MAP and hash(shim.nDCG@10) == hash("nDCG@10")
    assert repr(shim.SetRelP) == "SetP(relative=True)" and repr(shim.NumRelRet) == "NumRet(rel=1)"
    assert repr(shim.nDCG(gains={1: 2, 0: 1})) == "nDCG(gains={0:1,1:2})" and repr(shim.IPrec@0.2) == "IPrec@0.2"
    assert repr(shim.INST(T=1, max_rel=1)) == "INST(max_rel=1)" and shim.AP(judged_only=True) != shim.AP
    assert shim.parse_measure(ir_measures.P(rel=2)@5) == shim.P(rel=2)@5


def test_rr_at_k_breaks_ties_as_msmarco_does():
    qrels, run = {"1": {"a": 1}}, {"1": {"b": 1.0, "a": 1.0}}
    assert shim.calc_aggregate([shim.RR@10, shim.RR], qrels, run) == {shim.RR@10: 1.0, shim.RR: 0.5}
    assert ir_measures.calc_aggregate([ir_measures.RR@10, ir_measures.RR], qrels, run) == {
        ir_measures.RR@10: 1.0, ir_measures.RR: 0.5}


def test_judged_counts_negative_grades_and_breaks_ties_by_docid_ascending():
    qrels, run = {"1": {"a": -1, "c": 1}}, {"1": {"c": 1.0, "a": 1.0, "b": 1.0}}
    assert shim.calc_aggregate([shim.Judged@1, shim.Judged@2, shim.Judged], qrels, run) == {
        shim.Judged@1: 1.0, shim.Judged@2: 0.5, shim.Judged: 2 / 3}


def test_counts_sum_and_missing_queries_score_the_default():
    found = shim.calc_aggregate([shim.NumQ, shim.NumRel, shim.NumRet, shim.SetRelP, shim.ERR@10], QRELS, RUN)
    assert found == {shim.NumQ: 1.0, shim.NumRel: 2.0, shim.NumRet: 3.0, shim.SetRelP: 0.5,
                     shim.ERR@10: 0.04492}  # (1/2)(1/16) + (1/3)(15/16)(3/16) = 0.08984 (5 decimals), halved
    assert sorted(shim.iter_calc([shim.NumRel], QRELS, RUN)) == [shim.Metric("1", shim.NumRel, 2),
                                                                 shim.Metric("2", shim.NumRel, 0.0)]


def test_gdeval_prints_five_decimals():
    value = shim.gdeval.calc_aggregate([shim.ERR@3], {"1": {"a": 1, "c": 2}}, {"1": {"a": 3.0, "b": 2.0,
                                                                                     "c": 1.0}})[shim.ERR@3]
    assert value == 0.12109  # 1/16 + (1/3)(15/16)(3/16) = 0.1210937..., printed to 5 decimals


def test_nan_scores_and_duplicates_are_read_as_ir_measures_reads_them_with_one_warning():
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = [shim.ScoredDoc("q", "a", math.nan), shim.ScoredDoc("q", "b", 1.0), shim.ScoredDoc("q", "c", 0.5),
           shim.ScoredDoc("q", "b", -1.0)]
    with pytest.warns(shim.InputWarning, match="1 duplicate document.* and 1 NaN score") as caught:
        found = shim.calc_aggregate([shim.AP, shim.P@1, shim.RR@5], qrels, iter(run))  # two providers, one read
    assert len(caught) == 1 and issubclass(shim.InputWarning, UserWarning)
    # b keeps its last score, -1: c (relevant), b, then a (NaN, relevant): AP = (1/1 + 2/3) / 2, as ir_measures
    assert found == {shim.AP: (1 / 1 + 2 / 3) / 2, shim.P@1: 1.0, shim.RR@5: 1.0}


def test_frames_namedtuples_and_pyterrier_columns_give_the_same_numbers():
    expected = shim.calc_aggregate([shim.AP, shim.nDCG@10], QRELS, RUN)
    qrels_rows = [shim.Qrel(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    run_rows = [shim.ScoredDoc(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    qrels_frame, run_frame = pd.DataFrame(qrels_rows), pd.DataFrame(run_rows)
    terrier_run = pd.DataFrame({"qid": run_frame.query_id, "docid": range(len(run_frame)),
                                "docno": run_frame.doc_id, "score": run_frame.score, "rank": 0})
    terrier_qrels = pd.DataFrame({"qid": qrels_frame.query_id, "docno": qrels_frame.doc_id,
                                  "label": qrels_frame.relevance})
    for qrels, run in ((qrels_rows, run_rows), (qrels_frame, run_frame), (pl.from_pandas(qrels_frame), RUN),
                       (terrier_qrels, terrier_run)):
        assert shim.calc_aggregate([shim.AP, shim.nDCG@10], qrels, run) == expected


def test_one_evaluator_many_runs():
    evaluator, peer = shim.evaluator([shim.AP, shim.P@2], QRELS), ir_measures.evaluator(
        [ir_measures.AP, ir_measures.P@2], QRELS)
    for run in (RUN, {"2": {"x": 1.0}}):
        theirs = {str(m): v for m, v in peer.calc_aggregate(run).items()}
        assert {str(m): v for m, v in evaluator.calc_aggregate(run).items()} == pytest.approx(theirs, abs=1e-15)


def test_readers_and_parsers():
    assert list(shim.read_trec_qrels("1 0 a 2\n")) == [shim.Qrel("1", "a", 2, "0")]
    assert list(shim.read_trec_run("1 Q0 a 1 0.5 r\n")) == [shim.ScoredDoc("1", "a", 0.5)]
    assert shim.parse_trec_measure("ndcg_cut.5,10") == [shim.nDCG@5, shim.nDCG@10]
    assert shim.parse_measure("IPrec(rel=2, recall=0.4)") == shim.IPrec(rel=2)@0.4


def test_define_and_define_byquery_see_the_ranked_frames():
    def top_is_relevant(qrels, run):
        return float(run.merge(qrels, on="doc_id")["relevance"].head(1).sum() > 0)

    Top = shim.define_byquery(top_is_relevant)
    Counted = shim.define(lambda qrels, run: ((q, len(g)) for q, g in run.groupby("query_id")), name="Counted")
    found = shim.calc_aggregate([Top@1, Counted@2], QRELS, RUN)
    assert found == {Top@1: 0.0, Counted@2: 1.0}  # "1" ranks b (grade 0) first; "2" is not in the run


@pytest.mark.parametrize(("measure", "reason"), [
    ("SetP@5", "unsupported params found: ['cutoff']"),
    ("nDCG(foo=1)", "unsupported params found: ['foo']"),
    ("alpha_nDCG@10", "measure not found: alpha_nDCG"),
    ("NumRel(rel=2)", "unsupported measure NumRel(rel=2)"),
    ("INST(max_rel=3,min_rel=1)", "judged's scaled gains start at grade 0"),
])
def test_what_judged_cannot_compute_is_refused_with_the_reason(measure, reason):
    with pytest.raises((ValueError, NameError, UsageError), match=reason.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        shim.calc_aggregate([measure], QRELS, RUN)


def test_integer_ids_are_read_as_text():
    qrels = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": [10, 11, 10], "relevance": [1, 0, 2]})
    run = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": [10, 11, 11], "score": [1.0, 2.0, 1.0]})
    as_text = qrels.astype({"query_id": str, "doc_id": str}), run.astype({"query_id": str, "doc_id": str})
    measures = [shim.AP, shim.RR@5, shim.Judged@5, shim.INST(max_rel=2)]
    assert shim.calc_aggregate(measures, qrels, run) == shim.calc_aggregate(measures, *as_text) == {
        shim.AP: 0.25, shim.RR@5: 0.25, shim.Judged@5: 0.5, shim.INST(max_rel=2): pytest.approx(0.0470943517752044)}
    theirs = ir_measures.calc_aggregate([ir_measures.RR@5, ir_measures.Judged@5], qrels, run)  # pytrec_eval: str only
    assert {str(m): v for m, v in theirs.items()} == {"RR@5": 0.25, "Judged@5": 0.5}


@pytest.mark.parametrize("provider,measure,partial", [
    ("pytrec_eval", "P@5", 0.3), ("gdeval", "ERR@5", 0.050875), ("judged", "Judged@5", 0.5),
    ("msmarco", "RR@5", 0.25), ("cwl_eval", "P@5", 0.3)])
def test_each_provider_with_nothing_on_one_side(provider, measure, partial):
    qrels = list(shim.read_trec_qrels("0 0 D0 0\n0 0 D1 1\n0 0 D2 1\n0 0 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n"
                                      "1 0 D5 2\n"))
    run = list(shim.read_trec_run("0 0 D0 1 0.8 r\n0 0 D2 2 0.7 r\n0 0 D1 3 0.3 r\n0 0 D3 4 0.4 r\n"
                                  "0 0 D4 5 0.1 r\n"))
    chosen, m = getattr(shim, provider), shim.parse_measure(measure)
    assert chosen.calc_aggregate([m], qrels, []) == {m: 0.0}
    assert chosen.calc_aggregate([m], qrels, run) == {m: partial}
    assert math.isnan(chosen.calc_aggregate([m], [], run)[m]) and list(chosen.iter_calc([m], [], [])) == []
