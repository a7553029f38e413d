"""Assessor sensitivity: how far do the numbers, and the order of the runs, move between assessors' grades?

Every run is evaluated with every measure under each assessor's judgments (and
under a final, adjudicated set when given), on the pairs every one of them
graded (of the queries all judged), so the means compare like with like: the
pairs one of them never graded are reported as missing, not scored as a
swing. Reported per measure and run:
each assessor's mean, the swing of the mean (largest minus smallest), the
per-query swing and its largest value; and per measure, for each two
assessors, Kendall's tau between the runs' means and whether any two runs
swap places. A swing that recall does not show is the point: grades can move
nDCG by a quarter of the scale while the set of relevant documents, and so
recall, stays the same.

>>> from judged.agreement.assessors import assessor_sensitivity
>>> run = {"q": {"d1": 3.0, "d2": 2.0}}
>>> s = assessor_sensitivity([run], {"ann": {"q": {"d1": 1, "d2": 3}}, "bob": {"q": {"d1": 3, "d2": 3}}},
...                          ["nDCG@2", "R@2"])
>>> [round(float(x), 4) for x in s.swing[:, 0]]   # nDCG@2 moves, recall does not
[0.2033, 0.0]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import polars as pl
from scipy.stats import kendalltau

from judged.engine.evaluate import evaluate
from judged.errors import UsageError
from judged.io import read_qrels, read_run
from judged.io.inputs import Qrels
from judged.measures import parse
from judged.measures.spec import Measure


@dataclass(frozen=True)
class OrderAgreement:
    """The order of the runs by one measure's mean under two assessors.

    ``swapped`` counts run pairs the two assessors order oppositely, ``ties_broken`` those one
    assessor ties and the other separates; ``tau`` is Kendall's tau-b (NaN with a ``reason``).
    """

    measure: Measure
    first: str
    second: str
    tau: float
    swapped: int
    ties_broken: int
    run_pairs: int
    reason: str | None = None

    @property
    def same_order(self) -> bool:
        """No run pair is ordered differently (swapped, or tied under only one assessor)."""
        return self.swapped == 0 and self.ties_broken == 0


@dataclass(frozen=True, eq=False)
class AssessorSensitivity:
    """Runs evaluated under each assessor's grades on the queries all assessors judged.

    ``values[m, r, a, q]`` is measure m of run r under assessor a on ``qids[q]`` (NaN where not
    scored); ``means[m, r, a]`` the aggregate; ``swing[m, r]`` the largest minus the smallest mean
    across assessors; ``query_swing[m, r, q]`` the same per query (NaN with fewer than two values).
    ``left_out[a]`` counts the queries assessor a judged that are left out because another did not;
    ``missing_pairs[a]`` the pairs of the kept queries assessor a graded and another did not, also left
    out: a pair one assessor never graded would count as not relevant under them, a swing that is
    only a gap in the grades.
    """

    runs: tuple[str, ...]
    assessors: tuple[str, ...]
    measures: tuple[Measure, ...]
    qids: tuple[str, ...]
    left_out: dict[str, int]
    missing_pairs: dict[str, int]
    values: np.ndarray
    means: np.ndarray
    orders: tuple[OrderAgreement, ...]

    @property
    def swing(self) -> np.ndarray:
        """Largest minus smallest mean across assessors, per measure and run."""
        return spread(self.means, axis=2)

    @property
    def query_swing(self) -> np.ndarray:
        """Largest minus smallest value across assessors, per measure, run and query."""
        return spread(self.values, axis=2)


def assessor_sensitivity(runs: Iterable, qrels_by_assessor: Mapping[str, Qrels | str], measures: Iterable,
                         *, final: Qrels | str | None = None, final_name: str = "final",
                         missing: str = "skip") -> AssessorSensitivity:
    """Evaluate ``runs`` under each assessor's judgments (and ``final``, named ``final_name``) and compare.

    ``runs`` and the judgments take anything :func:`judged.evaluate` does; ``measures`` are measure
    strings or :class:`~judged.Measure` objects; ``missing`` is the missing-query policy of every
    evaluation.
    """
    judgments = {name: read_qrels(q, name=name) for name, q in qrels_by_assessor.items()}
    if final is not None:
        if final_name in judgments:
            raise UsageError(f"the final set's name {final_name!r} is also an assessor's; choose another.")
        judgments[final_name] = read_qrels(final, name=final_name)
    if len(judgments) < 2:
        raise UsageError("assessor sensitivity needs at least two sets of judgments (assessors or a final set).")
    runs = [read_run(r) for r in runs]
    if not runs:
        raise UsageError("no runs given; name at least one.")
    measures = list(dict.fromkeys(parse(m) if isinstance(m, str) else m for m in measures))
    if not measures:
        raise UsageError("no measures given; name at least one, e.g. nDCG@10.")
    common = _common_queries(judgments)
    pairs = _common_pairs(judgments, common)
    restricted = {name: Qrels(q.frame.join(pairs, on=["qid", "docid"], how="semi"), name, q.source)
                  for name, q in judgments.items()}
    results = [[evaluate(run, restricted[name], measures, missing=missing) for name in restricted] for run in runs]
    qids = results[0][0].qids
    values = np.array([[[r.values[m] for r in per_run] for per_run in results] for m in measures])
    means = np.array([[[r.aggregate[m] for r in per_run] for per_run in results] for m in measures])
    names = tuple(restricted)
    return AssessorSensitivity(
        runs=tuple(r.name for r in runs),
        assessors=names,
        measures=tuple(measures),
        qids=qids,
        left_out={name: q.num_queries - len(common) for name, q in judgments.items()},
        missing_pairs={name: q.frame.filter(pl.col("qid").is_in(common)).height - pairs.height
                       for name, q in judgments.items()},
        values=values,
        means=means,
        orders=tuple(order_agreement(m, names[a], names[b], means[i, :, a], means[i, :, b])
                     for i, m in enumerate(measures) for a, b in combinations(range(len(names)), 2)),
    )


def spread(values: np.ndarray, axis: int) -> np.ndarray:
    """Largest minus smallest along ``axis``, ignoring NaN; NaN where fewer than two values are present."""
    present = ~np.isnan(values)
    high = np.where(present, values, -np.inf).max(axis=axis)
    low = np.where(present, values, np.inf).min(axis=axis)
    out = np.full(high.shape, np.nan)
    np.subtract(high, low, out=out, where=present.sum(axis=axis) >= 2)
    return out


def order_agreement(measure: Measure, first: str, second: str, x: Sequence[float] | np.ndarray,
                    y: Sequence[float] | np.ndarray) -> OrderAgreement:
    """Kendall's tau-b (scipy's) between two assessors' means of the same runs, and the run pairs reordered.

    >>> o = order_agreement(parse("P@5"), "ann", "bob", [0.5, 0.4, 0.3], [0.4, 0.5, 0.3])
    >>> round(o.tau, 4), o.swapped, o.same_order
    (0.3333, 1, False)
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    pairs = list(combinations(range(len(x)), 2))
    signs = [(np.sign(x[i] - x[j]), np.sign(y[i] - y[j])) for i, j in pairs]
    swapped = sum(1 for a, b in signs if a * b < 0)
    ties_broken = sum(1 for a, b in signs if (a == 0) != (b == 0))
    if len(x) < 2:
        reason = "one run: there is no order to compare"
    elif np.isnan(x).any() or np.isnan(y).any():
        reason = "a run has no mean under one of the assessors"
    elif np.ptp(x) == 0 or np.ptp(y) == 0:
        reason = "every run has the same mean under one of the assessors: tau is 0/0"
    else:
        reason = None
    tau = float(kendalltau(x, y).statistic) if reason is None else float("nan")
    return OrderAgreement(measure, first, second, tau, swapped, ties_broken, len(pairs), reason)


def _common_pairs(judgments: Mapping[str, Qrels], common: list[str]) -> pl.DataFrame:
    """The (qid, docid) pairs of the ``common`` queries that every set of judgments grades."""
    frames = [q.frame.filter(pl.col("qid").is_in(common)).select("qid", "docid") for q in judgments.values()]
    shared = frames[0]
    for frame in frames[1:]:
        shared = shared.join(frame, on=["qid", "docid"], how="semi")
    return shared.unique()


def _common_queries(judgments: Mapping[str, Qrels]) -> list[str]:
    sets = [set(q.frame["qid"].to_list()) for q in judgments.values()]
    common = sorted(set.intersection(*sets))
    if not common:
        raise UsageError("no query was judged by every assessor: "
                         + ", ".join(f"{name} judged {q.num_queries}" for name, q in judgments.items()) + ".")
    return common
