"""DCG, RBP and their kin read only the rows with a gain; the values are those of the sums over every row.

The reference below is the definition written out over every retrieved row, each query added left to right
on its own (np.add.accumulate): judged's kernels skip the rows that gain 0 (unjudged, pooled but unjudged,
or a grade the gain map sends to 0), which changes no sum, so DCG@k and RBP agree with it to the bit.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from judged.engine.ranking import build_view
from judged.io.inputs import Qrels, Run
from judged.measures import parse
from judged.measures.gains import discounts, judged_gains

# a few queries of up to 30 documents: scores with ties, grades -1 (pooled, unjudged) to 3, some unjudged
documents = st.lists(st.tuples(st.integers(0, 6).map(float), st.sampled_from([None, None, -1, 0, 1, 2, 3])),
                     min_size=0, max_size=30)
collections = st.lists(documents, min_size=1, max_size=5)
gains = st.sampled_from(["linear", "exp", "{0:0,1:0.5,2:0,3:4}", "{0:1,1:2,2:3,3:3}", "{1:-1,2:2}"])


def build(collection):
    run = {f"q{q}": {f"d{i}": score for i, (score, _) in enumerate(docs)} for q, docs in enumerate(collection)}
    qrels = {f"q{q}": {f"d{i}": grade for i, (_, grade) in enumerate(docs) if grade is not None}
             for q, docs in enumerate(collection)}
    qrels = {q: g for q, g in qrels.items() if g} or {"q0": {"zz": 1}}
    return build_view(Run.from_dict(run), Qrels.from_dict(qrels))


def by_query(view, per_row):
    """Each query's running sum of ``per_row`` over all its rows, left to right."""
    return [np.add.accumulate(per_row[view.offsets[q]:view.offsets[q + 1]]) for q in range(view.num_queries)]


def read_at(running, depth):
    return running[min(depth, len(running)) - 1] if depth > 0 and len(running) else 0.0


@settings(max_examples=200, deadline=None)
@given(collection=collections, gain=gains, k=st.integers(1, 40))
def test_dcg_at_k_is_the_sum_over_every_row_bit_for_bit(collection, gain, k):
    view = build(collection)
    measure = parse(f"DCG(gain={gain})@{k}")
    row_gains = judged_gains(view.grade, view.judged, measure.gain)
    expected = [read_at(r, k) for r in by_query(view, row_gains * discounts(view.rank))]
    got = measure.family.kernel(view, measure)
    assert got.tobytes() == np.array(expected, dtype=np.float64).tobytes()


@settings(max_examples=200, deadline=None)
@given(collection=collections, p=st.sampled_from([0.5, 0.8, 0.9, 0.95]), k=st.one_of(st.none(), st.integers(1, 40)))
def test_rbp_is_the_sum_over_every_row_and_its_residual_the_unjudged_weight(collection, p, k):
    view = build(collection)
    cut = "" if k is None else f"@{k}"
    rbp, resid = parse(f"RBP(p={p},max_rel=3){cut}"), parse(f"RBP_resid(p={p},max_rel=3){cut}")
    weight = (1.0 - p) * p ** view.rank.astype(np.float64)
    scaled = judged_gains(view.grade, view.judged, rbp.gain) / 3.0
    depth = view.lengths if k is None else np.minimum(view.lengths, k)
    expected = [read_at(r, int(d)) for r, d in zip(by_query(view, scaled * (1.0 - p) * p ** view.rank.astype(float)),
                                                   depth, strict=True)]
    assert rbp.family.kernel(view, rbp).tobytes() == np.array(expected, dtype=np.float64).tobytes()
    unjudged = [read_at(r, int(d)) for r, d in zip(by_query(view, weight * ~view.judged), depth, strict=True)]
    beyond = 0.0 if k is None else p ** k
    residual = np.array(unjudged) + p ** depth.astype(float) - beyond
    got = resid.family.kernel(view, resid)
    np.testing.assert_allclose(got, residual, rtol=0, atol=1e-14)
    assert (got >= 0).all()  # a residual is never negative, not even by a unit in the last place
    assert (got[residual == 0] == 0).all()  # nothing unjudged and no empty rank: exactly 0
