"""judged.pytrec_eval's behaviours, each with the exact answer (the arithmetic inline), without pytrec_eval.

tests/compat/test_pytrec_eval_differential.py compares the same module with the real library.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from judged import InputError, UsageError
from judged import pytrec_eval as shim
from judged.errors import InputTypeError

QRELS = {"q1": {"d1": 0, "d2": 1, "d3": 2}, "q2": {"d2": 1, "d3": 1}}
RUN = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {"d2": 1.0}}


def answer(measures, run=RUN, qrels=QRELS, **options):
    return shim.RelevanceEvaluator(qrels, measures, **options).evaluate(run)


def test_map_and_ndcg_cut():
    # q1 ranks d3 (2), d1 (0), d2 (1): AP = (1/1 + 2/3) / 2; nDCG@3 = (2 + 1/log2 4) / (2 + 1/log2 3)
    result = answer({"map", "ndcg_cut.3"})
    assert result["q1"] == {"map": (1 + 2 / 3) / 2, "ndcg_cut_3": pytest.approx((2 + 1 / 2) / (2 + 1 / math.log2(3)))}
    assert result["q2"] == {"map": 1 / 2, "ndcg_cut_3": pytest.approx(1 / (1 + 1 / math.log2(3)))}


def test_parameters_merge_per_measure():
    # a bare name adds nothing once its measure has parameters, in either order
    assert answer(["P.1,4", "P"])["q1"] == answer(["P", "P.1,4"])["q1"] == {"P_1": 1.0, "P_4": 2 / 4}
    assert list(answer(["ndcg_cut", "ndcg_cut.1,4"])["q1"]) == ["ndcg_cut_1", "ndcg_cut_4"]
    assert list(answer(["P_10,5", "P.2.5"])["q2"]) == ["P_2", "P_5", "P_10"]  # 2.5 read as 2, as C's atol
    assert list(answer(["P_5abc"])["q1"]) == ["P_5"]  # the pattern is matched at the start only
    assert list(answer(["P"])["q1"]) == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]


def test_parameters_of_measures_without_cutoffs():
    # map.5 is map; set_F.0.5 answers as set_F with beta 0.5: q1 P = 2/3, R = 1, F = 1.5 P R / (0.5 P + R)
    assert answer({"map.5", "set_F.0.5"})["q1"] == {"map": (1 + 2 / 3) / 2, "set_F": 1.5 * (2 / 3) / (1 / 3 + 1)}
    assert answer({"set_F"})["q1"] == {"set_F": 2 * (2 / 3) / (2 / 3 + 1)}
    # 11pt_avg over levels 0.25 and 0.5, both met at q2's first relevant document (precision 1)
    assert answer({"11pt_avg.0.25,0.5"})["q2"] == {"11pt_avg": 1.0}
    assert answer({"iprec_at_recall.0.25"})["q2"] == {"iprec_at_recall_0.25": 1.0}
    # above 1, level l is met at the (long)(l R + 0.9)-th relevant: for R = 2, 1.04 at the 2nd (IPrec at 1), 2 never
    assert answer({"iprec_at_recall.1.04,2"})["q1"] == {"iprec_at_recall_1.04": 2 / 3, "iprec_at_recall_2.00": 0.0}
    assert answer({"11pt_avg.0.5,2"})["q1"] == {"11pt_avg": (1.0 + 0.0) / 2}
    assert answer({"Rprec_mult.0.5,3"})["q1"] == {"Rprec_mult_0.50": 1.0, "Rprec_mult_3.00": 2 / 6}


def test_utility_with_four_coefficients_and_no_collection_size():
    # a*rel_ret + b*nonrel_ret + c*rel_missed + d*(0 - retrieved - rel_missed): q1 2 + 2*1 + 0 + 4*(-3) = -8
    assert answer({"utility.1,2,3,4"}) == {"q1": {"utility": -8.0}, "q2": {"utility": 1 + 0 + 3 - 4 * 2}}
    assert answer({"utility"}) == {"q1": {"utility": 2 - 1}, "q2": {"utility": 1.0}}


def test_utility_with_other_coefficients_is_zero_with_a_warning():
    with pytest.warns(shim.InputWarning, match="utility.0,1 takes four coefficients"):
        assert answer({"utility.0,1"}) == {"q1": {"utility": 0.0}, "q2": {"utility": 0.0}}


def test_runid_and_relstring_answer_zero():
    assert answer({"runid", "relstring", "num_q"}) == {"q1": {"runid": 0.0, "num_q": 1.0, "relstring": 0.0},
                                                       "q2": {"runid": 0.0, "num_q": 1.0, "relstring": 0.0}}


def test_values_come_in_trec_eval_table_order():
    assert list(answer({"ndcg", "P_5", "relstring", "map", "runid", "num_q"})["q1"]) == [
        "runid", "num_q", "map", "P_5", "relstring", "ndcg"]


def test_nicknames():
    assert set(answer({"set"})["q1"]) == {"num_q", "num_rel", "num_rel_ret", "num_ret", "runid", "set_F",
                                          "set_map", "set_P", "set_recall", "set_relative_P", "utility"}
    official = set(answer({"official"})["q1"])
    assert {"map", "gm_map", "P_1000", "iprec_at_recall_0.00", "runid"} <= official and len(official) == 30
    assert len(answer({"all_trec"})["q1"]) == 95  # 34 entries, the cutoff ones at every default
    for name in ("prefs", "all_prefs", "qrels_jg"):
        with pytest.raises(ValueError, match="unsupported measure"):
            shim.RelevanceEvaluator(QRELS, {name})


def test_unknown_measures_are_value_errors():
    for name in ("ndcg_bogus", "MAP", " map", "P.", "Pfoo"):
        with pytest.raises(UsageError, match=re.escape(f"unsupported measure {name}: pytrec_eval names")):
            shim.RelevanceEvaluator(QRELS, {name})
    with pytest.raises(ValueError, match=r"unsupported measure [map]:"):
        shim.RelevanceEvaluator(QRELS, "map")  # a str is a list of one-letter names, as in pytrec_eval
    with pytest.raises(ValueError, match="cannot pass a gain map"):
        shim.RelevanceEvaluator(QRELS, {"ndcg.1=3,2=9"})  # pytrec_eval's trec_eval aborts the process
    with pytest.raises(ValueError, match="cutoffs must be integers >= 1"):
        shim.RelevanceEvaluator(QRELS, {"P.0"})  # and here
    with pytest.raises(TypeError, match="a measure name must be a str"):
        shim.RelevanceEvaluator(QRELS, ["map", 5])
    assert issubclass(UsageError, ValueError) and issubclass(InputError, ValueError)


def test_empty_inputs():
    assert answer({"map"}, run={}) == {} == answer({"map"}, run=None)
    assert answer(set()) == {"q1": {}, "q2": {}}
    assert answer({"map"}, qrels={}) == {} == answer(set(), qrels={})
    assert answer({"map"}, qrels={"q1": {}, "q2": {"d2": 1}}) == {"q2": {"map": 1.0}}  # empty judgments dropped
    assert answer({"map"}, qrels={"q1": [], "q2": {"d2": 1}, 3: ""}) == {"q2": {"map": 1.0}}  # before any check
    assert answer({"map"}, run={"q9": {"d1": 1.0}}) == {}  # run-only queries are ignored


def test_an_empty_ranking_is_scored():
    # nothing retrieved: num_rel keeps R = 2, gm_map is log(1e-5), and trec_eval 9's iprec divides 0 by 0 at
    # the level met by the 0th relevant document ((long)(0 * 2 + 0.9) = 0), so 11pt_avg is NaN too
    result = answer({"num_q", "num_rel", "num_ret", "map", "gm_map", "gm_bpref", "iprec_at_recall.0,0.5",
                     "11pt_avg", "P_5", "ndcg"}, run={"q1": {}, "q9": {"d1": 1.0}})
    assert list(result) == ["q1"]
    values = result["q1"]
    assert math.isnan(values.pop("iprec_at_recall_0.00")) and math.isnan(values.pop("11pt_avg"))
    assert values == {"num_q": 1.0, "num_ret": 0.0, "num_rel": 2.0, "map": 0.0, "gm_map": math.log(1e-5),
                      "iprec_at_recall_0.50": 0.0, "gm_bpref": math.log(1e-5), "P_5": 0.0, "ndcg": 0.0}


def test_judged_docs_only_drops_unjudged_documents():
    # u is unjudged: u, d1, d2 puts the relevant d2 third; -J leaves d1, d2 (RR 1/2) and num_ret counts those 2
    run = {"q1": {"u": 3.0, "d1": 2.0, "d2": 1.0}}
    assert answer({"num_ret", "recip_rank"}, run=run) == {"q1": {"num_ret": 3.0, "recip_rank": 1 / 3}}
    assert answer({"num_ret", "recip_rank"}, run=run, judged_docs_only_flag=True) == {
        "q1": {"num_ret": 2.0, "recip_rank": 1 / 2}}
    # nothing judged is left: iprec at level 0 and 11pt_avg are 0/0, as in pytrec_eval
    left = answer({"iprec_at_recall.0", "11pt_avg", "map"}, run={"q1": {"u": 1.0}}, judged_docs_only_flag=1)["q1"]
    assert math.isnan(left["iprec_at_recall_0.00"]) and math.isnan(left["11pt_avg"]) and left["map"] == 0.0


def test_relevance_level():
    # at level 2 only q1's d3 is relevant; q2 has none: every measure scores it 0
    assert answer({"map", "num_rel"}, relevance_level=2) == {"q1": {"num_rel": 1.0, "map": 1.0},
                                                              "q2": {"num_rel": 0.0, "map": 0.0}}
    assert answer({"map"}, relevance_level=True) == answer({"map"})  # True is 1
    assert answer({"map"}, relevance_level=np.int64(2)) == answer({"map"}, relevance_level=2)


def test_negative_relevance_level_counts_nothing_relevant_with_a_warning():
    with pytest.warns(shim.InputWarning, match="relevance_level -1: pytrec_eval counts no document relevant"):
        assert answer({"num_rel", "P_5"}, relevance_level=-1) == {"q1": {"num_rel": 0.0, "P_5": 0.0},
                                                                  "q2": {"num_rel": 0.0, "P_5": 0.0}}


def test_scores_tie_as_32_bit_floats_by_docid_descending():
    # a and b tie in 32 bits, so b ranks first: RR 1/2; ints and bools are scores too
    assert answer({"recip_rank"}, run={"q1": {"a": 1.0 + 1e-9, "b": 1.0}}, qrels={"q1": {"a": 1}}) == {
        "q1": {"recip_rank": 0.5}}
    assert answer({"recip_rank"}, run={"q1": {"a": 2, "b": True}}, qrels={"q1": {"b": 1}}) == {
        "q1": {"recip_rank": 0.5}}
    # above float32's range a score is inf, which ties with inf: d9 > d10 in byte order
    run = {"q1": {"d10": math.inf, "d9": 1e39, "d1": -math.inf}}
    assert answer({"recip_rank"}, run=run, qrels={"q1": {"d10": 1}}) == {"q1": {"recip_rank": 0.5}}


def test_nan_scores_rank_as_minus_inf_with_one_warning():
    run = {"q1": {"a": math.nan, "b": -math.inf, "c": math.nan}, "q2": {"a": math.nan}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = answer({"recip_rank"}, run=run, qrels={"q1": {"a": 1}, "q2": {"a": 1}})
    assert [str(w.message) for w in caught] == [
        "pytrec_eval's own handling applied: 3 NaN score(s) ranked as -inf (pytrec_eval's place for a NaN "
        "depends on its sort)."]
    assert result == {"q1": {"recip_rank": 1 / 3}, "q2": {"recip_rank": 1.0}}  # all -inf: c, b, a by docid


@pytest.mark.parametrize(("qrels", "run", "message"), [
    ({1: {"d1": 1}}, RUN, "a qid must be a str"),
    ({"q1": {1: 1}}, RUN, "a docid must be a str"),
    ({"q1": {"d1": 1.0}}, RUN, "a grade must be an int"),
    ({"q1": {"d1": "1"}}, RUN, "a grade must be an int"),
    ({"q1": {"d1": np.int64(1)}}, RUN, "a grade must be an int"),
    ({"q1": {"d1": 2**63}}, RUN, "a grade must fit a C long"),
    ({"q1": ["d1"]}, RUN, "judgments must be a dict"),
    ({"q1": None}, RUN, "judgments must be a dict"),
    ([("q1", {"d1": 1})], RUN, "query_relevance must be a mapping"),
    (QRELS, {1: {"d1": 1.0}}, "a qid must be a str"),
    (QRELS, {"q1": {1: 1.0}}, "a docid must be a str"),
    (QRELS, {"q1": {"d1": "x"}}, "a score must be an int or a float"),
    (QRELS, {"q1": {"d1": None}}, "a score must be an int or a float"),
    (QRELS, {"q1": {"d1": np.float32(1)}}, "a score must be an int or a float"),
    (QRELS, {"q1": {"d1": 10**400}}, "a score must be an int or a float"),
    (QRELS, {"q1": [1.0]}, "scores must be a dict"),
    (QRELS, {"q1": {"d1": 1.0}, "q9": {"d1": "x"}}, "a score must be"),  # a query without judgments too
    (QRELS, [("q1", {"d1": 1.0})], "scores must be a dict"),
])
def test_data_of_the_wrong_type_is_a_type_error(qrels, run, message):
    with pytest.raises(InputTypeError, match=message) as caught:
        shim.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    assert isinstance(caught.value, TypeError)


@pytest.mark.parametrize(("options", "message"), [
    ({"relevance_level": 0}, "relevance_level should be positive"),
    ({"relevance_level": False}, "relevance_level should be positive"),
    ({"relevance_level": 1.0}, "relevance_level must be an int"),
    ({"relevance_level": "1"}, "relevance_level must be an int"),
    ({"relevance_level": None}, "relevance_level must be an int"),
    ({"relevance_level": 2**31}, "relevance_level must fit a C int"),
    ({"judged_docs_only_flag": None}, "judged_docs_only_flag must be an int"),
    ({"judged_docs_only_flag": 1.0}, "judged_docs_only_flag must be an int"),
    ({"judged_docs_only_flag": np.True_}, "judged_docs_only_flag must be an int"),
])
def test_options_of_the_wrong_type_are_type_errors(options, message):
    with pytest.raises(TypeError, match=message):
        shim.RelevanceEvaluator(QRELS, {"map"}, **options)


def test_one_evaluator_many_runs_and_gm_terms():
    evaluator = shim.RelevanceEvaluator({"q1": {"a": 1, "b": 0}, "q2": {"x": 1}}, {"gm_map", "map"})
    assert evaluator.evaluate({"q1": {"c": 3.0}}) == {"q1": {"map": 0.0, "gm_map": math.log(1e-5)}}
    # per query gm_map is log(max(AP, 1e-5)); the aggregate exponentiates their mean: sqrt(0.5 * 1e-5)
    result = evaluator.evaluate({"q1": {"a": 1.0, "c": 2.0}, "q2": {"y": 1.0}})
    assert result == {"q1": {"map": 0.5, "gm_map": math.log(0.5)}, "q2": {"map": 0.0, "gm_map": math.log(1e-5)}}
    aggregate = shim.compute_aggregated_measure("gm_map", [result[q]["gm_map"] for q in result])
    assert aggregate == pytest.approx(math.sqrt(0.5e-5), rel=1e-12)
    assert shim.compute_aggregated_measure("num_rel", [1.0, 2.0]) == 3.0
    assert shim.compute_aggregated_measure("map", [0.5, 0.0]) == 0.25


def test_names_and_version():
    assert len(shim.supported_measures) == 34 and {"runid", "relstring", "ndcg_cut"} <= shim.supported_measures
    assert set(shim.supported_nicknames) == {"official", "set", "all_trec", "all_prefs", "prefs", "qrels_jg"}
    assert shim.supported_nicknames["all_trec"] == shim.supported_measures
    assert shim.__version__ == "0.5.11"


def test_parse_run_and_qrel(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1 tag\nq2\tQ0 d1 1 -1e3 tag\n")
    with path.open() as handle:
        run = shim.parse_run(handle)
    assert run == {"q1": {"d1": 2.5, "d2": 1.0}, "q2": {"d1": -1000.0}} and run["q9"] == {}  # a defaultdict
    assert shim.parse_qrel(["q1 0 d1 2", "q1 0 d2 0\n"]) == {"q1": {"d1": 2, "d2": 0}}
    with pytest.raises(InputError, match=re.escape("<qrels lines>:2: not a qrels line: 'q1 0 d2' (expected")):
        shim.parse_qrel(["q1 0 d1 2", "q1 0 d2"])
    with pytest.raises(ValueError, match=re.escape("<qrels lines>:1: not a qrels line: 'q1 0 d1 1.5'")):
        shim.parse_qrel(["q1 0 d1 1.5"])
    with pytest.raises(InputError, match=re.escape(f"{path}:2: document d1 is already in query q1")):
        with path.open("w") as out:
            out.write("q1 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\n")
        with path.open() as handle:
            shim.parse_run(handle)


def test_errors_come_in_pytrec_eval_order():
    # the measure names first, then a query's judgments without a length, then the options, then the types
    with pytest.raises(ValueError, match="unsupported measure bogus"):
        shim.RelevanceEvaluator({1: {"d1": 1.0}, "q2": None}, {"bogus"}, relevance_level=0)
    with pytest.raises(TypeError, match="a query's judgments must be a dict"):
        shim.RelevanceEvaluator({1: {"d1": 1.0}, "q2": None}, {"map"}, relevance_level=0)
    with pytest.raises(TypeError, match="relevance_level should be positive"):
        shim.RelevanceEvaluator({1: {"d1": 1.0}}, {"map"}, relevance_level=0)
    with pytest.raises(TypeError, match="a qid must be a str"):
        shim.RelevanceEvaluator({1: {"d1": 1.0}}, {"map"})
    assert list(shim.RelevanceEvaluator(QRELS, iter(["map"])).evaluate(RUN)["q1"]) == ["map"]  # read once
