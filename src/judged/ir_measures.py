"""ir_measures' call shape over judged: ``calc_aggregate``, ``iter_calc`` and ``evaluator`` give its numbers.

Measures are ir_measures names (``"nDCG@10"``, ``"P(rel=2)@5"``, ``"SetP"``) or
ir_measures' own measure objects (``nDCG@10``); each is read into judged's
measure (:mod:`judged.measures.ir_names`) and given, by the ``ir_measures``
preset, the conventions ir_measures applies without naming them: ties by docid
descending and scores compared as 32-bit floats, as its pytrec_eval provider
does, and a judged query missing from the run scored 0 and averaged in. A
measure ir_measures computes another way (``Judged@k``, ``NumRel``) is refused
with the reason, never approximated; ``RR@k`` comes from a provider of its own
that breaks ties by docid ascending, so it agrees where no tie holds the first
relevant document. Results are keyed by the measures as given.

>>> from judged import ir_measures
>>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d9": 1}}
>>> run = {"q1": {"d1": 1.0, "d2": 2.0, "d3": 0.5}}
>>> ir_measures.calc_aggregate(["AP", "P@2"], qrels, run)
{'AP': 0.29166666666666663, 'P@2': 0.25}
>>> next(ir_measures.iter_calc(["AP"], qrels, run))
Metric(query_id='q1', measure='AP', value=0.5833333333333333)

Qrels and runs are what ir_measures takes: ``{qid: {docid: value}}`` dicts,
pandas or polars frames (``query_id, doc_id, relevance`` / ``query_id, doc_id,
score``, or PyTerrier's ``qid, docno, label`` / ``qid, docno, score``), and
iterables of ``Qrel`` / ``ScoredDoc`` namedtuples.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

import polars as pl

from judged.engine.evaluate import evaluate
from judged.engine.result import Result
from judged.errors import UsageError
from judged.io import read_qrels, read_run
from judged.io.inputs import Qrels, Run
from judged.measures.ir_names import from_ir_measures
from judged.measures.spec import Measure
from judged.presets import get as preset
from judged.pytrec_eval import float32_scores


class Metric(NamedTuple):
    """One query's value of one measure, as ir_measures yields it."""

    query_id: str
    measure: Any
    value: float


class Evaluator:
    """Judgments read once for many runs, as ``ir_measures.evaluator(measures, qrels)`` returns."""

    def __init__(self, measures: Iterable[Any], qrels: Any) -> None:
        irm = preset("ir_measures")
        self._measures: dict[Any, Measure] = {m: irm.measure(from_ir_measures(m)) for m in measures}
        if not self._measures:
            raise UsageError("no measures given; name at least one, e.g. nDCG@10.")
        self._options = dict(irm.options)
        self._qrels = _qrels(qrels)

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Every (query, measure, value) of ``run``, query by query in byte order of qid."""
        result = self._evaluate(run)
        for i, qid in enumerate(result.qids):
            for given, measure in self._measures.items():
                value = float(result.values[measure][i])
                if value == value:  # NaN: not scored (cannot happen under missing=zero and norel=0)
                    yield Metric(qid, given, value)

    def calc_aggregate(self, run: Any) -> dict[Any, float]:
        """The mean (the sum, for counts) of each measure over the judged queries."""
        result = self._evaluate(run)
        return {given: result.aggregate[measure] for given, measure in self._measures.items()}

    def _evaluate(self, run: Any) -> Result:
        measures = list(dict.fromkeys(self._measures.values()))
        return evaluate(float32_scores(_run(run)), self._qrels, measures, **self._options)


def evaluator(measures: Iterable[Any], qrels: Any) -> Evaluator:
    """An :class:`Evaluator` over ``qrels`` for ``measures``, to score many runs."""
    return Evaluator(measures, qrels)


def calc_aggregate(measures: Iterable[Any], qrels: Any, run: Any) -> dict[Any, float]:
    """``{measure: aggregate}`` of ``run`` against ``qrels``."""
    return Evaluator(measures, qrels).calc_aggregate(run)


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
    """``Metric(query_id, measure, value)`` for every judged query and measure."""
    return Evaluator(measures, qrels).iter_calc(run)


def _qrels(source: Any) -> Qrels:
    if isinstance(source, (Mapping, Qrels)) or hasattr(source, "columns"):
        return read_qrels(source, columns=_pyterrier_columns(source, "label"))
    rows = [(str(r.query_id), str(r.doc_id), r.relevance) for r in source]
    return read_qrels(pl.DataFrame(rows, schema=["qid", "docid", "grade"], orient="row"))


def _run(source: Any) -> Run:
    if isinstance(source, (Mapping, Run)) or hasattr(source, "columns"):
        return read_run(source, columns=_pyterrier_columns(source, "score"))
    rows = [(str(r.query_id), str(r.doc_id), float(r.score)) for r in source]
    return read_run(pl.DataFrame(rows, schema=["qid", "docid", "score"], orient="row"))


def _pyterrier_columns(source: Any, value: str) -> dict[str, str] | None:
    """PyTerrier frames carry both ``docid`` (its index's integer) and ``docno`` (the document's name): use docno."""
    names = set(getattr(source, "columns", ()))
    if {"docid", "docno"} <= names:
        return {"docid": "docno", **({"grade": "label"} if value == "label" and "label" in names else {})}
    return None
