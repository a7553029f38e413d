"""Two assessors on the pairs both graded: raw agreement, kappas, the confusion matrix, per query and per grade.

Per grade, the *specific agreement* of grade g is :math:`2 n_{gg} / (r_g + c_g)`:
of all the times either assessor used g, the share where the other used it
too (NaN for a grade neither used). Per query, kappa is the linear one and is
often undefined or noisy on a few pairs; raw agreement and the mean distance
in grade steps are given beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judged.agreement.kappa import Kappa, confusion_matrix, kappa_values, kappas, weight_matrix
from judged.agreement.labels import CodedLabels


@dataclass(frozen=True)
class QueryAgreement:
    """One query's pairs graded by both: how many, how many identical, and how far apart on average."""

    qid: str
    pairs: int
    agreed: int
    raw: float
    mean_distance: float
    kappa_linear: float


@dataclass(frozen=True)
class GradeAgreement:
    """How often each assessor used ``grade``, how often both did on the same pair, and the specific agreement."""

    grade: int
    first: int
    second: int
    agreed: int
    specific: float


@dataclass(frozen=True, eq=False)
class AssessorPair:
    """Agreement between assessors ``first`` and ``second`` on the ``pairs`` (query, document) pairs both graded.

    ``confusion[i, j]`` counts pairs ``first`` graded ``grades[i]`` and ``second`` graded ``grades[j]``.
    """

    first: str
    second: str
    grades: tuple[int, ...]
    pairs: int
    agreed: int
    raw: float
    kappas: tuple[Kappa, ...]
    confusion: np.ndarray
    per_query: tuple[QueryAgreement, ...]
    per_grade: tuple[GradeAgreement, ...]

    def kappa(self, weights: str = "linear") -> Kappa:
        """The kappa with these ``weights`` (unweighted, linear or quadratic)."""
        return next(k for k in self.kappas if k.weights == weights)


def compare_pair(coded: CodedLabels, i: int, j: int, *, resamples: int, seed: int,
                 confidence: float) -> AssessorPair:
    """Agreement of assessor ``i`` with assessor ``j`` over the pairs both graded."""
    both = (coded.codes[:, i] >= 0) & (coded.codes[:, j] >= 0)
    a = coded.codes[both, i].astype(np.int64)
    b = coded.codes[both, j].astype(np.int64)
    k = len(coded.grades)
    confusion = confusion_matrix(a, b, k)
    agreed = int(np.trace(confusion))
    qids = np.asarray(coded.qids, dtype=object)[both]
    return AssessorPair(
        first=coded.assessors[i],
        second=coded.assessors[j],
        grades=coded.grades,
        pairs=len(a),
        agreed=agreed,
        raw=agreed / len(a) if len(a) else float("nan"),
        kappas=kappas(a, b, coded.grades, resamples=resamples, seed=seed, confidence=confidence,
                      clusters=np.unique(qids.astype(str), return_inverse=True)[1] if len(qids) else None),
        confusion=confusion,
        per_query=_per_query(qids, a, b, k),
        per_grade=_per_grade(confusion, coded.grades),
    )


def _per_query(qids: np.ndarray, a: np.ndarray, b: np.ndarray, k: int) -> tuple[QueryAgreement, ...]:
    if not len(qids):
        return ()
    names, query = np.unique(qids.astype(str), return_inverse=True)
    q = len(names)
    confusion = np.bincount(query * k * k + a * k + b, minlength=q * k * k).reshape(q, k, k)
    pairs = confusion.sum(axis=(1, 2))
    agreed = np.trace(confusion, axis1=1, axis2=2)
    distance = np.bincount(query, weights=np.abs(a - b), minlength=q)
    linear = kappa_values(confusion, weight_matrix(k, "linear"))
    return tuple(
        QueryAgreement(str(names[n]), int(pairs[n]), int(agreed[n]), float(agreed[n] / pairs[n]),
                       float(distance[n] / pairs[n]), float(linear[n]))
        for n in range(q)
    )


def _per_grade(confusion: np.ndarray, grades: tuple[int, ...]) -> tuple[GradeAgreement, ...]:
    first, second, agreed = confusion.sum(axis=1), confusion.sum(axis=0), np.diag(confusion)
    used = first + second
    specific = np.divide(2.0 * agreed, used, out=np.full(len(grades), np.nan), where=used > 0)
    return tuple(GradeAgreement(g, int(first[n]), int(second[n]), int(agreed[n]), float(specific[n]))
                 for n, g in enumerate(grades))
