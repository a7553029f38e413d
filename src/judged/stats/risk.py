"""Risk-sensitive comparison against a baseline: URisk (Wang et al. 2012) and TRisk (Dinçer et al. 2014).

With per-query deltas ``d = system - baseline``, each loss is weighted by
``1 + alpha``: the risk-adjusted delta is ``r = d`` where ``d > 0`` and
``(1 + alpha) d`` otherwise. ``URisk = mean(r)``; ``alpha = 0`` gives the plain
mean difference. ``TRisk = URisk / SE`` with ``SE = sd(r) / sqrt(n)`` (sample
standard deviation, ``ddof=1``): a studentised URisk read like a t statistic,
so ``TRisk < -2`` says the system is significantly riskier than the baseline
and ``TRisk > 2`` that it is significantly safer.

>>> r = risk_against_baseline([0.5, 0.2, 0.6], [0.4, 0.4, 0.6], alpha=1.0)
>>> round(r.urisk, 4), (r.wins, r.losses)
(-0.1, (1, 1))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judged.errors import UsageError
from judged.stats.paired import paired_scores


@dataclass(frozen=True)
class Risk:
    """URisk and TRisk of a system against a baseline at one ``alpha``; see the module docstring."""

    urisk: float
    trisk: float
    alpha: float
    wins: int
    losses: int
    n: int


def risk_adjusted_deltas(system, baseline, *, alpha: float = 1.0) -> np.ndarray:
    """Per-query ``d`` where ``d = system - baseline > 0``, else ``(1 + alpha) d``."""
    x, y = paired_scores(system, baseline)
    if not (np.isfinite(alpha) and alpha >= 0.0):
        raise UsageError(f"alpha must be a finite float >= 0. Got {alpha!r} instead.")
    d = x - y
    return np.where(d > 0.0, d, (1.0 + alpha) * d)


def risk_against_baseline(system, baseline, *, alpha: float = 1.0) -> Risk:
    """URisk and TRisk of ``system`` against ``baseline`` (per-query scores, same queries, same order).

    TRisk is 0 when every risk-adjusted delta is zero and ±inf when they are
    all equal and non-zero; it needs at least two queries.
    """
    r = risk_adjusted_deltas(system, baseline, alpha=alpha)
    if r.size < 2:
        raise UsageError(f"TRisk needs at least 2 queries: got {r.size}")
    urisk = float(r.mean())
    sd = float(r.std(ddof=1))
    if sd == 0.0:
        trisk = 0.0 if urisk == 0.0 else float(np.copysign(np.inf, urisk))
    else:
        trisk = urisk / (sd / np.sqrt(r.size))
    d_pos = int(np.count_nonzero(r > 0))
    d_neg = int(np.count_nonzero(r < 0))
    return Risk(
        urisk=urisk,
        trisk=float(trisk),
        alpha=float(alpha),
        wins=d_pos,
        losses=d_neg,
        n=r.size,
    )


def urisk(system, baseline, *, alpha: float = 1.0) -> float:
    """``mean(r)`` over the risk-adjusted deltas (Wang, Bennett and Collins-Thompson, SIGIR 2012)."""
    return float(risk_adjusted_deltas(system, baseline, alpha=alpha).mean())


def trisk(system, baseline, *, alpha: float = 1.0) -> float:
    """URisk over its standard error ``sd(r) / sqrt(n)`` (Dinçer, Macdonald and Ounis, SIGIR 2014)."""
    return risk_against_baseline(system, baseline, alpha=alpha).trisk
