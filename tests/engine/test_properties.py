"""Hypothesis properties of judged on its own: bounds, perfect rankings, invariances, purity, measure round trips.

Every property here is a theorem of the conventions judged documents, for
the inputs drawn. Where one holds only for some inputs, the strategy says
which and why (gain maps: see ``SAFE_GAINS``).
"""

from __future__ import annotations

import copy
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

import judged
from judged.measures import Gain, Measure, all_families, parse
from judged.measures.conventions import convention
from judged.measures.spec import IDEALS, NORELS, UNJUDGED

QIDS = ("q1", "q2", "q3")
DOCIDS = tuple(f"d{i}" for i in range(12))
# Quarter-integers: few values, so ties are common, and every shift by an
# integer or scaling by SCALES below is exact in floating point.
SCORES = st.integers(-8, 8).map(lambda i: i / 4)
SCALES = (0.25, 0.5, 2.0, 3.0, 10.0)
GRADES = st.integers(-1, 3)

# Every convention of the rate-like measures (in [0, 1]) and the counts and DCG (only >= 0).
UNIT_MEASURES = (
    "nDCG", "nDCG@3", "nDCG@10", "AP", "AP@5", "RR", "RR@3", "P", "P@1", "P@5", "R", "R@5",
    "Success@1", "Success@5", "Rprec", "Bpref", "Judged@5", "Judged",
    "nDCG(gain=exp)@5", "nDCG(ties=average)@5", "nDCG(ties=average)", "nDCG(unjudged=drop)@5",
    "nDCG(ideal=returned)@5", "nDCG(ideal=returned)", "P(ties=average)@5", "R(ties=average)@5",
)
COUNT_MEASURES = ("NumRet", "NumRet@5", "NumRel", "NumRelRet", "NumRelRet@5", "DCG", "DCG(gain=exp)@5", "IDCG",
                  "IDCG(gain=exp)@5")
# One of each tie rule a family accepts, for the invariance properties.
TIE_VARIANTS = (
    "nDCG@5", "nDCG(ties=input)@5", "nDCG(ties=average)@5", "nDCG(gain=exp,unjudged=drop)",
    "AP", "AP(ties=input)", "RR(ties=input)@3", "RR", "P@3", "P(ties=input)@3", "P(ties=average)@3",
    "R(ties=average)@5", "Success@2", "Rprec(ties=input)", "Bpref", "NumRelRet@4", "Judged@3", "DCG(ties=average)@4",
)


# -- strategies --------------------------------------------------------------------------------


@st.composite
def rankings(draw, min_size=0, scores=SCORES, distinct=False):
    """One query's run: up to 10 distinct docids from a shared pool of 12, with scores."""
    docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=min_size, max_size=10, unique=True))
    values = draw(st.lists(scores, min_size=len(docs), max_size=len(docs), unique=distinct))
    return dict(zip(docs, values))


@st.composite
def judgments(draw, min_size=0):
    """One query's judgments: up to 10 docids from the same pool, grades -1..3."""
    docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=min_size, max_size=10, unique=True))
    return {doc: draw(GRADES) for doc in docs}


@st.composite
def collections(draw, scores=SCORES, distinct=False):
    """``(run, qrels)`` dicts; one query is on both sides with a document on each, others on either."""
    shared = draw(st.sampled_from(QIDS))
    run_qids = draw(st.sets(st.sampled_from(QIDS))) | {shared}
    qrels_qids = draw(st.sets(st.sampled_from(QIDS))) | {shared}
    run = {q: draw(rankings(int(q == shared), scores, distinct)) for q in QIDS if q in run_qids}
    qrels = {q: draw(judgments(int(q == shared))) for q in QIDS if q in qrels_qids}
    return run, qrels


def gain_maps(values=st.floats(0, 10)):
    """Explicit gain maps over grades 1..3 (and -1, which judged never sees: negatives are unjudged)."""
    pairs = st.dictionaries(st.sampled_from((-1, 1, 2, 3)), values, min_size=1)
    return pairs.map(lambda d: Gain("map", tuple(sorted(d.items()))))


# Gains that are never negative and give grade 0 (hence unjudged documents) no gain: under
# these nDCG is in [0, 1] and the monotonicity properties below are theorems. A map giving
# grade 0 a positive gain also gives it to every unjudged document, which the ideal list
# does not contain, so nDCG can exceed 1 (test_peer_pytrec_eval::
# test_grade_zero_gain_is_not_given_to_unjudged_documents).
SAFE_GAINS = st.one_of(st.just(Gain("linear")), st.just(Gain("exp")), gain_maps())
ANY_GAINS = st.one_of(
    st.just(Gain("linear")),
    st.just(Gain("exp")),
    st.dictionaries(st.integers(-2, 5), st.floats(allow_nan=False, allow_infinity=False), min_size=1).map(
        lambda d: Gain("map", tuple(sorted(d.items())))
    ),
)


@st.composite
def monotone_gains(draw):
    """Gains that grow with the grade and are > 0 for grades >= 1, so ranking by grade is ideal."""
    kind = draw(st.sampled_from(("linear", "exp", "map")))
    if kind != "map":
        return Gain(kind)
    g1, g2, g3 = sorted(draw(st.lists(st.floats(0.01, 100), min_size=3, max_size=3)))
    return Gain("map", ((1, g1), (2, g2), (3, g3)))


@st.composite
def measures(draw, gains=ANY_GAINS):
    """Any valid measure: a registered family, a cutoff if it takes one, and a value for each parameter."""
    family = draw(st.sampled_from(all_families()))
    cutoff = draw(st.none() | st.integers(1, 1000)) if family.cutoff == "optional" else None
    choices = {
        "gain": gains,
        "rel": st.integers(-3, 5),
        "ideal": st.sampled_from(IDEALS),
        "unjudged": st.sampled_from(UNJUDGED),
        "ties": st.sampled_from(family.ties),
        "norel": st.sampled_from(NORELS),
        "p": st.floats(0.05, 0.95),
        "T": st.floats(0.25, 4),
        "max_rel": st.sampled_from((3, 4, "query")),
        "beta": st.floats(0, 4),
        "recall": st.floats(0, 1),
        "levels": st.lists(st.floats(0, 1), min_size=1, max_size=5).map(lambda v: tuple(sorted(v))),
        "rounding": st.sampled_from(("round", "v9")),
        "mult": st.floats(0, 3),
        "rel_ret": st.floats(-3, 3),
        "nonrel_ret": st.floats(-3, 3),
        "rel_missed": st.floats(-3, 3),
    }
    if "max_rel" in family.params:  # gains scaled to [0, 1]: a map that is not monotone is refused
        choices["gain"] = st.sampled_from((Gain("linear"), Gain("exp")))
    params = {p: draw(choices[p]) for p in family.params}
    return Measure(family.name, cutoff, **params)


# -- helpers -----------------------------------------------------------------------------------


def values_of(result: judged.Result) -> dict[str, np.ndarray]:
    """Every measure's per-query values, keyed by canonical name (NaN where not scored)."""
    return {str(m): result.values[m] for m in result.measures}


def assert_same_values(a: judged.Result, b: judged.Result) -> None:
    """Same queries, and every measure's per-query values identical (NaN where either is NaN)."""
    assert a.qids == b.qids
    for (name, x), y in zip(values_of(a).items(), values_of(b).values()):
        assert np.array_equal(x, y, equal_nan=True), f"{name}: {x} != {y}"


def per_query(result: judged.Result, measure: Measure) -> dict[str, float]:
    """``measure``'s value per qid (NaN where not scored)."""
    return dict(zip(result.qids, result.values[measure].tolist()))


# -- bounds ------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(collections(), st.lists(measures(gains=SAFE_GAINS), min_size=1, max_size=6))
def test_every_value_is_within_its_range(collection, drawn):
    """Rates and normalised scores lie in [0, 1]; counts, DCG and IDCG are >= 0.

    Checked for a fixed list covering every convention and for randomly drawn
    measures. Missing queries score 0 (``missing="zero"``), so only
    ``norel=skip`` may leave a value out.
    """
    run, qrels = collection
    wanted = [parse(m) for m in UNIT_MEASURES + COUNT_MEASURES] + drawn
    result = judged.evaluate(run, qrels, wanted, missing="zero")
    for m in result.measures:
        values = result.values[m]
        if m.norel != "skip":
            assert not np.isnan(values).any(), m
        values = values[~np.isnan(values)]
        if m.name in ("Utility", "yaap"):  # a weighted count and a log-odds: any sign
            continue
        assert (values >= 0).all(), (m, values)
        if not (m.family.integer or m.name in ("DCG", "IDCG")):
            assert (values <= 1 + 1e-12).all(), (m, values)


# -- perfect rankings --------------------------------------------------------------------------


def ideal_run(qrels: dict[str, dict[str, int]], extra: list[str]) -> dict[str, dict[str, float]]:
    """Each query's judged documents by grade descending, then its unjudged ones, all with distinct scores.

    The unjudged tail is the query's negative-grade (pooled, unjudged)
    documents plus ``extra`` docids it did not judge.
    """
    run = {}
    for q, judged_docs in qrels.items():
        ranked = sorted((d for d, g in judged_docs.items() if g >= 0), key=lambda d: -judged_docs[d])
        ranked += [d for d, g in judged_docs.items() if g < 0] + [d for d in extra if d not in judged_docs]
        run[q] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    return run


@settings(max_examples=100, deadline=None)
@given(collections(), monotone_gains(), st.none() | st.integers(1, 12))
def test_ndcg_is_dcg_over_idcg_and_dcg_never_exceeds_idcg(collection, gain, cutoff):
    """IDCG is nDCG's denominator: the DCG of no ranking exceeds it (gains grow with the grade)."""
    run, qrels = collection
    at = "" if cutoff is None else f"@{cutoff}"
    names = [f"{f}(gain={gain}){at}" for f in ("nDCG", "DCG", "IDCG")]
    result = judged.evaluate(run, qrels, names, missing="zero")
    ndcg, dcg, idcg = (result.values[parse(n)] for n in names)
    assert (dcg <= idcg * (1 + 1e-12)).all()
    positive = idcg > 0
    np.testing.assert_allclose(ndcg[positive] * idcg[positive], dcg[positive], rtol=1e-12)
    assert (ndcg[~positive] == 0).all() and (dcg[~positive] == 0).all()


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from(QIDS), judgments(min_size=1), min_size=1),
    st.lists(st.sampled_from(DOCIDS), max_size=4),
    monotone_gains(),
    st.none() | st.integers(1, 12),
    st.integers(1, 3),
)
def test_the_ideal_ranking_scores_one(qrels, extra, gain, cutoff, rel):
    """Judged documents ranked by grade score nDCG 1, and AP, RR, R-prec, bpref, recall 1.

    nDCG is 1 under every gain that grows with the grade, at any cutoff, whatever
    the ideal list, unjudged policy or tie rule (scores are distinct). The
    binary measures are 1 at any threshold ``rel`` the query reaches, because
    every document with grade >= rel comes first.
    """
    run = ideal_run(qrels, extra)
    at = f"@{cutoff}" if cutoff else ""
    ndcgs = [
        f"nDCG(gain={gain},ideal={ideal},unjudged={unjudged},ties={ties}){at}"
        for ideal in IDEALS
        for unjudged in UNJUDGED
        for ties in ("trec", "input", "average")
    ]
    binary = [f"{name}(rel={rel})" for name in ("AP", "RR", "Rprec", "Bpref", "R")]
    binary += [f"P(rel={rel})@1", f"Success(rel={rel})@1"]
    result = judged.evaluate(run, qrels, ndcgs + binary)
    for q, judged_docs in qrels.items():
        top = max(judged_docs.values())
        for m in ndcgs if top >= 1 else []:
            assert math.isclose(result.value(m, q), 1.0, abs_tol=1e-12), (m, q)
        for m in binary if top >= rel else []:
            assert result.value(m, q) == 1.0, (m, q)


# -- invariances -------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(collections(), st.integers(-1000, 1000), st.sampled_from(SCALES))
def test_shifting_or_scaling_scores_changes_nothing(collection, shift, scale):
    """Adding a constant to every score, or multiplying them by a positive one, keeps every value.

    Scores are quarter-integers, so the transformed scores are exact and tie
    exactly where the originals did.
    """
    run, qrels = collection
    baseline = judged.evaluate(run, qrels, TIE_VARIANTS)
    for transform in (lambda s: s + shift, lambda s: s * scale):
        moved = {q: {d: transform(s) for d, s in docs.items()} for q, docs in run.items()}
        assert_same_values(judged.evaluate(moved, qrels, TIE_VARIANTS), baseline)


def rows(nested: dict[str, dict[str, float]]) -> list[tuple[str, str, float]]:
    """``(qid, docid, value)`` lines of a run or judgments dict, in its order."""
    return [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]


def frame(lines: list[tuple], value: str) -> pl.DataFrame:
    """A polars frame ``qid, docid, <value>`` holding ``lines`` in the order given."""
    return pl.DataFrame(lines, schema=["qid", "docid", value], orient="row")


@settings(max_examples=150, deadline=None)
@given(collections(), st.data())
def test_input_row_order_does_not_matter_under_trec_or_average_ties(collection, data):
    """Under ties=trec and ties=average the order of input lines is irrelevant.

    The run's and the judgments' lines reversed, or shuffled with queries
    interleaved, give the values of the dicts they came from.
    """
    run, qrels = collection
    wanted = [m for m in TIE_VARIANTS if "ties=input" not in m]
    baseline = judged.evaluate(run, qrels, wanted)
    run_rows, qrels_rows = rows(run), rows(qrels)
    shuffled_run, shuffled_qrels = data.draw(st.permutations(run_rows)), data.draw(st.permutations(qrels_rows))
    for run_order, qrels_order in ((run_rows[::-1], qrels_rows[::-1]), (shuffled_run, shuffled_qrels)):
        result = judged.evaluate(frame(run_order, "score"), frame(qrels_order, "grade"), wanted)
        assert_same_values(result, baseline)


@settings(max_examples=150, deadline=None)
@given(collections())
def test_input_order_equals_trec_order_when_the_run_is_written_in_it(collection):
    """ties=input keeps the run's order inside a tied group.

    So a run written score descending, then docid descending, gives exactly
    ties=trec's values.
    """
    run, qrels = collection
    in_trec_order = {
        q: dict(sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)) for q, docs in run.items()
    }
    trec = [parse(m) for m in ("nDCG@5", "AP", "RR@3", "P@3", "Rprec", "Bpref", "Success@2", "NumRelRet@4")]
    result = judged.evaluate(in_trec_order, qrels, trec + [replace(m, ties="input") for m in trec])
    for m in trec:
        assert np.array_equal(result.values[replace(m, ties="input")], result.values[m], equal_nan=True), m


@settings(max_examples=150, deadline=None)
@given(collections(scores=st.floats(-100, 100), distinct=True))
def test_tie_rules_agree_when_no_scores_are_tied(collection):
    """With distinct scores in every query, ties=trec, ties=input and ties=average give the same values."""
    run, qrels = collection
    trec = [parse(m) for m in ("nDCG@5", "P@3", "R@4", "DCG", "AP", "RR", "Bpref")]
    variants = [replace(m, ties=t) for m in trec for t in m.family.ties if t != "trec"]
    result = judged.evaluate(run, qrels, trec + variants)
    for variant in variants:
        expected = result.values[replace(variant, ties="trec")]
        assert np.allclose(result.values[variant], expected, rtol=0, atol=1e-12, equal_nan=True), variant


# -- purity ------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(collections())
def test_evaluate_never_mutates_its_inputs(collection):
    """Dicts, polars and pandas DataFrames passed to evaluate are left exactly as they were."""
    run, qrels = collection
    run_copy, qrels_copy = copy.deepcopy(run), copy.deepcopy(qrels)
    judged.evaluate(run, qrels, TIE_VARIANTS)
    assert run == run_copy and list(run) == list(run_copy)
    assert all(list(run[q]) == list(run_copy[q]) for q in run)
    assert qrels == qrels_copy and all(list(qrels[q]) == list(qrels_copy[q]) for q in qrels)

    run_pl, qrels_pl = frame(rows(run), "score"), frame(rows(qrels), "grade")
    run_pd, qrels_pd = run_pl.to_pandas(), qrels_pl.to_pandas()
    before = [run_pl.clone(), qrels_pl.clone(), run_pd.copy(deep=True), qrels_pd.copy(deep=True)]
    judged.evaluate(run_pl, qrels_pl, TIE_VARIANTS)
    judged.evaluate(run_pd, qrels_pd, TIE_VARIANTS)
    assert run_pl.equals(before[0]) and qrels_pl.equals(before[1])
    pd.testing.assert_frame_equal(run_pd, before[2])
    pd.testing.assert_frame_equal(qrels_pd, before[3])


# -- conventions only ever move nDCG one way ---------------------------------------------------


@st.composite
def ndcgs(draw):
    """nDCG under any gain in SAFE_GAINS, cutoff, tie rule, ideal list and unjudged policy."""
    conventions = {
        "gain": draw(SAFE_GAINS),
        "ties": draw(st.sampled_from(("trec", "input", "average"))),
        "ideal": draw(st.sampled_from(IDEALS)),
        "unjudged": draw(st.sampled_from(UNJUDGED)),
    }
    return Measure("nDCG", draw(st.none() | st.integers(1, 12)), **conventions)


def assert_never_lower(collection, low: Measure, high: Measure) -> None:
    """Per query, ``high`` >= ``low`` (up to rounding) wherever ``low`` is scored."""
    run, qrels = collection
    result = judged.evaluate(run, qrels, [low, high])
    highs = per_query(result, high)
    for q, value in per_query(result, low).items():
        if not math.isnan(value):
            assert highs[q] >= value - 1e-12, (q, value, highs[q])


@settings(max_examples=200, deadline=None)
@given(collections(), ndcgs())
def test_ideal_from_returned_documents_never_lowers_ndcg(collection, ndcg):
    """nDCG(ideal=returned) >= nDCG(ideal=judged) per query.

    The returned documents' positive gains are a sub-multiset of the judged
    set's, so the ideal DCG over them can only be smaller; the DCG is the same.
    """
    assert_never_lower(collection, replace(ndcg, ideal="judged"), replace(ndcg, ideal="returned"))


@settings(max_examples=200, deadline=None)
@given(collections(), ndcgs())
def test_dropping_unjudged_documents_never_lowers_ndcg(collection, ndcg):
    """nDCG(unjudged=drop) >= nDCG(unjudged=zero) per query.

    Unjudged documents gain 0; removing them moves every judged document up
    (a larger discount, or inside the cutoff), and the ideal is unchanged
    (under ideal=returned it loses only zero gains). With ties=average the
    DCG is the mean over the tied orders, and each order's condensed list is
    no worse, so this holds there too.
    """
    assert_never_lower(collection, replace(ndcg, unjudged="zero"), replace(ndcg, unjudged="drop"))


# -- measure strings ---------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(measures())
def test_canonical_string_parses_back_to_the_same_measure(measure):
    """``parse(str(m)) == m``, and the canonical string is a fixed point, for every family and parameter value."""
    assert parse(str(measure)) == measure
    assert str(parse(str(measure))) == str(measure)


@settings(max_examples=300, deadline=None)
@given(measures(), st.data())
def test_parsing_ignores_parameter_order_quotes_aliases_and_omitted_defaults(measure, data):
    """How a measure is written does not change what it parses to.

    Parameters in any order, quoted or not, defaults left out, and the family
    named by any alias: all parse equal to the measure.
    """
    params = [(k, v) for k, v in measure.params().items() if v != convention(k).default or data.draw(st.booleans())]
    params = data.draw(st.permutations(params))
    quote = data.draw(st.sampled_from(("", "'", '"')))
    name = data.draw(st.sampled_from((measure.name,) + measure.family.aliases))
    text = name
    if params:
        text += "(" + ", ".join(f"{k}={quote}{v}{quote}" for k, v in params) + ")"
    if measure.cutoff is not None:
        text += f"@{measure.cutoff}"
    assert parse(text) == measure, text
