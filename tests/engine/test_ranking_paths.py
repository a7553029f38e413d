"""The three ways the view ranks a run give one ranking: a run in score order (ranked in place), grouped by
query in any order (each query sorted in C, as dicts and frames come), and interleaved (a full sort)."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

import judged
from judged.engine.ranking import _by_query
from judged.io import native
from judged.io.inputs import Run

MEASURES = [f"nDCG(ties={t})@3" for t in ("trec", "input", "average", "worst", "best")] + ["AP", "RR(ties=input)"]


@st.composite
def collections(draw):
    """Rows of three queries with few distinct scores (ties), and judgments with grades -1..3."""
    rows = []
    for q in ("q1", "q2", "q3"):
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(12)]), min_size=1, max_size=10, unique=True))
        rows += [(q, d, float(draw(st.integers(0, 3)))) for d in docs]
    qrels = {q: {f"d{i}": draw(st.integers(-1, 3)) for i in range(0, 12, 2)} for q in ("q1", "q2", "q3")}
    return rows, qrels


def run_of(rows) -> Run:
    return Run.from_frame(pl.DataFrame(rows, schema=["qid", "docid", "score"], orient="row"), "r")


def round_robin(rows):
    """The rows with the queries interleaved (one row of each in turn), each query's rows in their order."""
    by_query: dict[str, list] = {}
    for row in rows:
        by_query.setdefault(row[0], []).append(row)
    queues = list(by_query.values())
    return [queue[i] for i in range(max(map(len, queues))) for queue in queues if i < len(queue)]


@settings(max_examples=150, deadline=None)
@given(collections())
def test_grouped_unsorted_interleaved_and_sorted_rank_alike(collection):
    rows, qrels = collection
    by_score = sorted(rows, key=lambda r: (r[0], -r[2]))  # stable: tied scores keep their input order
    base = judged.evaluate(run_of(rows), qrels, MEASURES)  # grouped by query, scores in no order
    for other in (by_score, round_robin(rows)):
        result = judged.evaluate(run_of(other), qrels, MEASURES)
        for m in base.measures:
            np.testing.assert_array_equal(result.values[m], base.values[m], err_msg=str(m))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 1.0, -2.5, 3.0, 1e300, -0.0]), max_size=40), max_size=8))
def test_order_by_score_is_a_stable_sort_per_query(queries):
    scores = np.array([s for q in queries for s in q], dtype=np.float64)
    lengths = np.array([len(q) for q in queries], dtype=np.int64)
    expected = np.lexsort((-scores, np.repeat(np.arange(len(queries)), lengths)))
    assert native.order_by_score(scores, lengths).tolist() == expected.tolist()


def test_order_by_score_split_among_threads_equals_one_sort():
    """Past 65,536 rows the queries are split among threads by rows (uneven lengths, empty queries): the same
    permutation as one stable sort of every query."""
    rng = np.random.default_rng(7)
    lengths = rng.integers(0, 2_000, 150).astype(np.int64)
    lengths[[0, 40, 149]] = 0
    scores = rng.integers(0, 50, int(lengths.sum())).astype(np.float64)  # many ties: stability matters
    expected = np.lexsort((-scores, np.repeat(np.arange(len(lengths)), lengths)))
    assert int(lengths.sum()) > 1 << 16
    assert native.order_by_score(scores, lengths).tolist() == expected.tolist()


@settings(max_examples=200, deadline=None)
@given(qids=st.lists(st.sampled_from(["q1", "q10", "q2", "é", "", "Q"]), max_size=30), grouped=st.booleans())
def test_judgments_grouped_by_query_are_put_in_order_as_a_full_sort_orders_them(qids, grouped):
    """Judgment rows in qid order (a stable sort of every row, or the runs of a grouped file put in order) and
    the runs of equal qids in that order: the same either way."""
    column = pl.Series(sorted(qids, key=qids.index) if grouped else qids, dtype=pl.String)
    rows, runs = _by_query(column)
    expected = column.arg_sort().to_numpy()
    assert rows.tolist() == expected.tolist()
    assert runs.to_list() == column.gather(expected).rle().to_list()
