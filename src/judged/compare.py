"""Compare runs against a baseline, per measure, over the queries every run scored.

For each measure: every run's mean with a paired bootstrap confidence
interval, its difference from the baseline with its interval, the paired
randomization test's p-value and its Holm-adjusted value across the runs
compared, the effect size d_z, wins/ties/losses, and the distribution summary.
Pure and seeded: the same inputs and seed give the same answer.

>>> import judged
>>> qrels = {f"q{i}": {"r": 1} for i in range(8)}
>>> good = {f"q{i}": {"r": 2.0, "n": 1.0} for i in range(8)}
>>> bad = {f"q{i}": {"r": 1.0, "n": 2.0} for i in range(8)}
>>> results = [judged.evaluate(run, qrels, ["RR"]) for run in (bad, good)]
>>> c = compare(results, permutations=999, resamples=999)
>>> row = c.measures[0].runs[1]
>>> row.difference.estimate, row.p_value, row.wins_ties_losses.wins
(0.5, 0.009, 8)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judged.config import ensure_same_conventions
from judged.distributions import Summary, summarize
from judged.errors import UsageError
from judged.result import Result
from judged.stats import bootstrap_ci, effect_size, holm, randomization_test, wins_ties_losses
from judged.stats.paired import Interval, WinsTiesLosses


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


@dataclass(frozen=True)
class MeasureComparison:
    measure: str
    baseline: str
    queries: int
    runs: tuple[RunRow, ...]


@dataclass(frozen=True)
class Comparison:
    measures: tuple[MeasureComparison, ...]
    permutations: int
    resamples: int
    seed: int
    alpha: float
    correction: str = "holm"

    def _repr_html_(self) -> str:
        from judged.render.compare import render_comparison_html

        return render_comparison_html(self)


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
) -> Comparison:
    """Compare ``results`` (one per run, same measures and conventions) against ``baseline`` (default: the first)."""
    if len(results) < 2:
        raise UsageError("compare needs at least two runs.")
    ensure_same_conventions(results)
    names = [r.run for r in results]
    if baseline is not None and baseline not in names:
        raise UsageError(f"baseline {baseline!r} is not one of the runs: {', '.join(names)}.")
    base_index = names.index(baseline) if baseline is not None else 0
    measures = []
    for m in results[0].measures:
        qids, matrix = _shared_scores(results, m)
        base = matrix[:, base_index]
        rows, pvalues = [], []
        for i, result in enumerate(results):
            scores = matrix[:, i]
            if i == base_index:
                interval = bootstrap_ci(scores, scores, resamples=resamples, seed=seed).a
                rows.append(RunRow(result.run, interval, None, None, None, None, None,
                                   summarize(result, m, threshold=threshold, worst=worst)))
                continue
            ci = bootstrap_ci(scores, base, resamples=resamples, seed=seed)
            test = randomization_test(scores, base, permutations=permutations, seed=seed)
            pvalues.append(test.p_value)
            rows.append(RunRow(result.run, ci.a, ci.difference, test.p_value, None, effect_size(scores, base).d_z,
                               wins_ties_losses(scores, base, tolerance),
                               summarize(result, m, threshold=threshold, worst=worst)))
        adjusted = iter(holm(pvalues))
        rows = [row if row.p_value is None else _with_adjusted(row, float(next(adjusted))) for row in rows]
        measures.append(MeasureComparison(str(m), names[base_index], len(qids), tuple(rows)))
    return Comparison(tuple(measures), permutations, resamples, seed, alpha)


def _with_adjusted(row: RunRow, p: float) -> RunRow:
    return RunRow(row.run, row.mean, row.difference, row.p_value, p, row.d_z, row.wins_ties_losses, row.summary)


def _shared_scores(results: Sequence[Result], measure) -> tuple[list[str], np.ndarray]:
    """The queries every run scored for ``measure`` and a (queries x runs) matrix of their scores."""
    per_run = [dict(zip(r.qids, r.values[measure])) for r in results]
    qids = [q for q in results[0].qids if all(q in run and not np.isnan(run[q]) for run in per_run)]
    if len(qids) < 2:
        raise UsageError(f"fewer than two queries are scored by every run for {measure}.")
    return qids, np.array([[run[q] for run in per_run] for q in qids])
