"""Unjudged bounds: the reported range against brute force over every grade assignment.

The oracle is independent of :mod:`judged.analysis.bounds`: it ranks each query by the
tie rule written out here, lists the unjudged documents in scope, and scores
every assignment of grades to them with :func:`judged.evaluate` itself, one
copy of the query per assignment, with the assigned grades written into the
judgments. Only what is provable is asserted (docs/bounds.md): unjudged-as-0
lies inside the range when some grade gains 0, the condensed score is never
below the minimum then, and it can exceed the maximum.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import judged
from judged.analysis.bounds import BoundsResult, unjudged_bounds
from judged.errors import UsageError
from judged.measures import parse
from judged.measures.gains import gains

DOCS = tuple(f"d{i}" for i in range(7))
SCORES = st.integers(0, 4).map(float)  # few values: ties are common
STATES = st.sampled_from(["unjudged", "unjudged", "pooled", 0, 0, 1, 2, 3])  # "pooled": grade -1
GAINS = ("linear", "exp", "{0:0,1:1,2:3,3:10}", "{1:5,2:1}", "{0:1,1:2,2:2,3:4}", "{0:0,1:0.5,2:1.25}")
CUTOFFS = ("@1", "@2", "@3", "@5", "")
DOMAINS = (None, None, (0, 1, 2), (0, 3), (1, 2), (0, 1, 2, 3, 4))
MAX_ASSIGNMENTS = 800
TOL = 1e-9


# -- the oracle --------------------------------------------------------------------------------


def ranked(docs: dict[str, float], ties: str) -> list[str]:
    """trec: score descending, then docid descending by bytes; input: score descending, file order."""
    if ties == "trec":
        return sorted(docs, key=lambda d: (-docs[d], [-b for b in d.encode()]))
    return sorted(docs, key=lambda d: -docs[d])  # stable: dict order is the input order


def in_scope(run_q: dict, qrels_q: dict, cutoff: int | None, ties: str, scope: str) -> list[str]:
    order = ranked(run_q, ties)
    if scope == "top_k" and cutoff is not None:
        order = order[:cutoff]
    return [d for d in order if qrels_q.get(d, -1) < 0]


def domain_of(qrels: dict, grades) -> tuple[int, ...]:
    if grades is not None:
        return tuple(sorted(set(grades)))
    seen = [g for docs in qrels.values() for g in docs.values() if g >= 0]
    return tuple(range(max(seen, default=0) + 1))


def brute_force(run, qrels, measure: str, scope: str, grades) -> dict[str, tuple[float, float, list[float]]]:
    """Per query in both inputs: (min, max, every value) of nDCG over all assignments (NaN: not scored)."""
    m = replace(parse(measure), unjudged="zero")
    domain = domain_of(qrels, grades)
    big_run, big_qrels, owner = {}, {}, {}
    for qid in sorted(set(run) & set(qrels)):
        docs = in_scope(run[qid], qrels[qid], m.cutoff, m.ties, scope)
        for i, assignment in enumerate(itertools.product(domain, repeat=len(docs))):
            key = f"{qid}#{i:05d}"
            big_run[key] = dict(run[qid])
            big_qrels[key] = {**qrels[qid], **dict(zip(docs, assignment))}
            owner[key] = qid
    result = judged.evaluate(big_run, big_qrels, [m])
    values: dict[str, list[float]] = {}
    for key, value in zip(result.qids, result.values[m]):
        values.setdefault(owner[key], []).append(float(value))
    out = {}
    for qid, vals in values.items():
        scored = [v for v in vals if not math.isnan(v)]
        out[qid] = (min(scored, default=math.nan), max(scored, default=math.nan), vals)
    return out


# -- strategies --------------------------------------------------------------------------------


@st.composite
def cases(draw):
    qids = draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, max_size=3, unique=True))
    run, qrels = {}, {}
    for qid in qids:
        docs = draw(st.lists(st.sampled_from(DOCS), max_size=len(DOCS), unique=True))
        if docs:
            run[qid] = {d: draw(SCORES) for d in docs}
        judgments = {}
        for d in DOCS:
            state = draw(STATES)
            if state == "pooled":
                judgments[d] = -1
            elif state != "unjudged":
                judgments[d] = state
        if judgments:
            qrels[qid] = judgments
    if draw(st.booleans()):
        qrels["q0"] = {"d0": draw(st.integers(0, 3))}  # judged, never retrieved: a missing query
    assume(set(run) & set(qrels))
    measure = "nDCG(gain={},ties={},norel={}){}".format(
        draw(st.sampled_from(GAINS)),
        draw(st.sampled_from(["trec", "input"])),
        draw(st.sampled_from(["0", "1", "skip"])),
        draw(st.sampled_from(CUTOFFS)),
    )
    grades = draw(st.sampled_from(DOMAINS))
    scope = draw(st.sampled_from(["top_k", "retrieved"]))
    missing = draw(st.sampled_from(["skip", "zero"]))
    return run, qrels, measure, grades, scope, missing


def assignments(run, qrels, measure, grades, scope) -> int:
    m = parse(measure)
    size = len(domain_of(qrels, grades))
    return sum(
        size ** len(in_scope(run[q], qrels[q], m.cutoff, m.ties, scope)) for q in set(run) & set(qrels)
    )


def close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= TOL


# -- properties --------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(cases())
def test_exact_range_equals_brute_force(case):
    run, qrels, measure, grades, scope, missing = case
    assume(assignments(run, qrels, measure, grades, scope) <= MAX_ASSIGNMENTS)
    truth = brute_force(run, qrels, measure, scope, grades)
    exact = unjudged_bounds(run, qrels, measure, grades=grades, scope=scope, missing=missing)
    loose = unjudged_bounds(run, qrels, measure, grades=grades, scope=scope, missing=missing, exact_limit=0)
    reference = judged.evaluate(run, qrels, [replace(parse(measure), unjudged="zero")], missing=missing)
    assert exact.qids == reference.qids == loose.qids
    zero_gain = bool((gains(np.asarray(exact.grades), parse(measure).gain) == 0).any())
    for i, qid in enumerate(exact.qids):
        lo, hi = float(exact.minimum[i]), float(exact.maximum[i])
        zero, condensed = float(exact.zero[i]), float(exact.condensed[i])
        assert exact.method[i] in ("exact", "skipped")
        if qid not in truth:  # missing from the run: nothing unjudged, one value
            assert exact.unjudged_top_k[i] == exact.unjudged_retrieved[i] == 0
            expected = math.nan if missing == "skip" else float(reference.values[reference.measures[0]][i])
            assert close(lo, expected) and close(hi, expected) and close(zero, expected)
            continue
        t_lo, t_hi, values = truth[qid]
        assert close(lo, t_lo) and close(hi, t_hi), (qid, lo, hi, t_lo, t_hi, values)
        # the closed-form bound contains the exact range
        b_lo, b_hi = float(loose.minimum[i]), float(loose.maximum[i])
        if exact.unjudged_top_k[i] > 0:
            assert loose.method[i] == "bound"
        if not math.isnan(t_lo):
            assert b_lo <= t_lo + TOL and b_hi >= t_hi - TOL, (qid, b_lo, b_hi, t_lo, t_hi)
        # nothing unjudged in scope: the range collapses to unjudged-as-0, exactly
        if (exact.unjudged_top_k if scope == "top_k" else exact.unjudged_retrieved)[i] == 0:
            assert (lo == hi == zero) or (math.isnan(lo) and math.isnan(hi) and math.isnan(zero))
        # unjudged-as-0 is an assignment when some grade gains 0: inside the range, condensed not below it
        if zero_gain and not math.isnan(zero):
            assert lo - TOL <= zero <= hi + TOL
            assert condensed >= zero - TOL and condensed >= lo - TOL
    # the mean of the minima is the least mean over assignments (queries are independent)
    if parse(measure).norel != "skip":
        assert close(exact.mean_minimum, float(np.nanmean(exact.minimum)))
        per_query_min = [truth[q][0] if q in truth else float(exact.zero[i]) for i, q in enumerate(exact.qids)]
        scored = [v for v, s in zip(per_query_min, exact.method) if s != "skipped"]
        assert close(exact.mean_minimum, sum(scored) / len(scored))


@settings(max_examples=60, deadline=None)
@given(cases())
def test_top_k_scope_ignores_the_run_below_k(case):
    """Under scope=top_k the range depends on the first k documents only, not on the run's depth."""
    run, qrels, measure, grades, _, missing = case
    m = parse(measure)
    assume(m.cutoff is not None)
    cut = {q: {d: docs[d] for d in ranked(docs, m.ties)[: m.cutoff]} for q, docs in run.items()}
    whole = unjudged_bounds(run, qrels, measure, grades=grades, missing=missing)
    short = unjudged_bounds(cut, qrels, measure, grades=grades, missing=missing)
    np.testing.assert_allclose(whole.minimum, short.minimum, atol=TOL)
    np.testing.assert_allclose(whole.maximum, short.maximum, atol=TOL)


# -- worked cases ------------------------------------------------------------------------------


def test_minimum_can_fall_below_unjudged_as_zero():
    """The only relevant judged document is at rank 1 (nDCG 1.0); an unjudged document at rank 3 that
    deserves a 3 raises IDCG to 3 + 1/log2(3) while DCG gains only 3/2: nDCG 2.5/3.631 = 0.689."""
    run = {"q": {"a": 3.0, "b": 2.0, "u": 1.0}}
    qrels = {"q": {"a": 1, "b": 0}}
    b = unjudged_bounds(run, qrels, "nDCG@3", grades=range(4))
    assert b.zero[0] == 1.0 and b.condensed[0] == 1.0 and b.maximum[0] == 1.0
    assert b.minimum[0] == pytest.approx(2.5 / (3 + 1 / math.log2(3)), abs=1e-12)
    assert b.minimum[0] < b.zero[0]


def test_condensed_can_exceed_the_maximum():
    """Dropping the unjudged document at rank 1 lifts the grade-2 document into the top 2; no grade
    for the unjudged document lets the run keep that: its best is 2 / (2 + 2/log2(3)) = 0.613 < 0.631."""
    run = {"q": {"u": 3.0, "a": 2.0, "b": 1.0}}
    qrels = {"q": {"a": 0, "b": 2}}
    b = unjudged_bounds(run, qrels, "nDCG@2")
    assert b.condensed[0] == pytest.approx(1 / math.log2(3), abs=1e-12)
    assert b.maximum[0] == pytest.approx(2 / (2 + 2 / math.log2(3)), abs=1e-12)
    assert b.condensed[0] > b.maximum[0]


def test_maximum_can_need_an_intermediate_grade():
    """Grade 2 for the unjudged document beats both 0 and the top grade 3: the maximum is not at an
    extreme grade, which is why it is found by Dinkelbach's method rather than by trying 0 and 3."""
    run = {"q": {"a": 3.0, "b": 2.0, "u": 1.0}}
    qrels = {"q": {"a": 2, "b": 0, "c": 2}}  # c: relevant, never retrieved
    b = unjudged_bounds(run, qrels, "nDCG@3", grades=range(4))
    by_grade = [
        judged.evaluate(run, {"q": {**qrels["q"], "u": g}}, ["nDCG@3"]).value("nDCG@3") for g in range(4)
    ]
    assert max(by_grade) == by_grade[2] > max(by_grade[0], by_grade[3])
    assert b.maximum[0] == pytest.approx(by_grade[2], abs=1e-12)


def test_bounds_collapse_when_nothing_is_unjudged(examples):
    qrels = judged.read_qrels(examples / "qrels.txt")
    run = judged.read_run(examples / "runs" / "dense.run")
    judged_pairs = qrels.frame.filter(pl.col("grade") >= 0).select("qid", "docid")
    complete = judged.Run.from_frame(run.frame.join(judged_pairs, on=["qid", "docid"], how="semi"), "dense")
    for scope in ("top_k", "retrieved"):
        b = unjudged_bounds(complete, qrels, "nDCG(gain=exp)@10", scope=scope)
        assert (b.unjudged_retrieved == 0).all()
        np.testing.assert_array_equal(b.minimum, b.zero)
        np.testing.assert_array_equal(b.maximum, b.zero)
        np.testing.assert_array_equal(b.condensed, b.zero)
        assert b.method == ("exact",) * len(b.qids)


def test_example_collection(examples):
    qrels = examples / "qrels.txt"
    for name in ("bm25", "dense", "naive"):
        run = examples / "runs" / f"{name}.run"
        top = unjudged_bounds(run, qrels, "nDCG@10")
        every = unjudged_bounds(run, qrels, "nDCG@10", scope="retrieved")
        loose = unjudged_bounds(run, qrels, "nDCG@10", exact_limit=0)
        reference = judged.evaluate(run, qrels, ["nDCG@10", "nDCG(unjudged=drop)@10"])
        np.testing.assert_array_equal(top.zero, reference.values[parse("nDCG@10")])
        assert top.mean_zero == reference.value("nDCG@10")
        assert top.mean_condensed == reference.value("nDCG(unjudged=drop)@10")
        assert top.grades == (0, 1, 2, 3) and top.method == ("exact",) * 15
        assert (top.minimum <= top.zero).all() and (top.zero <= top.maximum).all()
        assert (every.minimum <= top.minimum + TOL).all()
        np.testing.assert_allclose(every.maximum, top.maximum, atol=TOL)  # below k at grade 0: no change
        assert (loose.minimum <= top.minimum + TOL).all() and (loose.maximum >= top.maximum - TOL).all()
        assert top.mean_minimum <= top.mean_zero <= top.mean_maximum
        assert (top.unjudged_top_k <= top.unjudged_retrieved).all()


def test_result_is_plain_data():
    run = {"q1": {"a": 2.0, "u": 1.0}, "q2": {"b": 1.0}}
    qrels = {"q1": {"a": 1}, "q2": {"b": 2}, "q3": {"c": 1}}
    b = unjudged_bounds(run, qrels, "nDCG@5")
    assert isinstance(b, BoundsResult)
    assert b.qids == ("q1", "q2", "q3") and b.method == ("exact", "exact", "skipped")
    assert str(b.measure) == "nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@5"
    frame = b.to_frame()
    assert frame.columns == [
        "run", "qid", "unjudged_top_k", "unjudged_retrieved", "zero", "condensed", "min", "max", "method"
    ]
    assert frame["qid"].to_list() == ["q1", "q2", "q3"] and frame["unjudged_top_k"].to_list() == [1, 0, 0]
    assert math.isnan(b.minimum[2]) and b.means["min"] == b.mean_minimum
    assert b.mean_minimum == pytest.approx((b.minimum[0] + 1.0) / 2)
    zero = unjudged_bounds(run, qrels, "nDCG@5", missing="zero")
    assert zero.method[2] == "exact" and zero.minimum[2] == zero.maximum[2] == 0.0


@pytest.mark.parametrize(
    ("measure", "options"),
    [
        ("DCG@10", {}),
        ("P@10", {}),
        ("nDCG(ties=average)@10", {}),
        ("nDCG(ideal=returned)@10", {}),
        ("nDCG(gain={1:-1})@10", {}),
        ("nDCG@10", {"scope": "pool"}),
        ("nDCG@10", {"missing": "drop"}),
        ("nDCG@10", {"grades": [-1, 0, 1]}),
        ("nDCG@10", {"grades": []}),
        ("nDCG@10", {"exact_limit": -1}),
        ("ERR@10", {}),
        ("INST", {}),
        ("RBP(ties=worst)", {}),
        ("RBP(max_rel=query)", {}),
        ("RBP", {"grades": [0, 1, 2]}),
    ],
)
def test_refuses_what_it_cannot_bound(measure, options):
    with pytest.raises(UsageError):
        unjudged_bounds({"q": {"a": 1.0}}, {"q": {"a": 1}}, measure, **options)


def test_cli_bounds_table_and_json(examples):
    import json

    from click.testing import CliRunner

    from judged.cli import main

    args = ["bounds", str(examples / "runs" / "naive.run"), str(examples / "runs" / "bm25.run"),
            "--qrels", str(examples / "qrels.txt"), "-m", "nDCG@10"]
    text = CliRunner().invoke(main, args + ["--per-query"])
    assert text.exit_code == 0, text.output
    assert "naive per query" in text.stdout and "15/15" in text.stdout
    data = json.loads(CliRunner().invoke(main, args + ["-f", "json"]).stdout)["bounds"]
    naive = data[0]
    assert naive["run"] == "naive" and naive["means"]["min"] <= naive["means"]["zero"] <= naive["means"]["max"]
    assert naive["per_query"]["q01"]["method"] == "exact"
    evaluated = judged.evaluate(examples / "runs" / "naive.run", examples / "qrels.txt", ["nDCG@10"])
    assert naive["means"]["zero"] == pytest.approx(evaluated.value("nDCG@10"))


def test_skip_norel_maximum_when_only_documents_below_the_cutoff_are_unjudged():
    # Regression (found by the brute-force property): nothing unjudged in the top 1, three unjudged
    # below it. Giving them all grade 0 scores nothing (norel=skip); every scored assignment makes
    # one of them relevant, and nDCG@1 is then 0, so the range is [0, 0], not NaN.
    run = {"q2": {"d0": 0.0, "d1": 0.0, "d2": 0.0, "d3": 0.0}}
    qrels = {"q2": {"d3": 0}}
    b = unjudged_bounds(run, qrels, "nDCG(norel=skip)@1", grades=(0, 1, 2), scope="retrieved")
    assert (float(b.minimum[0]), float(b.maximum[0])) == (0.0, 0.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(SCORES, st.sampled_from(["unjudged", "pooled", 0, 1, 2])), min_size=1, max_size=6),
       st.sampled_from(["@1", "@3", ""]), st.sampled_from(["linear", "exp", "{1:1,2:3}"]),
       st.sampled_from([0.5, 0.8]))
def test_rbp_range_equals_brute_force(docs, cutoff, gain, p):
    """RBP's range over every grade 0..2 of the unjudged documents is [RBP, RBP + their weight at the top gain]."""
    run = {"q": {f"d{i}": score for i, (score, _) in enumerate(docs)}}
    judgments = {f"d{i}": (-1 if state == "pooled" else state) for i, (_, state) in enumerate(docs)
                 if state != "unjudged"}
    unjudged = [f"d{i}" for i, (_, state) in enumerate(docs) if state in ("unjudged", "pooled")]
    measure = f"RBP(p={p},gain={gain},max_rel=2){cutoff}"
    bounds = unjudged_bounds(run, {"q": judgments or {"x": 0}}, measure, grades=range(3))
    outcomes = [judged.evaluate(run, {"q": {**judgments, **dict(zip(unjudged, grades)), "x": 0}}, [measure])
                .value(measure) for grades in itertools.product(range(3), repeat=len(unjudged))]
    assert bounds.minimum[0] == pytest.approx(min(outcomes), abs=1e-12)
    assert bounds.maximum[0] == pytest.approx(max(outcomes), abs=1e-12)
    assert bounds.minimum[0] == bounds.zero[0]  # grade 0 gains 0: unjudged-as-0 is the least assignment
    if bounds.unjudged_top_k[0] == 0:  # nothing unjudged that counts: a point, to the bit
        assert bounds.maximum[0] == bounds.zero[0]


@pytest.mark.parametrize("length", [2, 6, 8, 10])
def test_a_fully_judged_ranking_has_an_rbp_range_of_one_point(length):
    """Every retrieved document judged: the range is RBP itself exactly (an unjudged weight taken as the rest of
    1 - p^n would come out a unit in the last place either side of 0)."""
    run = {"q": {f"d{i}": float(10 - i) for i in range(length)}}
    bounds = unjudged_bounds(run, {"q": {f"d{i}": i % 2 for i in range(length)}}, "RBP(p=0.8,max_rel=1)")
    assert bounds.minimum[0] == bounds.maximum[0] == bounds.zero[0]


def test_the_footer_names_the_measure_bounded(tmp_path):
    """RBP has no ideal list: the footer names RBP and says nothing of one."""
    from click.testing import CliRunner

    from judged.cli import main

    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 3.0 t\nq1 Q0 x 2 2.0 t\n")
    out = CliRunner().invoke(main, ["bounds", str(tmp_path / "r"), "--qrels", str(tmp_path / "q"),
                                    "-m", "RBP(max_rel=3)"]).output
    assert "lowest and highest RBP over every grade" in " ".join(out.split()) and "ideal list" not in out
