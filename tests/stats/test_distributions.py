"""Distributions: quantiles, weak-query share, worst queries, biggest changes, cutoff curves."""

from __future__ import annotations

import numpy as np
import pytest

import judged
from judged.stats.distributions import changes, cutoff_curve, summarize

QRELS = {f"q{i}": {"rel": 1} for i in range(5)}
# the relevant document sits at rank i+1 in query q{i}: RR = 1, 1/2, 1/3, 1/4, 1/5
RUN = {f"q{i}": {**{f"n{j}": 10.0 - j for j in range(i)}, "rel": 10.0 - i} for i in range(5)}
BASE = {f"q{i}": {"rel": 10.0} for i in range(5)}  # the baseline always finds it first


def test_summary_by_hand():
    r = judged.evaluate(RUN, QRELS, ["RR"])
    s = summarize(r, "RR", threshold=0.3, worst=2)
    values = [1, 1 / 2, 1 / 3, 1 / 4, 1 / 5]
    assert s.queries == 5 and s.mean == pytest.approx(np.mean(values))
    assert s.median == pytest.approx(1 / 3)
    assert s.p10 == pytest.approx(np.percentile(values, 10)) and s.p90 == pytest.approx(np.percentile(values, 90))
    assert s.share_below == pytest.approx(2 / 5)  # 1/4 and 1/5
    assert s.worst == (("q4", pytest.approx(0.2)), ("q3", pytest.approx(0.25)))


def test_changes_against_a_baseline():
    r, b = judged.evaluate(RUN, QRELS, ["RR"]), judged.evaluate(BASE, QRELS, ["RR"])
    c = changes(r, b, "RR", n=2)
    assert c.queries == 5 and [q for q, _ in c.lost] == ["q4", "q3"]
    assert c.lost[0][1] == pytest.approx(1 / 5 - 1) and c.gained == ()
    assert [q for q, _ in changes(b, r, "RR", n=3).gained] == ["q4", "q3", "q2"]


def test_cutoff_curve_is_one_evaluation_per_cutoff():
    curve = cutoff_curve(RUN, QRELS, "R", [1, 2, 3, 5])
    assert curve == {1: pytest.approx(1 / 5), 2: pytest.approx(2 / 5), 3: pytest.approx(3 / 5), 5: pytest.approx(1.0)}
    with pytest.raises(judged.UsageError, match="without a cutoff"):
        cutoff_curve(RUN, QRELS, "R@5")


def test_unknown_measure_for_a_result():
    r = judged.evaluate(RUN, QRELS, ["RR"])
    with pytest.raises(judged.UsageError, match="was not evaluated"):
        summarize(r, "AP")
