"""A Result is read-only to its callers: values, aggregates, counts and provenance cannot drift from each other."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

import judged
from judged.frozen import FrozenDict

RUN = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
QRELS = {"q1": {"b": 1}, "q2": {"c": 2}}


@pytest.fixture
def result():
    return judged.evaluate(RUN, QRELS, ["RR", "nDCG@10"])


def test_per_query_values_cannot_be_written(result):
    rr = judged.parse("RR")
    with pytest.raises(ValueError, match="read-only"):
        result.values[rr][0] = 1.0
    with pytest.raises(TypeError, match="read-only"):
        result.values[rr] = np.ones(2)
    assert result.value("RR", "q1") == 0.5 and result.values[rr].tolist() == [0.5, 1.0]


@pytest.mark.parametrize("part", ["aggregate", "counts", "provenance"])
def test_every_mapping_refuses_every_change(result, part):
    mapping = getattr(result, part)
    key = next(iter(mapping))
    for change in (lambda: mapping.__setitem__(key, 0), lambda: mapping.pop(key), mapping.clear,
                   lambda: mapping.update({}), lambda: mapping.setdefault(key, 0), mapping.popitem,
                   lambda: mapping.__delitem__(key)):
        with pytest.raises(TypeError, match=r"read-only .* copy it with dict"):
            change()
    assert key in mapping


def test_provenance_is_frozen_all_the_way_down_and_still_plain_data(result):
    nested = [value for value in result.provenance.values() if isinstance(value, dict)]
    assert nested and all(isinstance(value, FrozenDict) for value in nested)
    with pytest.raises(TypeError):
        nested[0][next(iter(nested[0]))] = "changed"
    assert json.loads(json.dumps(result.provenance)) == json.loads(json.dumps(dict(result.provenance)))


def test_a_frozen_result_pickles_and_copies(result):
    again = pickle.loads(pickle.dumps(result))
    assert again.aggregate == result.aggregate and isinstance(again.provenance, FrozenDict)
    assert copy.deepcopy(result.provenance) is result.provenance
    with pytest.raises(TypeError):
        again.provenance["judged"] = "x"
    mutable = dict(result.aggregate)
    mutable[judged.parse("RR")] = 0.0  # a copy is the caller's own
    assert result.value("RR") == 0.75
