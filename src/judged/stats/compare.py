"""Compare runs against a baseline, per measure, over the queries every run scored.

For each measure, over the same queries: every run's mean with a paired
bootstrap confidence interval, its difference from the baseline with the
interval its paired randomization test does not reject, that test's p-value
and its adjusted value (Holm by default, Benjamini-Hochberg or none, over the
runs compared on the measure or over every measure; or a randomised Tukey HSD
over all runs), the effect size d_z, wins/ties/losses and the distribution summary;
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from judged import display, params
from judged.engine.config import ensure_same_conventions
from judged.engine.result import Result
from judged.errors import UsageError
from judged.stats import (
    Risk,
    benjamini_hochberg,
    effect_size,
    holm,
    minimum_detectable_difference,
    queries_needed,
    risk_against_baseline,
    tukey_hsd_randomized,
    wins_ties_losses,
)
from judged.stats.bootstrap import bootstrap_means
from judged.stats.distributions import Summary, summarize_values
from judged.stats.paired import Interval, WinsTiesLosses, paired_scores, shared_sign_flips
from judged.stats.planning import randomization_floor

#: How p-values are adjusted for testing several runs: Holm (family-wise error), Benjamini-Hochberg
#: (false discovery rate), not at all, or a randomised Tukey HSD over all runs.
CORRECTIONS = ("holm", "bh", "none", "tukey")

#: Which tests one correction adjusts together: those of one measure (the runs, or the pairs, compared on it),
#: or those of every measure at once.
FAMILIES = ("measure", "all")


@dataclass(frozen=True)
class Planning:
    """From this comparison as a pilot: the smallest difference its queries detect, and the queries ``delta`` needs.

    The power is that of the paired t-test (noncentral t); ``minimum_queries`` is
    the fewest queries at which the table's own randomization test can reach
    ``alpha`` at all, and ``queries_needed`` is never below it. Both estimates
    are None when the per-query differences do not vary (any difference would
    be detected); ``minimum_detectable`` is None too when ``queries`` is below
    ``minimum_queries`` (nothing is detectable).
    """

    queries: int
    minimum_detectable: float | None
    delta: float
    queries_needed: int | None
    alpha: float
    power: float
    minimum_queries: int = 2


@dataclass(frozen=True)
class RunRow:
    """One run for one measure; the comparison fields are None for the baseline itself.

    ``mean`` carries the run's paired bootstrap interval; ``difference`` the
    interval of the mean difference that the paired randomization test (the
    one ``p_value`` comes from, before correction) does not reject.
    """

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
    """Every run against the baseline on one measure, over the ``queries`` every run scored.

    ``left_out`` says which of the judged queries are not among them and why,
    as ``(reason, count)`` pairs: a query no run scored, or one that a run did
    not score (it did not answer it and ``missing=skip``, or it is not in that
    run's judgments).
    """

    measure: str
    baseline: str
    queries: int
    runs: tuple[RunRow, ...]
    matrix: SignificanceMatrix | None = None
    left_out: tuple[tuple[str, int], ...] = ()


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
    family: str = "measure"

    def _repr_html_(self) -> str | None:
        """The notebook view, from the renderer registered in :mod:`judged.display` (render sits above stats)."""
        return display.html(self)


@dataclass
class _Measure:
    """One measure's work in progress: rows with raw p-values, the pairs' raw p-values, before any correction."""

    measure: str
    queries: int
    rows: list[RunRow]
    raw: dict[int, float]
    pairs: dict[tuple[int, int], float]
    tukey: SignificanceMatrix | None
    left_out: tuple[tuple[str, int], ...]


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
    family: str = "measure",
    matrix: bool = False,
    risk_alpha: float | None = None,
    plan_delta: float | None = None,
    power: float = 0.8,
    progress: Callable[[str], None] | None = None,
) -> Comparison:
    """Compare ``results`` (one per run, same measures and conventions) against ``baseline`` (default: the first).

    Every number of a measure's rows (means, intervals, tests, summaries,
    worst queries) is over the same queries: those every run scored.
    ``correction`` adjusts the runs' p-values against the baseline (see
    :data:`CORRECTIONS`) over the ``family`` of :data:`FAMILIES`: the runs
    compared on one measure, or on every measure together. ``tukey`` also
    fills the matrix of every pair (per measure), which ``matrix=True`` asks
    for under the other corrections (then adjusted over all pairs of the
    family). ``risk_alpha`` adds URisk/TRisk against the baseline;
    ``plan_delta`` adds planning at level ``alpha`` with ``power``.
    ``progress``, when given, is called with a line on each step.
    """
    if len(results) < 2:
        raise UsageError("compare needs at least two runs.")
    for name, value in (("alpha", alpha), ("power", power), ("permutations", permutations),
                        ("resamples", resamples), ("seed", seed), ("worst", worst)):
        params.check(name, value)
    params.choice("correction", correction, CORRECTIONS)
    params.choice("family", family, FAMILIES)
    params.finite("tolerance", tolerance)
    params.finite("threshold", threshold)
    if correction == "tukey" and family != "measure":
        raise UsageError("a Tukey HSD tests the pairs of one measure; it has no family across measures.")
    if plan_delta is not None:
        params.finite("plan_delta", plan_delta, positive=True)
    ensure_same_conventions(results)
    names = [r.run for r in results]
    base_index = baseline_index(names, baseline)
    tests = (len(names) - 1) * (len(results[0].measures) if family == "all" else 1)
    floor = (randomization_floor(alpha, systems=len(names) if correction == "tukey" else 2,
                                 tests=tests if correction == "holm" else 1)
             if plan_delta is not None else 2)
    work = []
    for number, m in enumerate(results[0].measures, start=1):
        if progress is not None:
            progress(f"comparing {len(names)} runs on measure {number}/{len(results[0].measures)}: {m}")
        work.append(_measure(results, m, base_index, permutations=permutations, resamples=resamples, seed=seed,
                             alpha=alpha, tolerance=tolerance, threshold=threshold, worst=worst,
                             tukey=correction == "tukey", matrix=matrix, risk_alpha=risk_alpha,
                             planning=None if plan_delta is None else (plan_delta, power, floor)))
    adjusted, pairs = _adjust(work, correction, family, base_index)
    measures = []
    for i, w in enumerate(work):
        rows = [row if j == base_index else _with_p(row, adjusted[i][j], correction) for j, row in enumerate(w.rows)]
        grid = w.tukey if correction == "tukey" else _grid(names, pairs[i], correction) if matrix else None
        measures.append(MeasureComparison(w.measure, names[base_index], w.queries, tuple(rows), grid, w.left_out))
    return Comparison(tuple(measures), permutations, resamples, seed, alpha, correction, risk_alpha, plan_delta,
                      power, family)


def baseline_index(names: Sequence[str], baseline: str | None) -> int:
    """The position of ``baseline`` among the run names (0 when None); an unknown or ambiguous name is refused.

    >>> baseline_index(["bm25 (a.run)", "bm25 (b.run)", "dense"], "dense")
    2
    >>> baseline_index(["bm25 (a.run)", "bm25 (b.run)"], "bm25")
    Traceback (most recent call last):
    ...
    judged.errors.UsageError: baseline 'bm25' names 2 runs (bm25 (a.run), bm25 (b.run)); give one of them in full.
    """
    if baseline is None:
        return 0
    if baseline in names:
        if list(names).count(baseline) > 1:
            raise UsageError(f"baseline {baseline!r} names {list(names).count(baseline)} runs; they need telling "
                             "apart (give them distinct names).")
        return list(names).index(baseline)
    # Runs that share a tag are named "tag (file)": the bare tag names all of them.
    matches = [i for i, name in enumerate(names) if name.startswith(f"{baseline} (")]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise UsageError(f"baseline {baseline!r} names {len(matches)} runs "
                         f"({', '.join(names[i] for i in matches)}); give one of them in full.")
    raise UsageError(f"baseline {baseline!r} is not one of the runs: {', '.join(names)}.")


def _measure(results: Sequence[Result], m, base_index: int, *, permutations: int, resamples: int, seed: int,
             alpha: float, tolerance: float, threshold: float, worst: int, tukey: bool, matrix: bool,
             risk_alpha: float | None, planning: tuple[float, float, int] | None) -> _Measure:
    """One measure's rows and raw p-values over the queries every run scored."""
    names = [r.run for r in results]
    qids, scores, left_out = _shared_scores(results, m)
    base = scores[:, base_index]
    means = bootstrap_means(scores.T, resamples=resamples, seed=seed)
    others = [i for i in range(len(results)) if i != base_index]
    differences = [np.subtract(*paired_scores(scores[:, i], base)) for i in others]
    tests = dict(zip(others, shared_sign_flips(differences, permutations=permutations, seed=seed) if others else []))
    rows, raw = [], {}
    for i, result in enumerate(results):
        summary = summarize_values(result.run, str(m), qids, scores[:, i], threshold=threshold, worst=worst)
        if i == base_index:
            rows.append(RunRow(result.run, means[i], None, None, None, None, None, summary))
            continue
        x = scores[:, i]
        flips = tests[i]
        raw[i] = flips.p_value()
        rows.append(RunRow(
            result.run, means[i], flips.interval(1.0 - alpha), raw[i], None, effect_size(x, base).d_z,
            wins_ties_losses(x, base, tolerance), summary,
            None if risk_alpha is None else risk_against_baseline(x, base, alpha=risk_alpha),
            None if planning is None else _planning(x - base, *planning, alpha),
        ))
    pairs: dict[tuple[int, int], float] = {}
    grid = None
    if tukey:
        p = tukey_hsd_randomized(scores, permutations=permutations, seed=seed).p_values
        grid = SignificanceMatrix(tuple(names), tuple(tuple(float(v) for v in row) for row in p), "tukey")
    elif matrix:  # the pairs without the baseline: one drawing of signs for all of them too
        apart = [(i, j) for i, j in itertools.combinations(range(len(names)), 2) if base_index not in (i, j)]
        tested = shared_sign_flips([np.subtract(*paired_scores(scores[:, i], scores[:, j])) for i, j in apart],
                                   permutations=permutations, seed=seed, counts=False) if apart else []
        between = {pair: flips.p_value() for pair, flips in zip(apart, tested)}
        for i, j in itertools.combinations(range(len(names)), 2):
            pairs[i, j] = raw[j] if i == base_index else raw[i] if j == base_index else between[i, j]
    return _Measure(str(m), len(qids), rows, raw, pairs, grid, left_out)


def _adjust(work: list[_Measure], correction: str, family: str,
            base_index: int) -> tuple[list[dict[int, float]], list[dict]]:
    """Adjusted p-values against the baseline and of the pairs, per measure, each adjusted over its family."""
    if correction == "tukey":  # Tukey's p-values are the matrix's own
        return ([{i: w.tukey.p_values[i][base_index] for i in w.raw} if w.tukey else {} for w in work],
                [{} for _ in work])
    groups = [list(range(len(work)))] if family == "all" else [[i] for i in range(len(work))]
    adjusted: list[dict[int, float]] = [{} for _ in work]
    pairs: list[dict] = [{} for _ in work]
    for group in groups:  # the tests against the baseline form one family, the pairs of the matrix another
        for attribute, out in (("raw", adjusted), ("pairs", pairs)):
            keys = [(i, key) for i in group for key in getattr(work[i], attribute)]
            raw = [getattr(work[i], attribute)[key] for i, key in keys]
            for (i, key), p in zip(keys, _correct(raw, correction)):
                out[i][key] = p
    return adjusted, pairs


def _correct(pvalues: list[float], correction: str) -> list[float]:
    if correction == "holm":
        return holm(pvalues).tolist()
    if correction == "bh":
        return benjamini_hochberg(pvalues).tolist()
    return list(pvalues)


def _with_p(row: RunRow, adjusted: float, correction: str) -> RunRow:
    """The row with its adjusted p-value; under Tukey HSD the test itself is the Tukey one."""
    return replace(row, p_adjusted=adjusted, p_value=adjusted if correction == "tukey" else row.p_value)


def _grid(names: list[str], pairs: dict[tuple[int, int], float], correction: str) -> SignificanceMatrix:
    """The symmetric matrix of the adjusted pair p-values (1 on the diagonal)."""
    p = np.ones((len(names), len(names)))
    for (i, j), value in pairs.items():
        p[i, j] = p[j, i] = value
    return SignificanceMatrix(tuple(names), tuple(tuple(float(v) for v in row) for row in p), correction)


def _planning(differences: np.ndarray, delta: float, power: float, floor: int, alpha: float) -> Planning:
    n = differences.size
    if np.all(differences == differences[0]):
        return Planning(n, None, delta, None, alpha, power, floor)
    return Planning(
        queries=n,
        minimum_detectable=(minimum_detectable_difference(differences, alpha=alpha, power=power)
                            if n >= floor else None),
        delta=delta,
        queries_needed=queries_needed(differences, delta, alpha=alpha, power=power, minimum=floor),
        alpha=alpha,
        power=power,
        minimum_queries=floor,
    )


def _shared_scores(results: Sequence[Result], measure) -> tuple[list[str], np.ndarray, tuple[tuple[str, int], ...]]:
    """The queries every run scored for ``measure``, a (queries x runs) matrix of their scores, and what was left out.

    Of the queries some run judged, a query no run scored is counted once; the
    others each run did not score are counted against that run, answered or
    not judged (a query can count against several runs).
    """
    per_run = [{q: i for i, q in enumerate(r.qids)} for r in results]  # each run's row of each of its queries
    judged = list(dict.fromkeys(q for r in results for q in r.qids))
    scored = [{q for q, unscored in zip(r.qids, np.isnan(r.values[measure]).tolist()) if not unscored}
              for r in results]
    shared = [q for q in judged if all(q in s for s in scored)]
    anywhere = set().union(*scored)
    reasons = []
    nowhere = sum(1 for q in judged if q not in anywhere)
    if nowhere:
        reasons.append(("scored by no run", nowhere))
    for r, run, s in zip(results, per_run, scored):
        unanswered = sum(1 for q in anywhere if q in run and q not in s)
        unjudged = sum(1 for q in anywhere if q not in run)
        if unanswered:
            reasons.append((f"not scored by {r.run} (not answered, missing=skip)", unanswered))
        if unjudged:
            reasons.append((f"not judged for {r.run}", unjudged))
    if len(shared) < 2:
        raise UsageError(f"fewer than two queries are scored by every run for {measure}.")
    matrix = np.column_stack([np.asarray(r.values[measure])[[run[q] for q in shared]]
                              for r, run in zip(results, per_run)])
    return shared, matrix, tuple(reasons)
