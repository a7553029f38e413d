"""The strategies that choose what to judge next, and the bound-driven greedy's promise.

The promise is checked against brute force (the oracle of test_settle_bounds):
a proposed document can change some open pair's range under some grade, and
the stopping rule's "could still matter" count is exactly the number of such
documents.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from test_settle_bounds import _settle, can_change, cases, oracle

import judged
from judged.analysis.selection import BoundDriven, DepthOrder, MaxMeanBandit, MoveToFront, next_documents


@settings(max_examples=60, deadline=None)
@given(cases())
def test_the_greedy_proposes_only_documents_that_can_change_an_open_bound(case):
    runs, qrels, measure, cutoff, pool = case
    s = _settle(runs, qrels, measure, pool)
    truth = oracle(runs, qrels, measure, cutoff, pool)
    proposed = next_documents(s, 100)
    assert all(score > 0 and can_change(truth, s, qid, docid) for qid, docid, score in proposed)
    able = sum(can_change(truth, s, qid, docid) for qid in s.qids for docid in truth[qid][0])
    assert s.stopping.could_matter == able == len(proposed)
    assert s.stopping.fires == (not any(not p.settled for p in s.pairs))
    if s.stopping.fires:
        assert proposed == []


def test_proposals_are_grouped_by_query_best_first(examples):
    runs = [examples / "runs" / f"{n}.run" for n in ("bm25", "naive")]
    s = judged.analysis.settle.settle(runs, examples / "qrels.txt", "nDCG@10")
    proposed = next_documents(s, 12)
    assert len(proposed) == 12
    qids = [qid for qid, _, _ in proposed]
    assert all(qids.index(q) == i or qids[i - 1] == q for i, q in enumerate(qids))  # each query's block together
    best = [score for qid, _, score in proposed if qids.index(qid) == proposed.index((qid, _, score))]
    assert best == sorted(best, reverse=True)
    scores = [score for _, _, score in proposed]
    for qid in set(qids):
        mine = [sc for q, _, sc in proposed if q == qid]
        assert mine == sorted(mine, reverse=True)
    assert max(scores) == proposed[0][2]


def _two_runs():
    x = judged.read_run({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"e": 2.0, "f": 1.0}}, name="x")
    y = judged.read_run({"q1": {"c": 3.0, "d": 2.0, "a": 1.0}, "q2": {"f": 2.0, "g": 1.0}}, name="y")
    return [x, y]


def test_depth_order_walks_the_pool_rank_by_rank():
    depth = DepthOrder(_two_runs())
    assert depth.propose({}, 100) == [("q1", "a"), ("q1", "c"), ("q2", "e"), ("q2", "f"),
                                      ("q1", "b"), ("q1", "d"), ("q2", "g")]
    assert depth.depth_pool(1) == 4 and depth.depth_pool(2) == 7


def test_move_to_front_keeps_a_run_at_the_front_while_it_finds_relevant_documents():
    mtf = MoveToFront(_two_runs())
    judged_so_far: dict = {}
    assert mtf.propose(judged_so_far, 10) == [("q1", "a"), ("q2", "e")]  # run x is at the front
    judged_so_far.update({("q1", "a"): 2, ("q2", "e"): 0})
    # q1: a was relevant, x keeps the front (b); q2: e was not, y takes the front (f)
    assert mtf.propose(judged_so_far, 10) == [("q1", "b"), ("q2", "f")]


def test_max_mean_bandit_pulls_the_arm_with_the_best_record():
    bandit = MaxMeanBandit(_two_runs())
    judged_so_far = {("q1", "b"): 0, ("q1", "c"): 2}
    # x's judged documents b: 0, c: 2 score (1 + 1) / (2 + 2) = 0.5; y's c: 2 scores (1 + 1) / (2 + 1) = 0.67: y gives d
    assert bandit.propose(judged_so_far, 1) == [("q1", "d")]


def test_bound_driven_batches_one_query_and_stops_when_everything_is_settled():
    runs = _two_runs()
    pool = [("q1", d) for d in "abcd"] + [("q2", d) for d in "efg"]
    greedy = BoundDriven(runs, "nDCG@3", pool, grades=range(3), batch=2)
    first = greedy.propose({})
    assert 1 <= len(first) <= 2 and len({qid for qid, _ in first}) == 1
    truth = {("q1", "a"): 2, ("q1", "b"): 0, ("q1", "c"): 0, ("q1", "d"): 1, ("q2", "e"): 1, ("q2", "f"): 0,
             ("q2", "g"): 0}
    judged_so_far: dict = {}
    for _ in range(10):
        proposed = greedy.propose(judged_so_far)
        if not proposed:
            break
        judged_so_far.update({pair: truth[pair] for pair in proposed})
    assert greedy.settlement(judged_so_far).stopping.fires
    assert greedy.propose(judged_so_far) == []


def test_bound_driven_weighs_each_grade_by_its_frequency_among_the_judgments_plus_one():
    runs = _two_runs()
    pool = [("q1", d) for d in "abcd"] + [("q2", d) for d in "efg"]
    greedy = BoundDriven(runs, "nDCG@3", pool, grades=range(3))
    judged_so_far = {("q1", "a"): 2, ("q1", "b"): 0}
    chances = greedy.chances(greedy.settlement(judged_so_far), judged_so_far)
    # grades 0, 1, 2 seen 1, 0, 1 times: (1 + 1, 0 + 1, 1 + 1) / 5, the same for every unjudged document
    assert [c.shape for c in chances] == [(2, 3), (3, 3)]
    assert all(np.allclose(row, [0.4, 0.2, 0.4]) for c in chances for row in c)
