"""Run every measure's kernel over its ranked view: on two threads when the views are large.

A kernel is a pure function of the view (it may fill the view's caches, which
hold the same values whoever fills them), and numpy lets go of the GIL inside
its loops over large arrays, so two kernels can run at once. The measures are
split by what they read: those with a ``gain`` parameter share the view's gain
caches (gains, running DCG, scaled gains), the others its relevant hits; each
half runs in order on its own thread. The values do not depend on the split or
the timing, and when kernels fail, the error raised is the first failing
measure's in the order given, as when they run one after another.

>>> from judged.engine.ranking import build_view
>>> from judged.io.inputs import Qrels, Run
>>> from judged.measures import parse
>>> view = build_view(Run.from_dict({"q": {"a": 2.0, "b": 1.0}}), Qrels.from_dict({"q": {"b": 1}}))
>>> values = kernel_values({"trec": view}, [parse("P@1"), parse("nDCG@2")], np.array([0]))
>>> [round(float(v[0]), 4) for v in values.values()]
[0.0, 0.6309]
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import polars as pl

from judged.engine.view import RankedView
from judged.measures.conventions import tie_order
from judged.measures.spec import Measure

PARALLEL_ROWS = 1 << 20
"""Rows (all views together) from which the kernels run on two threads; below it a thread costs more than
it saves. Polars' thread count decides whether there are two to use (``POLARS_MAX_THREADS=1``: one)."""


def kernel_values(views: dict[str, RankedView], measures: Sequence[Measure],
                  reported: np.ndarray) -> dict[Measure, np.ndarray]:
    """Each measure's kernel value for the ``reported`` queries, computed on the view of its tie order."""
    rows = sum(len(view.grade) for view in views.values())
    if rows < PARALLEL_ROWS or pl.thread_pool_size() < 2 or len(measures) < 2:
        return {m: _value(views, m, reported) for m in measures}
    gained = [m for m in measures if "gain" in m.family.params]
    halves = (gained, [m for m in measures if "gain" not in m.family.params])
    with ThreadPoolExecutor(2, thread_name_prefix="judged-kernel") as pool:
        done = [pool.submit(_values_or_error, views, half, reported) for half in halves]
        outcome = {**done[0].result(), **done[1].result()}
    values = {}
    for m in measures:
        value = outcome[m]
        if isinstance(value, Exception):
            raise value
        values[m] = value
    return values


def view_key(measure: Measure) -> str:
    """The ranking a measure reads: ``average`` shares ``trec``'s order, every other tie rule has its own."""
    return tie_order(measure.ties)


def _value(views: dict[str, RankedView], m: Measure, reported: np.ndarray) -> np.ndarray:
    return np.asarray(m.family.kernel(views[view_key(m)], m), dtype=np.float64)[reported]


def _values_or_error(views: dict[str, RankedView], measures: Sequence[Measure],
                     reported: np.ndarray) -> dict[Measure, np.ndarray | Exception]:
    """Each measure's value, or the error its kernel raised (the caller raises the first in measure order);
    after an error the rest of this half is not computed."""
    out: dict[Measure, np.ndarray | Exception] = {}
    for m in measures:
        try:
            out[m] = _value(views, m, reported)
        except Exception as error:  # re-raised by kernel_values, in the measures' order
            out.update({rest: error for rest in measures if rest not in out})
            break
    return out
