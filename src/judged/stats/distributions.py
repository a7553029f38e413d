"""Distributions behind a mean: quantiles, the share of weak queries, the worst queries, the biggest changes.

A mean over queries hides a tail of queries scoring under 0.2; these summaries
show it. All are computed over the queries a measure scored (NaN left out).
Quantiles interpolate linearly between order statistics (numpy's default).

>>> import judged
>>> r = judged.evaluate({"a": {"x": 1.0}, "b": {"y": 1.0}, "c": {"z": 1.0}},
...                     {"a": {"x": 1}, "b": {"w": 1}, "c": {"z": 1}}, ["RR"])
>>> s = summarize(r, "RR", threshold=0.5, worst=1)
>>> s.mean, s.median, s.share_below, s.worst
(0.6666666666666666, 1.0, 0.3333333333333333, (('b', 0.0),))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from judged.engine.evaluate import evaluate
from judged.engine.result import Result
from judged.errors import UsageError
from judged.measures import parse
from judged.measures.spec import Measure


@dataclass(frozen=True)
class Summary:
    """One run's distribution of one measure over the queries it scored."""

    run: str
    measure: str
    queries: int
    mean: float
    median: float
    p10: float
    p90: float
    threshold: float
    share_below: float
    worst: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Changes:
    """Per-query differences of a run against a baseline: the queries that lost and gained most."""

    run: str
    baseline: str
    measure: str
    queries: int
    lost: tuple[tuple[str, float], ...]
    gained: tuple[tuple[str, float], ...]


def summarize(result: Result, measure: Measure | str, *, threshold: float = 0.2, worst: int = 20) -> Summary:
    """Mean, median, p10, p90, the share of queries under ``threshold`` and the ``worst`` lowest queries."""
    m = _measure(result, measure)
    qids, values = _scored(result, m)
    if not len(values):
        raise UsageError(f"{result.run!r} scored no query for {m}.")
    return summarize_values(result.run, str(m), qids, values, threshold=threshold, worst=worst)


def summarize_values(run: str, measure: str, qids, values, *, threshold: float = 0.2, worst: int = 20) -> Summary:
    """:func:`summarize` over given queries and their scores (a comparison passes the queries every run scored).

    >>> summarize_values("r", "RR", ["a", "b", "c"], [1.0, 0.0, 0.5], worst=1).worst
    (('b', 0.0),)
    """
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="stable")[:worst]
    return Summary(
        run=run,
        measure=measure,
        queries=len(values),
        mean=float(values.mean()),
        median=float(np.median(values)),
        p10=float(np.percentile(values, 10)),
        p90=float(np.percentile(values, 90)),
        threshold=threshold,
        share_below=float((values < threshold).mean()),
        worst=tuple((qids[i], float(values[i])) for i in order),
    )


def changes(result: Result, baseline: Result, measure: Measure | str, *, n: int = 20) -> Changes:
    """The ``n`` queries whose score fell most and rose most from ``baseline`` to ``result`` (shared queries only)."""
    m = _measure(result, measure)
    mine = dict(zip(*_scored(result, m)))
    theirs = dict(zip(*_scored(baseline, _measure(baseline, measure))))
    shared = [q for q in mine if q in theirs]
    delta = np.array([mine[q] - theirs[q] for q in shared])
    order = np.argsort(delta, kind="stable")
    lost = [(shared[i], float(delta[i])) for i in order[:n] if delta[i] < 0]
    gained = [(shared[i], float(delta[i])) for i in order[::-1][:n] if delta[i] > 0]
    return Changes(result.run, baseline.run, str(m), len(shared), tuple(lost), tuple(gained))


def cutoff_curve(
    run, qrels, measure: str = "nDCG", cutoffs: Iterable[int] = range(1, 101), **options
) -> dict[int, float]:
    """The mean of ``measure`` (a name with optional conventions, no cutoff) at each cutoff, in one evaluation.

    >>> cutoff_curve({"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 1}}, "P", [1, 2])
    {1: 0.0, 2: 0.5}
    """
    base = parse(measure)
    if base.cutoff is not None:
        raise UsageError(f"give the measure without a cutoff for a curve; got {base}.")
    ks = list(cutoffs)
    measures = [parse(f"{measure}@{k}") for k in ks]
    result = evaluate(run, qrels, measures, **options)
    return {k: result.aggregate[m] for k, m in zip(ks, measures)}


def _measure(result: Result, measure: Measure | str) -> Measure:
    m = parse(measure) if isinstance(measure, str) else measure
    if m not in result.values:
        raise UsageError(f"{m} was not evaluated for {result.run!r}; it has {', '.join(map(str, result.measures))}.")
    return m


def _scored(result: Result, measure: Measure) -> tuple[list[str], np.ndarray]:
    values = result.values[measure]
    keep = ~np.isnan(values)
    return [q for q, k in zip(result.qids, keep) if k], values[keep]
