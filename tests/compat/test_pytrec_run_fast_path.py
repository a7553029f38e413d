"""The prepared evaluator's fast path (the run flattened in C, nothing left to check) gives the bits the checked
Python path gives: the same run, scores, NaN count and values."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judged import pytrec_eval as shim
from judged.pytrec_eval import values

_ids = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6)
_scores = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**60), 2**60),
                    st.floats(min_value=3e38, max_value=1e300), st.booleans())
_runs = st.dictionaries(_ids, st.dictionaries(_ids, _scores, max_size=8), max_size=5)


def _plain(call, *args):
    """``call(*args)`` with the C flattening unavailable: the checked Python path."""
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(values, "flatten_nested", lambda *unused: None)
        return call(*args)


@settings(max_examples=200, deadline=None)
@given(_runs)
def test_the_flattened_run_is_the_checked_one(scores):
    fast, fast_nans = values.pytrec_run(scores)
    plain, plain_nans = _plain(values.pytrec_run, scores)
    assert fast_nans == plain_nans == sum(1 for docs in scores.values() for s in docs.values() if s != s)
    assert fast.frame.equals(plain.frame) and fast.blocks[0].equals(plain.blocks[0])
    assert fast.blocks[1].tolist() == plain.blocks[1].tolist()


@settings(max_examples=60, deadline=None)
@given(_runs, st.dictionaries(_ids, st.dictionaries(_ids, st.integers(0, 3), min_size=1, max_size=6), min_size=1,
                              max_size=5))
def test_the_evaluator_answers_the_same_bits_either_way(scores, qrels):
    evaluator = shim.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5", "recip_rank"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = evaluator.evaluate(scores)
        plain = _plain(evaluator.evaluate, scores)
    assert fast.keys() == plain.keys()
    for qid in fast:
        assert {k: v for k, v in fast[qid].items() if not math.isnan(v)} == \
            {k: v for k, v in plain[qid].items() if not math.isnan(v)}


def test_a_score_past_float32_becomes_inf_on_both_paths():
    scores = {"q1": {"d1": 1e300, "d2": -1e300, "d3": 2**60, "d4": True}}
    fast, _ = values.pytrec_run(scores)
    assert fast.frame["score"].to_list() == [np.inf, -np.inf, float(np.float32(2**60)), 1.0]
    assert fast.frame.equals(_plain(values.pytrec_run, scores)[0].frame)
