"""What judging one pooled document can do to the open comparisons: its exact effect on their bounds.

For a comparison (runs A, B) and a query q, judging document u at grade g
replaces the query's exact range [lo, hi] of M_A - M_B (M the measure, any
family with exact joint bounds) by the range
with u fixed at g, [lo'(g), hi'(g)], a sub-range (u at g is one of the
assignments counted before). ``impact`` is the expected shrink, with g drawn
from ``probabilities`` (by default the grades' frequency among the judged
documents, plus one):

    impact(u) = sum over open pairs, sum over g of p_g [(lo'(g) - lo) + (hi - hi'(g))].

It is positive exactly when some outcome of judging u moves some open bound,
so a document with impact 0 cannot change any open comparison whatever its
grade (what the bound-driven strategy never proposes, and what the stopping
rule counts as "cannot matter").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judged.analysis.joint import JointPool

#: A bound moves when it moves by more than this (rounding of the exact ranges is about 1e-16).
MOVE = 1e-12


@dataclass(frozen=True)
class OpenPair:
    """One open comparison: the runs' indices and each query's current range of their difference."""

    a: int
    b: int
    low: np.ndarray  #: per query
    high: np.ndarray


def grade_probabilities(pool: JointPool, judged_grades: Sequence[int]) -> np.ndarray:
    """The chance of each grade of the domain: its frequency among ``judged_grades``, each count plus one."""
    counts = np.ones(len(pool.grades))
    position = {g: i for i, g in enumerate(pool.grades)}
    for grade in judged_grades:
        if grade in position:
            counts[position[grade]] += 1
    return counts / counts.sum()


def grade_effects(pool: JointPool, pairs: Sequence[OpenPair], query: int) -> np.ndarray:
    """(documents x grades): the moves of the open bounds when each document of ``query`` takes each grade.

    ``grade_effects(...) @ probabilities`` is :func:`impact`; kept apart so that
    a caller can cache it while the grades' chances change.
    """
    effects = np.zeros((len(pool.pool[query]), len(pool.grades)))
    for pair in pairs:
        weights = np.zeros(len(pool.runs))
        weights[pair.a], weights[pair.b] = 1.0, -1.0
        lo, hi, doc, grade = pool.fixed_ranges(weights, 0.0, query)
        if not len(doc):
            continue
        rise = np.maximum(lo - pair.low[query], 0.0)
        fall = np.maximum(pair.high[query] - hi, 0.0)
        rise[rise <= MOVE] = 0.0
        fall[fall <= MOVE] = 0.0
        effects[doc, grade] += rise + fall
    return effects


def impact(pool: JointPool, pairs: Sequence[OpenPair], query: int, probabilities: np.ndarray) -> np.ndarray:
    """Expected shrink of the open bounds from judging each pooled document of ``query`` (module docstring)."""
    return grade_effects(pool, pairs, query) @ probabilities
