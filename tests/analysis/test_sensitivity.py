"""`judged sensitivity`: every variation equals a direct evaluation, flags and order changes are right."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import judged
from judged.cli import main
from judged.measures import parse

QRELS = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"x": 1, "y": 2}}
# run A ties its relevant documents with an unjudged one; run B ranks cleanly but misses y.
RUN_A = {"q1": {"u": 1.0, "a": 1.0, "b": 1.0}, "q2": {"z": 2.0, "y": 1.0}}
RUN_B = {"q1": {"a": 3.0, "c": 2.0, "b": 1.0}, "q2": {"x": 1.0}}


def test_each_variation_is_the_evaluation_of_that_variant():
    s = judged.sensitivity([RUN_A, RUN_B], QRELS, "nDCG@2")
    conventions = {(v.convention, v.value) for v in s.variations}
    assert conventions == {("gain", "exp"), ("ideal", "returned"), ("unjudged", "drop"), ("ties", "input"),
                           ("ties", "average"), ("ties", "worst"), ("ties", "best"), ("ties", "docid"),
                           ("missing", "zero")}
    for v in s.variations:
        direct = [judged.evaluate(r, QRELS, [v.measure], missing=v.missing).value(v.measure) for r in (RUN_A, RUN_B)]
        assert list(v.means) == pytest.approx(direct)
        assert list(v.deltas) == pytest.approx([d - m for d, m in zip(direct, s.means)])


def test_flags_order_changes_and_ties_across_the_cutoff():
    s = judged.sensitivity([RUN_A, RUN_B], QRELS, "nDCG@2")
    by = {(v.convention, v.value): v for v in s.variations}
    optimistic = {key for key, v in by.items() if v.optimistic}
    assert optimistic == {("ideal", "returned"), ("unjudged", "drop"), ("ties", "best")}
    # run A, q1: u, a, b tie; docid descending (u, b, a) is already the worst order (grades 0, 1, 2),
    # best (a, b, u) is the ideal one, so q1 newly reaches 1.0 and A overtakes B
    assert by[("ties", "worst")].means[0] == s.means[0]
    assert by[("ties", "best")].means[0] > s.means[0] and by[("ties", "best")].changed == (1, 0)
    assert by[("ties", "best")].new_ones == (1, 0)
    assert by[("ties", "best")].order_changed and not by[("gain", "exp")].order_changed
    # dropping unjudged documents moves A on both queries and B on none
    assert by[("unjudged", "drop")].changed == (2, 0) and by[("unjudged", "drop")].order_changed
    assert s.ties_across_cutoff == (1, 0)


def test_worst_and_best_are_not_swapped_under_a_gain_map_that_favours_grade_0():
    """Issue 12: under gain={0:1,1:2} an unjudged document (gain 0) is worse than a judged grade-0 one (gain 1)."""
    run, qrels = {"q": {"u": 1.0, "z": 1.0}}, {"q": {"z": 0, "r": 1}}
    s = judged.sensitivity([run], qrels, "DCG(gain={0:1,1:2})@1")
    by = {(v.convention, v.value): v for v in s.variations}
    assert by[("ties", "worst")].means == (0.0,) and by[("ties", "best")].means == (1.0,)
    assert by[("ties", "worst")].means[0] <= s.means[0] <= by[("ties", "best")].means[0]


def test_a_perfect_ranking_followed_by_unjudged_documents_is_not_newly_at_one():
    """Its nDCG is exactly 1.0 already, so dropping the unjudged documents after it reaches nothing new."""
    grades = [3, 3, 3, 2, 2, 1, 1, 1]  # enough terms for numpy's pairwise sums to round differently
    run = {"q": {f"d{i}": 20.0 - i for i in range(len(grades))} | {f"u{j}": 5.0 - j for j in range(4)}}
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades)}}
    s = judged.sensitivity([run], qrels, "nDCG")
    assert s.means == (1.0,)
    assert all(v.new_ones == (0,) for v in s.variations)


def test_the_graded_families_vary_their_own_conventions():
    s = judged.sensitivity([RUN_A, RUN_B], QRELS, "RBP(p=0.5,max_rel=2)")
    assert {(v.convention, v.value) for v in s.variations} == {
        ("max_rel", "query"), ("gain", "exp"), ("unjudged", "drop"), ("ties", "input"), ("ties", "average"),
        ("ties", "worst"), ("ties", "best"), ("ties", "docid"), ("missing", "zero")}
    by = {(v.convention, v.value): v for v in s.variations}
    assert by[("ties", "worst")].means[0] <= s.means[0] <= by[("ties", "best")].means[0]
    err = judged.sensitivity([RUN_A], QRELS, "ERR(max_rel=2)@2")
    assert {v.value for v in err.variations if v.convention == "ties"} == {"input", "worst", "best", "docid"}
    # the scale: each query's own top grade against the judgments' top grade, 2
    scale = judged.sensitivity([{"q1": {"a": 1.0}, "q2": {"x": 1.0}}], {"q1": {"a": 2}, "q2": {"x": 1}}, "ERR@2")
    by_scale = next(v for v in scale.variations if v.convention == "max_rel")
    assert by_scale.value == "2" and by_scale.measure == parse("ERR(max_rel=2)@2")
    assert scale.means == pytest.approx(((3 / 4 + 1 / 2) / 2,))  # q1: (2^2-1)/2^2; q2, top grade 1: (2-1)/2
    assert by_scale.changed == (1,) and by_scale.means == pytest.approx(((3 / 4 + 1 / 4) / 2,))  # q2: 1/2^2


def test_missing_variation_counts_the_missing_query():
    s = judged.sensitivity([{"q1": {"a": 1.0}}], QRELS, "P@1")
    missing = next(v for v in s.variations if v.convention == "missing")
    assert missing.changed == (1,) and missing.means[0] == pytest.approx(s.means[0] / 2)


def test_cli_table_and_json(examples):
    runs = [str(examples / "runs" / f"{n}.run") for n in ("bm25", "naive")]
    text = CliRunner().invoke(main, ["sensitivity", *runs, "--qrels", str(examples / "qrels.txt")])
    assert text.exit_code == 0, text.output
    assert "order of runs changes under: ties=best" in text.output
    data = json.loads(CliRunner().invoke(main, ["sensitivity", *runs, "--qrels", str(examples / "qrels.txt"),
                                                "-f", "json"]).stdout)
    assert data["runs"] == ["bm25", "naive"] and len(data["variations"]) == 9
    assert data["ties_across_cutoff"] == [0, 15]
