"""What each measure reads: the ranked view adjusted by the measure's own conventions."""

from __future__ import annotations

import numpy as np

from judged.engine.view import RankedView
from judged.measures.spec import Measure


def measure_view(view: RankedView, measure: Measure) -> RankedView:
    """Apply ``unjudged=drop`` (condensed list) and then ``ideal=returned`` to ``view``."""
    if measure.unjudged == "drop":
        view = view.judged_only()
    if measure.ideal == "returned":
        view = view.returned_ideal()
    return view


def tie_weights(view: RankedView, cutoff: int | None, unit: np.ndarray | None = None) -> np.ndarray:
    """Per row, the share of rank credit it receives when its tied group is averaged (McSherry & Najork).

    A group holding ranks [a, b) spreads the credit of those ranks that fall
    inside the cutoff evenly over its members: with ``unit`` (cumulative
    credit by rank, ``unit[r]`` = credit of ranks 0..r-1) the weight is
    ``(unit[min(b,k)] - unit[min(a,k)]) / (b - a)``; without it every rank is
    worth 1 (precision-style counting).
    """
    start, stop = view.tie_bounds()
    limit = np.iinfo(np.int64).max if cutoff is None else cutoff
    lo, hi = np.minimum(start, limit), np.minimum(stop, limit)
    if unit is None:
        return (hi - lo) / (stop - start)
    return (unit[hi] - unit[lo]) / (stop - start)


def divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with NaN where the denominator is 0 (the ``norel`` policy decides)."""
    out = np.full(len(numerator), np.nan)
    ok = denominator != 0
    out[ok] = numerator[ok] / denominator[ok]
    return out
