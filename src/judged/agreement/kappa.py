r"""Cohen's kappa for two assessors over a fixed grade domain, unweighted or weighted, with a bootstrap interval.

With :math:`p_{ij}` the share of pairs graded i by the first assessor and j by
the second (i, j positions in the domain of K grades), :math:`r_i`, :math:`c_j`
the margins and disagreement weights :math:`w_{ij}` (0 on the diagonal):

.. math:: \kappa = 1 - \frac{\sum_{ij} w_{ij} p_{ij}}{\sum_{ij} w_{ij} r_i c_j}

unweighted :math:`w_{ij} = [i \ne j]`, linear :math:`|i-j|/(K-1)`, quadratic
:math:`(i-j)^2/(K-1)^2`. Positions come from the whole domain, so a grade
nobody used still separates its neighbours (scikit-learn's
``cohen_kappa_score`` does the same only when given ``labels``). Kappa is
undefined (NaN, with the reason) when there are no pairs, or when both
assessors gave every pair the same grade (the expected disagreement is 0).

The interval is a seeded percentile bootstrap that resamples **queries**
(clusters), each with all its pairs: pairs of one query share a topic, an
assessor's reading of it and often a sitting, so they are not independent,
and resampling pairs treats 300 pairs from 30 queries as 300 independent
draws (in a simulation with 30 queries of 10 pairs, a pair bootstrap's 95%
interval covered the true kappa 85% of the time, the query bootstrap's 93%:
``tests/agreement/test_kappa_coverage.py``). Without query ids every pair
is its own cluster, which is the pair bootstrap. Pairs from a single query
have no interval (NaN): one query says nothing of how kappa varies across
queries, so a gate can never call such agreement settled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judged import params
from judged.errors import InputError, UsageError

WEIGHTS = ("unweighted", "linear", "quadratic")
_CHUNK = 2_000_000


@dataclass(frozen=True)
class Kappa:
    """One kappa with its interval; ``reason`` says why ``value`` is NaN, ``undefined_resamples`` how many
    bootstrap samples had no kappa (all one grade) and were left out of the interval."""

    weights: str
    value: float
    low: float
    high: float
    confidence: float
    resamples: int
    undefined_resamples: int
    reason: str | None = None


def cohen_kappa(first: Sequence[int], second: Sequence[int], *, grades: Sequence[int], weights: str = "linear",
                resamples: int = 2000, seed: int = 0, confidence: float = 0.95,
                queries: Sequence[str] | None = None) -> Kappa:
    """Cohen's kappa between two assessors' grades of the same pairs, over the full domain ``grades``.

    ``queries`` (one per pair) makes the interval resample queries; without it, pairs.

    The unused grade 2 keeps 3 two steps from 1 (scikit-learn without ``labels`` gives 0.7143 here):

    >>> k = cohen_kappa([0, 1, 3, 3], [0, 1, 3, 1], grades=[0, 1, 2, 3], resamples=0)
    >>> round(k.value, 4)
    0.6364
    >>> cohen_kappa([2, 2], [2, 2], grades=[0, 1, 2], resamples=0).reason
    'both assessors gave every pair the same grade (2): chance agreement is complete, so kappa is 0/0'
    """
    check_options(weights, resamples, confidence)
    domain = list(grades)
    a, b = _positions(first, domain, "first"), _positions(second, domain, "second")
    if len(a) != len(b):
        raise UsageError(f"first and second must grade the same pairs. Got {len(a)} and {len(b)} grades instead.")
    clusters = None
    if queries is not None:
        if len(queries) != len(a):
            raise UsageError(f"give one query per pair. Got {len(queries)} queries for {len(a)} pairs instead.")
        clusters = np.unique(np.asarray(queries, dtype=str), return_inverse=True)[1]
    return kappas(a, b, domain, (weights,), resamples=resamples, seed=seed, confidence=confidence,
                  clusters=clusters)[0]


def weight_matrix(k: int, weights: str) -> np.ndarray:
    """Disagreement weights for ``k`` grades: 0 on the diagonal, 1 between the extremes."""
    steps = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) / (k - 1)
    if weights == "unweighted":
        return (steps > 0).astype(np.float64)
    return steps if weights == "linear" else steps**2


def kappa_values(confusion: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Kappa of each K x K count matrix in ``confusion`` (any leading shape); NaN where it is undefined."""
    counts = confusion.astype(np.float64)
    n = counts.sum(axis=(-2, -1))
    observed = (counts * weight).sum(axis=(-2, -1))
    expected = np.einsum("...i,ij,...j->...", counts.sum(axis=-1), weight, counts.sum(axis=-2))
    defined = expected > 0
    ratio = np.divide(observed * n, expected, out=np.full(n.shape, np.nan), where=defined)
    return 1.0 - ratio


def confusion_matrix(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """Counts of (first grade, second grade) positions: rows the first assessor, columns the second."""
    return np.bincount(a.astype(np.int64) * k + b, minlength=k * k).reshape(k, k)


def kappas(a: np.ndarray, b: np.ndarray, grades: Sequence[int], weightings: Sequence[str] = WEIGHTS, *,
           resamples: int = 2000, seed: int = 0, confidence: float = 0.95,
           clusters: np.ndarray | None = None) -> tuple[Kappa, ...]:
    """Each weighting's kappa for domain positions ``a`` and ``b``, the bootstrap shared by all of them.

    ``clusters`` (an integer per pair, its query) is what the bootstrap resamples; ``None``: the pairs.
    """
    k = len(grades)
    matrices = [weight_matrix(k, w) for w in weightings]
    values = [float(kappa_values(confusion_matrix(a, b, k), m)) for m in matrices]
    reason = _reason(a, b, grades)
    groups = np.arange(len(a)) if clusters is None else np.asarray(clusters, dtype=np.int64)
    several = clusters is None or len(np.unique(groups)) >= 2  # one query says nothing across queries
    boot = _bootstrap(a, b, groups, k, matrices, resamples, seed) if reason is None and resamples and several \
        else None
    out = []
    for i, (weights, value) in enumerate(zip(weightings, values)):
        low = high = math.nan
        undefined = 0
        if boot is not None:
            valid = boot[i][~np.isnan(boot[i])]
            undefined = resamples - len(valid)
            if len(valid):
                low, high = (float(q) for q in np.quantile(valid, [(1 - confidence) / 2, (1 + confidence) / 2]))
        out.append(Kappa(weights, value, low, high, confidence, resamples, undefined, reason))
    return tuple(out)


def _bootstrap(a: np.ndarray, b: np.ndarray, clusters: np.ndarray, k: int, matrices: list[np.ndarray],
               resamples: int, seed: int) -> np.ndarray:
    """Kappa of ``resamples`` resamplings of the clusters (with replacement, each with all its pairs).

    Each cluster's confusion counts are summed once; a resample is how many times each cluster was
    drawn, so its confusion matrix is that count vector times the clusters' counts.
    """
    rng = np.random.default_rng(seed)
    _, cluster = np.unique(clusters, return_inverse=True)
    q = int(cluster.max()) + 1
    per_cluster = np.bincount(cluster * k * k + a.astype(np.int64) * k + b, minlength=q * k * k).reshape(q, k * k)
    out = np.empty((len(matrices), resamples))
    step = max(1, _CHUNK // q)
    for start in range(0, resamples, step):
        m = min(step, resamples - start)
        drawn = rng.integers(0, q, size=(m, q)) + (np.arange(m) * q)[:, None]
        times = np.bincount(drawn.ravel(), minlength=m * q).reshape(m, q).astype(np.float64)
        confusion = (times @ per_cluster).reshape(m, k, k)
        for i, matrix in enumerate(matrices):
            out[i, start:start + m] = kappa_values(confusion, matrix)
    return out


def _reason(a: np.ndarray, b: np.ndarray, grades: Sequence[int]) -> str | None:
    if len(a) == 0:
        return "no pair was graded by both assessors"
    if (a == a[0]).all() and (b == a[0]).all():
        return (f"both assessors gave every pair the same grade ({grades[int(a[0])]}): chance agreement is "
                "complete, so kappa is 0/0")
    return None


def _positions(values: Sequence[int], domain: list[int], which: str) -> np.ndarray:
    index = {g: i for i, g in enumerate(domain)}
    out = np.empty(len(values), dtype=np.int64)
    for i, value in enumerate(values):
        if value not in index:
            raise InputError(f"grade {value!r} of the {which} assessor is not in the grade domain",
                             text=f"pair {i + 1}: {value!r}", expected=f"one of {', '.join(map(str, domain))}")
        out[i] = index[value]
    return out


def check_options(weights: str, resamples: int, confidence: float) -> None:
    """Raise :class:`UsageError` for an unknown weighting, a negative resample count or a confidence outside (0, 1)."""
    params.choice("weights", weights, WEIGHTS)
    params.PARAMETERS["resamples"].but(minimum=0).check(resamples)
    params.check("confidence", confidence)
