"""ERR, RBP with its residual, and the C/W/L family: worked examples with the arithmetic inline, ERR against
gdeval (the script ir_measures runs for ERR), and the conventions that hold for every family: tie bounds that
are the true extremes over tie orders for any gain map, and a perfect ranking scoring exactly 1.0."""

from __future__ import annotations

import itertools
import math
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import judged
from judged.errors import MeasureError
from judged.measures import parse


def value(run: dict, qrels: dict, measure: str) -> float:
    return judged.evaluate(run, qrels, [measure]).value(measure)


def ranked(*grades: int | None) -> tuple[dict, dict]:
    """One query whose run ranks documents d0, d1, ... in that order, with these grades (None: unjudged)."""
    run = {"q": {f"d{i}": float(len(grades) - i) for i in range(len(grades))}}
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades) if g is not None} or {"x": 0}}
    return run, qrels


# -- worked examples ---------------------------------------------------------------------------


def test_err_by_hand():
    run, qrels = ranked(2, 0, 1)  # R = (2^g - 1) / 2^2 = 3/4, 0, 1/4
    assert value(run, qrels, "ERR(max_rel=2)@3") == pytest.approx(3 / 4 + 0 + (1 / 3) * (1 / 4) * (1 / 4) * 1)
    assert value(run, qrels, "ERR(max_rel=2)@2") == pytest.approx(3 / 4)
    # gdeval's scale (top grade 4): R = 3/16, 0, 1/16
    assert value(run, qrels, "ERR(max_rel=4)") == pytest.approx(3 / 16 + (1 / 3) * (1 / 16) * (13 / 16))
    with pytest.raises(MeasureError, match="max_rel=1"):
        value(run, qrels, "ERR(max_rel=1)@3")  # grade 2 above the scale: R would exceed 1
    assert value(run, qrels, "ERR@3") == value(run, qrels, "ERR(max_rel=2)@3")  # max_rel=query: this query's top


def test_rbp_and_its_residual_by_hand():
    run, qrels = ranked(1, 0, None)  # p = 0.5: weights (1 - p) p^(i-1) = 1/2, 1/4, 1/8
    assert value(run, qrels, "RBP(p=0.5)") == pytest.approx(0.5 * 1)
    # the unjudged rank 3, then every rank past the end: 1/8 + p^3
    assert value(run, qrels, "RBP_resid(p=0.5)") == pytest.approx(1 / 8 + 0.5**3)
    assert value(run, qrels, "RBP_resid(p=0.5)@2") == 0.0  # nothing unjudged or empty in the top 2
    assert value(run, qrels, "RBP_resid(p=0.5)@5") == pytest.approx(1 / 8 + 0.5**3 - 0.5**5)
    assert value(run, qrels, "RBP_resid(p=0.5,unjudged=drop)") == pytest.approx(0.5**2)  # d2 dropped: ranks 3..
    graded_run, graded = ranked(2, 1)
    assert value(graded_run, graded, "RBP(p=0.5,max_rel=2)") == pytest.approx(0.5 * (2 / 2 + 0.5 * 1 / 2))
    assert value(graded_run, graded, "RBP(p=0.5,max_rel=query)") == value(graded_run, graded, "RBP(p=0.5,max_rel=2)")


def test_rbp_and_residual_bound_the_rbp_of_every_judgment_of_the_unjudged():
    run, qrels = ranked(1, None, 0, None)
    base, residual = value(run, qrels, "RBP(p=0.7)@4"), value(run, qrels, "RBP_resid(p=0.7)@4")
    outcomes = [value(run, {"q": {**qrels["q"], "d1": a, "d3": b}}, "RBP(p=0.7)@4") for a in (0, 1) for b in (0, 1)]
    assert min(outcomes) == pytest.approx(base)
    assert max(outcomes) == pytest.approx(base + residual)  # all four ranks judged: no empty rank in the top 4


def test_cwl_measures_by_hand():
    run, qrels = ranked(3, 0, 1)  # gains g / 3 = 1, 0, 1/3
    discounts = 1 + 1 / math.log2(3) + 1 / 2
    assert value(run, qrels, "SDCG(max_rel=3)@3") == pytest.approx((1 + 0 + (1 / 3) / 2) / discounts)
    two, grades = ranked(1, 0)  # gains 1, 0 with a horizon of 2 ranks
    assert value(two, grades, "INSQ(T=1)@2") == pytest.approx(1 / (1 + 4 / 9))  # C_1 = ((1+2-1)/(1+2))^2
    assert value(two, grades, "INST(T=1)@2") == pytest.approx(1 / (1 + 1 / 4))  # T_1 = 0: C_1 = (1/2)^2
    flipped, flipped_grades = ranked(0, 1)
    assert value(flipped, flipped_grades, "INST(T=1)@2") == pytest.approx((4 / 9) / (1 + 4 / 9))  # T_1 = 1
    run, qrels = ranked(1, 2, 2)  # gains g / 2 = 1/2, 1, 1
    # cumulative gain 1/2, 3/2, 5/2: C = [1/2 < 1 and 1 < 3, 3/2 < 1, ...] = [1, 0, 0]; W = [1/2, 1/2, 0]
    assert value(run, qrels, "BPM(T=1,max_rel=2)@3") == pytest.approx((1 / 2 + 1) / 2)
    run, qrels = ranked(1, 1, 2)  # gains 1/2, 1/2, 1
    # NERR8: C = 1 - g for ranks 1, 2: [1/2, 1/2]; W proportional to [1, 1/2, 1/4]
    assert value(run, qrels, "NERR8(max_rel=2)@3") == pytest.approx((1 / 2 + 1 / 4 + 1 / 4) / (1 + 1 / 2 + 1 / 4))
    # NERR9: C_i = i/(i+1) (1 - g_i) = [1/4, 1/3]; W proportional to [1, 1/4, 1/12]
    assert value(run, qrels, "NERR9(max_rel=2)@3") == pytest.approx(
        (1 / 2 + 1 / 8 + 1 / 12) / (1 + 1 / 4 + 1 / 12))
    run, qrels = ranked(1, 2)  # gains 1/2, 1 over two ranks
    assert value(run, qrels, "NERR10(p=0.5,max_rel=2)@2") == pytest.approx((1 / 2 + 1 / 4) / (1 + 1 / 4))
    assert value(run, qrels, "NERR11(T=1,max_rel=2)@2") == pytest.approx((1 / 2 + 2 / 9) / (1 + 2 / 9))


def test_canonical_strings_read_back():
    for text in ("ERR(max_rel=4)@10", "RBP(p=0.95)", "RBP_resid(p=0.9,max_rel=query)@100", "SDCG(max_rel=3)@10",
                 "INST(T=2.5,max_rel=3)", "BPM(T=1,max_rel=2)@20", "NERR10(p=0.9)", "INSQ(ties=average,T=3)"):
        measure = parse(text)
        assert parse(str(measure)) == measure
    with pytest.raises(MeasureError, match="p must be a finite number >= 0 and <= 1"):
        parse("RBP(p=1.5)")
    with pytest.raises(MeasureError, match="INST does not support ties=worst"):
        parse("INST(ties=worst)")
    with pytest.raises(MeasureError, match="INST needs a target T > 0"):
        value(*ranked(1), "INST(T=0)")


# -- ERR against gdeval ------------------------------------------------------------------------

GRADED = st.integers(-1, 4)


@st.composite
def numeric_collections(draw):
    """Queries with numeric ids (gdeval reads only those), tied scores, unjudged documents, grades -1..4."""
    run, qrels = {}, {}
    for qid in ("1", "2", "3"):
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(12)]), min_size=1, max_size=12, unique=True))
        run[qid] = {d: draw(st.integers(0, 3)) / 2 for d in docs}
        judged_docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(12)]), min_size=1, max_size=12,
                                    unique=True))
        qrels[qid] = {d: draw(GRADED) for d in judged_docs}
    return run, qrels


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval is a perl script")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(numeric_collections(), st.sampled_from([1, 3, 5, 10, 20]))
def test_err_equals_gdeval(collection, k):
    ir_measures = pytest.importorskip("ir_measures")
    run, qrels = collection
    theirs = {m.query_id: m.value for m in ir_measures.gdeval.iter_calc([ir_measures.ERR @ k], qrels, run)}
    mine = judged.evaluate(run, qrels, [f"ERR(max_rel=4)@{k}"])
    for qid, expected in theirs.items():  # gdeval reports the queries with a relevant judgment, to 5 decimals
        assert mine.values[mine.measures[0]][mine.qids.index(qid)] == pytest.approx(expected, abs=5e-6 + 1e-12)


# -- conventions for every family --------------------------------------------------------------

SCALED_MAPS = ("{0:0,1:0.5,2:1,3:1}", "{1:1,2:0.25,3:1}")  # gains in [0, 1] on the scale 0..3, one not monotone
ANY_MAPS = ("{0:1,1:2}", "{1:3,2:1,3:2}", "{0:0.5,1:-1,3:2}")


def bounded_measures(gain: str, unjudged: str, k: int) -> list[str]:
    """Every family that takes ties=worst|best, with this gain (where the family takes it) and unjudged rule."""
    out = [f"nDCG(gain={gain},unjudged={unjudged})@{k}", f"DCG(gain={gain},unjudged={unjudged})@{k}",
           f"ERR(max_rel=3,unjudged={unjudged})@{k}"]
    if gain in ("linear", "exp", *SCALED_MAPS):
        scaled = f"gain={gain},unjudged={unjudged},max_rel=3"
        out += [f"RBP(p=0.6,{scaled})@{k}", f"SDCG({scaled})@{k}", f"INSQ(T=2,{scaled})@{k}"]
    return out


@st.composite
def tied_queries(draw):
    """Up to five documents with two score values (so large tied groups), grades None (unjudged), 0..3."""
    docs = [f"d{i}" for i in range(draw(st.integers(2, 5)))]
    scores = {d: float(draw(st.integers(0, 1))) for d in docs}
    grades = {d: g for d in docs if (g := draw(st.sampled_from([None, 0, 1, 2, 3]))) is not None}
    return scores, grades or {"x": 1}


def every_tie_order(scores: dict[str, float]) -> list[list[str]]:
    """Every order of the documents that keeps scores descending: the permutations of each tied group."""
    groups = [[d for d in scores if scores[d] == s] for s in sorted(set(scores.values()), reverse=True)]
    return [[d for group in choice for d in group]
            for choice in itertools.product(*map(itertools.permutations, groups))]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_queries(), st.sampled_from([1, 2, 3, 5]), st.sampled_from(("linear", "exp", *SCALED_MAPS, *ANY_MAPS)),
       st.sampled_from(("zero", "drop")))
def test_worst_and_best_are_the_extremes_over_every_tie_order(query, k, gain, unjudged):
    """Brute force: each tie order becomes one query, its scores made distinct in that order; ties=worst and
    ties=best on the tied query are the least and the greatest value over them."""
    scores, grades = query
    orders = every_tie_order(scores)
    run = {f"o{i}": {d: scores[d] + (len(order) - j) * 1e-3 for j, d in enumerate(order)}
           for i, order in enumerate(orders)}
    qrels = {f"o{i}": grades for i in range(len(orders))}
    for text in bounded_measures(gain, unjudged, k):
        measure = parse(text)
        every = judged.evaluate(run, qrels, [measure]).values[measure]
        worst, best = parse(text.replace("(", "(ties=worst,", 1)), parse(text.replace("(", "(ties=best,", 1))
        bounds = judged.evaluate({"q": scores}, {"q": grades}, [worst, best])
        if math.isnan(bounds.values[worst][0]):
            continue
        assert bounds.values[worst][0] == pytest.approx(min(every), abs=1e-12), text
        assert bounds.values[best][0] == pytest.approx(max(every), abs=1e-12), text


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=14), st.integers(0, 12),
       st.sampled_from(("linear", "exp", "{1:1,2:3,3:7}", "{1:0.1,2:0.7,3:1.3}")), st.sampled_from([None, 3, 10, 30]))
def test_a_perfect_ranking_scores_exactly_one(grades, unjudged, gain, k):
    """The judged documents by gain descending, then unjudged ones: nDCG is 1.0 bit for bit, however many follow."""
    ordered = sorted(grades, reverse=True)
    run = {"q": {f"d{i}": 100.0 - i for i in range(len(ordered))} | {f"u{j}": 50.0 - j for j in range(unjudged)}}
    qrels = {"q": {f"d{i}": g for i, g in enumerate(ordered)} | {"z": 0}}
    cut = "" if k is None else f"@{k}"
    assert value(run, qrels, f"nDCG(gain={gain}){cut}") == 1.0


def test_judged_eval_reports_the_residual_beside_rbp(tmp_path):
    from click.testing import CliRunner

    from judged.cli import main

    (tmp_path / "q.txt").write_text("q 0 a 1\nq 0 b 0\n")
    (tmp_path / "r.txt").write_text("q Q0 a 1 2.0 r\nq Q0 u 2 1.0 r\nq Q0 b 3 0.5 r\n")
    args = ["eval", str(tmp_path / "r.txt"), "--qrels", str(tmp_path / "q.txt"), "-m", "RBP(p=0.5)", "--format", "tsv"]
    shown = CliRunner().invoke(main, args)
    assert shown.exit_code == 0, shown.output
    assert "RBP_resid(gain=linear,unjudged=zero,ties=trec,p=0.5,max_rel=query)\t0.375" in shown.output  # 1/4 + 1/8
    alone = CliRunner().invoke(main, [*args, "--no-judged"])
    assert "RBP_resid" not in alone.output
