"""The floor under every judging strategy (judged.analysis.floor) against the fewest judgments found by brute force.

For small collections with known grades, every subset of the pool is judged
(with its true grades) and settled by :func:`judged.analysis.settle.settle`;
the smallest subsets that settle each pair, and all pairs, are what no
strategy can beat. The floor must never exceed them.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import judged
from judged.analysis.floor import proof_floor
from judged.analysis.settle import settle
from judged.errors import UsageError

DOCS = tuple(f"d{i}" for i in range(6))


@st.composite
def collections(draw):
    """Runs with ties, a cutoff, a gain, and the true grade (0..2) of every pooled document."""
    qids = ("q1", "q2")[: draw(st.integers(1, 2))]
    runs = []
    for _ in range(draw(st.integers(2, 3))):
        runs.append({qid: {d: float(draw(st.integers(0, 3)))
                           for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=4, unique=True))}
                     for qid in qids})
    cutoff = draw(st.sampled_from([1, 2, 3, None]))
    gain = draw(st.sampled_from(["linear", "exp"]))
    measure = f"nDCG(gain={gain})" + ("" if cutoff is None else f"@{cutoff}")
    truth = {}
    for qid in qids:
        docs = sorted({d for run in runs for d in run[qid]})
        truth[qid] = {d: draw(st.integers(0, 2)) for d in docs}
    return runs, truth, measure


def _fewest(runs, truth, measure):
    """Per pair (a, b), and for all pairs, the size of the smallest judged subset that settles it (brute force)."""
    pool = [(qid, d) for qid, docs in truth.items() for d in docs]
    named = [judged.read_run(run, name=f"r{i}") for i, run in enumerate(runs)]
    per_pair: dict[tuple[str, str], int] = {}
    every = None
    for size in range(len(pool) + 1):
        for chosen in itertools.combinations(pool, size):
            judged_now = {qid: {d: (g if (qid, d) in chosen else -1) for d, g in docs.items()}
                          for qid, docs in truth.items()}
            s = settle(named, judged_now, measure, pool=pool, grades=range(3), samples=0, count_matter=False)
            for p in s.pairs:
                if p.settled:
                    per_pair.setdefault((p.a, p.b), size)
            if every is None and s.stopping.fires:
                every = size
        if every is not None:
            break
    return per_pair, every


@settings(max_examples=30, deadline=None)
@given(collections())
def test_no_set_of_judgments_below_the_floor_settles_a_pair(case):
    runs, truth, measure = case
    assume(sum(len(docs) for docs in truth.values()) <= 7)  # the brute force judges at most 2^7 subsets
    named = [judged.read_run(run, name=f"r{i}") for i, run in enumerate(runs)]
    floor = proof_floor(named, truth, measure, grades=range(3))
    per_pair, every = _fewest(runs, truth, measure)
    assert every is not None  # judging everything settles everything
    for a, b, fewest in floor.pairs:
        assert fewest <= per_pair[(a, b)]
    assert floor.joint <= every and floor.judgments <= every
    assert floor.judgments == max([floor.joint, *(f for _, _, f in floor.pairs)])


def test_a_swapped_pair_needs_both_documents():
    # A ranks a, b; B ranks b, a; truth a = 2, b = 0 on nDCG@2, grades 0..2; c = 1 - 1/log2(3) = 0.369 is a's
    # coefficient in DCG_A - DCG_B and -c is b's. Against a = 0, b = 2 the numerator is -2c; judging a (true 2)
    # adds 2c, judging b (true 0) adds 2c: one judgment brings it to 0 (a tie, not settled), both to 2c > 0
    runs = [judged.read_run({"q": {"a": 2.0, "b": 1.0}}, name="A"),
            judged.read_run({"q": {"b": 2.0, "a": 1.0}}, name="B")]
    floor = proof_floor(runs, {"q": {"a": 2, "b": 0}}, "nDCG@2", grades=range(3))
    assert floor.pairs == (("A", "B", 2),)
    # both ends of the least ideal are empty (a and b at gain 0), so the programme's chords give no bound
    assert floor.joint == 0 and floor.judgments == 2


def test_a_pair_tied_under_the_true_grades_is_left_out():
    runs = [judged.read_run({"q": {"a": 2.0, "b": 1.0}}, name="A"),
            judged.read_run({"q": {"a": 2.0, "b": 1.0}}, name="B")]
    floor = proof_floor(runs, {"q": {"a": 1, "b": 0}}, "nDCG@2")
    assert floor.pairs == () and floor.judgments == 0


def test_grades_outside_the_domain_and_empty_truths_are_refused():
    runs = [judged.read_run({"q": {"a": 1.0}}, name="A"), judged.read_run({"q": {"b": 1.0}}, name="B")]
    with pytest.raises(UsageError, match="grade domain"):
        proof_floor(runs, {"q": {"a": 3, "b": 0}}, "nDCG@2", grades=range(3))
    with pytest.raises(UsageError, match="at least one"):
        proof_floor(runs, {"q": {}}, "nDCG@2")
    with pytest.raises(UsageError, match="derived for nDCG"):
        proof_floor(runs, {"q": {"a": 1, "b": 0}}, "P@2")
