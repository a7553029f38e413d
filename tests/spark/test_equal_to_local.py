"""judged.spark.evaluate equals judged.evaluate exactly: every measure and convention, per query and in aggregate.

Each hypothesis example is one collection of many queries (ties, unjudged and
negatively graded documents, queries missing from the run, run-only
queries, queries without a relevant judgment, repeated judgments, rows in
no particular order, docids whose byte order differs from their case-folded
order) evaluated once by each engine under a battery of measures that sets
every parameter of every family to each of its values, plus a few measures
drawn at random; one Spark job checks them all. A second test walks the
measure registry itself, so a family added to it is checked on Spark with
no change here.
"""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import judged
from judged.errors import NoJudgedQueriesError
from judged.measures import Gain, Measure, all_families, parse
from judged.measures.spec import IDEALS, NORELS, UNJUDGED
from judged.spark import evaluate

BATTERY = (
    "nDCG", "nDCG@1", "nDCG@3", "nDCG(gain=exp)@5", "nDCG(gain={0:0.5,1:1,2:3.5,3:2})@4", "nDCG(gain={1:-2,2:5})@3",
    "nDCG(ideal=returned)@3", "nDCG(ideal=returned,unjudged=drop,gain=exp)", "nDCG(unjudged=drop)@3",
    "nDCG(ties=input)@3", "nDCG(ties=average)@3", "nDCG(ties=average,unjudged=drop)@2",
    "nDCG(ties=average,ideal=returned,gain=exp)", "nDCG(ties=worst)@3", "nDCG(ties=best,unjudged=drop)@3",
    "nDCG(norel=skip)@5", "nDCG(norel=1)",
    "DCG@3", "DCG(gain=exp,ties=average)@4", "DCG(unjudged=drop,ties=worst)", "DCG(ties=input)@2",
    "DCG(ties=best,unjudged=drop,gain={1:2,3:1})@4", "IDCG", "IDCG(ideal=returned)@3", "IDCG(gain={1:2,3:1})@2",
    "P", "P@1", "P@5", "P(rel=2)@3", "P(ties=average)@3", "P(unjudged=drop,ties=average)@2", "P(ties=input,rel=0)@4",
    "P(unjudged=drop)", "P(ties=worst)@2", "P(ties=best,unjudged=drop)@3",
    "R@3", "R(rel=2,norel=skip)", "R(ties=average)@2", "R(unjudged=drop,norel=1,ties=best)@3", "R(rel=-1)",
    "R(ties=input)@4", "R(ties=worst,unjudged=drop)",
    "Success@1", "Success(rel=3,ties=worst)@3", "Success(unjudged=drop)@2", "Success(ties=input)@2",
    "Success(ties=best)",
    "NumRelRet", "NumRelRet(rel=2,ties=input)@3", "NumRelRet(unjudged=drop)@2", "NumRelRet(ties=worst)@2",
    "NumRelRet(ties=best)@4",
    "NumRet", "NumRet@3", "NumRel", "NumRel(rel=3)", "NumRel(rel=0)", "Judged", "Judged@3",
    "AP", "AP@3", "AP(rel=2,unjudged=drop)", "AP(ties=input,norel=skip)", "AP(ties=worst)@5", "AP(ties=best,rel=0)",
    "AP(norel=1,rel=3)",
    "RR", "RR@2", "RR(rel=3,ties=input)", "RR(unjudged=drop,ties=best)@3", "RR(ties=worst)@3",
    "Rprec", "Rprec(rel=2,unjudged=drop)", "Rprec(ties=worst,norel=1)", "Rprec(ties=input)", "Rprec(ties=best)",
    "Rprec(norel=skip)",
    "Bpref", "Bpref@3", "Bpref(rel=2,ties=input,norel=skip)", "Bpref(ties=best)", "Bpref(ties=worst)@4",
    "Bpref(norel=1)",
    "ERR", "ERR@3", "ERR(max_rel=3,unjudged=drop)@5", "ERR(ties=input)@2", "ERR(ties=worst)@3",
    "ERR(ties=best,unjudged=drop)",
    "RBP", "RBP(p=0.5,max_rel=3)@3", "RBP(unjudged=drop,gain=exp)", "RBP(ties=input)@4", "RBP(ties=average)@3",
    "RBP(ties=worst,p=0.9)", "RBP(ties=best,unjudged=drop)@5",
    "RBP_resid", "RBP_resid@3", "RBP_resid(unjudged=drop,p=0.5)", "RBP_resid(ties=input)@2",
    "RBP_resid(ties=average)@4", "RBP_resid(ties=worst)@3", "RBP_resid(ties=best)",
    "SDCG", "SDCG@3", "SDCG(unjudged=drop,max_rel=3)@5", "SDCG(ties=input)@4", "SDCG(ties=average,gain=exp)@3",
    "SDCG(ties=worst)@2", "SDCG(ties=best)@3",
    "INSQ", "INSQ(T=2)@5", "INSQ(unjudged=drop)", "INSQ(ties=input)@3", "INSQ(ties=average)@4", "INSQ(ties=worst)@3",
    "INSQ(ties=best,T=0.5)",
    "INST", "INST(T=2,max_rel=3)@5", "INST(unjudged=drop)", "INST(ties=input)@3",
    "BPM", "BPM(T=2)@4", "BPM(unjudged=drop)@3", "BPM(ties=input)",
    "NERR8", "NERR8@3", "NERR8(unjudged=drop,ties=input)@4", "NERR9", "NERR9@3", "NERR9(unjudged=drop,ties=input)@4",
    "NERR10", "NERR10(p=0.5)@3", "NERR10(unjudged=drop,ties=input)", "NERR11", "NERR11(T=2)@3",
    "NERR11(unjudged=drop,ties=input)",
    # trec_eval's other families
    "GMAP", "GMAP(unjudged=drop,ties=input)@3", "GMAP(ties=worst,norel=1)", "GMAP(ties=best,norel=skip,rel=2)",
    "GMBpref", "GMBpref(ties=input,norel=1)", "GMBpref(ties=worst,norel=skip)", "GMBpref(ties=best)",
    "infAP", "infAP(unjudged=drop,ties=input)", "infAP(ties=worst,norel=1)", "infAP(ties=best,norel=skip,rel=2)",
    "IPrec(recall=0.35)", "IPrec(unjudged=drop,ties=input,recall=0.5)", "IPrec(ties=worst,norel=1,recall=1)",
    "IPrec(ties=best,norel=skip)",
    "IPrec11pt", "IPrec11pt(unjudged=drop,ties=input)", "IPrec11pt(ties=worst,norel=1)",
    "IPrec11pt(ties=best,norel=skip)", "IPrec11pt(unjudged=drop,levels=[0.2,0.5,0.8])",
    "Rprec_mult(mult=0.4)", "Rprec_mult(unjudged=drop,ties=input,mult=2)", "Rprec_mult(ties=worst,norel=1)",
    "Rprec_mult(ties=best,norel=skip)",
    "SetAP", "SetAP(unjudged=drop,ties=input)@3", "SetAP(ties=worst,norel=1)@2", "SetAP(ties=best,norel=skip)",
    "SetF(beta=0.5)", "SetF(unjudged=drop,ties=input)@3", "SetF(ties=worst,norel=1)@2", "SetF(ties=best,norel=skip)",
    "RelP", "RelP(unjudged=drop,ties=input)@3", "RelP(ties=worst,norel=1)@2", "RelP(ties=best,norel=skip)@4",
    "Utility(rel_ret=2,rel_missed=-1)", "Utility(unjudged=drop,ties=input)@3", "Utility(ties=worst)@2",
    "Utility(ties=best)@4",
    "NumNonRelJudgedRet", "NumNonRelJudgedRet(ties=input)@3", "NumNonRelJudgedRet(ties=worst)@2",
    "NumNonRelJudgedRet(ties=best)@2", "NumQ", "Unjudged", "Unjudged@3",
    "binG", "binG(unjudged=drop,ties=input)@3", "binG(ties=worst,norel=1)", "binG(ties=best,norel=skip)",
    "G", "G(unjudged=drop,ties=input,gain=exp)", "G(ties=worst,norel=1)", "G(ties=best,norel=skip)",
    "nDCG_rel", "nDCG_rel(unjudged=drop,ties=input)", "nDCG_rel(ties=worst,norel=1,gain={1:3})",
    "nDCG_rel(ties=best,norel=skip)",
    "Rndcg", "Rndcg(unjudged=drop,ties=input)", "Rndcg(ties=worst,norel=1,rel=2)", "Rndcg(ties=best,norel=skip)",
    "nDCG_p", "nDCG_p(unjudged=drop,ties=input)", "nDCG_p(ties=worst,norel=1)", "nDCG_p(ties=best,norel=skip)",
    "yaap", "yaap(unjudged=drop,ties=input)", "yaap(ties=worst,rel=2)", "yaap(ties=best)",
    # ir_measures' docid tie order: ascending code points, where 'B' < 'a' < 'é'
    "nDCG(ties=docid)@3", "DCG(ties=docid)@3", "P(ties=docid)@3", "R(ties=docid)@3", "Success(ties=docid)@3",
    "NumRelRet(ties=docid)@3", "AP(ties=docid)@3", "RR(ties=docid)@3", "Rprec(ties=docid)", "Bpref(ties=docid)@3",
    "GMAP(ties=docid)@3", "GMBpref(ties=docid)", "yaap(ties=docid)", "infAP(ties=docid)", "IPrec(ties=docid)",
    "IPrec11pt(ties=docid)", "Rprec_mult(ties=docid)", "SetAP(ties=docid)@3", "SetF(ties=docid)@3",
    "RelP(ties=docid)@3", "Utility(ties=docid)@3", "NumNonRelJudgedRet(ties=docid)@3", "binG(ties=docid)@3",
    "G(ties=docid)", "nDCG_rel(ties=docid)", "Rndcg(ties=docid)", "nDCG_p(ties=docid)", "ERR(ties=docid)@3",
    "RBP(ties=docid)@3", "RBP_resid(ties=docid)@3", "SDCG(ties=docid)@3", "INSQ(ties=docid)@3",
    # Clarke et al.'s compatibility and ir_measures' pairwise accuracy
    "Compat", "Compat(p=0.95,rel=2)", "Compat(unjudged=drop,ties=input,norel=1)", "Compat(ties=worst,norel=skip)",
    "Compat(ties=best)", "Compat(ties=docid)", "Compat_raw", "Compat_raw(p=0.5,unjudged=drop,ties=input,norel=1)",
    "Compat_raw(ties=worst,norel=skip)", "Compat_raw(ties=best,rel=2)", "Compat_raw(ties=docid)",
    "Accuracy", "Accuracy@3", "Accuracy(rel=2,unjudged=drop,ties=input,norel=1)", "Accuracy(ties=worst,norel=skip)@2",
    "Accuracy(ties=best)", "Accuracy(ties=docid)@3",
)

QIDS = ("q1", "q2", "Q3", "q10", "q4", "é5", "q6", "q7")
# Upper case, digits of different widths and a multi-byte character: byte order is not the case-folded order.
DOCIDS = ("a", "b", "B", "c", "d10", "d9", "D", "e", "é", "f", "g", "h")
SCORES = st.integers(-3, 4).map(lambda i: i / 2)  # few values: many ties
GRADES = st.integers(-1, 3)


@st.composite
def collections(draw):
    """Run rows ``(qid, docid, score)`` and judgment rows ``(qid, docid, grade)``, shuffled.

    Each query is in both (most), only in the judgments (missing from the
    run) or only in the run; some judgments are repeated exactly.
    """
    run, qrels = [], []
    for qid in QIDS:
        where = draw(st.sampled_from(("both", "both", "both", "judgments", "run")))
        if where != "judgments":
            docs = draw(st.lists(st.sampled_from(DOCIDS), max_size=len(DOCIDS), unique=True))
            run += [(qid, doc, draw(SCORES)) for doc in docs]
        if where != "run":
            docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=1, max_size=len(DOCIDS), unique=True))
            qrels += [(qid, doc, draw(GRADES)) for doc in docs]
    qrels += draw(st.lists(st.sampled_from(qrels), max_size=2))
    shuffle = draw(st.randoms(use_true_random=False))
    shuffle.shuffle(run)
    shuffle.shuffle(qrels)
    return run, qrels


def gains():
    maps = st.dictionaries(st.integers(-1, 4), st.floats(-5, 10, allow_nan=False), min_size=1)
    return st.one_of(st.just(Gain("linear")), st.just(Gain("exp")),
                     maps.map(lambda d: Gain("map", tuple(sorted(d.items())))))


@st.composite
def measures(draw):
    """Any valid measure: a family, a cutoff if it takes one, and a value for each of its parameters."""
    family = draw(st.sampled_from(all_families()))
    cutoff = draw(st.none() | st.integers(1, 14)) if family.cutoff == "optional" else None
    choices = {"gain": gains(), "rel": st.integers(-1, 4), "ideal": st.sampled_from(IDEALS),
               "unjudged": st.sampled_from(UNJUDGED), "ties": st.sampled_from(family.ties),
               "norel": st.sampled_from(NORELS), "p": st.floats(0.05, 0.95), "T": st.floats(0.25, 4),
               "max_rel": st.sampled_from((3, "query")), "beta": st.floats(0, 4), "recall": st.floats(0, 1),
               "levels": st.lists(st.floats(0, 1), min_size=1, max_size=4).map(lambda v: tuple(sorted(v))),
               "rounding": st.sampled_from(("round", "v9")), "mult": st.floats(0, 3), "rel_ret": st.floats(-3, 3),
               "nonrel_ret": st.floats(-3, 3),
               "rel_missed": st.floats(-3, 3)}
    if "max_rel" in family.params:  # gains scaled to [0, 1]: a map that is not monotone is refused
        choices["gain"] = st.sampled_from((Gain("linear"), Gain("exp")))
    return Measure(family.name, cutoff, **{p: draw(choices[p]) for p in family.params})


def both_engines(spark, run, qrels, wanted, **options):
    """The local Result and the SparkResult for the same rows (the run's row number gives ``ties=input``)."""
    local_run = judged.Run.from_frame(pl.DataFrame(run, schema=["qid", "docid", "score"], orient="row"), "run")
    local_qrels = judged.Qrels.from_frame(pl.DataFrame(qrels, schema=["qid", "docid", "grade"], orient="row"))
    run_df = spark.createDataFrame([(*row, i) for i, row in enumerate(run)],
                                   "qid string, docid string, score double, row long")
    qrels_df = spark.createDataFrame(qrels, "qid string, docid string, grade long")
    try:
        local = judged.evaluate(local_run, local_qrels, wanted, **options)
    except NoJudgedQueriesError:
        with pytest.raises(NoJudgedQueriesError):
            evaluate(run_df, qrels_df, wanted, columns={"order": "row"}, **options)
        return None, None
    return local, evaluate(run_df, qrels_df, wanted, columns={"order": "row"}, **options)


def assert_equal(local: judged.Result, spark_result) -> None:
    """Same scored (query, measure) pairs and values, same counts, aggregates and provenance: ==, NaN where NaN."""
    got = {(row.qid, row.measure): row.value for row in spark_result.frame.collect()}
    expected = {(qid, str(m)): float(v) for m in local.measures for qid, v in zip(local.qids, local.values[m])
                if not math.isnan(v)}
    assert got == expected
    assert spark_result.local.qids == local.qids
    for m in local.measures:
        assert spark_result.local.values[m].tobytes() == local.values[m].tobytes(), m
    assert spark_result.counts == local.counts
    assert [str(m) for m in spark_result.aggregate] == [str(m) for m in local.aggregate]
    for m in local.measures:
        mine, theirs = spark_result.aggregate[m], local.aggregate[m]
        assert mine == theirs or (math.isnan(mine) and math.isnan(theirs)), m
    mine, theirs = dict(spark_result.provenance), dict(local.provenance)
    assert mine.pop("engine")["name"] == "spark"
    for record in ("run", "qrels"):
        # the local side read dicts (their keys), Spark a DataFrame (its columns): all else is the same
        assert (mine.pop(record) | {"format": "memory", "ids": "mapping keys"}) == theirs.pop(record)
    mine.pop("created"), theirs.pop("created")
    assert mine == theirs


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.lists(measures(), max_size=3), st.sampled_from(("skip", "zero")),
       st.none() | st.integers(1, 6))
def test_every_measure_and_convention_equals_the_local_engine(spark, collection, drawn, missing, depth):
    run, qrels = collection
    wanted = [parse(m) for m in BATTERY] + drawn
    local, result = both_engines(spark, run, qrels, wanted, missing=missing, depth=depth)
    if local is not None:
        assert_equal(local, result)


def registry_measures() -> list[Measure]:
    """Every family of the registry with every value of each of its parameters (one varied at a time), with and
    without a cutoff where the family takes one."""
    values = {"gain": (Gain("linear"), Gain("exp"), Gain("map", ((0, 0.5), (1, 1.0), (2, 3.5), (3, 2.0)))),
              "rel": (-1, 0, 1, 2, 3), "ideal": IDEALS, "unjudged": UNJUDGED, "norel": NORELS,
              "p": (0.5, 0.9), "T": (0.5, 2.0), "max_rel": ("query", 3), "beta": (0.0, 2.0),
              "recall": (0.0, 0.35, 1.0), "levels": ((0.2, 0.5, 0.8), (0.5, 0.5, 1.0)), "rounding": ("round", "v9"),
              "mult": (0.2, 2.0), "rel_ret": (2.0,),
              "nonrel_ret": (-0.5,),
              "rel_missed": (-1.0,)}
    scaled_gains = (Gain("linear"), Gain("exp"), Gain("map", ((1, 0.5), (2, 1.0), (3, 2.0))))  # monotone
    wanted = []
    for family in all_families():
        own = {**values, "gain": scaled_gains} if "max_rel" in family.params else values
        cutoffs = (None, 3) if family.cutoff == "optional" else (None,)
        for cutoff in cutoffs:
            wanted.append(Measure(family.name, cutoff))
            for param in family.params:
                for value in (family.ties if param == "ties" else own[param]):
                    wanted.append(Measure(family.name, cutoff, **{param: value}))
    return list(dict.fromkeys(wanted))


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from(("skip", "zero")))
def test_every_family_of_the_registry_with_every_parameter_value_equals_the_local_engine(spark, collection, missing):
    run, qrels = collection
    wanted = registry_measures()
    assert {m.name for m in wanted} == {f.name for f in all_families()}
    local, result = both_engines(spark, run, qrels, wanted, missing=missing)
    if local is not None:
        assert {m.name for m in result.measures} == {f.name for f in all_families()}
        assert_equal(local, result)


def test_the_battery_sets_every_parameter_to_each_of_its_values():
    battery = [parse(m) for m in BATTERY]
    for family in all_families():
        mine = [m for m in battery if m.name == family.name]
        for param, values in (("ideal", IDEALS), ("unjudged", UNJUDGED), ("ties", family.ties), ("norel", NORELS)):
            if param in family.params:
                assert {getattr(m, param) for m in mine} == set(values), (family.name, param)
        assert any(m.cutoff is None for m in mine)
