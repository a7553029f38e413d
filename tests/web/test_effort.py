"""Pace (time per judgment) from the log's timestamps: breaks left out, figures bounded by the gaps they summarise."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judged.web.effort import MAX_GAP, Pace, pace

START = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)


def test_a_sitting_of_three_labels_then_a_lunch_break():
    times = [START + dt.timedelta(seconds=s) for s in (0, 30, 90, 90 + 3600, 90 + 3600 + 12)]
    # gaps 30, 60, 3600 (a break: over ten minutes), 12 -> median of 12, 30, 60 is 30, mean 34
    assert pace(times) == Pace(timed=3, median_seconds=30.0, mean_seconds=34.0)


def test_no_gap_no_pace():
    assert pace([]) == pace([START]) == Pace(0, None, None)
    assert pace([START, START + MAX_GAP + dt.timedelta(seconds=1)]) == Pace(0, None, None)


@given(st.lists(st.integers(min_value=0, max_value=3 * 3600), min_size=2, max_size=40))
def test_pace_summarises_exactly_the_gaps_within_the_limit(seconds):
    times = [START + dt.timedelta(seconds=s) for s in sorted(seconds)]
    gaps = [b - a for a, b in zip(sorted(seconds), sorted(seconds)[1:]) if b - a <= MAX_GAP.total_seconds()]
    result = pace(times)
    assert result.timed == len(gaps)
    if gaps:
        assert min(gaps) <= result.median_seconds <= max(gaps)
        assert min(gaps) <= result.mean_seconds <= max(gaps)
        assert result.mean_seconds == pytest.approx(sum(gaps) / len(gaps))
