"""ties=docid ranks tied scores by docid ascending, as Python's sort (ir_measures' msmarco provider) does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import judged

DOCS = st.lists(st.sampled_from(["a", "b", "c", "d", "10", "9", "B"]), min_size=1, max_size=7, unique=True)


@settings(max_examples=60, deadline=None)
@given(DOCS, st.data())
def test_rr_under_docid_ties_is_the_reciprocal_rank_of_pythons_order(docs, data):
    scores = {d: data.draw(st.sampled_from([0.0, 1.0, 2.0])) for d in docs}
    relevant = data.draw(st.sampled_from(docs))
    ranked = [d for d, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0]))]
    found = judged.evaluate({"q": scores}, {"q": {relevant: 1}}, ["RR(ties=docid)@3", "RR(ties=docid)"])
    expected = 1 / (ranked.index(relevant) + 1)
    assert list(found.aggregate.values()) == [expected if expected >= 1 / 3 else 0.0, expected]


def test_docid_ties_against_trec_ties():
    run, qrels = {"q": {"b": 1.0, "a": 1.0, "c": 2.0}}, {"q": {"a": 1}}
    found = judged.evaluate(run, qrels, ["RR(ties=docid)@10", "RR@10"])
    assert list(found.aggregate.values()) == [0.5, 1 / 3]
