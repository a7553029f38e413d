"""Calibrate an automatic assessor against a person on the pairs both graded, before its labels are trusted.

The report answers four questions:

* **Does it agree?** Kappa (linear, with the query-resampled interval) and the
  confusion matrix, from :func:`judged.agreement.agreement`.
* **Does it over-grade?** For each grade the person gave: how many pairs, the
  automatic assessor's mean grade there, and the shares it graded higher and lower.
* **Does it favour some systems?** For each run, over the pairs both graded
  in the run's top ``depth``: raw agreement and the mean grade difference
  (automatic minus human). A judge that likes one system's style shows here.
* **Does it change conclusions?** Each run is evaluated twice on the pairs
  both graded, once with the person's grades and once with the automatic
  ones: each measure's mean per run, Kendall's tau between the two system
  orderings, and which pairwise differences are significant (paired t-test,
  ``alpha``) under one labelling and not the other (*appear* under the
  automatic labels, *vanish*), or significant in both with opposite signs (*flip*).

>>> import polars as pl
>>> labels = pl.DataFrame({"qid": ["q1"] * 4 + ["q2"] * 4, "docid": ["a", "b"] * 4,
...                        "assessor": (["ann"] * 2 + ["llm"] * 2) * 2, "grade": [0, 1, 1, 1, 2, 0, 3, 0]})
>>> c = calibrate(labels, "llm", "ann", grades=[0, 1, 2, 3], resamples=0)
>>> [(b.human_grade, b.pairs, b.mean_automatic) for b in c.bias]
[(0, 2, 0.5), (1, 1, 1.0), (2, 1, 3.0), (3, 0, nan)]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from judged import params
from judged.agreement.pairs import AssessorPair
from judged.agreement.report import agreement
from judged.errors import UsageError


@dataclass(frozen=True)
class GradeBias:
    """Where the person gave ``human_grade``: pairs, the automatic mean grade, shares graded higher and lower."""

    human_grade: int
    pairs: int
    mean_automatic: float
    higher: float
    lower: float


@dataclass(frozen=True)
class RunAgreement:
    """Agreement on the pairs both graded in one run's top k: pairs, raw agreement, mean (automatic - human)."""

    run: str
    pairs: int
    raw: float
    mean_difference: float


@dataclass(frozen=True)
class MeasureShift:
    """One measure under the person's and the automatic labels: means per run, Kendall's tau, significance changes."""

    measure: str
    human: dict[str, float]
    automatic: dict[str, float]
    kendall_tau: float
    appear: tuple[tuple[str, str], ...]
    vanish: tuple[tuple[str, str], ...]
    flip: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Calibration:
    """The calibration of ``automatic`` against ``human`` (see the module docstring)."""

    automatic: str
    human: str
    pair: AssessorPair
    bias: tuple[GradeBias, ...]
    runs: tuple[RunAgreement, ...]
    measures: tuple[MeasureShift, ...]


#: Bootstrap resamples of a calibration's kappa interval: the command line and the lead's page give one interval.
RESAMPLES = 2000


def calibrate(labels: pl.DataFrame, automatic: str, human: str, *, grades: Sequence[int], runs: Sequence = (),
              measures: Sequence[str] = ("nDCG@10",), depth: int = 10, alpha: float = 0.05,
              resamples: int = RESAMPLES, seed: int = 0) -> Calibration:
    """Calibrate ``automatic`` against ``human`` on the pairs both graded in ``labels`` (qid, docid, assessor,
    grade); ``runs`` give the per-run agreement and, two or more, the conclusions under each labelling."""
    params.check("alpha", alpha)
    params.check("seed", seed)
    params.count("depth", depth)
    mine = labels.filter(pl.col("assessor").is_in([automatic, human]))
    for name in (automatic, human):
        if name not in mine["assessor"].to_list():
            raise UsageError(f"assessor {name!r} has no grade to calibrate on.")
    both = (mine.filter(pl.col("assessor") == human).select("qid", "docid", pl.col("grade").alias("human"))
            .join(mine.filter(pl.col("assessor") == automatic).select("qid", "docid", pl.col("grade").alias("auto")),
                  on=["qid", "docid"], how="inner").sort("qid", "docid"))
    if both.is_empty():
        raise UsageError(f"{automatic} and {human} graded no pair in common: there is nothing to calibrate on.")
    result = agreement(mine, grades=grades, resamples=resamples, seed=seed)
    pair = next(p for p in result.pairs if {p.first, p.second} == {automatic, human})
    return Calibration(automatic, human, pair, _bias(both, sorted(grades)), _per_run(both, runs, depth),
                       tuple(_shift(both, runs, m, alpha) for m in measures) if len(runs) >= 2 else ())


def _bias(both: pl.DataFrame, grades: list[int]) -> tuple[GradeBias, ...]:
    out = []
    for g in grades:
        rows = both.filter(pl.col("human") == g)
        auto = rows["auto"].to_numpy().astype(np.float64)
        n = len(auto)
        out.append(GradeBias(g, n, float(auto.mean()) if n else float("nan"),
                             float((auto > g).mean()) if n else float("nan"),
                             float((auto < g).mean()) if n else float("nan")))
    return tuple(out)


def _per_run(both: pl.DataFrame, runs: Sequence, depth: int) -> tuple[RunAgreement, ...]:
    out = []
    for run in runs:
        ranked = run.frame.sort(["qid", "score", "docid"], descending=[False, True, True])  # judged's tie rule
        top = ranked.group_by("qid", maintain_order=True).head(depth)
        rows = both.join(top.select("qid", "docid"), on=["qid", "docid"], how="inner")
        h, a = rows["human"].to_numpy(), rows["auto"].to_numpy()
        n = len(h)
        out.append(RunAgreement(run.name, n, float((h == a).mean()) if n else float("nan"),
                                float((a - h).mean()) if n else float("nan")))
    return tuple(out)


def _shift(both: pl.DataFrame, runs: Sequence, measure: str, alpha: float) -> MeasureShift:
    from scipy.stats import ttest_rel  # judged.stats is a peer layer; its t_test equals this one

    from judged.engine.evaluate import evaluate
    from judged.io.inputs import Qrels

    per_run: dict[str, dict[str, np.ndarray]] = {"human": {}, "auto": {}}
    means: dict[str, dict[str, float]] = {"human": {}, "auto": {}}
    name = measure
    for column in ("human", "auto"):
        frame = both.select("qid", "docid", pl.col(column).alias("grade").cast(pl.Int64))
        qrels = Qrels.from_frame(frame, f"calibration:{column}")
        for run in runs:
            result = evaluate(run, qrels, [measure])
            (m,) = result.measures
            name = str(m)
            per_run[column][run.name] = np.asarray(result.values[m], dtype=np.float64)
            means[column][run.name] = float(result.aggregate[m])
    names = [run.name for run in runs]
    tau = _kendall_tau([means["human"][n] for n in names], [means["auto"][n] for n in names])
    appear, vanish, flip = [], [], []
    for x, y in itertools.combinations(names, 2):
        verdicts = {}
        for column in ("human", "auto"):
            a, b = per_run[column][x], per_run[column][y]
            p_value = float(ttest_rel(a, b).pvalue) if np.any(a != b) else 1.0
            verdicts[column] = int(np.sign(np.mean(a - b))) if p_value < alpha else 0
        if verdicts["auto"] and not verdicts["human"]:
            appear.append((x, y))
        elif verdicts["human"] and not verdicts["auto"]:
            vanish.append((x, y))
        elif verdicts["human"] and verdicts["auto"] and verdicts["human"] != verdicts["auto"]:
            flip.append((x, y))
    return MeasureShift(name, means["human"], means["auto"], tau, tuple(appear), tuple(vanish), tuple(flip))


def _kendall_tau(first: Sequence[float], second: Sequence[float]) -> float:
    """Kendall's tau-b of two orderings (scipy's ``kendalltau``); NaN when either is constant.

    >>> round(_kendall_tau([1, 2, 3], [1, 3, 2]), 4)
    0.3333
    """
    from scipy.stats import kendalltau

    return float(kendalltau(first, second).statistic)
