"""Gain and discount as vectors: the arithmetic of DCG, applied to whole columns at once."""

from __future__ import annotations

import numpy as np

from judged.measures.spec import Gain


def gains(grades: np.ndarray, gain: Gain) -> np.ndarray:
    """The gain of each grade: ``linear`` g, ``exp`` 2^g - 1 (both 0 for g <= 0) or the explicit map.

    >>> gains(np.array([3, 2, 0, -1]), Gain("exp")).tolist()
    [7.0, 3.0, 0.0, 0.0]
    """
    grades = np.asarray(grades, dtype=np.int64)
    positive = np.maximum(grades, 0).astype(np.float64)
    if gain.kind == "exp":
        return np.exp2(positive) - 1.0
    out = positive
    if gain.kind == "map":
        out = positive.copy()
        for grade, value in gain.mapping:
            out[grades == grade] = value
    return out


def discounts(ranks: np.ndarray) -> np.ndarray:
    """``1 / log2(rank + 2)`` for 0-based ranks: 1, 0.631, 0.5, 0.431, ...

    >>> np.round(discounts(np.arange(4)), 3).tolist()
    [1.0, 0.631, 0.5, 0.431]
    """
    return 1.0 / np.log2(np.asarray(ranks, dtype=np.float64) + 2.0)


def cumulative_discounts(length: int) -> np.ndarray:
    """``D[r]`` = sum of the discounts of ranks 0..r-1, with ``D[0] = 0`` (for tie averaging)."""
    return np.concatenate(([0.0], np.cumsum(discounts(np.arange(length)))))
