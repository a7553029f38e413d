"""User-defined measures (``define``, ``define_byquery``): a function over pandas frames of each query.

The function gets the qrels and the run as ir_measures passes them: frames
with ``query_id, doc_id, relevance`` / ``query_id, doc_id, score`` (or the
columns the caller's frames have), the run ranked as judged ranks it (score
descending, ties by docid descending) and cut at ``@k``. ``define``'s function
sees every query at once and yields ``(qid, value)``; ``define_byquery``'s sees
one query and returns its value.

>>> from judged import ir_measures
>>> First = ir_measures.define_byquery(lambda qrels, run: float(run["doc_id"].iloc[0] == "d2"), name="First")
>>> ir_measures.calc_aggregate([First], {"q": {"d2": 1}}, {"q": {"d1": 1.0, "d2": 2.0}})
{First: 1.0}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pandas as pd
import polars as pl

from judged.ir_measures.measures import Measure, ParamInfo
from judged.ir_measures.providers import aggregate, ranked_rows
from judged.ir_measures.records import CalcResults, Metric, Qrel, ScoredDoc

_DOCS = ["query_id", "doc_id", "score"]
_JUDGMENTS = ["query_id", "doc_id", "relevance"]


class RuntimeMeasure(Measure):
    """A measure whose values a user function computes."""

    impl: Callable[[pd.DataFrame, pd.DataFrame], Iterable[tuple[str, float]]]
    RUN_INPUTS: list[str] = _DOCS
    QREL_INPUTS: list[str] = _JUDGMENTS

    def runtime_impl(self, qrels: pd.DataFrame, run: pd.DataFrame) -> Iterator[Metric]:
        """The function's ``(qid, value)`` pairs over ``run`` cut at this measure's cutoff."""
        cutoff = self.params.get("cutoff")
        if cutoff is not None:
            run = run.groupby("query_id", sort=False).head(cutoff).reset_index(drop=True)
        for qid, value in type(self).impl(qrels, run):
            yield Metric(qid, self, value)


def define(impl: Callable[[pd.DataFrame, pd.DataFrame], Iterable[tuple[str, float]]], name: str | None = None,
           support_cutoff: bool = True, *, run_inputs: list[str] | None = None,
           qrel_inputs: list[str] | None = None, pretty_name: str | None = None,
           short_desc: str | None = None) -> Measure:
    """A measure computed by ``impl(qrels, run)``, which yields ``(qid, value)`` for the queries it scores."""
    params = {"cutoff": ParamInfo(int)} if support_cutoff else {}
    attributes = {"NAME": name or "", "SUPPORTED_PARAMS": params, "impl": staticmethod(impl),
                  "RUN_INPUTS": run_inputs or _DOCS, "QREL_INPUTS": qrel_inputs or _JUDGMENTS,
                  "__doc__": short_desc or pretty_name or f"user-defined measure {name}"}
    return type(f"_{name or 'Runtime'}", (RuntimeMeasure,), attributes)()


def define_byquery(impl: Callable[[pd.DataFrame, pd.DataFrame], float], name: str | None = None,
                   support_cutoff: bool = True, *, run_inputs: list[str] | None = None,
                   qrel_inputs: list[str] | None = None, pretty_name: str | None = None,
                   short_desc: str | None = None) -> Measure:
    """A measure whose value for each query of the run is ``impl(qrels of the query, run of the query)``."""
    def per_query(qrels: pd.DataFrame, run: pd.DataFrame) -> Iterator[tuple[str, float]]:
        for qid, ranked in run.groupby("query_id", sort=False):
            yield qid, impl(qrels[qrels["query_id"] == qid], ranked)
    return define(per_query, name or getattr(impl, "__name__", repr(impl)), support_cutoff,
                  run_inputs=run_inputs, qrel_inputs=qrel_inputs, pretty_name=pretty_name, short_desc=short_desc)


class RuntimeEvaluator:
    """User-defined measures over qrels read once."""

    def __init__(self, measures: Iterable[Measure], qrels: Any) -> None:
        self.measures = list(measures)
        self._qrels = _pandas(qrels, Qrel._fields)
        if "query_id" not in self._qrels.columns:
            raise ValueError(f"Required column query_id not found in qrels. Found columns was "
                             f"{self._qrels.columns.to_list()}")
        self._qrels = self._qrels.sort_values([c for c in ("query_id", "doc_id") if c in self._qrels.columns])
        self.qrel_qids = set(self._qrels["query_id"])

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """The functions' metrics, then each judged query's DEFAULT where a function gave none."""
        ranked = _ranked(_pandas(run, ScoredDoc._fields))
        given: set[tuple[Measure, Any]] = set()
        for measure in self.measures:
            for metric in measure.runtime_impl(self._qrels, ranked):  # type: ignore[attr-defined]
                given.add((metric.measure, metric.query_id))
                yield metric
        missing = {(m, q) for m in self.measures for q in self.qrel_qids} - given
        for measure, qid in sorted(missing, key=lambda pair: (str(pair[0]), pair[1])):
            yield Metric(qid, measure, measure.DEFAULT)

    def calc_aggregate(self, run: Any) -> dict[Measure, float]:
        """Each measure's mean over the metrics."""
        return aggregate(self.measures, self.iter_calc(run))

    def calc(self, run: Any) -> CalcResults:
        """The aggregates and the per-query metrics."""
        metrics = list(self.iter_calc(run))
        return CalcResults(aggregate(self.measures, metrics), metrics)


class RuntimeProvider:
    """The provider of measures made by :func:`define` and :func:`define_byquery`."""

    NAME = "runtime"

    def supports(self, measure: Measure) -> bool:
        """Whether ``measure`` was defined at run time."""
        return isinstance(measure, RuntimeMeasure)

    def is_available(self) -> bool:
        """Always."""
        return True

    def evaluator(self, measures: Iterable[Measure], qrels: Any) -> RuntimeEvaluator:
        """Qrels read once for many runs."""
        return RuntimeEvaluator(measures, qrels)

    def iter_calc(self, measures: Iterable[Measure], qrels: Any, run: Any) -> Iterator[Metric]:
        """Per-query metrics of ``run``."""
        return self.evaluator(measures, qrels).iter_calc(run)

    def calc_aggregate(self, measures: Iterable[Measure], qrels: Any, run: Any) -> dict[Measure, float]:
        """``{measure: mean}`` of ``run``."""
        return self.evaluator(measures, qrels).calc_aggregate(run)

    def run_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """The run columns the measures read."""
        return list(dict.fromkeys(c for m in measures for c in getattr(m, "RUN_INPUTS", ())))

    def qrel_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """The qrels columns the measures read."""
        return list(dict.fromkeys(c for m in measures for c in getattr(m, "QREL_INPUTS", ())))


def _pandas(source: Any, fields: tuple[str, ...]) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        return source
    if isinstance(source, pl.DataFrame):
        return source.to_pandas()
    if isinstance(source, dict):
        rows = [(q, d, v) for q, docs in source.items() for d, v in docs.items()]
        return pd.DataFrame(rows, columns=list(fields[:3]))
    rows = list(source)
    return pd.DataFrame(rows) if rows else pd.DataFrame([], columns=list(fields))


def _ranked(run: pd.DataFrame) -> pd.DataFrame:
    """``run`` in judged's ranking (score descending, ties by docid descending) when it has docs and scores."""
    if not {"query_id", "doc_id", "score"} <= set(run.columns) or run.empty:
        return run.sort_values("query_id", kind="stable") if "query_id" in run.columns else run
    keys = pl.DataFrame({"qid": run["query_id"].astype(str), "docid": run["doc_id"].astype(str),
                         "score": run["score"].astype(float)})
    return run.iloc[ranked_rows(keys, "docid_desc")].reset_index(drop=True)


runtime: RuntimeProvider = RuntimeProvider()
