"""The running sums every DCG reads: each query added left to right on its own, in C and without it alike."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import judged
import judged.measures.views as views
from judged.io.native import _native

lengths = st.lists(st.sampled_from([0, 1, 2, 3, 7, 40, 300]), min_size=1, max_size=25)
finite = st.floats(-1e6, 1e6, allow_nan=False, width=64)


def by_query(offsets, values):
    """The reference: np.add.accumulate of each query's slice on its own (sequential, left to right)."""
    parts = [np.add.accumulate(values[offsets[q]:offsets[q + 1]]) for q in range(len(offsets) - 1)]
    return np.concatenate(parts) if parts else np.zeros(0)


@settings(max_examples=150, deadline=None)
@given(sizes=lengths, data=st.data())
def test_native_and_padded_sums_are_each_querys_own_bits(sizes, data, monkeypatch_module):
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    values = np.array(data.draw(st.lists(finite, min_size=int(offsets[-1]), max_size=int(offsets[-1]))))
    expected = by_query(offsets, values).tobytes()
    with monkeypatch_module.context() as patched:
        patched.setattr(views, "_native", None)
        assert views.running_sums(offsets, values).tobytes() == expected
    if _native is not None:
        assert views.running_sums(offsets, values).tobytes() == expected


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_worked_sums():
    """Queries [1, 2], [], [5, -0.5, 4]: 1, 3 | 5, 4.5, 8.5 (the empty query adds nothing)."""
    got = views.running_sums(np.array([0, 2, 2, 5]), np.array([1.0, 2.0, 5.0, -0.5, 4.0]))
    assert got.tolist() == [1.0, 3.0, 5.0, 4.5, 8.5]


@pytest.mark.parametrize("offsets", [[0, 2], [1, 3], [0, 2, 1, 3], []])
def test_offsets_that_do_not_cover_the_values_are_refused(offsets, monkeypatch):
    """Both paths refuse them alike (the C one checks again before it reads memory)."""
    for native in (_native, None):
        monkeypatch.setattr(views, "_native", native)
        with pytest.raises(ValueError, match="offsets must rise from 0"):
            views.running_sums(np.array(offsets, dtype=np.int64), np.zeros(3))


@pytest.mark.skipif(_native is None, reason="the C extension is not built")
def test_the_c_sums_check_their_offsets_too():
    with pytest.raises(ValueError, match="offsets do not cover"):
        _native.running_sums(np.zeros(3), np.array([0, 2], dtype=np.int64))
    with pytest.raises(ValueError, match="offsets decrease"):
        _native.running_sums(np.zeros(3), np.array([0, 2, 1, 3], dtype=np.int64))


@settings(max_examples=60, deadline=None)
@given(grades=st.lists(st.integers(0, 3), min_size=1, max_size=60), unjudged=st.integers(0, 500),
       native=st.booleans())
def test_the_ideal_ranking_then_unjudged_documents_is_exactly_one(grades, unjudged, native, monkeypatch_module):
    """DCG of the ideal order followed by unjudged documents adds IDCG's terms in IDCG's order: exactly 1.0
    (the query beside five of one document each: past 10 rows, 6 x its length passes four times the 5 + length
    rows, so the padded fallback splits the six queries into two groups)."""
    ranked = sorted(grades, reverse=True)
    run = {"q": {f"d{i}": float(-i) for i in range(len(ranked) + unjudged)}, **{f"s{j}": {"x": 1.0} for j in range(5)}}
    qrels = {"q": {f"d{i}": g for i, g in enumerate(ranked)}, **{f"s{j}": {"x": 1} for j in range(5)}}
    if not any(ranked):
        return
    with monkeypatch_module.context() as patched:
        if not native:
            patched.setattr(views, "_native", None)
        result = judged.evaluate(run, qrels, ["nDCG", "nDCG@10", "nDCG@1000"])
    for m in result.measures:
        assert result.values[m].tolist() == [1.0] * 6, m
