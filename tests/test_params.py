"""Every public verb refuses a bad parameter with a judged error that is also the builtin, naming what was given."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import judged
from judged import params
from judged.errors import JudgedError, ParameterTypeError
from judged.stats.compare import compare

QRELS = {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}}
RUN_ONE = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
RUN_TWO = {"q1": {"b": 2.0, "a": 1.0}, "q2": {"x": 2.0, "c": 1.0}}


def _results():
    return [judged.evaluate(judged.Run.from_dict(r, name=n), QRELS, ["nDCG@10"])
            for n, r in (("one", RUN_ONE), ("two", RUN_TWO))]


CASES = [
    ("evaluate", lambda v: judged.evaluate(RUN_ONE, QRELS, ["P@1"], missing=v), "missing", "x", ValueError),
    ("sensitivity", lambda v: judged.sensitivity([RUN_ONE], QRELS, "nDCG@10", missing=v), "missing", "x", ValueError),
    ("compare", lambda v: compare(_results(), alpha=v), "alpha", 2, ValueError),
    ("compare", lambda v: compare(_results(), alpha=v), "alpha", "0.05", TypeError),
    ("compare", lambda v: compare(_results(), power=v), "power", 1.0, ValueError),
    ("compare", lambda v: compare(_results(), worst=v), "worst", -1, ValueError),
    ("compare", lambda v: compare(_results(), permutations=v), "permutations", 0, ValueError),
    ("compare", lambda v: compare(_results(), seed=v), "seed", -3, ValueError),
    ("compare", lambda v: compare(_results(), resamples=v), "resamples", 10.5, TypeError),
    ("value", lambda v: _results()[0].value("nDCG@10", v), "qid", "nope", ValueError),
]


@pytest.mark.parametrize(("verb", "call", "name", "bad", "builtin"), CASES,
                         ids=[f"{c[0]}-{c[2]}-{c[3]!r}" for c in CASES])
def test_a_bad_parameter_is_a_judged_error_naming_it(verb, call, name, bad, builtin):
    with pytest.raises(JudgedError) as caught:
        call(bad)
    assert isinstance(caught.value, builtin)
    assert name in str(caught.value) and repr(bad) in str(caught.value)


def test_report_refuses_a_negative_worst():
    runs = [judged.Run.from_dict(RUN_ONE, name="one"), judged.Run.from_dict(RUN_TWO, name="two")]
    with pytest.raises(ValueError, match=r"worst must be an int >= 0\. Got -1 instead\."):
        judged.report(runs, QRELS, ["nDCG@10"], permutations=99, resamples=99, worst=-1, settle_pool=None)


@given(st.one_of(st.floats(allow_nan=True), st.integers(-5, 5), st.booleans(), st.text(max_size=3), st.none()))
def test_probability_accepts_exactly_the_numbers_strictly_inside_the_unit_interval(value):
    inside = not isinstance(value, bool) and isinstance(value, int | float) and 0 < value < 1
    if inside:
        assert params.probability("alpha", value) == value
    else:
        with pytest.raises(ValueError, match="alpha"):
            params.probability("alpha", value)


@given(st.one_of(st.integers(-10, 10), st.floats(), st.booleans(), st.text(max_size=2)))
def test_count_accepts_exactly_the_ints_at_or_above_the_minimum(value):
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        assert params.count("worst", value) == value
    else:
        expected = ParameterTypeError if isinstance(value, bool) or not isinstance(value, int) else ValueError
        with pytest.raises(expected, match=r"worst must be an int >= 1\. Got"):
            params.count("worst", value)


@pytest.mark.parametrize(("changes", "builtin", "text"), [
    ({"ties": "bogus"}, ValueError, "ties must be one of trec|input|average|worst|best|docid. Got 'bogus'"),
    ({"norel": "x"}, ValueError, "norel must be one of 0|1|skip. Got 'x'"),
    ({"gain": 5}, TypeError, "gain must be a Gain or its text"),
])
def test_a_measure_built_by_hand_is_checked_when_built(changes, builtin, text):
    with pytest.raises(JudgedError, match=re.escape(text)) as caught:
        judged.Measure("nDCG", 10, **changes)
    assert isinstance(caught.value, builtin)


def test_a_gain_given_as_text_reads_as_the_parser_reads_it():
    built = judged.Measure("nDCG", 10, gain="exp")
    assert built == judged.parse("nDCG(gain=exp)@10")
    assert judged.evaluate(RUN_ONE, QRELS, [built]).value(built) == judged.evaluate(
        RUN_ONE, QRELS, ["nDCG(gain=exp)@10"]).value("nDCG(gain=exp)@10")
