"""Explain one query: the DCG computation written out rank by rank, as the source documents do it by hand.

>>> import judged
>>> e = judged.explain({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"a": 3, "c": 2, "d": 1}}, "q", "nDCG@3")
>>> [(s.rank, s.docid, s.grade, round(s.contribution, 3)) for s in e.ranking]
[(1, 'a', 3, 3.0), (2, 'b', None, 0.0), (3, 'c', 2, 1.0)]
>>> round(e.dcg, 3), round(e.idcg, 3), round(e.value, 3)
(4.0, 4.762, 0.84)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import polars as pl

from judged import params
from judged.engine.evaluate import evaluate
from judged.engine.kernels import view_key
from judged.engine.ranking import build_view
from judged.engine.view import RankedView
from judged.errors import InputError, JudgedError, UsageError
from judged.io import read_qrels, read_run
from judged.io.inputs import Qrels, Run
from judged.measures import parse
from judged.measures.families.ndcg import dcg, ideal_dcg
from judged.measures.gains import cumulative_discounts, discounts, gains, judged_gains
from judged.measures.hits import relevant_hits
from judged.measures.spec import Measure
from judged.measures.views import measure_view, tie_weights


@dataclass(frozen=True)
class Step:
    """One ranked (or ideal) document: its gain, discount, contribution and the running total."""

    rank: int
    docid: str
    score: float | None
    grade: int | None
    gain: float
    discount: float
    contribution: float
    running: float


@dataclass(frozen=True)
class Explanation:
    """The worked computation of one measure on one query of one run."""

    run: str
    qid: str
    measure: Measure
    ranking: tuple[Step, ...]
    ideal: tuple[Step, ...]
    dcg: float
    idcg: float
    value: float
    recall: float  # relevant (grade >= 1) found in the same top k, over all judged relevant
    judged: float  # Judged@k of the run
    relevant_found: int
    relevant_total: int

    def to_dict(self) -> dict:
        record = asdict(self)
        record["measure"] = str(self.measure)
        return record


def explain(run, qrels, qid: str, measure: Measure | str = "nDCG@10", *, depth: int | None = None) -> Explanation:
    """Explain ``measure`` (nDCG or DCG, any conventions) for query ``qid`` of ``run``."""
    if depth is not None:
        params.count("depth", depth)
    measure = parse(measure) if isinstance(measure, str) else measure
    if measure.name not in ("nDCG", "DCG"):
        raise UsageError(f"explain works out nDCG and DCG; got {measure}.")
    run, qrels = read_run(run), read_qrels(qrels)
    one_run = Run(run.frame.filter(pl.col("qid") == qid), run.name, run.source)
    one_qrels = Qrels(qrels.frame.filter(pl.col("qid") == qid), qrels.name, qrels.source)
    if len(one_qrels) == 0:
        raise InputError(f"query {qid!r} has no judgments", path=qrels.source.path if qrels.source else qrels.name,
                         expected="a qid that appears in the judgments")
    base = build_view(one_run, one_qrels, view_key(measure), depth, keep_docids=True)
    view = measure_view(base, measure)
    judged_at = "Judged" + (f"@{measure.cutoff}" if measure.cutoff else "")
    scores = evaluate(one_run, one_qrels, [measure, judged_at], depth=depth, missing="zero")
    found = int(relevant_hits(base, 1).within(measure.cutoff).count()[0])
    total = int(base.num_relevant(1)[0])
    return Explanation(
        run=run.name,
        qid=qid,
        measure=measure,
        ranking=_ranking_steps(view, measure),
        ideal=_ideal_steps(view, measure, one_qrels),
        dcg=float(dcg(view, measure)[0]),
        idcg=float(ideal_dcg(view, measure)[0]),
        value=float(scores.values[scores.measures[0]][0]),
        recall=found / total if total else float("nan"),
        judged=float(scores.values[scores.measures[1]][0]),
        relevant_found=found,
        relevant_total=total,
    )


def _ranking_steps(view: RankedView, measure: Measure) -> tuple[Step, ...]:
    if view.docid is None:
        raise JudgedError("explain reads a view built with its docids (build_view(keep_docids=True))")
    n = int(view.lengths[0])
    row_gains = judged_gains(view.grade, view.judged, measure.gain)
    if measure.ties == "average":
        weights = tie_weights(view, measure.cutoff, cumulative_discounts(n))
        shown = np.flatnonzero(weights > 0)
    else:
        shown = np.arange(n if measure.cutoff is None else min(n, measure.cutoff))
        weights = discounts(np.arange(n))
    steps, running = [], 0.0
    for i in shown:
        contribution = float(row_gains[i] * weights[i])
        running += contribution
        steps.append(
            Step(int(i) + 1, view.docid[int(i)], float(view.score[i]),
                 int(view.grade[i]) if view.judged[i] else None,
                 float(row_gains[i]), float(weights[i]), contribution, running)
        )
    return tuple(steps)


def _ideal_steps(view: RankedView, measure: Measure, qrels: Qrels) -> tuple[Step, ...]:
    if measure.ideal == "returned":
        docs = pl.DataFrame({"docid": view.docid, "grade": view.grade}).filter(pl.Series(view.judged))
    else:
        docs = qrels.frame.filter(pl.col("grade") >= 0).select("docid", "grade")
    docs = docs.with_columns(gain=pl.Series(gains(docs["grade"].to_numpy(), measure.gain)))
    docs = docs.filter(pl.col("gain") > 0).sort(["gain", "docid"], descending=[True, False])
    if measure.cutoff is not None:
        docs = docs.head(measure.cutoff)
    steps, running = [], 0.0
    for i, (docid, grade, gain) in enumerate(docs.select("docid", "grade", "gain").iter_rows()):
        discount = float(discounts(np.array([i]))[0])
        running += gain * discount
        steps.append(Step(i + 1, docid, None, int(grade), float(gain), discount, gain * discount, running))
    return tuple(steps)
