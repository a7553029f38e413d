"""Compare runs against a baseline, per measure, over the queries every run scored.

For each measure: every run's mean with a paired bootstrap confidence
interval, its difference from the baseline with its interval, the paired
randomization test's p-value and its adjusted value across the runs compared
(Holm by default, Benjamini-Hochberg, none, or a randomised Tukey HSD over all
runs), the effect size d_z, wins/ties/losses and the distribution summary;
on request URisk/TRisk against the baseline, a planning estimate and the
matrix of every pair of runs. Pure and seeded: the same inputs and seed give
the same answer.

>>> import judged
>>> qrels = {f"q{i}": {"r": 1} for i in range(8)}
>>> good = {f"q{i}": {"r": 2.0, "n": 1.0} for i in range(8)}
>>> bad = {f"q{i}": {"r": 1.0, "n": 2.0} for i in range(8)}
>>> results = [judged.evaluate(run, qrels, ["RR"]) for run in (bad, good)]
>>> c = compare(results, permutations=999, resamples=999, risk_alpha=1.0)
>>> row = c.measures[0].runs[1]
>>> row.difference.estimate, row.p_value, row.wins_ties_losses.wins, row.risk.urisk
(0.5, 0.009, 8, 0.5)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from judged import display
from judged.engine.config import ensure_same_conventions
from judged.engine.result import Result
from judged.errors import UsageError
from judged.stats import (
    Risk,
    benjamini_hochberg,
    bootstrap_ci,
    effect_size,
    holm,
    minimum_detectable_difference,
    queries_needed,
    randomization_test,
    risk_against_baseline,
    tukey_hsd_randomized,
    wins_ties_losses,
)
from judged.stats.distributions import Summary, summarize
from judged.stats.paired import Interval, WinsTiesLosses

#: How p-values are adjusted for testing several runs: Holm (family-wise error), Benjamini-Hochberg
#: (false discovery rate), not at all, or a randomised Tukey HSD over all runs at once.
CORRECTIONS = ("holm", "bh", "none", "tukey")


@dataclass(frozen=True)
class Planning:
    """From this comparison as a pilot: the smallest difference its queries detect, and the queries ``delta`` needs.

    Both are None when the per-query differences do not vary (any difference would be detected).
    """

    queries: int
    minimum_detectable: float | None
    delta: float
    queries_needed: int | None
    alpha: float
    power: float


@dataclass(frozen=True)
class RunRow:
    """One run for one measure; the comparison fields are None for the baseline itself."""

    run: str
    mean: Interval
    difference: Interval | None
    p_value: float | None
    p_adjusted: float | None
    d_z: float | None
    wins_ties_losses: WinsTiesLosses | None
    summary: Summary
    risk: Risk | None = None
    planning: Planning | None = None


@dataclass(frozen=True)
class SignificanceMatrix:
    """Adjusted p-values for every pair of runs (symmetric, 1 on the diagonal), in the order of ``runs``."""

    runs: tuple[str, ...]
    p_values: tuple[tuple[float, ...], ...]
    correction: str


@dataclass(frozen=True)
class MeasureComparison:
    """Every run against the baseline on one measure, over the ``queries`` every run scored."""

    measure: str
    baseline: str
    queries: int
    runs: tuple[RunRow, ...]
    matrix: SignificanceMatrix | None = None


@dataclass(frozen=True)
class Comparison:
    """A comparison of runs on each measure, with the settings that produced it."""

    measures: tuple[MeasureComparison, ...]
    permutations: int
    resamples: int
    seed: int
    alpha: float
    correction: str = "holm"
    risk_alpha: float | None = None
    plan_delta: float | None = None
    power: float = 0.8

    def _repr_html_(self) -> str | None:
        """The notebook view, from the renderer registered in :mod:`judged.display` (render sits above stats)."""
        return display.html(self)


def compare(
    results: Sequence[Result],
    *,
    baseline: str | None = None,
    permutations: int = 10_000,
    resamples: int = 10_000,
    seed: int = 0,
    alpha: float = 0.05,
    tolerance: float = 0.0,
    threshold: float = 0.2,
    worst: int = 20,
    correction: str = "holm",
    matrix: bool = False,
    risk_alpha: float | None = None,
    plan_delta: float | None = None,
    power: float = 0.8,
) -> Comparison:
    """Compare ``results`` (one per run, same measures and conventions) against ``baseline`` (default: the first).

    ``correction`` adjusts the runs' p-values against the baseline (see
    :data:`CORRECTIONS`); ``tukey`` also fills the matrix of every pair, which
    ``matrix=True`` asks for under the other corrections (then adjusted over
    all pairs). ``risk_alpha`` adds URisk/TRisk against the baseline;
    ``plan_delta`` adds planning at level ``alpha`` with ``power``.
    """
    if len(results) < 2:
        raise UsageError("compare needs at least two runs.")
    if correction not in CORRECTIONS:
        raise UsageError(f"correction must be one of {'|'.join(CORRECTIONS)}. Got {correction!r} instead.")
    if plan_delta is not None and not (np.isfinite(plan_delta) and plan_delta > 0):
        raise UsageError(f"plan_delta must be a finite float > 0. Got {plan_delta!r} instead.")
    ensure_same_conventions(results)
    names = [r.run for r in results]
    if baseline is not None and baseline not in names:
        raise UsageError(f"baseline {baseline!r} is not one of the runs: {', '.join(names)}.")
    base_index = names.index(baseline) if baseline is not None else 0
    measures = []
    for m in results[0].measures:
        qids, scores = _shared_scores(results, m)
        base = scores[:, base_index]
        rows, pvalues = [], {}
        for i, result in enumerate(results):
            summary = summarize(result, m, threshold=threshold, worst=worst)
            if i == base_index:
                interval = bootstrap_ci(base, base, resamples=resamples, seed=seed).a
                rows.append(RunRow(result.run, interval, None, None, None, None, None, summary))
                continue
            x = scores[:, i]
            ci = bootstrap_ci(x, base, resamples=resamples, seed=seed)
            pvalues[i] = randomization_test(x, base, permutations=permutations, seed=seed).p_value
            rows.append(RunRow(
                result.run, ci.a, ci.difference, pvalues[i], None, effect_size(x, base).d_z,
                wins_ties_losses(x, base, tolerance), summary,
                None if risk_alpha is None else risk_against_baseline(x, base, alpha=risk_alpha),
                None if plan_delta is None else _planning(x - base, plan_delta, alpha, power),
            ))
        pairs = None
        if correction == "tukey" or matrix:
            pairs = _matrix(names, scores, correction, permutations, seed, pvalues, base_index)
        adjusted = _adjusted(pvalues, correction, pairs, base_index)
        rows = [row if i == base_index else _with_p(row, adjusted[i], correction) for i, row in enumerate(rows)]
        measures.append(MeasureComparison(str(m), names[base_index], len(qids), tuple(rows), pairs))
    return Comparison(tuple(measures), permutations, resamples, seed, alpha, correction, risk_alpha, plan_delta, power)


def _adjusted(pvalues: dict[int, float], correction: str, pairs: SignificanceMatrix | None,
              base_index: int) -> dict[int, float]:
    """Each compared run's p-value against the baseline after ``correction`` across the runs compared."""
    if pairs is not None and pairs.correction == "tukey":  # Tukey's p-values are the matrix's own
        return {i: pairs.p_values[i][base_index] for i in pvalues}
    return dict(zip(pvalues, _correct(list(pvalues.values()), correction)))


def _correct(pvalues: list[float], correction: str) -> list[float]:
    if correction == "holm":
        return holm(pvalues).tolist()
    if correction == "bh":
        return benjamini_hochberg(pvalues).tolist()
    return list(pvalues)


def _with_p(row: RunRow, adjusted: float, correction: str) -> RunRow:
    """The row with its adjusted p-value; under Tukey HSD the test itself is the Tukey one."""
    return replace(row, p_adjusted=adjusted, p_value=adjusted if correction == "tukey" else row.p_value)


def _matrix(names: list[str], scores: np.ndarray, correction: str, permutations: int, seed: int,
            known: dict[int, float], base_index: int) -> SignificanceMatrix:
    """Every pair of runs: a randomised Tukey HSD, or paired randomization tests adjusted over all pairs."""
    k = len(names)
    if correction == "tukey":
        p = tukey_hsd_randomized(scores, permutations=permutations, seed=seed).p_values
    else:
        pairs = list(itertools.combinations(range(k), 2))
        raw = [known[j] if i == base_index else known[i] if j == base_index else
               randomization_test(scores[:, i], scores[:, j], permutations=permutations, seed=seed).p_value
               for i, j in pairs]
        p = np.ones((k, k))
        for (i, j), value in zip(pairs, _correct(raw, correction)):
            p[i, j] = p[j, i] = value
    return SignificanceMatrix(tuple(names), tuple(tuple(float(v) for v in row) for row in p), correction)


def _planning(differences: np.ndarray, delta: float, alpha: float, power: float) -> Planning:
    n = differences.size
    if np.all(differences == differences[0]):
        return Planning(n, None, delta, None, alpha, power)
    return Planning(
        queries=n,
        minimum_detectable=minimum_detectable_difference(differences, alpha=alpha, power=power),
        delta=delta,
        queries_needed=queries_needed(differences, delta, alpha=alpha, power=power),
        alpha=alpha,
        power=power,
    )


def _shared_scores(results: Sequence[Result], measure) -> tuple[list[str], np.ndarray]:
    """The queries every run scored for ``measure`` and a (queries x runs) matrix of their scores."""
    per_run = [dict(zip(r.qids, r.values[measure])) for r in results]
    qids = [q for q in results[0].qids if all(q in run and not np.isnan(run[q]) for run in per_run)]
    if len(qids) < 2:
        raise UsageError(f"fewer than two queries are scored by every run for {measure}.")
    return qids, np.array([[run[q] for run in per_run] for q in qids])
