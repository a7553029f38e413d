"""Assessor sensitivity: FIELD.md's 0.713 -> 0.951 swing with recall unchanged, the examples' assessors, orders."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import judged
from judged.agreement.assessors import assessor_sensitivity, order_agreement, spread
from judged.cli import main
from judged.errors import UsageError

# FIELD.md / the nDCG chapter: grades in returned order, judged set {3, 2, 2, 1, 1}; the second assessor
# grades the rank-1 document 3 and demotes the rank-2 document to 2. Nothing else changes.
FIRST = [1, 3, 0, 2, 0, 0, 2, 0, 0, 1]
SECOND = [3, 2, 0, 2, 0, 0, 2, 0, 0, 1]
EXP_NDCG = "nDCG(gain=exp)@10"


def _field_files(tmp_path):
    run = tmp_path / "system.run"
    run.write_text("".join(f"q1 Q0 d{i:02d} {i} {11 - i}.0 system\n" for i in range(1, 11)))
    paths = {}
    for name, grades in (("first", FIRST), ("second", SECOND)):
        paths[name] = tmp_path / f"{name}.qrels"
        paths[name].write_text("".join(f"q1 0 d{i:02d} {g}\n" for i, g in enumerate(grades, 1)))
    return run, paths


def test_field_example_through_the_command(tmp_path):
    run, qrels = _field_files(tmp_path)
    args = ["assessors", str(run), "-a", f"first={qrels['first']}", "-a", f"second={qrels['second']}",
            "-m", EXP_NDCG, "-m", "R@10"]
    data = json.loads(CliRunner().invoke(main, [*args, "-f", "json"]).stdout)
    ndcg = data["measures"]["nDCG(gain=exp,ideal=judged,unjudged=zero,ties=trec,norel=0)@10"]["runs"]["system"]
    recall = data["measures"]["R(rel=1,unjudged=zero,ties=trec,norel=0)@10"]["runs"]["system"]
    # DCG@10 = 1 + 7/log2(3) + 3/log2(5) + 3/log2(8) + 1/log2(11) = 7.998; IDCG@10 = 11.210
    assert ndcg["means"]["first"] == pytest.approx(7.998 / 11.210, abs=1e-3)
    assert round(ndcg["means"]["first"], 3) == 0.713
    # DCG@10 = 7 + 3/log2(3) + 3/log2(5) + 3/log2(8) + 1/log2(11) = 11.474; IDCG@10 = 12.072: 0.95048,
    # which the source rounds to 0.951 (0.9505 rounded a second time)
    assert round(ndcg["means"]["second"], 4) == 0.9505
    assert ndcg["swing"] == pytest.approx(ndcg["means"]["second"] - ndcg["means"]["first"])
    assert ndcg["per_query"]["q1"]["swing"] == ndcg["swing"]
    assert recall["means"] == {"first": 1.0, "second": 1.0} and recall["swing"] == 0.0
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "│ system │ 0.7134 │ 0.9505 │ 0.2371 │" in text.stdout
    assert "│ system │ 1.0000 │ 1.0000 │ 0.0000 │" in text.stdout


def test_examples_two_assessors(examples):
    runs = [examples / "runs" / f"{n}.run" for n in ("bm25", "dense", "naive")]
    s = assessor_sensitivity(runs, {"a1": examples / "qrels.txt", "a2": examples / "qrels.assessor2.txt"},
                             [EXP_NDCG, "R@50"])
    assert s.qids == ("q01", "q02", "q03", "q04", "q05", "q06") and s.left_out == {"a1": 9, "a2": 0}
    bm25, q01 = s.runs.index("bm25"), 0
    # examples/README.md: bm25 on q01, nDCG@10 0.849 with assessor 1, 0.680 with assessor 2; R@50 1.0 with both
    assert [round(v, 3) for v in s.values[0, bm25, :, q01]] == [0.849, 0.680]
    assert list(s.values[1, bm25, :, q01]) == [1.0, 1.0]
    assert s.query_swing[0, bm25, q01] == pytest.approx(0.849 - 0.680, abs=1e-3)
    # each mean equals a direct evaluation on the six shared queries
    a1 = judged.read_qrels(examples / "qrels.txt")
    shared = judged.Qrels.from_frame(a1.frame.filter(a1.frame["qid"].is_in(list(s.qids))))
    assert s.means[0, bm25, 0] == pytest.approx(judged.evaluate(runs[0], shared, [EXP_NDCG]).value(EXP_NDCG))
    order = next(o for o in s.orders if str(o.measure).startswith("nDCG"))
    assert order.same_order and order.tau == 1.0


def test_final_set_joins_the_comparison_and_orders_can_swap():
    qrels = {"ann": {"q": {"a": 2, "b": 0}}, "bob": {"q": {"a": 0, "b": 2}}}
    runs = [judged.Run.from_dict({"q": {"a": 2.0, "b": 1.0}}, name="A"),
            judged.Run.from_dict({"q": {"b": 2.0, "a": 1.0}}, name="B")]
    s = assessor_sensitivity(runs, qrels, ["P@1"], final={"q": {"a": 2, "b": 2}}, final_name="adjudicated")
    assert s.assessors == ("ann", "bob", "adjudicated")
    assert s.means[0].tolist() == [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]
    orders = {(o.first, o.second): o for o in s.orders}
    assert orders["ann", "bob"].tau == -1.0 and orders["ann", "bob"].swapped == 1
    assert not orders["ann", "bob"].same_order
    tied = orders["ann", "adjudicated"]
    assert math.isnan(tied.tau) and "same mean" in tied.reason and tied.ties_broken == 1
    assert s.swing[0].tolist() == [1.0, 1.0]
    with pytest.raises(UsageError, match="also an assessor's"):
        assessor_sensitivity(runs, qrels, ["P@1"], final=qrels["ann"], final_name="ann")


def test_spread_ignores_missing_values_without_warnings():
    values = np.array([[0.2, np.nan, 0.5], [np.nan, np.nan, 0.1], [np.nan, np.nan, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = spread(values, axis=1)
    assert out[0] == pytest.approx(0.3) and math.isnan(out[1]) and math.isnan(out[2])


def test_order_agreement_by_hand():
    measure = judged.parse("P@5")
    # runs by mean: first (0.5, 0.4, 0.3), second (0.4, 0.5, 0.3): one of three run pairs swaps,
    # concordant 2, discordant 1, tau = (2 - 1) / 3
    o = order_agreement(measure, "x", "y", [0.5, 0.4, 0.3], [0.4, 0.5, 0.3])
    assert o.tau == pytest.approx(1 / 3) and (o.swapped, o.ties_broken, o.run_pairs) == (1, 0, 3)
    single = order_agreement(measure, "x", "y", [0.5], [0.4])
    assert math.isnan(single.tau) and single.reason == "one run: there is no order to compare"


def test_requests_that_cannot_be_answered():
    with pytest.raises(UsageError, match="no query was judged by every assessor"):
        assessor_sensitivity([{"q1": {"a": 1.0}}], {"x": {"q1": {"a": 1}}, "y": {"q2": {"a": 1}}}, ["P@1"])
    with pytest.raises(UsageError, match="at least two sets"):
        assessor_sensitivity([{"q1": {"a": 1.0}}], {"x": {"q1": {"a": 1}}}, ["P@1"])
    with pytest.raises(UsageError, match="no measures"):
        assessor_sensitivity([{"q1": {"a": 1.0}}], {"x": {"q1": {"a": 1}}, "y": {"q1": {"a": 0}}}, [])


def test_cli_per_query_table_and_final(examples, tmp_path):
    runs = [str(examples / "runs" / f"{n}.run") for n in ("bm25", "naive")]
    result = CliRunner().invoke(main, ["assessors", *runs, "-a", f"a1={examples / 'qrels.txt'}",
                                       "--final", str(examples / "qrels.assessor2.txt"), "-m", "nDCG@10",
                                       "--per-query", "-o", str(tmp_path / "out.txt")])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "out.txt").read_text()
    assert "2 runs under a1, final, on the 6 queries every assessor judged (left out, judged by only some: a1 9)" \
        in text
    assert "per query: nDCG" in text and text.count("│ q0") == 12
    assert "order of runs, a1 vs final: Kendall's tau 1.000; same order" in text


def test_pairs_one_assessor_never_graded_are_missing_not_a_swing():
    from judged.agreement.assessors import assessor_sensitivity

    run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    ann = {"q": {"d1": 1, "d2": 0, "d3": 1}}
    bob = {"q": {"d1": 1, "d2": 0}}  # bob never graded d3: under bob it would count as not relevant
    s = assessor_sensitivity([run], {"ann": ann, "bob": bob}, ["P@3"])
    assert s.missing_pairs == {"ann": 1, "bob": 0}
    assert s.means[0, 0].tolist() == [1 / 3, 1 / 3]  # d1 only, of three retrieved, under both: no swing
    assert float(s.swing[0, 0]) == 0.0
