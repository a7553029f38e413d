r"""Krippendorff's alpha for two or more assessors, some pairs graded by only some of them.

Each pair graded by :math:`m_u \ge 2` assessors adds every ordered couple of
its labels, weighted :math:`1/(m_u - 1)`, to the coincidence matrix
:math:`o_{ck}`; pairs with a single label are not pairable and are ignored, as
the method defines. With :math:`n_c = \sum_k o_{ck}` and :math:`n = \sum_c n_c`:

.. math:: \alpha = 1 - (n - 1)\frac{\sum_{ck} o_{ck}\,\delta^2_{ck}}{\sum_{ck} n_c n_k\,\delta^2_{ck}}

nominal :math:`\delta^2 = [c \ne k]`; interval :math:`(c - k)^2` on the grade
values; ordinal :math:`\delta^2_{ck} = (\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2`,
distances that depend on how often the grades between c and k were used.
Alpha is undefined (NaN, with the reason) with no pairable labels or when
every pairable label is the same grade.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judged.errors import InputError, UsageError

METRICS = ("ordinal", "nominal", "interval")


@dataclass(frozen=True)
class Alpha:
    """Krippendorff's alpha under one distance ``metric``, over ``units`` pairs holding ``values`` pairable labels."""

    metric: str
    value: float
    units: int
    values: int
    reason: str | None = None


def krippendorff_alpha(ratings: Sequence[Sequence[int | None]], *, grades: Sequence[int],
                       metric: str = "ordinal") -> Alpha:
    """Alpha for ``ratings[assessor][pair]`` (None where the assessor did not grade the pair) over ``grades``.

    The third pair has one label, so it is not pairable and changes nothing:

    >>> a = krippendorff_alpha([[0, 1, 3, None], [0, 2, None, 3], [None, 1, None, 3]], grades=[0, 1, 2, 3])
    >>> round(a.value, 4), a.units, a.values
    (0.9272, 3, 7)
    """
    if metric not in METRICS:
        raise UsageError(f"metric must be one of {'|'.join(METRICS)}. Got {metric!r} instead.")
    domain = list(grades)
    index = {g: i for i, g in enumerate(domain)}
    counts = np.zeros((len(ratings[0]) if ratings else 0, len(domain)), dtype=np.int64)
    for who, row in enumerate(ratings):
        if len(row) != counts.shape[0]:
            raise UsageError(f"every assessor needs one entry per pair. Got {len(row)} entries for assessor "
                             f"{who + 1}, {counts.shape[0]} for the first.")
        for unit, value in enumerate(row):
            if value is None:
                continue
            if value not in index:
                raise InputError(f"grade {value!r} is not in the grade domain",
                                 text=f"assessor {who + 1}, pair {unit + 1}: {value!r}",
                                 expected=f"one of {', '.join(map(str, domain))}")
            counts[unit, index[value]] += 1
    return alpha_from_counts(counts, domain, metric)


def alpha_from_counts(counts: np.ndarray, grades: Sequence[int], metric: str) -> Alpha:
    """Alpha from ``counts[pair, grade position]``: how many assessors gave each grade to each pair."""
    pairable = counts[counts.sum(axis=1) >= 2].astype(np.float64)
    units = len(pairable)
    if units == 0:
        return Alpha(metric, float("nan"), 0, 0, "no pair was graded by two or more assessors")
    per_unit = pairable / (pairable.sum(axis=1, keepdims=True) - 1)
    coincidences = per_unit.T @ pairable - np.diag(per_unit.sum(axis=0))
    n_c = coincidences.sum(axis=1)
    n = float(n_c.sum())
    delta = _distances(metric, np.asarray(grades, dtype=np.float64), n_c)
    expected = float((np.outer(n_c, n_c) * delta).sum())
    if expected <= 0:
        used = int(np.flatnonzero(n_c)[0])
        return Alpha(metric, float("nan"), units, round(n),
                     f"every pairable label is the same grade ({grades[used]}): there is no variation to "
                     "measure agreement against, so alpha is 0/0")
    observed = float((coincidences * delta).sum())
    return Alpha(metric, 1.0 - (n - 1) * observed / expected, units, round(n))


def _distances(metric: str, values: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    """Squared distances between grade positions under ``metric``."""
    if metric == "nominal":
        return 1.0 - np.eye(len(values))
    if metric == "interval":
        return np.subtract.outer(values, values) ** 2
    cumulative = np.concatenate([[0.0], np.cumsum(n_c)])
    i = np.arange(len(values))
    low, high = np.minimum.outer(i, i), np.maximum.outer(i, i)
    between = cumulative[high + 1] - cumulative[low]
    return (between - (n_c[low] + n_c[high]) / 2) ** 2
