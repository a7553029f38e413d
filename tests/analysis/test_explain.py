"""`judged explain`: the field's worked numbers, rank by rank, and agreement with evaluate."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import judged
from judged.cli import main

GRADES = [1, 3, 0, 2, 0, 0, 2, 0, 0, 1]
RUN = {"q": {f"d{i}": float(10 - i) for i in range(10)}}
QRELS = {"q": {f"d{i}": g for i, g in enumerate(GRADES)}}


def test_worked_example_rank_by_rank():
    e = judged.explain(RUN, QRELS, "q", "nDCG(gain=exp)@10")
    contributions = [round(s.contribution, 3) for s in e.ranking]
    assert contributions == [1.0, 4.417, 0.0, 1.292, 0.0, 0.0, 1.0, 0.0, 0.0, 0.289]
    assert [round(s.discount, 3) for s in e.ranking[:4]] == [1.0, 0.631, 0.5, 0.431]
    assert [s.gain for s in e.ranking] == [1, 7, 0, 3, 0, 0, 3, 0, 0, 1]
    assert [round(s.contribution, 3) for s in e.ideal] == [7.0, 1.893, 1.5, 0.431, 0.387]
    assert round(e.dcg, 3) == 7.998 and round(e.idcg, 3) == 11.210 and round(e.value, 3) == 0.713
    assert e.ranking[-1].running == pytest.approx(e.dcg) and e.ideal[-1].running == pytest.approx(e.idcg)
    assert e.recall == 1.0 and (e.relevant_found, e.relevant_total) == (5, 5)


def test_unjudged_rows_are_marked_and_gain_nothing():
    e = judged.explain({"q": {"a": 2.0, "u": 1.0}}, {"q": {"a": 1, "z": 2}}, "q", "nDCG(gain={0:1,1:2,2:5})@2")
    assert [(s.docid, s.grade, s.gain) for s in e.ranking] == [("a", 1, 2.0), ("u", None, 0.0)]
    assert [s.docid for s in e.ideal] == ["z", "a"]


def test_only_dcg_family():
    with pytest.raises(judged.UsageError, match="explain works out nDCG and DCG"):
        judged.explain(RUN, QRELS, "q", "AP")


def test_unknown_query_names_it():
    with pytest.raises(judged.InputError, match="query 'nope' has no judgments"):
        judged.explain(RUN, QRELS, "nope")


docs = st.lists(st.tuples(st.sampled_from("abcdefg"), st.integers(0, 4), st.sampled_from([None, -1, 0, 1, 2, 3])),
                min_size=1, max_size=7, unique_by=lambda t: t[0])


@settings(max_examples=150, deadline=None)
@given(docs, st.sampled_from([1, 3, 5, None]), st.sampled_from(["linear", "exp", "{1:1,2:3,3:10}"]),
       st.sampled_from(["trec", "input", "average", "worst", "best"]), st.sampled_from(["zero", "drop"]),
       st.sampled_from(["judged", "returned"]))
def test_explanation_equals_evaluate(items, k, gain, ties, unjudged, ideal):
    run = {"q": {d: float(s) for d, s, _ in items}}
    qrels = {"q": {d: g for d, _, g in items if g is not None} or {"zz": 2}}
    measure = f"nDCG(gain={gain},ties={ties},unjudged={unjudged},ideal={ideal})" + (f"@{k}" if k else "")
    e = judged.explain(run, qrels, "q", measure)
    expected = judged.evaluate(run, qrels, [measure]).value(measure, "q")
    assert e.value == pytest.approx(expected, abs=1e-12)
    assert sum(s.contribution for s in e.ranking) == pytest.approx(e.dcg, abs=1e-12)
    if e.idcg:
        assert e.value == pytest.approx(e.dcg / e.idcg, abs=1e-12)


def test_cli_side_by_side_and_json(examples):
    args = ["explain", str(examples / "runs" / "naive.run"), "--qrels", str(examples / "qrels.txt"), "--query", "q01",
            "-m", "nDCG(gain=exp)@10", "--vs", str(examples / "runs" / "dense.run")]
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "naive: DCG@10 = 8.856" in text.output and "dense: DCG@10 = 15.197" in text.output
    assert "ideal ordering" in text.output and "nDCG@10 = " in text.output
    data = json.loads(CliRunner().invoke(main, args + ["--format", "json"]).stdout)
    naive, dense = data["explanations"]
    assert naive["run"] == "naive" and dense["run"] == "dense"
    assert math.isclose(naive["value"], naive["dcg"] / naive["idcg"])
    assert len(naive["ranking"]) == 10 and naive["ranking"][0]["rank"] == 1


@pytest.mark.parametrize(
    "grades, measure, dcg, idcg, value",
    [
        ([2, 0, 3, 1, 0], "nDCG(gain=exp)@5", 6.931, 9.393, 0.738),
        ([2, 0, 3, 1, 0], "nDCG(gain=exp)@3", None, None, 0.692),
        ([3, 2, 3, 0, 1, 2], "nDCG@6", 6.86, 7.14, 0.96),
        ([3, 0, 2], "nDCG@1", None, None, 1.0),
        ([3, 0, 2], "nDCG@2", None, None, 0.703918),
        ([3, 0, 2], "nDCG@3", None, None, 0.938557),
    ],
)
def test_every_worked_example_of_the_field_notes(grades, measure, dcg, idcg, value):
    run = {"q": {f"d{i}": float(len(grades) - i) for i in range(len(grades))}}
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades)}}
    e = judged.explain(run, qrels, "q", measure)
    places = len(str(value).split(".")[1])
    assert round(e.value, places) == value
    if dcg is not None:
        assert round(e.dcg, len(str(dcg).split(".")[1])) == dcg
        assert round(e.idcg, len(str(idcg).split(".")[1])) == idcg
    assert [s.grade for s in e.ranking] == grades[: len(e.ranking)]
