"""trec_eval's single-qrels families worked by hand, with the arithmetic inline, and trec_eval's names for them.

One query ranks d1..d6 (scores 6..1). Judgments: d1:1, d2:0, d3:-1 (pooled, not judged), d4:2, d6:0 and
d7:1 (never retrieved); d5 is not in the judgments (not pooled). So R = 3 (d1, d4, d7), the judged
non-relevant are d2 and d6, the relevant retrieved sit at ranks 1 and 4 with precision 1/1 and 2/4.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import judged
from judged.errors import MeasureError, UsageError
from judged.measures import parse
from judged.measures.trec_names import from_trec_eval, to_trec_eval

RUN = {"q": {"d1": 6.0, "d2": 5.0, "d3": 4.0, "d4": 3.0, "d5": 2.0, "d6": 1.0}}
QRELS = {"q": {"d1": 1, "d2": 0, "d3": -1, "d4": 2, "d6": 0, "d7": 1}}
EPS = 1e-5

WORKED = {
    # infAP: d1 first: 1. d4 at k=4: 3 documents above, of which d1, d2 judged and d3 pooled (d5 comes later):
    # 1/4 + (3/4) * (3/3) * ((1 + eps) / (1 + 1 + 2 eps)) = 1/4 + 3/8; divided by R = 3.
    "infAP": (1 + 1 / 4 + (3 / 4) * (3 / 3) * ((1 + EPS) / (2 + 2 * EPS))) / 3,
    # the condensed list (-J) is d1, d2, d4, d6: d4 at k=3 with 2 judged above, 1/3 + (2/3)(2/2)(1/2): AP's 2/3
    "infAP(unjudged=drop)": (1 + 1 / 3 + (2 / 3) * (2 / 2) * ((1 + EPS) / (2 + 2 * EPS))) / 3,
    # lround(r * 3) relevant documents: 0.3 -> 1 (best precision from rank 1 on: 1), 0.5 -> lround(1.5) = 2
    # (precision at rank 4: 2/4), 0.7 -> 2, 0.9 -> lround(2.7) = 3 > 2 retrieved: 0
    "IPrec(recall=0.3)": 1.0,
    "IPrec(recall=0.5)": 2 / 4,
    "IPrec(recall=0.7)": 2 / 4,
    "IPrec(recall=0.9)": 0.0,
    # levels 0..0.4 need 0 or 1 relevant (1.0), 0.5..0.8 need 2 (0.5), 0.9 and 1 need 3 (0): (5 + 4 * 0.5) / 11
    "IPrec11pt": (5 * 1.0 + 4 * 0.5) / 11,
    # trec_eval 8's 3 points: 0.2 -> lround(0.6) = 1 (1.0), 0.5 -> 2 (2/4), 0.8 -> lround(2.4) = 2 (2/4)
    "IPrec11pt(levels=[0.2,0.5,0.8])": (1.0 + 2 / 4 + 2 / 4) / 3,
    # a repeated level counts twice: 0.5 -> 2 (2/4) twice, 1 -> 3 > 2 retrieved (0)
    "IPrec11pt(levels=[0.5,0.5,1])": (2 / 4 + 2 / 4 + 0.0) / 3,
    # top floor(mult * 3 + 0.9): 0.5 -> 2 documents (1 relevant), 1 -> 3 (R-precision), 2 -> 6 (2 relevant)
    "Rprec_mult(mult=0.5)": 1 / 2,
    "Rprec_mult": 1 / 3,
    "Rprec_mult(mult=2)": 2 / 6,
    # the set: 6 retrieved, 2 relevant in it
    "SetAP": 2 * 2 / (6 * 3),
    "SetF": 2 * (2 / 6) * (2 / 3) / (2 / 6 + 2 / 3),
    "SetF(beta=0.5)": 1.5 * (2 / 6) * (2 / 3) / (0.5 * (2 / 6) + 2 / 3),
    "SetF@2": 2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3),
    "RelP@2": 1 / min(2, 3),
    "RelP@5": 2 / min(5, 3),
    "RelP": 2 / min(6, 3),
    # utility: 1 * 2 relevant retrieved - 1 * 4 others retrieved + 0 * 1 relevant missed
    "Utility": 1 * 2 - 1 * 4 + 0 * 1,
    "Utility(rel_ret=2,nonrel_ret=-1,rel_missed=-0.5)": 2 * 2 - 1 * 4 - 0.5 * 1,
    "Utility(unjudged=drop)": 1 * 2 - 1 * 2,  # d3 and d5 leave the set
    "NumNonRelJudgedRet": 2,  # d2, d6
    "NumNonRelJudgedRet@3": 1,
    "NumQ": 1,
    # IDCG: the judged gains sorted, 2 (d4), 1 (d1), 1 (d7), whatever the run retrieved
    "IDCG": 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4),
    "IDCG@2": 2 / math.log2(2) + 1 / math.log2(3),
    "IDCG(gain={1:3,2:9})": 9 / math.log2(2) + 3 / math.log2(3) + 3 / math.log2(4),
    "IDCG(ideal=returned)": 2 / math.log2(2) + 1 / math.log2(3),  # d4 and d1 only: d7 was not retrieved
    # binG: d1 has 0 non-relevant above: 1/log2(2); d4 has 2 (d2, d3): 1/log2(4)
    "binG": (1 / math.log2(2) + 1 / math.log2(4)) / 3,
    # bpref: d1 1; d4 behind one judged non-relevant (d2): 1 - min(1, 3) / min(3, 2)
    "GMBpref": (1 + (1 - 1 / 2)) / 3,
    "GMAP": (1 / 1 + 2 / 4) / 3,
    # yaap: S = 1/1 + 2/4 = 1.5 of R = 3: log((1 + 1.5) / (1 + 3 - 1.5))
    "yaap": math.log((1 + 1.5) / (1 + 3 - 1.5)),
    # unjudged: d3 (pooled) and d5 (not pooled); the denominator is k even past the end of the ranking
    "Unjudged@2": 0 / 2,
    "Unjudged@5": 2 / 5,
    "Unjudged@10": 2 / 10,
    "Unjudged": 2 / 6,
}


@pytest.mark.parametrize("measure", list(WORKED))
def test_worked_example(measure):
    assert math.isclose(judged.evaluate(RUN, QRELS, [measure]).value(measure, "q"), WORKED[measure],
                        rel_tol=0, abs_tol=1e-12)


# Graded: ranking a, x (unjudged), c against a:2, c:1, d:2 (not retrieved), e:0. Ideal gains 2, 2, 1 (M = 3);
# DCG by rank 2, 2, 2 + 1/2; IDCG by rank 2, 2 + 2/log2 3, 2 + 2/log2 3 + 1/2.
GRADED_RUN = {"q": {"a": 3.0, "x": 2.0, "c": 1.0}}
GRADED_QRELS = {"q": {"a": 2, "c": 1, "d": 2, "e": 0}}
IDCG2, IDCG3 = 2 + 2 / math.log2(3), 2 + 2 / math.log2(3) + 1 / 2
GRADED = {
    # G: ideal cost so far (at least 1 a rank) 2, 4, 5; gained so far 2, 2, 3: a earns 2/log2(2+2-2), c earns
    # 1/log2(2+5-3); over the total ideal gain 5
    "G": (2 / math.log2(2 + 2 - 2) + 1 / math.log2(2 + 5 - 3)) / 5,
    # nDCG at a (rank 1: 2/2) and at c (rank 3), and at the end for d, not retrieved; over M = 3
    "nDCG_rel": (2 / 2 + 2.5 / IDCG3 + (3 - 2) * 2.5 / IDCG3) / 3,
    # the ideal gain changes after rank 2 (2 -> 1) and rank 3 (1 -> 0): mean of nDCG@2 and nDCG@3
    "Rndcg": (2 / IDCG2 + 2.5 / IDCG3) / 2,
    "nDCG_rel(gain={1:3})": (2 / 3 + (2 + 3 / 2) / (3 + 2 / math.log2(3) + 2 / 2) * 2) / 3,  # ideal 3, 2, 2
    # the first two ranks undiscounted, then 1/log2(i): DCG 2 + 1/log2 3; ideal 2, 2, 1 -> 2 + 2 + 1/log2 3
    "nDCG_p": (2 + 1 / math.log2(3)) / (2 + 2 + 1 / math.log2(3)),
    "nDCG_p(rel=2)": (2 + 1 / math.log2(3)) / (2 + 2 + 1 / math.log2(3)),
}


@pytest.mark.parametrize("measure", list(GRADED))
def test_graded_worked_example(measure):
    value = judged.evaluate(GRADED_RUN, GRADED_QRELS, [measure]).value(measure, "q")
    assert math.isclose(value, GRADED[measure], rel_tol=0, abs_tol=1e-12)


def test_rndcg_adds_the_end_of_a_ranking_longer_than_the_ideal_plus_one():
    """a:1, b:1 (M = 2, one level). Ranking a, x, b: the level ends after rank 2, nDCG@2 = 1 / (1 + 1/log2 3);
    3 retrieved is not more than M + 1, so that is all. Ranking a, x, y, z, b (5 > M + 1): the end of the
    ranking counts too, nDCG = (1 + 1/log2 6) / (1 + 1/log2 3).
    """
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": 3.0, "x": 2.0, "b": 1.0}}
    expected = 1 / (1 + 1 / math.log2(3))
    assert math.isclose(judged.evaluate(run, qrels, ["Rndcg"]).value("Rndcg"), expected, abs_tol=1e-15)
    longer = {"q": {"a": 5.0, "x": 4.0, "y": 3.0, "z": 2.0, "b": 1.0}}
    end = (1 + 1 / math.log2(6)) / (1 + 1 / math.log2(3))
    assert math.isclose(judged.evaluate(longer, qrels, ["Rndcg"]).value("Rndcg"), (expected + end) / 2,
                        abs_tol=1e-15)


def test_infap_is_ap_when_every_pooled_document_is_judged():
    """Without pooled-unjudged or unpooled documents infAP is AP, up to trec_eval's eps.

    Ranking r, n, r: AP = (1 + 2/3) / 2; infAP's second term 1/3 + (2/3) (2/2) (1 + eps)/(2 + 2 eps).
    """
    run, qrels = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"a": 1, "b": 0, "c": 1}}
    r = judged.evaluate(run, qrels, ["infAP", "AP"])
    assert math.isclose(r.value("infAP"), (1 + 1 / 3 + (2 / 3) * ((1 + EPS) / (2 + 2 * EPS))) / 2, abs_tol=1e-15)
    assert math.isclose(r.value("infAP"), r.value("AP"), abs_tol=1e-9)


def test_geometric_mean_floors_each_query_at_1e_5():
    """q1 has AP 0.5, q2 retrieves nothing relevant (AP 0, floored to 1e-5): exp((log 0.5 + log 1e-5) / 2).

    Under missing=zero the unanswered q3 is a 0 too, as trec_eval -c adds log(MIN_GEO_MEAN) for it.
    """
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 1.0}}
    qrels = {"q1": {"b": 1}, "q2": {"y": 1}, "q3": {"z": 1}}
    skip = judged.evaluate(run, qrels, ["GMAP", "AP", "NumQ"])
    assert math.isclose(skip.value("GMAP"), math.sqrt(0.5 * 1e-5), rel_tol=1e-12)
    assert skip.value("GMAP", "q1") == skip.value("AP", "q1") == 0.5  # per query it is AP
    zero = judged.evaluate(run, qrels, ["GMAP", "NumQ"], missing="zero")
    assert math.isclose(zero.value("GMAP"), (0.5 * 1e-5 * 1e-5) ** (1 / 3), rel_tol=1e-12)
    assert (skip.value("NumQ"), zero.value("NumQ")) == (2, 3)


def test_a_query_without_relevant_documents_takes_its_norel_value():
    run, qrels = {"q": {"a": 1.0}}, {"q": {"a": 0}}
    for m in ("infAP", "IPrec(recall=0.5)", "IPrec11pt", "Rprec_mult", "SetAP", "SetF", "RelP@5", "binG", "GMAP"):
        assert judged.evaluate(run, qrels, [m]).value(m, "q") == 0.0, m
        skipped = m.replace(")", ",norel=skip)") if "(" in m else (m.replace("@", "(norel=skip)@") if "@" in m
                                                                   else m + "(norel=skip)")
        assert math.isnan(judged.evaluate(run, qrels, [skipped]).value(skipped, "q")), skipped


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([None, -1, 0, 1]), max_size=12), st.integers(1, 15))
def test_unjudged_is_one_minus_judged_exactly_when_k_documents_were_retrieved(grades, k):
    """trec_eval's unj divides by k, Judged by the documents in the top k: complements iff |ret| >= k.

    Compared as fractions (both are ratios of small counts): 1 - 1/3 is not 2/3 in floating point.
    """
    run = {"q": {f"d{i}": float(-i) for i in range(len(grades))} | {"x": -100.0}}
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades) if g is not None} | {"j": 1}}
    r = judged.evaluate(run, qrels, [f"Unjudged@{k}", f"Judged@{k}", "Unjudged", "Judged"])

    def ratio(measure: str) -> Fraction:
        return Fraction(r.value(measure)).limit_denominator(100)

    retrieved = len(grades) + 1
    assert ratio(f"Unjudged@{k}") == (1 - ratio(f"Judged@{k}")) * Fraction(min(retrieved, k), k)
    assert ratio("Unjudged") == 1 - ratio("Judged")


@pytest.mark.parametrize(("trec", "ours"), [
    ("ndcg_cut_10", "nDCG@10"), ("ndcg_cut.10", "nDCG@10"), ("P_10", "P@10"), ("P.5", "P@5"),
    ("map_cut_10", "AP@10"), ("recip_rank", "RR"), ("infAP", "infAP"), ("gm_map", "GMAP"),
    ("iprec_at_recall_0.50", "IPrec(recall=0.5)"), ("iprec_at_recall..25", "IPrec(recall=0.25)"),
    ("11pt_avg", "IPrec11pt"), ("11pt_avg..25,.5,.75", "IPrec11pt(levels=[0.75,0.5,0.25])"),
    ("Rprec_mult_0.20", "Rprec_mult(mult=0.2)"), ("set_F.0.5", "SetF(beta=0.5)"),
    ("utility.2,-1,0,0", "Utility(rel_ret=2)"), ("relative_P_5", "RelP@5"), ("set_relative_P", "RelP"),
    ("set_map", "SetAP"), ("num_q", "NumQ"), ("unj_10", "Unjudged@10"), ("gm_bpref", "GMBpref"),
    ("num_nonrel_judged_ret", "NumNonRelJudgedRet"), ("binG", "binG"),
])
def test_trec_eval_names_parse_to_judged_measures_and_back(trec, ours):
    assert parse(trec) == parse(ours)
    printed = to_trec_eval(parse(ours)).printed
    assert [m for name, m in from_trec_eval(printed)] == [parse(ours)]


@pytest.mark.parametrize(("name", "suggestion"), [("ndcg_cutt_10", "ndcg_cut_10"), ("nDGC", "nDCG"),
                                                  ("gm_mapp", "GMAP"), ("infAPP", "infAP")])
def test_an_unknown_name_suggests_judged_and_trec_eval_names(name, suggestion):
    with pytest.raises(MeasureError, match=f"Did you mean .*'{suggestion}'"):
        parse(name)


def test_a_trec_eval_name_for_several_measures_is_refused_with_them_listed():
    with pytest.raises(MeasureError, match=r"'ndcg_cut' names 9 measures \(ndcg_cut_5, ndcg_cut_10, "):
        parse("ndcg_cut")
    with pytest.raises(MeasureError, match=r"'iprec_at_recall' names 11 measures"):
        parse("iprec_at_recall")


@pytest.mark.parametrize(("name", "why"), [
    ("utility.1,-1,0,0.5", "collection size"),
    ("utility.1,-1", "takes 4 coefficient"),
    ("iprec_at_recall.1.5", "recall must be a finite number >= 0 and <= 1"),
    ("11pt_avg..5,.25", "ascending order only"),
    ("11pt_avg..5,1.5", "levels must be a finite number >= 0 and <= 1"),
])
def test_trec_eval_parameters_judged_cannot_honour_are_refused(name, why):
    with pytest.raises(UsageError, match=why):
        from_trec_eval(name)


def test_unj_under_minus_j_is_refused_as_zero_by_construction():
    with pytest.raises(UsageError, match="0 by construction"):
        from_trec_eval("unj", judged_only=True)


def test_iprec_matches_trec_eval_10_on_its_302_data(conformance):
    """trec_eval 10's output (tests/data/trec_eval/out.test.302.iprec): topic 302 has R = 77, so level 0.6 is
    lround(46.2) = 46 relevant documents there, where trec_eval 9 (and pytrec_eval) reads (long)47.1 = 47."""
    from click.testing import CliRunner

    from judged.cli import main

    names = [printed for printed, _ in from_trec_eval("iprec_at_recall")] + ["11pt_avg"]
    args = ["eval", str(conformance / "results-302.test"), "--qrels", str(conformance / "qrels-302.test"),
            "--format", "trec_eval", "--per-query"] + [a for n in names for a in ("-m", n)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert result.stdout == (conformance / "out.test.302.iprec").read_text()


@pytest.mark.parametrize(("spelling", "ours"), [
    ("IPrec@0.5", "IPrec(recall=0.5)"), ("SetP", "P"), ("SetR", "R"), ("SetF(beta=0.5)", "SetF(beta=0.5)"),
    ("SetAP", "SetAP"), ("infAP(rel=2)", "infAP(rel=2)"), ("NumQ", "NumQ"), ("SetP(relative=True)", "RelP"),
    ("SetRelP", "RelP"), ("SetAP(judged_only=True)", "SetAP(unjudged=drop)"), ("NumRet(rel=1)", "NumRelRet(rel=1)"),
    ("nDCG(judged_only=True)@10", "nDCG(unjudged=drop)@10"),
])
def test_ir_measures_spellings_and_objects_read_as_the_same_measures(spelling, ours):
    """Through the ir_measures layer and through ``-m`` (parse) alike."""
    import ir_measures

    from judged.measures.ir_names import from_ir_measures

    assert from_ir_measures(spelling) == from_ir_measures(ir_measures.parse_measure(spelling)) == parse(ours)
    assert parse(spelling) == parse(ours)


@pytest.mark.parametrize(("text", "message"), [
    ("RR(gain=linear)", "RR has no parameter 'gain'"),
    ("NumRet(unjudged=zero)", "NumRet has no parameter 'unjudged': it counts every document retrieved"),
])
def test_a_convention_the_family_lacks_is_refused_even_written_at_its_default(text, message):
    """``NumRet(rel=1)`` read as NumRet, its rel ignored, would be the count of every document retrieved where
    ir_measures means the relevant ones; so a convention written out must be one the family has."""
    with pytest.raises(MeasureError, match=re.escape(message)):
        parse(text)


@pytest.mark.parametrize(("expected", "qrels", "rel"), [("out.test.yaap_dcg", "qrels.test", 1),
                                                       ("out.test.yaap_dcg.l2", "qrels.rel_level", 2)])
def test_yaap_and_dcg_match_trec_eval_10(conformance, expected, qrels, rel):
    """trec_eval 10's -q -m yaap -m dcg output (generated, tests/data/trec_eval/README.md), byte for byte."""
    from click.testing import CliRunner

    from judged.cli import main

    args = ["eval", str(conformance / "results.test"), "--qrels", str(conformance / qrels), "--format", "trec_eval",
            "--per-query", "-m", f"yaap(rel={rel})", "-m", "DCG"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert result.stdout == (conformance / expected).read_text()


def test_ndcg_p_is_0_when_nothing_at_rel_was_retrieved_as_in_m_ndcg_p():
    """Only c (grade 1) retrieved: DCG = 1 > 0, but under rel=2 nothing relevant was retrieved, so 0."""
    run = {"q": {"c": 1.0}}
    assert judged.evaluate(run, GRADED_QRELS, ["nDCG_p(rel=2)"]).value("nDCG_p(rel=2)") == 0.0
    assert math.isclose(judged.evaluate(run, GRADED_QRELS, ["nDCG_p"]).value("nDCG_p"), 1 / (2 + 2 + 1 / math.log2(3)))


@pytest.mark.parametrize(("expected", "arguments"), [
    ("out.test.ideal_dcg", ["-q", "-m", "ideal_dcg", "qrels.test", "results.test"]),
    ("out.test.ideal_dcg.c_gains", ["-q", "-c", "-m", "ideal_dcg.1=3,2=9,4=4.5", "qrels.rel_level", "results.trunc"]),
    ("out.test.ideal_dcg.JMl2", ["-q", "-J", "-M50", "-l2", "-m", "ideal_dcg", "qrels.rel_level", "results.test"]),
])
def test_ideal_dcg_matches_trec_eval_10(conformance, expected, arguments):
    """trec_eval 10's ideal_dcg output (generated, tests/data/trec_eval/README.md) through judged trec_eval, byte for
    byte: under -c the query the run lacks keeps its ideal DCG, as trec_eval's stand-in ranking does."""
    from click.testing import CliRunner

    from judged.cli import main

    words = [str(conformance / w) if (conformance / w).is_file() else w for w in arguments]
    result = CliRunner().invoke(main, ["trec_eval", *words])
    assert result.exit_code == 0, result.output
    assert result.stdout == (conformance / expected).read_text()
