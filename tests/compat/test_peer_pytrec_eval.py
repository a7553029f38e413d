"""Peer equality with pytrec_eval, which runs trec_eval's own C code.

Under its default conventions judged must give trec_eval's number for every
measure the two share, per query, to 1e-9. Hypothesis draws small collections
built to hit the edge cases: tied scores (a few integer values), docids whose
byte order is not their numeric order (``d10 < d2 < d9``), negative grades
(pooled but unjudged), judged documents never retrieved, retrieved documents
never judged, and queries on only one side.

Query sets differ by design, so numbers are compared on the queries both tools
score: those with at least one retrieved and one judged document. pytrec_eval
loops over the run's queries and drops those whose judgment dict is empty;
judged ignores run-only queries and, under ``missing="skip"``, leaves out
judged queries the run did not answer. A run query given as an empty dict is
the one place they part: pytrec_eval still reports it, with nothing retrieved,
while judged has no row for it and counts it as missing.

Known trec_eval defects are kept out of the random comparison and named where
they are: 32-bit scores (``SCORES``), all-negative judgments (``has_graded``),
the truncating gain comparator (``GAIN_MAP``).
"""

from __future__ import annotations

import dataclasses
import math

import pytrec_eval
import pytrec_eval_ext
from hypothesis import given, settings
from hypothesis import strategies as st

import judged
from judged.measures import family_of
from judged.measures.trec_names import from_trec_eval

QIDS = ("q1", "q2", "q3", "q4")
# Byte order differs from numeric order (d1 < d10 < d19 < d2), and "D" < "a" < "d0".
DOCIDS = tuple(f"d{i}" for i in range(20)) + ("D", "a")
# Few distinct values so equal scores are common; other floats for the rest. trec_eval
# stores scores as C float (TEXT_RESULTS.sim), so doubles equal after rounding to
# 32 bits tie there and not in judged (test_scores_are_not_rounded_to_float32);
# drawing 32-bit floats keeps that known divergence out of the comparison.
SCORES = st.one_of(st.integers(0, 4).map(float), st.floats(-10, 10, width=32))
GRADES = st.integers(-1, 3)
CUTOFFS = (1, 3, 5, 10)

# judged family -> trec_eval measure, with a cutoff (``name_k``) and over the whole ranking.
AT_K = {"nDCG": "ndcg_cut", "AP": "map_cut", "P": "P", "R": "recall", "Success": "success"}
WHOLE = {
    "nDCG": "ndcg",
    "AP": "map",
    "RR": "recip_rank",
    "Rprec": "Rprec",
    "Bpref": "bpref",
    "NumRet": "num_ret",
    "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret",
    "P": "set_P",
    "R": "set_recall",
}
# trec_eval's -m ndcg.1=1,2=3,3=7: integer gains, monotone and >= 1 apart, so its
# truncating gain comparator (gain_init.c comp_rel_gain) orders them correctly.
GAIN_MAP = "ndcg.1=1,2=3,3=7"
JUDGED_GAINS = ("nDCG(gain={1:1,2:3,3:7})", "nDCG(gain=exp)")  # exp is the same map for grades <= 3

# (relevance_level, judged_docs_only_flag): trec_eval's -l and -J.
CONFIGS = ((1, False), (2, False), (1, True), (2, True))


@st.composite
def rankings(draw, min_size=0):
    """One query's run: up to 15 distinct docids from the shared pool, with scores."""
    docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=min_size, max_size=15, unique=True))
    return {doc: draw(SCORES) for doc in docs}


def has_graded(judgments: dict[str, int]) -> bool:
    """Empty, or at least one grade >= 0.

    trec_eval mishandles a query whose grades are all negative: its maximum
    grade is negative, so form_res_rels.c reserves no grade counts and leaves
    num_rel_levels at the previous query's value; ndcg then walks stale
    counts and can loop for ever (seen here, under hypothesis). Such queries
    are kept out of the comparison.
    """
    return not judgments or max(judgments.values()) >= 0


@st.composite
def judgments(draw, min_size=0):
    """One query's judgments: up to 12 docids from the same pool, grades -1..3."""
    docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=min_size, max_size=12, unique=True))
    return {doc: draw(GRADES) for doc in docs}


@st.composite
def collections(draw):
    """``(run, qrels)`` dicts over q1..q4, each query on either side or both.

    One query is on both sides with a document on each, so that judged has
    something to evaluate (it raises NoJudgedQueriesError otherwise).
    """
    order = draw(st.permutations(QIDS))
    shared = order[0]
    run_qids = draw(st.sets(st.sampled_from(QIDS))) | {shared}
    qrels_qids = draw(st.sets(st.sampled_from(QIDS))) | {shared}
    run = {q: draw(rankings(min_size=int(q == shared))) for q in order if q in run_qids}
    qrels = {q: draw(judgments(min_size=int(q == shared)).filter(has_graded)) for q in order if q in qrels_qids}
    return run, qrels


def judged_name(family: str, cutoff: int | None, rel: int, drop: bool) -> str:
    """The judged measure string for ``family`` under trec_eval's -l ``rel`` (and -J if ``drop``)."""
    params = family_of(family).params
    written = []
    if rel != 1 and "rel" in params:
        written.append(f"rel={rel}")
    if drop and "unjudged" in params:
        written.append("unjudged=drop")
    text = family + (f"({','.join(written)})" if written else "")
    return text + (f"@{cutoff}" if cutoff is not None else "")


def gain_measure(measure: str, drop: bool) -> str:
    """``measure`` (written with parameters, no cutoff), with ``unjudged=drop`` added if ``drop``."""
    return measure[:-1] + ",unjudged=drop)" if drop else measure


def shared_measures(rel: int, drop: bool) -> dict[str, str]:
    """judged measure string -> trec_eval measure name, for one (-l, -J) configuration.

    Under -J trec_eval's num_ret counts only judged documents, which no judged
    measure reports, so NumRet is compared only without it. Bpref and NumRel
    have no ``unjudged`` parameter: -J must not change them.
    """
    pairs = {}
    for family, trec in WHOLE.items():
        if not (drop and family == "NumRet"):
            pairs[judged_name(family, None, rel, drop)] = trec
    for family, trec in AT_K.items():
        for k in CUTOFFS:
            pairs[judged_name(family, k, rel, drop)] = f"{trec}_{k}"
    return pairs


def pytrec(run, qrels, measures, rel=1, drop=False) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query values (it drops queries with empty judgments itself)."""
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(measures), relevance_level=rel, judged_docs_only_flag=drop
    )
    return evaluator.evaluate(run)


def pytrec_with_gains(run, qrels, gains: str, drop: bool = False) -> dict[str, dict[str, float]]:
    """trec_eval's ``ndcg`` with a gain map (``gains`` like ``ndcg.1=1,2=3,3=7``), per query.

    pytrec_eval's Python layer rejects pair parameters, so this calls its C
    extension directly, dropping empty judgment dicts as the Python layer
    would. A C evaluator built with pair parameters fails on its second
    evaluate() (trec_eval rewrites the parameter text in place), so each call
    builds a new one.
    """
    qrels = {q: docs for q, docs in qrels.items() if docs}
    return pytrec_eval_ext.RelevanceEvaluator(qrels, {gains}, 1, drop).evaluate(run)


def per_query(result: judged.Result, measure: str) -> dict[str, float]:
    """judged's scored values of ``measure``, by qid (NaN, i.e. not scored, left out)."""
    values = dict(zip(result.qids, result.values[judged.parse(measure)]))
    return {q: float(v) for q, v in values.items() if not math.isnan(v)}


def comparable(run, qrels) -> set[str]:
    """Queries both tools score: at least one retrieved and one judged document."""
    return {q for q, docs in run.items() if docs and qrels.get(q)}


def assert_close(mine: float, theirs: float, what: str) -> None:
    assert math.isclose(mine, theirs, rel_tol=0, abs_tol=1e-9), f"{what}: judged {mine!r} != pytrec_eval {theirs!r}"


@settings(max_examples=300, deadline=None)
@given(collections())
def test_every_shared_measure_matches_pytrec_eval(collection):
    """Per query, every shared measure equals trec_eval's under -l 1/2 and with/without -J.

    Also checks that judged scores exactly the comparable queries, and that
    its aggregate (mean, sum for counts) is trec_eval's over those queries.
    """
    run, qrels = collection
    queries = comparable(run, qrels)
    configs = {config: shared_measures(*config) for config in CONFIGS}
    gain_measures = {drop: [gain_measure(m, drop) for m in JUDGED_GAINS] for drop in (False, True)}
    measures = [m for pairs in configs.values() for m in pairs]
    measures += [m for ms in gain_measures.values() for m in ms]
    result = judged.evaluate(run, qrels, measures)

    assert set(per_query(result, "NumRet")) == queries
    for (rel, drop), pairs in configs.items():
        theirs = pytrec(run, qrels, set(pairs.values()), rel, drop)
        assert queries <= set(theirs)
        for measure, trec in pairs.items():
            mine = per_query(result, measure)
            assert set(mine) == queries, measure
            for q in queries:
                assert_close(mine[q], theirs[q][trec], f"{measure} vs {trec} (-l{rel}{' -J' if drop else ''}) on {q}")
            if (rel, drop) == (1, False):
                expected = pytrec_eval.compute_aggregated_measure(trec, [theirs[q][trec] for q in sorted(queries)])
                assert_close(result.value(measure), expected, f"aggregate {measure} vs {trec}")

    for drop, gain_names in gain_measures.items():
        theirs = pytrec_with_gains(run, qrels, GAIN_MAP, drop)
        for measure in gain_names:
            mine = per_query(result, measure)
            for q in queries:
                assert_close(mine[q], theirs[q]["ndcg"], f"{measure} vs {GAIN_MAP} on {q}")


def both(run, qrels, pairs: dict[str, str], drop: bool = False) -> tuple[dict, dict]:
    """judged's and pytrec_eval's values of ``pairs`` (judged name -> trec_eval name) for query q1."""
    result = judged.evaluate(run, qrels, list(pairs))
    theirs = pytrec(run, qrels, set(pairs.values()), drop=drop)["q1"]
    return (
        {m: result.value(m, "q1") for m in pairs},
        {m: theirs[trec] for m, trec in pairs.items()},
    )


def test_equal_scores_rank_by_docid_descending_in_byte_order():
    """Tied documents rank by docid descending, comparing bytes: "d9" > "d10" > "D".

    The relevant d10 is second of three tied documents: RR 1/2, P@1 0,
    nDCG = (1/log2 3) / 1. Under ties=input the dict's order puts it first.
    """
    run = {"q1": {"d10": 2.0, "D": 2.0, "d9": 2.0}}
    qrels = {"q1": {"d10": 1, "D": 0}}
    pairs = {"RR": "recip_rank", "P@1": "P_1", "AP": "map", "nDCG": "ndcg", "Bpref": "bpref"}
    mine, theirs = both(run, qrels, pairs)
    expected = {"RR": 0.5, "P@1": 0.0, "AP": 0.5, "nDCG": 1 / math.log2(3), "Bpref": 1.0}
    for m, value in expected.items():
        assert_close(mine[m], value, m)
        assert_close(theirs[m], value, pairs[m])
    assert judged.evaluate(run, qrels, ["RR(ties=input)"]).value("RR(ties=input)", "q1") == 1.0


def test_negative_grade_is_pooled_but_unjudged():
    """A grade of -1 is neither relevant nor non-relevant, and -J drops it like an unjudged document.

    Judgments a:1, d:1, b:0, c:-1; ranking c, a, b, d. R = 2 and the judged
    non-relevant count N = 1 (c is not in it), so bpref = (1 + (1 - 1/1)) / 2
    = 0.5 (0.25 if c counted as non-relevant). AP = (1/2 + 2/4) / 2 = 0.5,
    nDCG = (1/log2 3 + 1/log2 5) / (1 + 1/log2 3). With -J the list is
    a, b, d: RR 1, AP = (1/1 + 2/3) / 2.
    """
    run = {"q1": {"c": 4.0, "a": 3.0, "b": 2.0, "d": 1.0}}
    qrels = {"q1": {"a": 1, "d": 1, "b": 0, "c": -1}}
    pairs = {
        "NumRel": "num_rel",
        "NumRelRet": "num_rel_ret",
        "Bpref": "bpref",
        "RR": "recip_rank",
        "AP": "map",
        "Rprec": "Rprec",
        "nDCG": "ndcg",
    }
    expected = {
        "NumRel": 2.0,
        "NumRelRet": 2.0,
        "Bpref": 0.5,
        "RR": 0.5,
        "AP": 0.5,
        "Rprec": 0.5,
        "nDCG": (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3)),
    }
    mine, theirs = both(run, qrels, pairs)
    for m, value in expected.items():
        assert_close(mine[m], value, m)
        assert_close(theirs[m], value, pairs[m])

    dropped = {"RR(unjudged=drop)": "recip_rank", "AP(unjudged=drop)": "map", "P(unjudged=drop)": "set_P"}
    mine, theirs = both(run, qrels, dropped, drop=True)
    for m, value in {"RR(unjudged=drop)": 1.0, "AP(unjudged=drop)": (1 + 2 / 3) / 2, "P(unjudged=drop)": 2 / 3}.items():
        assert_close(mine[m], value, m)
        assert_close(theirs[m], value, dropped[m])
    assert judged.evaluate(run, qrels, ["Judged@4"]).value("Judged@4", "q1") == 0.75


def test_scores_are_not_rounded_to_float32():
    """A known divergence: trec_eval keeps scores as C float, judged as double.

    1 + 1e-9 and 1.0 are the same 32-bit float, so trec_eval ties them and
    ranks b first (docid descending): RR 1/2. judged ranks a first: RR 1.
    """
    run = {"q1": {"a": 1.0 + 1e-9, "b": 1.0}}
    qrels = {"q1": {"a": 1}}
    assert pytrec(run, qrels, {"recip_rank"})["q1"]["recip_rank"] == 0.5
    assert judged.evaluate(run, qrels, ["RR"]).value("RR", "q1") == 1.0


def test_grade_zero_gain_is_not_given_to_unjudged_documents():
    """A gain for grade 0 (trec_eval's ndcg.0=1) credits judged non-relevant documents only.

    trec_eval looks gains up by judged grade, so the unjudged u gains 0:
    ranking u over the relevant a gives DCG = 0 + 2/log2 3, IDCG = 2, nDCG
    = 1/log2 3. (Giving u grade 0's gain would score (1 + 2/log2 3) / 2 = 1.13,
    above 1: a regression this test guards against.)
    """
    run = {"q1": {"u": 2.0, "a": 1.0}}
    qrels = {"q1": {"a": 1}}
    expected = 1 / math.log2(3)
    assert_close(pytrec_with_gains(run, qrels, "ndcg.0=1,1=2")["q1"]["ndcg"], expected, "ndcg.0=1,1=2")
    measure = "nDCG(gain={0:1,1:2})"
    assert_close(judged.evaluate(run, qrels, [measure]).value(measure, "q1"), expected, measure)


def test_query_sets_follow_the_documented_rules():
    """Run-only queries are ignored; a judged query without run rows is skipped (judged) or absent (pytrec_eval).

    q2 is answered by an empty dict: pytrec_eval still reports it, with
    nothing retrieved (its num_rel there is not reliable: 0 when q2 is the
    run's only query, the true count otherwise), while judged counts it as
    missing from the run.
    """
    run = {"q1": {"a": 1.0}, "q2": {}, "q9": {"a": 1.0}}
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"a": 1}, "q4": {}}
    result = judged.evaluate(run, qrels, ["NumRet", "RR"])
    theirs = pytrec(run, qrels, {"num_ret", "recip_rank"})
    assert set(theirs) == {"q1", "q2"}
    assert theirs["q2"] == {"num_ret": 0.0, "recip_rank": 0.0}
    assert per_query(result, "NumRet") == {"q1": 1.0}
    assert per_query(result, "RR") == {"q1": 1.0} == {"q1": theirs["q1"]["recip_rank"]}
    queries = result.provenance["queries"]
    assert (queries["judged"], queries["missing_from_run"], queries["run_only_ignored"]) == (3, 2, 1)


# trec_eval's other single-qrels families, named as trec_eval names them; judged reads each name through
# judged.measures.trec_names, so the table is under test too. unj is not in pytrec_eval (its value is in
# tests/cli/test_conformance_trec_eval.py); utility with coefficients fails there ("improper number of coefficients").
TREC_FAMILIES = ("num_q", "gm_map", "iprec_at_recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
                 "binG", "G", "ndcg_rel", "Rndcg", "relative_P", "set_relative_P", "set_map", "set_F",
                 "num_nonrel_judged_ret")
TREC_PARAMETERS = ("set_F.0.5", "iprec_at_recall.0.25,0.05", "Rprec_mult.0.35,3", "relative_P.2,7")
GEOMETRIC = {"gm_map", "gm_bpref"}


def trec_family_pairs(names, rel: int, drop: bool) -> dict[str, tuple[str, judged.Measure]]:
    """trec_eval printed name -> (the -m name that asks for it, judged's measure) for ``names`` under -l/-J.

    pytrec_eval bundles trec_eval 9's iprec_at_recall and 11pt_avg, which meet a recall level at the
    (long)(level * R + 0.9)-th relevant document where trec_eval 10 rounds (m_iprec_at_recall.c; judged's
    default, checked against trec_eval 10's own output in tests/cli/test_conformance_trec_eval.py): they are
    compared under ``rounding=v9``, as judged.pytrec_eval computes them.
    """
    pairs = {}
    for name in names:
        for printed, m in from_trec_eval(name, rel=rel, judged_only=drop):
            pairs[printed] = (name, dataclasses.replace(m, rounding="v9") if "rounding" in m.family.params else m)
    return pairs


def nothing_judged_retrieved(run, qrels, q) -> bool:
    return not any(qrels.get(q, {}).get(d, -1) >= 0 for d in run.get(q, {}))


@settings(max_examples=300, deadline=None)
@given(collections())
def test_trec_eval_families_match_pytrec_eval(collection):
    """Per query within 1e-12 of trec_eval's C code, under -l 1/2 and with/without -J; aggregates too.

    gm_map and gm_bpref hold log(max(v, 1e-5)) per query in trec_eval; judged keeps the value and floors
    and logs it in the aggregate (the geometric mean), so both are compared. Where -J leaves a query with
    nothing retrieved trec_eval divides 0 by 0 for iprec_at_recall and 11pt_avg (NaN); judged scores 0.
    """
    run, qrels = collection
    queries = comparable(run, qrels)
    configs = {(rel, drop): trec_family_pairs(TREC_FAMILIES, rel, drop) for rel, drop in CONFIGS}
    configs[(1, False)].update(trec_family_pairs(TREC_PARAMETERS, 1, False))
    result = judged.evaluate(run, qrels, [m for pairs in configs.values() for _, m in pairs.values()])
    for (rel, drop), pairs in configs.items():
        defaults = {name for name, _ in pairs.values() if name in TREC_FAMILIES}
        theirs = pytrec(run, qrels, defaults, rel, drop)
        for parametrised in {name for name, _ in pairs.values()} - defaults:
            for q, values in pytrec(run, qrels, {parametrised}, rel, drop).items():
                theirs[q].update({k: v for k, v in values.items() if k != "set_F"} if "set_F" not in parametrised
                                 else {"set_F_0.5": values["set_F"]})
        for printed, (name, measure) in pairs.items():
            mine = dict(zip(result.qids, result.values[measure]))
            for q in sorted(queries):
                value, expected = float(mine[q]), theirs[q][printed]
                what = f"{measure} vs {printed} (-l{rel}{' -J' if drop else ''}) on {q}"
                if name in GEOMETRIC:
                    value = math.log(max(value, 1e-5))
                if math.isnan(expected):
                    assert drop and nothing_judged_retrieved(run, qrels, q) and value == 0.0, what
                    continue
                assert math.isclose(value, expected, rel_tol=0, abs_tol=1e-12), f"{what}: {value!r} != {expected!r}"
            if (rel, drop) == (1, False):
                per_q = [theirs[q][printed] for q in sorted(queries)]
                aggregate = pytrec_eval.compute_aggregated_measure(printed, per_q)
                assert math.isclose(result.value(measure), aggregate, rel_tol=0, abs_tol=1e-12), f"aggregate {printed}"


def test_the_pytrec_eval_call_shape_hands_out_gm_terms_as_pytrec_eval_does():
    """pytrec_eval gives gm_map and gm_bpref per query as log(max(v, 1e-5)); judged.pytrec_eval does the same,
    so compute_aggregated_measure over either gives the geometric mean: q1 AP 1/2, q2 AP 0 -> sqrt(0.5e-5)."""
    import judged.pytrec_eval as shim

    qrels, run = {"q1": {"a": 1, "b": 0}, "q2": {"x": 1}}, {"q1": {"a": 1.0, "c": 2.0}, "q2": {"y": 1.0}}
    names = {"gm_map", "gm_bpref", "num_q"}
    mine, theirs = shim.RelevanceEvaluator(qrels, names).evaluate(run), pytrec(run, qrels, names)
    assert mine.keys() == theirs.keys() == {"q1", "q2"}
    for q in mine:
        for name in names:
            assert_close(mine[q][name], theirs[q][name], f"{name} on {q}")
    gm = pytrec_eval.compute_aggregated_measure("gm_map", [mine[q]["gm_map"] for q in ("q1", "q2")])
    assert math.isclose(gm, math.sqrt(0.5 * 1e-5), rel_tol=1e-12)
