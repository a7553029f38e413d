"""``agreement()``: every agreement figure for labels from two or more assessors, over a fixed grade domain."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from judged import params
from judged.agreement.alpha import METRICS, Alpha, alpha_from_counts
from judged.agreement.kappa import Kappa, check_options
from judged.agreement.labels import code_labels
from judged.agreement.pairs import AssessorPair, compare_pair
from judged.errors import UsageError


@dataclass(frozen=True, eq=False)
class Agreement:
    """Agreement of ``assessors`` over ``grades``: Krippendorff's alpha for all of them, and every pair of them.

    ``units`` counts the (query, document) pairs anyone graded, ``overlap`` those graded by two or more.
    """

    grades: tuple[int, ...]
    assessors: tuple[str, ...]
    units: int
    overlap: int
    alpha: dict[str, Alpha]
    pairs: tuple[AssessorPair, ...]
    seed: int

    def pair(self, first: str | None = None, second: str | None = None) -> AssessorPair:
        """The comparison of ``first`` with ``second``; with two assessors the only one."""
        if first is None and second is None:
            if len(self.pairs) != 1:
                raise UsageError(f"{len(self.assessors)} assessors: name the two to compare.")
            return self.pairs[0]
        for p in self.pairs:
            if {p.first, p.second} == {first, second}:
                return p
        raise UsageError(f"no comparison of {first!r} with {second!r}; assessors are {', '.join(self.assessors)}.")

    def kappa(self, weights: str = "linear") -> Kappa:
        """The two assessors' kappa with these ``weights``."""
        return self.pair().kappa(weights)


def agreement(labels, *, grades, resamples: int = 2000, seed: int = 0, confidence: float = 0.95) -> Agreement:
    """Agreement of the assessors in ``labels`` (columns qid, docid, assessor, grade) over the domain ``grades``.

    ``grades`` is a :class:`~judged.rubric.Rubric` or the list of its grades; every grade of it counts,
    used or not. Kappa intervals are percentile bootstraps over queries (each with all its pairs), seeded
    by ``seed``.

    >>> import polars as pl
    >>> labels = pl.DataFrame({"qid": ["q1"] * 8, "docid": list("abcdabcd"),
    ...                        "assessor": ["ann"] * 4 + ["bob"] * 4, "grade": [0, 1, 3, 3, 0, 1, 3, 1]})
    >>> a = agreement(labels, grades=[0, 1, 2, 3], resamples=0)
    >>> a.overlap, a.pair().raw, round(a.kappa("linear").value, 4), round(a.alpha["ordinal"].value, 4)
    (4, 0.75, 0.6364, 0.79)
    >>> a.pair().confusion[3].tolist()   # ann's two 3s: bob gave a 1 and a 3
    [0, 1, 0, 1]
    """
    check_options("linear", resamples, confidence)
    params.check("seed", seed)
    coded = code_labels(labels, grades)
    if len(coded.assessors) < 2:
        raise UsageError(f"agreement needs labels from at least two assessors. Got {len(coded.assessors)}: "
                         f"{', '.join(coded.assessors) or 'none'}.")
    k = len(coded.grades)
    graded = coded.codes >= 0
    rows, raters = np.nonzero(graded)
    counts = np.bincount(rows * k + coded.codes[rows, raters], minlength=coded.codes.shape[0] * k)
    counts = counts.reshape(-1, k)
    alphas = {metric: alpha_from_counts(counts, coded.grades, metric) for metric in METRICS}
    pairs = tuple(compare_pair(coded, i, j, resamples=resamples, seed=seed, confidence=confidence)
                  for i, j in combinations(range(len(coded.assessors)), 2))
    return Agreement(
        grades=coded.grades,
        assessors=coded.assessors,
        units=int(graded.any(axis=1).sum()),
        overlap=int((graded.sum(axis=1) >= 2).sum()),
        alpha=alphas,
        pairs=pairs,
        seed=seed,
    )
