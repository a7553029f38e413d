"""trec_eval's per-query lines laid out in C are the bytes the Python renderer prints, for any values."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import judged.render.trec_eval as render
from judged.io.native import _native
from judged.render.trec_eval import TrecColumn, render_trec_eval_columns


def _step(value: float, steps: int) -> float:
    for _ in range(abs(steps)):
        value = math.nextafter(value, math.inf if steps > 0 else -math.inf)
    return value


needs_native = pytest.mark.skipif(_native is None, reason="the C extension is not built")

# values where %6.4f rounds at a half, carries, or runs long, beside whatever hypothesis draws
EDGES = [0.00005, 0.00015, 0.99995, 0.123449999999, 9.99995, -0.0, 0.0, -0.00004, 1e300, -1e-300, 5e-324,
         math.inf, -math.inf, math.nan, 123456.78905]
# a four-decimal half (k + 0.5) / 10^4 and its neighbours a few units in the last place away: where the product
# v * 10^4 rounds onto .5 in binary while the exact value lies to one side of it
near_halves = st.builds(lambda k, steps, sign: sign * _step((k + 0.5) / 10**4, steps),
                        st.integers(0, 45 * 10**14), st.integers(-3, 3), st.sampled_from([1.0, -1.0]))
# exact halves (dyadic fractions such as 1/32 = 0.03125): printf and Python round these to even
exact_halves = st.builds(lambda j, m: j / 2.0**m, st.integers(0, 2**20), st.integers(5, 20))
numbers = st.one_of(st.sampled_from(EDGES), st.floats(allow_nan=True, allow_infinity=True, width=64), near_halves,
                    exact_halves, st.floats(4.4e11, 4.6e11))
counts = st.one_of(st.integers(-2**53, 2**53).map(float), st.sampled_from([-0.0, 0.0, 2.0**62, -(2.0**62)]))
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\t"), max_size=12)
qid_lists = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\t"),
                             min_size=1, max_size=8), min_size=1, max_size=6)


@st.composite
def collections(draw):
    qids = draw(qid_lists)
    columns = []
    for i, kind in enumerate(draw(st.lists(st.sampled_from("fis"), min_size=1, max_size=5))):
        values = draw(st.lists({"f": numbers, "i": counts, "s": texts}[kind], min_size=len(qids),
                               max_size=len(qids)))
        columns.append(TrecColumn(f"m{i}é" if i % 2 else f"measure_{i}", values, None, integer=kind == "i"))
    return columns, qids


def python_lines(columns, qids, zscore, monkeypatch):
    with monkeypatch.context() as patched:
        patched.setattr(render, "_native", None)
        return render_trec_eval_columns(columns, qids, per_query=True, summary=False, zscore=zscore)


@needs_native
@settings(max_examples=300, deadline=None)
@given(collection=collections(), zscore=st.booleans())
def test_c_lines_equal_python_lines(collection, zscore, monkeypatch_module):
    columns, qids = collection
    expected = python_lines(columns, qids, zscore, monkeypatch_module)
    laid_out = []

    def spy(*args):
        laid_out.append(_native.trec_block(*args))
        return laid_out[-1]

    with monkeypatch_module.context() as patched:
        patched.setattr(render, "_native", SimpleNamespace(trec_block=spy))
        assert render_trec_eval_columns(columns, qids, per_query=True, summary=False, zscore=zscore) == expected
    if any(v != v for c in columns if not (c.integer and not zscore) for v in c.values):  # a NaN in a number
        assert laid_out == []  # left to Python, which prints it as trec_eval does (test_nan_prints_as_trec_eval)
        return
    in_range = all(abs(v) < 9.2e18 for c in columns if c.integer and not zscore for v in c.values)
    assert (laid_out[0] is not None) == in_range  # C laid the lines out unless a count is out of its range


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_worked_lines():
    """%-22s, tab, qid, tab, %6.4f rounded from the exact binary value, counts as integers, text as it is; query
    by query, each in column order. 0.00005 is 5.0000000000000002396e-05 in binary, just above the half, so it
    rounds up to 0.0001; 0.00015 is 1.4999999999999998686e-04, just below, so it rounds down to 0.0001 too."""
    columns = [TrecColumn("map", [0.00005, 0.00015], None), TrecColumn("num_ret", [1000.0, 3.0], None, integer=True),
               TrecColumn("relstring", ["'10-'", "''"], None)]
    text = render_trec_eval_columns(columns, ["q1", "qé"], per_query=True, summary=False)
    assert text.splitlines() == [
        "map                   \tq1\t0.0001", "num_ret               \tq1\t1000", "relstring             \tq1\t'10-'",
        "map                   \tqé\t0.0001", "num_ret               \tqé\t3", "relstring             \tqé\t''"]


@needs_native
def test_c_rounds_every_four_decimal_half_as_python():
    """Every half (k + 0.5) / 10^4 below 10^4, and one unit in the last place to either side, is laid out as
    Python's %6.4f lays it out (Python rounds the exact binary value correctly): 300,000 values."""
    halves = (np.arange(10**5) + 0.5) / 10**4
    values = np.concatenate([halves, np.nextafter(halves, 0), np.nextafter(halves, 1e6)])
    values[::2] *= -1
    text = _native.trec_block(["x "], [""] * len(values), [values], "f")
    assert text.splitlines() == [f"x \t{v:6.4f}" for v in values.tolist()]


def test_a_count_out_of_range_is_printed_by_python(monkeypatch):
    """A count beyond int64 (or not finite) leaves the layout to Python's int(), which prints it exactly."""
    columns = [TrecColumn("num_ret", [2.0**70, 1.0], None, integer=True)]
    text = render_trec_eval_columns(columns, ["a", "b"], per_query=True, summary=False)
    assert text == f"num_ret               \ta\t{2**70}\nnum_ret               \tb\t1\n"


@pytest.mark.parametrize("zscore", [False, True])
def test_nan_prints_as_trec_eval(zscore):
    """trec_eval's 0 / 0 (-J leaving a query nothing judged: iprec_at_recall_0.00) is a NaN with the sign bit set,
    which its printf("%6.4f") writes ``  -nan``, per query and in the summary."""
    columns = [TrecColumn("iprec_at_recall_0.00", [math.nan, 0.5], math.nan)]
    text = render_trec_eval_columns(columns, ["q1", "q2"], per_query=True, zscore=zscore)
    z = "Z" if zscore else ""
    assert text.splitlines() == [f"{z}iprec_at_recall_0.00  \tq1\t  -nan", f"{z}iprec_at_recall_0.00  \tq2\t0.5000",
                                 f"{z}iprec_at_recall_0.00  \tall\t  -nan"]
