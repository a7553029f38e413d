"""judged.ir_measures' Compat and Accuracy against ir_measures' compat and accuracy providers.

Hypothesis draws runs whose scores tie (0.0 among them, where compat puts the documents the run did not
retrieve, and negative scores, which it ranks below those), judgments in any order (compat breaks the
ideal's remaining ties by it), negative grades, and queries on one side only.
"""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from judged import ir_measures as shim

ir_measures = pytest.importorskip("ir_measures")

QIDS = ("1", "2", "3")
DOCIDS = ("d0", "d1", "d2", "d3", "d4", "d5", "D", "a", "10")
SCORES = st.sampled_from([0.0, 1.0, 2.0, -1.0, 0.5])
COMPAT = ("Compat", "Compat(p=0.5)", "Compat(p=0.8,normalize=False)", "Compat(normalize=False)", "Compat(p=1.0)")
ACCURACY = ("Accuracy", "Accuracy(rel=2)", "Accuracy@3", "Accuracy(rel=2)@2")


@st.composite
def collections(draw):
    """``(run, qrels)`` as dicts: every ranking non-empty (ir_measures' compat divides by zero on an empty one
    without relevant judgments), judgments in drawn order."""
    run_side = draw(st.sets(st.sampled_from(QIDS), min_size=1))
    qrels_side = draw(st.sets(st.sampled_from(QIDS), min_size=1))
    run, qrels = {}, {}
    for q in draw(st.permutations(QIDS)):
        if q in run_side:
            docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=1, max_size=8, unique=True))
            run[q] = {d: draw(SCORES) for d in docs}
        if q in qrels_side:
            docs = draw(st.lists(st.sampled_from(DOCIDS), min_size=1, max_size=8, unique=True))
            qrels[q] = {d: draw(st.integers(-1, 3)) for d in docs}
    return run, qrels


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) or (math.isnan(a) and math.isnan(b))


def compare(name: str, qrels: dict, run: dict) -> None:
    theirs_measure, mine_measure = ir_measures.parse_measure(name), shim.parse_measure(name)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = ir_measures.calc_aggregate([theirs_measure], qrels, run)[theirs_measure]
            their_rows = {x.query_id: x.value for x in ir_measures.iter_calc([theirs_measure], qrels, run)}
    except ZeroDivisionError:  # accuracy: a top k all relevant (judged scores 1, tested below)
        assume(False)
    mine = shim.calc_aggregate([mine_measure], qrels, run)[mine_measure]
    my_rows = {x.query_id: x.value for x in shim.iter_calc([mine_measure], qrels, run)}
    assert my_rows.keys() == their_rows.keys()
    assert {q: (my_rows[q], their_rows[q]) for q in their_rows if not close(my_rows[q], their_rows[q])} == {}
    assert close(mine, theirs), (mine, theirs)


@pytest.mark.filterwarnings("ignore::UserWarning")  # runs that retrieve no judged document, as drawn
@settings(max_examples=150, deadline=None)
@given(collections(), st.sampled_from(COMPAT + ACCURACY))
def test_same_metrics_and_aggregates_as_ir_measures(collection, name):
    run, qrels = collection
    compare(name, qrels, run)


def test_the_provider_tests_of_ir_measures():
    """ir_measures' tests/test_providers.py for its compat and accuracy providers (the file also needs
    trectools, which judged.ir_measures does not offer)."""
    qrels = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0}, "1": {"D0": 1, "D3": 2, "D5": 2}}
    run = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
           "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4}}
    partial_qrels, partial_run = {"0": qrels["0"]}, {"0": run["0"]}
    compat, accuracy = shim.Compat(p=0.8), shim.Accuracy()
    assert set(shim.compat.iter_calc([compat], qrels, {})) == {shim.Metric("0", compat, 0.0),
                                                               shim.Metric("1", compat, 0.0)}
    assert set(shim.accuracy.iter_calc([accuracy], qrels, {})) == set()
    rows = {m.query_id: m.value for m in shim.compat.iter_calc([compat], qrels, partial_run)}
    assert rows == {"0": pytest.approx(0.4744431703672816, abs=1e-12), "1": 0.0}
    assert set(shim.accuracy.iter_calc([accuracy], qrels, partial_run)) == {shim.Metric("0", accuracy, 0.5)}
    assert list(shim.compat.iter_calc([compat], {}, run)) == list(shim.accuracy.iter_calc([accuracy], {}, run)) == []
    assert shim.compat.calc_aggregate([compat], qrels, partial_run)[compat] == pytest.approx(0.2372215851836408)
    assert math.isnan(shim.accuracy.calc_aggregate([accuracy], qrels, {})[accuracy])
    assert shim.accuracy.calc_aggregate([accuracy], partial_qrels, run)[accuracy] == 0.5
    assert math.isnan(shim.compat.calc_aggregate([compat], {}, {})[compat])


def test_the_default_pipeline_sends_them_to_their_providers():
    qrels, run = {"q": {"a": 2, "b": 1}}, {"q": {"b": 2.0, "a": 1.0, "n": 0.5}}
    # ranking b, a, n; ideal a, b: Compat(p=0.5) sums 0 + 0.5 * 2/2 + 0.25 * 2/3 = 2/3 of the ideal's
    # 1 + 0.5 + 0.25 * 2/3 = 5/3, so 0.4; Accuracy(rel=2): only a is relevant, b (grade 1) above it and n below:
    # 1 - 1 / (1 * 2) = 0.5
    got = shim.calc_aggregate([shim.Compat(p=0.5), shim.Accuracy(rel=2) @ 10], qrels, run)
    assert got[shim.Compat(p=0.5)] == pytest.approx(0.4, abs=1e-15)
    assert got[shim.Accuracy(rel=2) @ 10] == 0.5
    assert str(shim.parse_measure("Compat(p=0.95,normalize=True)")) == "Compat"


def test_an_all_relevant_top_k_scores_1_where_ir_measures_divides_by_zero():
    qrels, run = {"q": {"a": 1, "b": 1}}, {"q": {"a": 2.0, "b": 1.0, "n": 0.5}}
    assert shim.accuracy.calc_aggregate([shim.Accuracy @ 2], qrels, run)[shim.Accuracy @ 2] == 1.0
    with pytest.raises(ZeroDivisionError):
        list(ir_measures.accuracy.iter_calc([ir_measures.Accuracy @ 2], qrels, run))


def test_accuracy_under_rel_0_is_refused_with_the_reason():
    with pytest.raises(shim.UsageError if hasattr(shim, "UsageError") else ValueError, match="unjudged"):
        shim.accuracy.calc_aggregate([shim.Accuracy(rel=0)], {"q": {"a": 1}}, {"q": {"a": 1.0}})


# ---- the ir_measures preset (judged eval --preset ir_measures) ----

PRESET_PAIRS = {"Compat(p=0.95)": "Compat", "Compat(p=0.5)": "Compat(p=0.5)",
                "Compat_raw(p=0.8)": "Compat(p=0.8,normalize=False)", "Accuracy": "Accuracy",
                "Accuracy(rel=2)@3": "Accuracy(rel=2)@3"}


@st.composite
def preset_collections(draw):
    """As :func:`collections`, the scores positive and distinct within a query: where the preset's ideal (the run's
    order) is compat's (score, then the judgments' order; a document not retrieved at 0)."""
    run, qrels = draw(collections())
    return {q: {d: float(i + 1) for i, d in enumerate(draw(st.permutations(list(docs))))}
            for q, docs in run.items()}, qrels


@pytest.mark.filterwarnings("ignore::UserWarning")
@settings(max_examples=60, deadline=None)
@given(preset_collections())
def test_the_preset_gives_ir_measures_numbers(collection):
    import judged
    from judged import presets

    run, qrels = collection
    assume(run.keys() & qrels.keys())  # judged refuses a run that shares no query with the judgments
    mapped, options = presets.apply("ir_measures", list(PRESET_PAIRS))
    result = judged.evaluate(run, qrels, mapped, **options)
    for text, measure in zip(PRESET_PAIRS, mapped):
        assert presets.get("ir_measures").library_measure(text) == PRESET_PAIRS[text]
        theirs_measure = ir_measures.parse_measure(PRESET_PAIRS[text])
        try:
            theirs = {m.query_id: m.value for m in ir_measures.iter_calc([theirs_measure], qrels, run)}
        except ZeroDivisionError:
            continue
        mine = {q: float(v) for q, v in zip(result.qids, result.values[measure]) if not math.isnan(v)}
        assert mine.keys() == theirs.keys(), text
        assert all(close(mine[q], theirs[q]) for q in theirs), (text, mine, theirs)
