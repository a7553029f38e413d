"""pt.Experiment with its ir_measures switched to judged.ir_measures prints the real library's table.

Columns (and perquery's rows) are compared in sorted order: within one
provider ir_measures orders its measures as a Python set does, by the hash seed.
"""

from __future__ import annotations

import sys

import ir_measures
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pandas.testing import assert_frame_equal

from judged import ir_measures as shim

pt = pytest.importorskip("pyterrier")
evaluation = pytest.importorskip("pyterrier._evaluation")
from pyterrier._evaluation import _exec_tree, _execution, _grid, _rendering, _validation  # noqa: E402

QRELS = pd.DataFrame({"qid": ["1", "1", "1", "2", "2", "3"], "docno": ["d1", "d2", "d3", "d1", "d4", "d9"],
                      "label": [1, 0, 2, 0, 1, 1]})
TOPICS = pd.DataFrame({"qid": ["1", "2", "3"], "query": ["a", "b", "c"]})
MEASURES = ("map", "ndcg_cut_10", "P_5", "recip_rank", "num_q", "num_rel", "set_relative_P", "Rprec",
            "RR@10", "Judged@5", "ERR@10", "nDCG(dcg='exp-log2')@5", "SDCG(max_rel=2)@5", "INST(max_rel=2)")


def results(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
    """A PyTerrier result frame: qid, docno, score, rank and docid, the index's integer."""
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    frame["docid"] = range(len(frame))
    frame["rank"] = frame.groupby("qid").cumcount()
    return frame


FIRST = results([("1", "d2", 2.0), ("1", "d1", 2.0), ("1", "d3", 1.0), ("2", "d4", 1.0), ("2", "d1", 1.0),
                 ("3", "d5", 0.5)])
SECOND = results([("1", "d3", 3.0), ("1", "d1", 1.0), ("2", "d1", 2.0), ("2", "d4", 1.0), ("3", "d9", 0.1)])


def assert_same_table(mine: pd.DataFrame, theirs: pd.DataFrame) -> None:
    """Equal tables up to the order of measures (set order in ir_measures)."""
    if "measure" in theirs.columns:
        mine, theirs = (t.sort_values(["name", "qid", "measure"]).reset_index(drop=True) for t in (mine, theirs))
    assert_frame_equal(mine, theirs, check_exact=False, check_like=True, rtol=1e-12, atol=1e-12)


@pytest.fixture
def switched(monkeypatch):
    """PyTerrier's evaluation modules reading judged.ir_measures wherever they name ir_measures."""
    def switch():
        monkeypatch.setitem(sys.modules, "ir_measures", shim)
        for module in (_execution, _exec_tree, _validation):
            monkeypatch.setattr(module, "ir_measures", shim)
        for module in (_execution, _rendering, evaluation, _grid):
            monkeypatch.setattr(module, "Measure", shim.Measure)
    return switch


def measures(library) -> list:
    """MEASURES as strings for trec_eval names and as the library's own objects for its names."""
    return [m if "(" not in m and "@" not in m else library.parse_measure(m) for m in MEASURES]


def both(switched, systems, **options) -> tuple[pd.DataFrame, pd.DataFrame]:
    theirs = pt.Experiment(systems, TOPICS, QRELS, measures(ir_measures), names=["a", "b"][:len(systems)],
                           **options)
    switched()
    mine = pt.Experiment(systems, TOPICS, QRELS, measures(shim), names=["a", "b"][:len(systems)], **options)
    return theirs, mine


@pytest.mark.parametrize("options", [{}, {"perquery": True}, {"baseline": 0}, {"batch_size": 1},
                                     {"baseline": 0, "correction": "bonferroni"}], ids=str)
def test_experiment_tables_equal_the_real_librarys(switched, options):
    systems = [pt.Transformer.from_df(FIRST), SECOND] if "batch_size" not in options else \
        [pt.Transformer.from_df(FIRST), pt.Transformer.from_df(SECOND)]
    theirs, mine = both(switched, systems, **options)
    assert_same_table(mine, theirs)


def test_the_minimal_docid_case_scores_as_ir_measures_does(switched):
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0], "docid": [0, 1]})
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [1, 0]})
    assert shim.calc_aggregate([shim.AP, shim.P@1], qrels, run) == {shim.AP: 1.0, shim.P@1: 1.0}


@st.composite
def pyterrier_runs(draw):
    """Two result frames over queries 1..3 with ties, and a query of the topics left unanswered by one."""
    frames = []
    for _ in range(2):
        rows = []
        for qid in draw(st.lists(st.sampled_from(["1", "2", "3"]), min_size=1, max_size=3, unique=True)):
            docs = draw(st.lists(st.sampled_from(["d1", "d2", "d3", "d4", "d5", "d9"]), min_size=1, max_size=5,
                                 unique=True))
            rows += [(qid, d, draw(st.sampled_from([0.5, 1.0, 2.0]))) for d in docs]
        frames.append(results(rows))
    return frames


@settings(max_examples=8, deadline=None)
@given(pyterrier_runs(), st.sampled_from([{}, {"perquery": True}, {"baseline": 0}]))
def test_experiment_over_generated_runs(frames, options):
    with pytest.MonkeyPatch.context() as patch:
        theirs = pt.Experiment(frames, TOPICS, QRELS, measures(ir_measures), names=["a", "b"], **options)
        patch.setitem(sys.modules, "ir_measures", shim)
        for module in (_execution, _exec_tree, _validation):
            patch.setattr(module, "ir_measures", shim)
        for module in (_execution, _rendering, evaluation, _grid):
            patch.setattr(module, "Measure", shim.Measure)
        mine = pt.Experiment(frames, TOPICS, QRELS, measures(shim), names=["a", "b"], **options)
    assert_same_table(mine, theirs)
